"""``/goblin stats`` and ``/goblin leaderboard`` on a server with a long history: their answers'
latency, and the rebuild of every rating.

    .venv/bin/python benchmarks/stats.py --matches 10000 --people 300 --asks 200

A new SQLite database (the bot's backend, in a temporary folder) gets ``--matches`` finished
matches of one server, seeded: two to four seats, each a person drawn among ``--people`` or
(one match in ten with one person) AI seats at a random level, random heroes, keys and hit
points, a random champion; their results are written as the store writes them
(``insert_result``). The ratings are then rebuilt from them (``python -m bot.admin ratings
--recompute`` does the same): its time is printed.

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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.discord_side.standings import board_view, stats_chart, stats_text  # noqa: E402
from bot.game.places import Place  # noqa: E402
from bot.game.standings import Standings  # noqa: E402
from bot.storage.records import SeatResult, TableResult  # noqa: E402
from bot.storage.sqlite import Store  # noqa: E402
from bot.storage.sqlite_rows import insert_result  # noqa: E402
from engine.agents import LEVELS  # noqa: E402

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


async def build(store: Store, matches: int, people: list[int], seed: int) -> None:
    """Write ``matches`` random finished matches (their table rows and results)."""
    rng = random.Random(seed)
    async with store._tx() as db:  # one transaction: a benchmark's set-up, not the bot's path
        for table in range(1, matches + 1):
            await db.execute(
                "INSERT INTO tables (id, guild_id, channel_id, host_id, status, seed, seats, "
                "created_at, updated_at, finished_at) VALUES (?, ?, 10, 1, 'finished', 1, "
                "'[]', 0, 0, 0)", (table, GUILD))
            await insert_result(db, a_match(rng, table, people))


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
