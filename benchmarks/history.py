"""Past matches in the bot: a replay step answered with its new picture, and ``/goblin history``
on a database of many finished matches.

    .venv/bin/python benchmarks/history.py [--seed 1] [--min-actions 650] [--max-actions 800]
                                           [--steps 200] [--matches 10000] [--pages 300]

Printed:

* a replay step as the bot answers a click (:class:`bot.game.history.History` reading the table
  and its replay, kept or rebuilt from the database's action log, the spectator's view, the
  table picture and the battle picture during a battle, drawn by Pillow in this process as a
  drawing worker does, and the replay message's layout), on the first match from ``--seed``
  of ``--min-actions`` to ``--max-actions`` actions stored through the storage interface: p50
  and p99 over ``--steps`` random steps, with the replay kept (what the bot does between
  clicks) and rebuilt for every click (after a restart, or once evicted). Goal: p99 <= 300 ms;
* ``/goblin history`` on a database of ``--matches`` finished matches of one server, written
  through the storage interface (each table started one move before the end of one seeded game,
  its seats drawn from 12 people and the AI, then its last move played, which writes its result):
  a page of the server's matches and a page of one person's, at random anchors, with the page's
  layout, p50 and p99 over ``--pages`` pages each. Goal: p99 <= 300 ms.

Times are wall-clock with the process's CPU time beside them; the machine may be shared.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.replay import long_match, match_options  # noqa: E402
from benchmarks.timing import p99_line, timed  # noqa: E402
from bot.discord_side.ui.past import history_view, replay_view  # noqa: E402
from bot.game.history import History  # noqa: E402
from bot.game.places import Place, Sight  # noqa: E402
from bot.game.tables import Tables  # noqa: E402
from bot.storage.records import LogRow, SeatInfo  # noqa: E402
from bot.storage.sqlite import Store  # noqa: E402
from engine import GameState, Phase, apply, new_game, observe  # noqa: E402
from engine.agents import make_agent  # noqa: E402
from engine.simulate import seated  # noqa: E402
from render import battle_image, table_image  # noqa: E402

GOAL_MS = 300.0
GUILD = 1
PLACE = Place.server(GUILD).key
SIGHT = Sight(Place.server(GUILD))
HEROES = ("horan", "taia", "argentus", "xanros")


async def store_match(store: Store, states: list[GameState], actions: list[str], *,
                      start: int = 0, seats: tuple[SeatInfo, ...] | None = None) -> int:
    """A finished table of the server that played ``actions`` from step ``start``."""
    config = states[0].config
    if seats is None:
        seats = tuple(SeatInfo(ai=True, hero=s.hero, level="normal") for s in config.seats)
    rec = await store.create_table(guild_id=GUILD, place_key=PLACE,
                                   channel_id=len(actions), host_id=1,
                                   seats=seats, abilities=config.abilities, timer=0,
                                   seed=config.seed)
    await store.start_game(rec.id, seats, states[start], None)
    for i in range(start, len(actions)):
        await store.apply(rec.id, i, states[i + 1],
                          LogRow(step=i + 1, seat=states[i].current, user_id=None, by_ai=True,
                                 action=actions[i], at=0.0))
    return rec.id


async def replay_steps(folder: Path, seed: int, steps: int, least: int, most: int) -> None:
    """The replay step figures."""
    found, match = long_match(seed, least, most)
    store = await Store.open(folder / "replay.sqlite3")
    try:
        states = [match.state(i) for i in range(match.last + 1)]
        tid = await store_match(store, states, [str(a) for a in match.actions])
        print(f"match: seed {found}, {match.last} actions, {match.final.round} rounds, "
              f"{len(match.bookmarks)} bookmarks")
        history = History(store, Tables(store))
        order = random.Random(seed).choices(range(match.last + 1), k=steps)

        async def step(at: int) -> None:
            loaded = await history.replay(tid, SIGHT)
            view = loaded.replay.view(at)
            names = ["table.png"]
            table_image(view, "en")
            if view.battle is not None:
                battle_image(view, "en")
                names.append("battle.png")
            replay_view(loaded, at, False, "en", names)

        await step(match.last)  # fonts and pictures' parts loaded once, not counted
        kept = [await timed(partial(step, at)) for at in order]
        print(p99_line("replay step, replay kept", kept, GOAL_MS))
        rebuilt = []
        for at in order[: max(1, steps // 4)]:
            history = History(store, Tables(store))  # nothing kept: rebuilt from the log
            rebuilt.append(await timed(partial(step, at)))
        print(p99_line("replay step, rebuilt from the database", rebuilt, GOAL_MS))
    finally:
        await store.close()


def one_game(seed: int) -> tuple[list[GameState], list[str]]:
    """A 4-seat game played to its end by normal agents."""
    state = new_game(seated(seed, 4, abilities=False))
    agents = [make_agent("normal", seed * 8 + i) for i in range(4)]
    states, actions = [state], []
    while state.phase is not Phase.OVER:
        action = agents[state.current].choose(observe(state, state.current))
        actions.append(str(action))
        state, _ = apply(state, action)
        states.append(state)
    return states, actions


async def history_pages(folder: Path, seed: int, matches: int, pages: int) -> None:
    """The ``/goblin history`` figures."""
    states, actions = one_game(seed)
    rng = random.Random(seed)
    people = [1000 + i for i in range(12)]
    store = await Store.open(folder / "history.sqlite3")
    try:
        start = time.perf_counter()
        for _ in range(matches):
            who = rng.sample(people, rng.randint(1, 4))
            seats = tuple(SeatInfo(user=who[i], name=f"P{who[i]}", hero=HEROES[i])
                          if i < len(who) else SeatInfo(ai=True, hero=HEROES[i], level="easy")
                          for i in range(4))
            await store_match(store, states, actions, start=len(actions) - 1, seats=seats)
        print(f"database: {matches} finished matches written in "
              f"{time.perf_counter() - start:.1f} s "
              f"({os.path.getsize(folder / 'history.sqlite3') / 2**20:.1f} MiB)")
        history = History(store, Tables(store))
        newest = (await store.matches(PLACE, limit=1))[0].table_id

        async def page(player: int | None) -> None:
            anchor = rng.randint(1, newest + 1)
            shown = await history.page(SIGHT, player, before=anchor)
            history_view(shown, player, "en")

        asked: tuple[tuple[str, int | None], ...] = (
            ("history page, the server's matches", None),
            ("history page, one person's matches", people[0]))
        for label, player in asked:
            times = [await timed(partial(page, player)) for _ in range(pages)]
            print(p99_line(label, times, GOAL_MS))
    finally:
        await store.close()


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        await replay_steps(Path(folder), args.seed, args.steps, args.min_actions,
                           args.max_actions)
        await history_pages(Path(folder), args.seed, args.matches, args.pages)


def main(argv: list[str] | None = None) -> int:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    match_options(parser)
    parser.add_argument("--steps", type=int, default=200, help="random replay steps shown")
    parser.add_argument("--matches", type=int, default=10000, help="finished matches stored")
    parser.add_argument("--pages", type=int, default=300, help="history pages asked for")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    asyncio.run(run(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
