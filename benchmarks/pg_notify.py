"""How many small write transactions a second one PostgreSQL server commits when each also
sends a notification (``pg_notify``, as every table write of the bot does so that other
processes hear of it) and when none does.

Usage: ``python benchmarks/pg_notify.py [--clients 16] [--seconds 10] [--rounds 2]``.

A throwaway server (started as the tests start it, but flushing every commit to disk as a
production server does) and ``--clients`` connections, one per bot process of a large
deployment, each updating a row of its own in a loop of one-statement transactions for
``--seconds``, first without then with a notification in each transaction, ``--rounds`` times.
PostgreSQL serialises the commits of notifying transactions (a lock held until the commit is on
disk), so their rate is bounded by the disk's flush time whatever the number of clients, where
plain commits are flushed together.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the throwaway PostgreSQL server of the tests


async def commits_per_second(url: str, clients: int, seconds: float, notify: bool) -> float:
    """Commits a second of ``clients`` connections writing for ``seconds``."""
    import asyncpg

    pool = await asyncpg.create_pool(url, min_size=clients, max_size=clients)
    statement = ("WITH n AS (SELECT pg_notify('bench', $1::int::text)) "
                 "UPDATE rows SET v = v + 1 FROM n WHERE id = $1::int" if notify
                 else "UPDATE rows SET v = v + 1 WHERE id = $1")
    done = 0
    end = time.monotonic() + seconds

    async def client(n: int) -> None:
        nonlocal done
        async with pool.acquire() as db:
            while time.monotonic() < end:
                await db.execute(statement, n)
                done += 1

    try:
        started = time.monotonic()
        await asyncio.gather(*(client(n) for n in range(clients)))
        return done / (time.monotonic() - started)
    finally:
        await pool.close()


async def main(args: argparse.Namespace) -> int:
    """Measure both kinds of writes in turn and print their commit rates."""
    # found through sys.path (the tests' folder), which mypy does not search
    import asyncpg
    from postgres_server import running_server  # type: ignore[import-not-found]

    with running_server(durable=True) as server:
        url = await server.new_database()
        db = await asyncpg.connect(url)
        try:
            await db.execute("CREATE TABLE rows (id INT PRIMARY KEY, v BIGINT NOT NULL)")
            await db.executemany("INSERT INTO rows VALUES ($1, 0)",
                                 [(n,) for n in range(args.clients)])
        finally:
            await db.close()
        rates: dict[bool, list[float]] = {False: [], True: []}
        for n in range(args.rounds):
            for notify in (False, True):
                rate = await commits_per_second(url, args.clients, args.seconds, notify)
                rates[notify].append(rate)
                print(f"round {n + 1}, {'with' if notify else 'without'} a notification: "
                      f"{rate:.0f} commits/s", flush=True)
    plain, notifying = (max(rates[k]) for k in (False, True))
    print(f"{args.clients} clients, best of {args.rounds}: {plain:.0f} commits/s without a "
          f"notification, {notifying:.0f} with one ({notifying / plain:.2f}x)")
    return 0


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--rounds", type=int, default=2)
    return p.parse_args(argv)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse())))
