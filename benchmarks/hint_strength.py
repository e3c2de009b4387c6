"""Hint strength: how often a normal seat that always plays the hinted move wins against three
normal seats, and how long a hint takes.

    .venv/bin/python benchmarks/hint_strength.py --games 100 --workers 2
    .venv/bin/python benchmarks/hint_strength.py --games 50 --seed 101 --json   # seeds 101-150

The games are benchmarks/ai_strength.py's (same seeds, heroes, seat rotation and normal
opponents; a fair share is 25%, the interval is Wilson's 95%). The seat under test asks
:func:`engine.agents.hint.hint` for every decision and plays its ``best`` move, so it plays as
the hard level does but remembers nothing between decisions; only its deck stacking preference,
which a hint never suggests, is the normal level's. Decision times are the CPU time of each of
its decisions (a hint, plus the normal agent's quick check for a stacking change). Runs over
several seed ranges add up: the JSON gives the wins and games of each.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ai_strength import percentile_ms, run, summary  # noqa: E402
from engine import Action, Observation, SetStacking  # noqa: E402
from engine.agents import Agent  # noqa: E402
from engine.agents.heuristic import HeuristicAgent  # noqa: E402
from engine.agents.hint import hint  # noqa: E402
from engine.agents.search import DEFAULT_ITERATIONS  # noqa: E402

LEVEL = "hint"


class HintFollower:
    """A normal seat that plays every move the hint suggests."""

    def __init__(self, seed: int, iterations: int) -> None:
        """``iterations``: the hint's search budget per decision."""
        self.normal = HeuristicAgent(seed)
        self.iterations = iterations

    def choose(self, observation: Observation) -> Action:
        """The hinted move (a stacking preference change stays the normal level's)."""
        own = self.normal.choose(observation)
        if isinstance(own, SetStacking):
            return own
        return hint(observation, iterations=self.iterations).best


def follower(level: str, seed: int, iterations: int, horizon: int) -> Agent:
    """The seat under test of benchmarks/ai_strength.py's games (``level`` and ``horizon``
    are not used: the hint plays as the hard level does)."""
    return HintFollower(seed, iterations)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1, help="the first game's seed")
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS,
                        help="the hint's search iterations per decision")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--json", action="store_true", help="print only the JSON figures")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    start = time.perf_counter()
    results = run([LEVEL], args.games, args.seed, args.iterations, max(1, args.workers),
                  make=follower)
    wall = time.perf_counter() - start
    played = results[LEVEL]
    figures = summary(results, args.games)
    figures["seeds"] = [args.seed, args.seed + args.games - 1]
    figures["wins"] = sum(g.won for g in played)
    figures["wall_s"] = round(wall, 1)
    figures["wall_s_per_500_games"] = round(wall / args.games * 500)
    print(json.dumps(figures, indent=None if args.json else 2))
    if not args.json:
        turns = [t for g in played for t in g.turn_times]
        every = [t for g in played for t in g.times]
        examples = sorted({g.error for g in played if g.error})[:3]
        print(f"hint follower: {figures['wins']}/{len(played)} won; hint per decision p50 "
              f"{percentile_ms(every, 0.5)} ms, p99 {percentile_ms(every, 0.99)} ms over "
              f"{len(every)} decisions; turn decisions p50 {percentile_ms(turns, 0.5)} ms, "
              f"p99 {percentile_ms(turns, 0.99)} ms" + (f"; errors {examples}" if examples else ""),
              file=sys.stderr)
        print(f"{wall:.1f} s wall with {args.workers} workers", file=sys.stderr)
    return 1 if figures["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
