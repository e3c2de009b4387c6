"""``/goblin turns`` on a database of many slow matches: a person's running matches everywhere.

    .venv/bin/python benchmarks/turns.py [--matches 1000] [--people 2000] [--mine 50]
                                         [--asks 200] [--cold 20] [--seed 1] [--postgres]

``--matches`` running matches with a 3-day turn timer among ``--people`` people (two or three
people a match, the other seats the AI, the deadlines spread over the three days, each with its
table message), stored through the storage interface on SQLite (``--postgres``: on a throwaway
PostgreSQL server started as the tests start it); one person sits in ``--mine`` of them, at
various seats. Printed: ``/goblin turns`` for that person as the bot answers it without Discord
(the storage query through ``table_seats``, each table as the store serves it, the list sorted
and its first page's text and layout built), p50 and p99 over ``--asks`` asks with the tables
kept by the store (what a running bot does), and over ``--cold`` asks each on a store just
opened (nothing kept: every table read and parsed). Goal: p99 <= 300 ms. For comparison, what
the index spares: the person's tables found by reading every running table (on a store just
opened, up to 3 times).

Times are wall-clock with the process's CPU time beside them; the machine may be shared.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "tests"))  # the throwaway PostgreSQL server of the tests

from benchmarks.timing import p99_line, pct, timed  # noqa: E402
from bot.discord_side.turns import turns_view  # noqa: E402
from bot.game.places import Place  # noqa: E402
from bot.game.turns import Turns, page_text  # noqa: E402
from bot.storage import postgres, sqlite  # noqa: E402
from bot.storage.interface import Storage  # noqa: E402
from bot.storage.records import SeatInfo  # noqa: E402
from engine import GameConfig, SeatConfig, new_game  # noqa: E402

GOAL_MS = 300.0
THREE_DAYS = 3 * 86400
HEROES = ("horan", "taia", "argentus", "xanros", "aderyn", "victorius")
#: People's ids look like Discord's.
FIRST_ID = 10**17
NOW = 1_800_000_000.0


async def fill(store: Storage, rng: random.Random, matches: int, people: int,
               mine: int) -> int:
    """Store the running matches; the id of the person who sits in ``mine`` of them."""
    me = FIRST_ID
    others = [FIRST_ID + 1 + i for i in range(people - 1)]
    for n in range(matches):
        size = rng.choice((2, 3, 4))
        humans = rng.randint(2, min(3, size))
        who = rng.sample(others, humans)
        if n < mine:
            who[rng.randrange(humans)] = me
        heroes = rng.sample(HEROES, size)
        seats = tuple(SeatInfo(user=who[i], name=f"P{who[i] - FIRST_ID}", hero=h)
                      if i < humans else SeatInfo(ai=True, hero=h, level="easy")
                      for i, h in enumerate(heroes))
        seats = tuple(rng.sample(seats, size))
        guild = None if n % 10 == 0 else 1 + n % 40
        host = next(s.user for s in seats if s.user is not None)
        state = new_game(GameConfig(seats=tuple(SeatConfig(s.hero or "horan") for s in seats),
                                    seed=n))
        rec = await store.create_table(
            guild_id=guild, place_key=Place.of(guild, host).key, channel_id=10**6 + n,
            host_id=host, seats=seats, abilities=False, timer=THREE_DAYS, seed=n)
        await store.start_game(rec.id, seats, state, NOW + rng.uniform(60, THREE_DAYS))
        await store.set_message(rec.id, message_id=10**7 + n)
    return me


async def ask(store: Storage, me: int) -> None:
    """/goblin turns for ``me``, as the bot answers it, without Discord."""
    turns = await Turns(store, lambda: NOW).of(me)
    page_text(turns, 0, "en")
    turns_view(turns, me, 0, "en")


async def scan(store: Storage, me: int) -> None:
    """What ``table_seats`` spares: finding ``me``'s tables by reading every running table."""
    for tid in await store.ids_with_status("running"):
        record = await store.get(tid)
        assert record is not None
        record.seat_of(me)


async def cold_ask(opener: Callable[[], Awaitable[Storage]], me: int,
                   work: Callable[[Storage, int], Awaitable[None]] = ask) -> tuple[float, float]:
    """One ``work`` timed on a store just opened (nothing kept), which is closed after."""
    store = await opener()
    try:
        return await timed(lambda: work(store, me))
    finally:
        await store.close()


@asynccontextmanager
async def database(use_postgres: bool) -> AsyncIterator[Callable[[], Awaitable[Storage]]]:
    """What opens a store on a new database (SQLite in a temporary folder, or PostgreSQL)."""
    if not use_postgres:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "turns.sqlite3"

            async def open_sqlite() -> Storage:
                return await sqlite.Store.open(path, clock=lambda: NOW)
            yield open_sqlite
        return
    from postgres_server import running_server  # type: ignore[import-not-found]

    with running_server() as server:
        url = await server.new_database()

        async def open_postgres() -> Storage:
            return await postgres.Store.open(url, clock=lambda: NOW)
        yield open_postgres


async def run(args: argparse.Namespace) -> int:
    """Fill the database, time the asks, print; 1 when the goal is missed."""
    rng = random.Random(args.seed)
    async with database(args.postgres) as opener:
        store = await opener()
        started = time.perf_counter()
        me = await fill(store, rng, args.matches, args.people, args.mine)
        print(f"database ({'postgres' if args.postgres else 'sqlite'}): {args.matches} running "
              f"matches among {args.people} people, written in "
              f"{time.perf_counter() - started:.1f} s; the person sits in "
              f"{len(await store.running_of(me))}")
        kept = [await timed(lambda: ask(store, me)) for _ in range(args.asks)]
        await store.close()
        cold = []
        for _ in range(args.cold):
            cold.append(await cold_ask(opener, me))
        scans = [await cold_ask(opener, me, scan) for _ in range(min(args.cold, 3))]
    print(p99_line("turns, tables kept", kept, GOAL_MS))
    print(p99_line("turns, store just opened", cold, GOAL_MS))
    print(p99_line("without table_seats: every running table read, store just opened", scans,
                   GOAL_MS))
    worst = max(pct([w for w, _ in kept], 0.99), pct([w for w, _ in cold], 0.99))
    return 0 if worst <= GOAL_MS else 1


def main(argv: list[str] | None = None) -> int:
    """Parse the options and run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--people", type=int, default=2000)
    parser.add_argument("--mine", type=int, default=50)
    parser.add_argument("--asks", type=int, default=200)
    parser.add_argument("--cold", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--postgres", action="store_true")
    return asyncio.run(run(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
