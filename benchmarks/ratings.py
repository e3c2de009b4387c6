"""Ratings: how long rebuilding every rating from the finished matches takes.

    .venv/bin/python benchmarks/ratings.py --matches 10000 --people 300

Builds a seeded sequence of finished matches (2-4 seats, at least two people among ``--people``,
the other seats AI seats of any level, a champion in nine matches of ten, one person in twenty
leaving) and prints the time :func:`bot.game.ratings.recompute` takes over it (best of ``--repeat``
runs, CPU time), and the spread of the shown numbers it ends with.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.game.ratings import AI_RATINGS, AiSeat, Person, SeatResult, recompute, shown  # noqa: E402


def synthetic(count: int, people: int, seed: int) -> list[list[SeatResult]]:
    """``count`` finished matches among ``people`` people (user ids 0 to people - 1)."""
    rnd = random.Random(seed)
    levels = sorted(AI_RATINGS)
    matches = []
    for _ in range(count):
        n = rnd.randint(2, 4)
        users = rnd.sample(range(people), rnd.randint(2, n))
        seats = [SeatResult(Person(u, forfeited=rnd.random() < 0.05), rnd.randint(0, 3),
                            rnd.randint(0, 5)) for u in users]
        seats += [SeatResult(AiSeat(rnd.choice(levels)), rnd.randint(0, 3), rnd.randint(0, 5))
                  for _ in range(n - len(users))]
        if rnd.random() < 0.9:
            c = rnd.randrange(n)
            seats[c] = SeatResult(seats[c].player, 3, rnd.randint(1, 5), won=True)
        matches.append(seats)
    return matches


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--people", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    if args.people < 2 or args.matches < 1:
        parser.error("--people must be at least 2 and --matches at least 1")
    matches = synthetic(args.matches, args.people, args.seed)
    best = float("inf")
    for _ in range(max(1, args.repeat)):
        start = time.process_time()
        ratings = recompute(matches)
        best = min(best, time.process_time() - start)
    values = sorted(shown(r).value for r in ratings.values())
    provisional = sum(shown(r).provisional for r in ratings.values())
    print(f"recompute: {args.matches} matches among {len(ratings)} people in {best:.2f} s CPU "
          f"({args.matches / best:,.0f} matches/s)")
    print(f"shown numbers: min {values[0]}, median {statistics.median(values):.0f}, "
          f"max {values[-1]}; {provisional} provisional")
    return 0


if __name__ == "__main__":
    sys.exit(main())
