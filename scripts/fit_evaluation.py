"""Fit the hard level's position evaluation: play games between normal seats, note every seat's
features at the start of every turn, and find the weights under which the winner was most likely
(a conditional logit: a seat's chance is its share of ``exp(weights . features)``).

    .venv/bin/python scripts/fit_evaluation.py --games 3000 --seed 100000 --test 300

It prints the weights as the Python literal :data:`engine.agents.evaluation.WEIGHTS` holds, and,
with ``--test``, the average log-likelihood and the share of positions whose favourite won on
fresh games, beside the uniform guess's. Pure Python: Newton's method over a dozen features,
a few seconds per round; the games take most of the time (3,000 in about 3 minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine import GameConfig, Phase, SeatConfig, apply, new_game, observe, rng  # noqa: E402
from engine.agents import make_agent  # noqa: E402
from engine.agents.evaluation import FEATURES, chances, features  # noqa: E402
from engine.simulate import HEROES, ROUND_CAP  # noqa: E402

#: Parts the games are played in (fixed, so the positions' order, and the one in ``--every``
#: kept, do not depend on the number of workers).
CHUNKS = 16

#: One position: every seat's features, and the index of the seat that won the game.
Position = tuple[list[tuple[float, ...]], int]


def positions(seed: int) -> list[Position]:
    """The start of every turn of game ``seed`` between normal seats (none if it never ended)."""
    drawn, _ = rng.shuffled(rng.seed_state(seed ^ 0xC0FFEE), HEROES)
    config = GameConfig(seats=tuple(SeatConfig(h, ai=True) for h in drawn[:4]), abilities=True,
                        seed=seed)
    agents = [make_agent("normal", seed * 8 + i) for i in range(4)]
    state = new_game(config)
    seen: list[list[tuple[float, ...]]] = []
    last = None
    while state.phase is not Phase.OVER and state.round <= ROUND_CAP:
        if state.phase is Phase.TURN and state.current != last:
            last = state.current
            seen.append([features(state, i) for i in range(len(state.seats))])
        seat = state.current
        state, _ = apply(state, agents[seat].choose(observe(state, seat)), check=False)
    if state.winner is None:
        return []
    return [(snap, state.winner) for snap in seen]


def _batch(seeds: list[int]) -> list[Position]:
    return [p for seed in seeds for p in positions(seed)]


def play(games: int, seed: int, workers: int) -> list[Position]:
    """Positions of ``games`` games seeded from ``seed``, over ``workers`` processes."""
    seeds = list(range(seed, seed + games))
    chunks = [seeds[i::CHUNKS] for i in range(CHUNKS)]
    with ProcessPoolExecutor(workers) as pool:
        return [p for part in pool.map(_batch, chunks) for p in part]


def _shares(weights: list[float], snap: list[tuple[float, ...]]) -> list[float]:
    return chances([sum(w * x for w, x in zip(weights, seat, strict=True)) for seat in snap])


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``matrix^-1 . vector`` by Gauss-Jordan elimination with partial pivoting."""
    n = len(vector)
    rows = [row[:] + [vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(n):
            if r != col:
                factor = rows[r][col] / rows[col][col]
                for k in range(col, n + 1):
                    rows[r][k] -= factor * rows[col][k]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def fit(data: list[Position], ridge: float = 1.0, rounds: int = 20) -> list[float]:
    """The maximum-likelihood weights (with a small ridge penalty), by Newton's method."""
    k = len(FEATURES)
    weights = [0.0] * k
    for _ in range(rounds):
        grad = [-ridge * w for w in weights]
        hess = [[-ridge if i == j else 0.0 for j in range(k)] for i in range(k)]
        for snap, winner in data:
            shares = _shares(weights, snap)
            mean = [sum(p * seat[j] for p, seat in zip(shares, snap, strict=True))
                    for j in range(k)]
            for j in range(k):
                grad[j] += snap[winner][j] - mean[j]
            for p, seat in zip(shares, snap, strict=True):
                centred = [x - m for x, m in zip(seat, mean, strict=True)]
                for a in range(k):
                    if centred[a]:
                        row = hess[a]
                        for b in range(k):
                            row[b] -= p * centred[a] * centred[b]
        step = _solve(hess, [-g for g in grad])
        weights = [w + s for w, s in zip(weights, step, strict=True)]
        if max(abs(s) for s in step) < 1e-6:
            break
    return weights


def score(data: list[Position], weights: list[float]) -> tuple[float, float]:
    """Average log-likelihood of the winners, and the share of positions whose favourite won."""
    loglik = hits = 0.0
    for snap, winner in data:
        shares = _shares(weights, snap)
        loglik += math.log(shares[winner])
        hits += shares[winner] == max(shares)
    return loglik / len(data), hits / len(data)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=100_000)
    parser.add_argument("--every", type=int, default=4,
                        help="keep one position in this many (turns of a game are alike)")
    parser.add_argument("--test", type=int, default=0, help="fresh games to score the fit on")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    data = play(args.games, args.seed, args.workers)[::max(1, args.every)]
    weights = fit(data)
    print("WEIGHTS = {" + ", ".join(f'"{name}": {w:.4f}'
                                    for name, w in zip(FEATURES, weights, strict=True)) + "}")
    if args.test:
        fresh = play(args.test, args.seed + args.games, args.workers)
        loglik, hits = score(fresh, weights)
        print(f"{len(fresh)} fresh positions: log-likelihood {loglik:.4f} (uniform "
              f"{math.log(0.25):.4f}), favourite won {hits:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
