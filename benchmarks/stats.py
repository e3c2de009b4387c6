"""``/goblin stats`` and ``/goblin leaderboard`` on a server with a long history: their answers'
latency, and the rebuild of every rating.

    .venv/bin/python benchmarks/stats.py --matches 10000 --people 300 --asks 200

A new SQLite database (the bot's backend, in a temporary folder) gets ``--matches`` finished
matches of one server, seeded: two to four seats, each a person drawn among ``--people`` or
(one match in ten with one person) AI seats at a random level, random heroes, keys and hit
points, a random champion; each is stored as the bot stores a match that ends, through the
storage interface (:func:`build`). The ratings are then rebuilt from them (``python -m
bot.admin ratings --recompute`` does the same): its time is printed.

Then ``--asks`` times each, for random people, the handlers' own work, measured directly
(no Discord, no stand-in): ``/goblin leaderboard``'s first response is its whole answer (the
service's page and the message built); ``/goblin stats`` first answers with a deferral (no
work), then its finished answer is the service's record, the text and the chart drawn with
Pillow. Printed: p50, p99 and the goals (leaderboard <= 50 ms, stats finished <= 300 ms,
rebuild <= 10 s).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.discord_side.standings import board_view, stats_chart, stats_text  # noqa: E402
from bot.game.places import Place  # noqa: E402
from bot.game.standings import Standings  # noqa: E402
from bot.storage.records import LogRow, SeatInfo, SeatResult, TableResult  # noqa: E402
from bot.storage.sqlite import Store  # noqa: E402
from engine import GameConfig, GameState, Phase, SeatConfig, apply, new_game, observe  # noqa: E402
from engine.agents import LEVELS, make_agent  # noqa: E402

GUILD = 1
HEROES = ("horan", "taia", "argentus", "xanros", "victorius", "aderyn")


def a_match(rng: random.Random, table: int, people: list[int]) -> TableResult:
    """One random finished match at ``table``."""
    size = rng.randint(2, 4)
    alone = rng.random() < 0.1
    users: list[int | None] = [rng.choice(people)] + [None] * (size - 1) if alone else \
        list(rng.sample(people, size))
    heroes = rng.sample(HEROES, size)
    winner = rng.randrange(size)
    kh = [(4 if i == winner else rng.randint(0, 3), rng.randint(0, 5)) for i in range(size)]
    order = sorted(range(size), key=lambda i: (i != winner, -kh[i][0], -kh[i][1]))
    place = {seat: order.index(seat) + 1 for seat in range(size)}
    seats = tuple(SeatResult(
        seat=i, user_id=u, kind="person" if u is not None else "ai",
        ai_level=rng.choice(LEVELS) if u is None else None, hero=heroes[i], keys=kh[i][0],
        hp=kh[i][1], place=place[i], handed_to_ai=u is not None and rng.random() < 0.03,
        moved=u is not None)
        for i, u in enumerate(users))
    return TableResult(table, GUILD, 10, 1_700_000_000.0 + table * 60, 12, 300, "bench",
                       winner, users[winner], seats, Place.server(GUILD).key)


def last_moves() -> dict[int, tuple[GameState, GameState, str]]:
    """For 2, 3 and 4 seats, one game played to its end by the reach agent: the state before
    its last move, its final state and that move."""
    out = {}
    for size in (2, 3, 4):
        state = new_game(GameConfig(seats=tuple(SeatConfig(h, ai=True) for h in HEROES[:size]),
                                    abilities=False, seed=size))
        agent = make_agent("reach", size)
        while True:
            action = agent.choose(observe(state, state.current))
            after, _ = apply(state, action)
            if after.phase is Phase.OVER:
                out[size] = (state, after, str(action))
                break
            state = after
    return out


async def build(store: Store, matches: int, people: list[int], seed: int) -> None:
    """Store ``matches`` random finished matches as the bot stores a match: a table created,
    its game started and its last move applied with the match's result (as the game hands
    it). The table's own states are those of one real game of the match's size; only the
    results, which the answers read, differ from match to match."""
    rng = random.Random(seed)
    endings = last_moves()
    for table in range(1, matches + 1):
        result = a_match(rng, table, people)
        before, final, move = endings[len(result.seats)]
        seats = tuple(SeatInfo(ai=True, hero=seat.hero) if s.user_id is None
                      else SeatInfo(user=s.user_id, name=f"p{s.user_id}", hero=seat.hero)
                      for s, seat in zip(result.seats, before.seats, strict=True))
        record = await store.create_table(
            guild_id=GUILD, place_key=Place.server(GUILD).key, channel_id=10,
            host_id=result.seats[0].user_id or 1, seats=seats, abilities=False, timer=0,
            seed=final.config.seed)
        await store.start_game(record.id, seats, before, None)
        await store.apply(record.id, before.step, final,
                          LogRow(final.step, before.current, None, True, move, 0.0),
                          result=replace(result, table_id=record.id))


def percentiles(samples: list[float]) -> str:
    """p50 and p99 in milliseconds."""
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return f"p50 {statistics.median(ordered) * 1000:6.1f} ms  p99 {p99 * 1000:6.1f} ms"


async def run(args: argparse.Namespace) -> None:
    """Build the database, rebuild the ratings, time the answers."""
    people = [100_000 + i for i in range(args.people)]
    with tempfile.TemporaryDirectory() as folder:
        store = await Store.open(Path(folder) / "bench.sqlite3")
        try:
            await build(store, args.matches, people, args.seed)
            standings = Standings(store)
            started = time.perf_counter()
            count = await standings.recompute()
            rebuild = time.perf_counter() - started
            rng = random.Random(args.seed + 1)
            board, stats = [], []
            for _ in range(args.asks):
                user = rng.choice(people)
                started = time.perf_counter()
                page = await standings.leaderboard(Place.server(GUILD), user, rng.randrange(4))
                board_view(page, GUILD, "en")
                board.append(time.perf_counter() - started)
                started = time.perf_counter()
                record = await standings.stats(Place.server(GUILD), user)
                stats_text(record, "Player", "en")
                await asyncio.to_thread(stats_chart, record, "Player", "en")
                stats.append(time.perf_counter() - started)
        finally:
            await store.close()
    print(f"{count} matches among {args.people} people rebuilt in {rebuild:.2f} s "
          "(goal <= 10 s)")
    print(f"/goblin leaderboard first response  {percentiles(board)}  (goal p99 <= 50 ms)")
    print("/goblin stats first response        a deferral, no work")
    print(f"/goblin stats finished with chart   {percentiles(stats)}  (goal p99 <= 300 ms)")


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; the exit status."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--people", type=int, default=300)
    parser.add_argument("--asks", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    asyncio.run(run(parser.parse_args(argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
