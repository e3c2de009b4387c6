"""A larger chaos run of the real bot: the chaos test's code (``tests/loopback/chaos_run.py``)
with a plan given on the command line.

Usage: ``python benchmarks/chaos.py [--seed 20261124] [--tables 30] [--kills 30] [--rate 0.05]
[--moves 3-6] [--no-disk-full] [--validate]``.

Each table has one simulated person and one AI seat; the person plays a few moves through the
stand-in, then hands their seat to the AI. The bot is SIGKILLed and started again at seeded
moments, the stand-in answers a seeded share of REST requests with 429s, and once the disk
refuses every write of the bot for a moment. Printed: tables finished, SIGKILLs, moves
acknowledged and lost, 429s injected, clicks refused and moves stored while the disk was full,
replays identical to the stored state, ``PRAGMA integrity_check``, Discord rules broken. The exit
status is 1 when any of them falls short.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "loopback")]

from benchmarks import running  # noqa: E402
from loopback import Loopback  # noqa: E402
from loopback.botproc import BotProcess  # noqa: E402


def moves(text: str) -> tuple[int, int]:
    """``3-6``: a person plays 3 to 6 moves before leaving."""
    low, _, high = text.partition("-")
    try:
        return int(low), int(high or low)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a range of moves: {text!r}") from None


async def run(args: argparse.Namespace) -> int:
    chaos = importlib.import_module("chaos_run")  # the chaos test's code
    plan = chaos.Plan(seed=args.seed, tables=args.tables, kills=args.kills, rate=args.rate,
                      moves=args.moves, disk_full=not args.no_disk_full)
    with tempfile.TemporaryDirectory(prefix="karak-chaos-") as tmp:
        async with Loopback(rate_limits=plan.schedule(),
                            validate=args.validate) as lb:
            bot = BotProcess(lb, Path(tmp) / "karak.sqlite3", ai_pace=plan.ai_pace)
            try:
                figures = await chaos.ChaosRun(plan, lb, bot).run()
            finally:
                await bot.stop()
            if figures.breaches:
                print("\n".join(map(str, lb.breaches)))
    print(figures.report())
    problems: list[str] = figures.problems(plan)
    for problem in problems:
        print(f"PROBLEM: {problem}")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=20261124)
    parser.add_argument("--tables", type=int, default=30)
    parser.add_argument("--kills", type=int, default=30)
    parser.add_argument("--rate", type=float, default=0.05, help="share of REST requests 429ed")
    parser.add_argument("--moves", type=moves, default=(3, 6),
                        help="moves a person plays before leaving (low-high)")
    parser.add_argument("--no-disk-full", action="store_true")
    parser.add_argument("--validate", action="store_true",
                        help="validate requests against Discord's OpenAPI description")
    return running.run(run(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
