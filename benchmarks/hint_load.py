"""Hints under load: N busy tables of one simulated person and AI seats against the real bot
(``python -m bot``) on the loopback stand-in, measured in two windows of the same run.

Usage: ``python benchmarks/hint_load.py [--tables 100] [--ai 2] [--ai-level normal]
[--think 3] [--hint-chance 0.3] [--warmup 15] [--duration 60] [--ai-pace 1.5]
[--against DIR [--rounds 3]]``.

The people are ``benchmarks/people.py``'s (hints are on at their tables: one person against AI
seats). In the first window nobody asks for a hint; in the second each person clicks the
hand's Hint button before a decision with ``--hint-chance``. Printed: the hint's answer time
(from INTERACTION_CREATE to the private answer, p50 / p99 / max; goal p99 <= 1.5 s) and the AI
seats' delay (from the move before to the AI seat's move, read from the bot's action log) in
each window, p50 / p99 (goal: the p99 with hints within 10% of the one without), with the bot's
CPU use. The AI seats' delay includes the AI's pace (``--ai-pace``, the bot's
``KARAK_AI_PACE``).

With ``--against DIR`` (another version of the project, e.g. ``git archive <commit>`` unpacked
in ``DIR``), the same run is made ``--rounds`` times with each version's bot in turn
(``benchmarks/load.py``'s way), each run's figures in one line, then the medians of each
version: the hint's p50 and p99, and the AI seats' p99 ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import running  # noqa: E402
from benchmarks.capacity import pct  # noqa: E402
from benchmarks.load import ROOT, spread  # noqa: E402
from benchmarks.people import Stats, Table, stop_all  # noqa: E402
from benchmarks.versions import in_turn  # noqa: E402
from bot.discord_side.ui.custom_ids import HintButton  # noqa: E402
from loopback import Loopback  # noqa: E402
from loopback.botproc import BotProcess  # noqa: E402


def ai_delays(db: Path, start: float, end: float) -> list[float]:
    """Seconds from the move before to each AI move applied between ``start`` and ``end``
    (the bot's clock), at every table."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as con:
        rows = con.execute("SELECT table_id, by_ai, at FROM actions ORDER BY table_id, seq")
        out: list[float] = []
        last: tuple[int, float] | None = None
        for table, by_ai, at in rows:
            if by_ai and last is not None and last[0] == table and start <= at < end:
                out.append(at - last[1])
            last = (table, at)
    return out


@dataclass(frozen=True)
class HintFigures:
    """One run's figures: the hints' answer times (seconds), the AI seats' delays without and
    with hints, and the Discord rule breaches."""

    answered: list[float]
    delays: tuple[list[float], list[float]]
    breaches: int

    @property
    def ratio(self) -> float:
        """The AI seats' p99 delay with hints over the one without."""
        return pct(self.delays[1], 0.99) / max(1e-9, pct(self.delays[0], 0.99))

    def good(self) -> bool:
        """Whether the goals are met: hint p99 <= 1.5 s, AI p99 within 10%, no breach."""
        return pct(self.answered, 0.99) <= 1500 and self.ratio <= 1.10 and not self.breaches

    def line(self) -> str:
        """The figures in one line."""
        return (f"hint p50 {pct(self.answered, 0.5):.0f} ms, p99 "
                f"{pct(self.answered, 0.99):.0f} ms ({len(self.answered)} hints); AI p99 "
                f"{pct(self.delays[0], 0.99):.0f} / {pct(self.delays[1], 0.99):.0f} ms "
                f"(x{self.ratio:.3f}); breaches {self.breaches}")


async def measure(args: argparse.Namespace, root: Path = ROOT, report: bool = True,
                  ) -> HintFigures:
    """Run the two windows with the bot of the project at ``root``; print every figure if
    ``report``."""
    rng = random.Random(args.seed)
    stats = Stats()
    with tempfile.TemporaryDirectory() as tmp:
        async with Loopback(keep_files=False) as lb, contextlib.AsyncExitStack() as stopped:
            guild = lb.create_guild("Hints", locale="en-US")
            db = Path(tmp) / "hints.sqlite3"
            bot = BotProcess(lb, db, ai_pace=args.ai_pace, log=Path(tmp) / "bot.log",
                             root=root)
            stopped.push_async_callback(bot.stop)  # also when the run fails or is cancelled
            await bot.start()
            tables = [Table(lb, lb.create_channel(guild, f"table-{n}"),
                            [lb.create_user(f"P{n}")], args.ai, args.think,
                            random.Random(rng.random()), stats,
                            {"ai_level": args.ai_level}) for n in range(args.tables)]
            if report:
                print(f"{args.tables} tables x 1 person + {args.ai} AI seats "
                      f"({args.ai_level}), think {args.think} s, AI pace {args.ai_pace} s, "
                      f"hint chance {args.hint_chance}; bot pid {bot.pid}", flush=True)
            tasks = []
            for t in tables:
                tasks.append(asyncio.get_running_loop().create_task(t.run()))
                await asyncio.sleep(args.warmup / max(1, len(tables)) / 2)
            await asyncio.sleep(args.warmup / 2)
            windows = []
            for chance in (0.0, args.hint_chance):
                for t in tables:
                    t.hint_chance = chance
                start, lb_start, cpu = time.time(), lb.now(), bot.cpu_seconds()
                await asyncio.sleep(args.duration)
                windows.append((start, time.time(), lb_start, lb.now(),
                                bot.cpu_seconds() - cpu))
            processes = len(bot.pids())
            await stop_all(tables, tasks)
            await bot.stop()

            asked = [ix for ix in lb.interactions.values() if ix.kind == "component"
                     and str(ix.data.get("custom_id", "")).startswith(HintButton.prefix)]
            answered = [ix.completed - ix.created for ix in asked if ix.completed is not None]
            deferred = [ix.responded - ix.created for ix in asked if ix.responded is not None]
            delays = [ai_delays(db, w[0], w[1]) for w in windows]
            figures = HintFigures(answered, (delays[0], delays[1]), len(lb.breaches))
            if not report:
                return figures
            print(f"{stats.games} games finished, {stats.moves} moves by people, "
                  f"{len(asked)} hints asked; {processes} bot processes")
            print(f"hint answered: {spread(answered)} ({len(asked) - len(answered)} without an "
                  f"answer; goal p99 <= 1500 ms); acknowledged: {spread(deferred)}")
            for name, (start, end, _, _, cpu), found in zip(("without hints", "with hints"),
                                                            windows, delays, strict=True):
                print(f"AI seats' delay {name}: {spread(found)} ({len(found)} AI moves; "
                      f"bot CPU {cpu / (end - start) * 100:.0f}% of one core)")
            print(f"AI p99 with hints / without: {figures.ratio:.3f} (goal <= 1.10); "
                  f"breaches {len(lb.breaches)}, failed interactions {stats.failed}")
            for e in sorted(set(stats.errors))[:5]:
                print("  simulation error:", e)
            return figures


async def run(args: argparse.Namespace) -> int:
    """Run the two windows (with ``--against``: in turn with the other version, ``--rounds``
    times) and print the figures; 1 when a goal is missed."""
    if args.against is None:
        return 0 if (await measure(args)).good() else 1
    runs = await in_turn(args.rounds, args.against,
                         lambda root: measure(args, root, report=False), HintFigures.line)
    print(f"{args.tables} tables, median of {args.rounds} runs each:")
    for name, found in runs.items():
        print(f"  {name}: hint p50 "
              f"{statistics.median(pct(f.answered, 0.5) for f in found):.0f} ms, p99 "
              f"{statistics.median(pct(f.answered, 0.99) for f in found):.0f} ms; AI p99 with "
              f"hints / without x{statistics.median(f.ratio for f in found):.3f}")
    return 0 if all(f.good() for f in runs["this"]) else 1


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=100)
    p.add_argument("--ai", type=int, default=2, choices=(1, 2, 3))
    p.add_argument("--ai-level", default="normal", choices=("easy", "normal", "hard"))
    p.add_argument("--think", type=float, default=3.0, help="mean thinking time (s)")
    p.add_argument("--hint-chance", type=float, default=0.3,
                   help="how often a person asks for a hint in the second window")
    p.add_argument("--duration", type=float, default=60.0, help="seconds of each window")
    p.add_argument("--warmup", type=float, default=15.0, help="seconds before measuring")
    p.add_argument("--ai-pace", type=float, default=1.5, help="KARAK_AI_PACE of the bot")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--against", type=Path, default=None, metavar="DIR",
                   help="another version of the project to compare with, in turn")
    p.add_argument("--rounds", type=int, default=3, help="runs of each version (--against)")
    return p.parse_args(argv)


if __name__ == "__main__":
    sys.exit(running.run(run(parse())))
