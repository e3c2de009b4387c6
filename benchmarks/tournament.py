"""Tournaments: how long seating a round takes.

    .venv/bin/python benchmarks/tournament.py --entrants 256 --rounds 8

Plays a seeded tournament of ``--entrants`` players at tables of ``--table-size`` seats over
``--rounds`` rounds (every table's places drawn at random) and prints the CPU time
:func:`bot.game.tournament.seat_round` takes for each round, the slowest of them, and the pairs
of players seated together again in each round.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.game.tournament import (  # noqa: E402
    Entrant,
    PodResult,
    Settings,
    TableSize,
    Tournament,
    record,
    seat_round,
    start,
)


def _play(tournament: Tournament, lot: random.Random) -> Tournament:
    """Every table of the round under way given places drawn from ``lot``."""
    for pod in tournament.rounds[-1].seating.pods:
        seats: list[int | None] = [*pod.players, *([None] * pod.ai_seats)]
        lot.shuffle(seats)
        tournament = record(tournament, PodResult(pod.table, tuple(
            (u, i + 1) for i, u in enumerate(seats) if u is not None)))
    return tournament


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entrants", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--table-size", type=int, choices=(3, 4), default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.entrants < 2 or args.rounds < 1:
        parser.error("--entrants must be at least 2 and --rounds at least 1")
    lot = random.Random(args.seed)
    size: TableSize = 3 if args.table_size == 3 else 4
    tournament = start(Settings("Benchmark", rounds=args.rounds, table_size=size),
                       [Entrant(u, f"Player {u}", lot.randint(1000, 2000))
                        for u in range(1, args.entrants + 1)])
    met: set[frozenset[int]] = set()
    slowest = 0.0
    for r in range(1, args.rounds + 1):
        began = time.process_time()
        tournament = seat_round(tournament, lot.randrange(1 << 30))
        spent = time.process_time() - began
        slowest = max(slowest, spent)
        pairs = {frozenset(p) for pod in tournament.rounds[-1].seating.pods
                 for p in itertools.combinations(pod.players, 2)}
        print(f"round {r}: seated {args.entrants} entrants in {spent:.3f} s CPU, "
              f"{len(pairs & met)} pairs met again")
        met |= pairs
        tournament = _play(tournament, lot)
    print(f"slowest round: {slowest:.3f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
