"""Several bot processes as one for ``benchmarks/load.py``: the processes sharing a load, the
guilds spread over Discord shards, the PostgreSQL server's counters, and ``--processes``: one
process connected to two shards against two processes connected to one shard each, on the same
load, side by side.

A layout is the list of the processes' extra settings, one dict per process: ``one_process(2)``
and ``per_shard(2)`` are the two compared.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from benchmarks.capacity import Figures, pct
from loopback import Loopback
from loopback.botproc import BotProcess

#: Settings of one process's extra environment.
Layout = list[dict[str, str]]
#: The counters of ``pg_stat_database`` read per move.
PG_COUNTERS = ("xact_commit", "tup_inserted", "tup_updated", "tup_deleted")


def one_process(shards: int) -> Layout:
    """One process connected to every one of ``shards`` shards."""
    return [{"KARAK_SHARD_COUNT": str(shards)}] if shards > 1 else [{}]


def per_shard(shards: int) -> Layout:
    """``shards`` processes, each connected to one shard under a name of its own."""
    return [{"KARAK_SHARD_COUNT": str(shards), "KARAK_SHARD_IDS": str(n),
             "KARAK_INSTANCE": f"karak-{n}"} for n in range(shards)]


def shards_of(env: dict[str, str]) -> list[int] | None:
    """The shards a process with these settings connects (None: every one of its count)."""
    ids = env.get("KARAK_SHARD_IDS")
    return [int(i) for i in ids.split(",")] if ids else None


class Bots:
    """The bot processes of one layout, on one stand-in and one database, used as one bot: CPU,
    memory and processes summed over all of them."""

    def __init__(self, lb: Loopback, db: Path, layout: Layout, env: dict[str, str],
                 log: Path, **options: Any) -> None:
        self.lb = lb
        self.layout = layout
        self.procs = [BotProcess(lb, db, log=log.with_name(f"{log.stem}-{n}{log.suffix}"),
                                 extra_env={**env, **extra}, **options)
                      for n, extra in enumerate(layout)]

    @property
    def pid(self) -> str:
        """The processes' ids, comma-separated."""
        return ",".join(str(p.pid) for p in self.procs)

    async def start(self, timeout: float = 90.0) -> None:
        """Start the processes one after the other, each once all its shards connected."""
        for proc, env in zip(self.procs, self.layout, strict=True):
            await proc.start(timeout=timeout, shards=shards_of(env))

    async def stop(self) -> None:
        """Stop every process (and its workers)."""
        for proc in self.procs:
            await proc.stop()

    def pids(self) -> list[int]:
        """Every live process of every bot (their workers too)."""
        return [pid for p in self.procs for pid in p.pids()]

    def rss(self, children: bool = True) -> int:
        """Resident bytes of all the bots (with their workers unless ``children`` is False)."""
        return sum(p.rss(children) for p in self.procs)

    def cpu_seconds(self, children: bool = True) -> float:
        """CPU seconds used so far by all the bots (with their workers)."""
        return sum(p.cpu_seconds(children) for p in self.procs)

    def log_tail(self, lines: int = 40) -> str:
        """The end of each process's log."""
        return "\n".join(p.log_tail(lines) for p in self.procs)


async def pg_counters(url: str) -> dict[str, float]:
    """The database's ``pg_stat_database`` counters (:data:`PG_COUNTERS`) and its action log's
    length (``moves``), read now (after flushing this session's own statistics)."""
    import asyncpg

    db = await asyncpg.connect(url)
    try:
        row = await db.fetchrow(f"SELECT {', '.join(PG_COUNTERS)} FROM pg_stat_database "
                                "WHERE datname = current_database()")
        moves = await db.fetchval("SELECT COUNT(*) FROM actions")
    finally:
        await db.close()
    assert row is not None, "the database has no statistics"
    return {**{k: float(row[k]) for k in PG_COUNTERS}, "moves": float(moves)}


Measure = Callable[..., Awaitable[Figures]]


async def processes(args: argparse.Namespace, measure: Measure) -> int:
    """Measure, ``--rounds`` times each and in turn, one process connected to ``--shards``
    shards and ``--shards`` processes of one shard each, on PostgreSQL (a throwaway server, a
    new database each run), and print the CPU per move (all bots with their workers, then the
    server's), the database's commits and row writes per move, and the hand after a move (p99)
    side by side."""
    # found through sys.path (the tests' folder), which mypy does not search
    from postgres_server import running_server  # type: ignore[import-not-found]

    layouts = {"one process": one_process(args.shards), "processes": per_shard(args.shards)}
    runs: dict[str, list[Figures]] = {k: [] for k in layouts}
    with running_server() as server:
        for n in range(args.rounds):
            for name, layout in layouts.items():
                url = await server.new_database()
                f = await measure(args, args.tables, args.warmup, args.duration, False,
                                  url=url, server_cpu=server.cpu_seconds, layout=layout)
                runs[name].append(f)
                print(f"round {n + 1} {name} ({len(layout)}): {f.moves / f.span:.1f} moves/s, "
                      f"CPU per move "
                      f"{f.cpu_per_move * 1000:.2f} ms (server {f.server_cpu * 1000:.2f} ms), "
                      f"{describe(f.db)}, hand p99 {pct(f.hand, 0.99):.0f} ms, "
                      f"breaches {f.breaches}", flush=True)

    def median(name: str, value: Callable[[Figures], float]) -> float:
        return statistics.median(value(f) for f in runs[name])

    one, many = "one process", "processes"
    print(f"{args.tables} tables on {args.shards} shards, PostgreSQL, median of {args.rounds} "
          f"runs each: one process / {args.shards} processes")
    for label, value, unit in (
            ("CPU per move (bots, workers, server)", lambda f: f.cpu_per_move * 1000, "ms"),
            ("  of which the server", lambda f: f.server_cpu * 1000, "ms"),
            ("moves applied per second", lambda f: f.moves / f.span, "/s"),
            ("hand after a move, p99", lambda f: pct(f.hand, 0.99), "ms"),
            *((f"{k} per move", lambda f, k=k: f.db.get(k, float("nan")), "")
              for k in PG_COUNTERS)):
        a, b = median(one, value), median(many, value)
        print(f"  {label}: {a:.2f} / {b:.2f} {unit} ({(b / a - 1) * 100 if a else 0:+.1f}%)")
    return 0 if all(f.breaches == 0 for fs in runs.values() for f in fs) else 1


def checked(p: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.Namespace:
    """``args`` of ``p`` (``--humans``, ``--ai``, ``--bot-env``) checked: 2 to 4 seats a table,
    the bot's settings as a dict."""
    if not 2 <= args.humans + args.ai <= 4:
        p.error("a table has 2 to 4 seats")
    if any("=" not in e for e in args.bot_env):
        p.error("--bot-env takes NAME=VALUE")
    args.bot_env = dict(e.split("=", 1) for e in args.bot_env)
    return args


def describe(per_move: dict[str, float]) -> str:
    """The database's counters per move, short."""
    return ", ".join(f"{k} {v:.2f}" for k, v in per_move.items()) + " per move"
