"""AI ratings: where each AI level's openskill rating settles, from seeded games among the levels
(the fixed ratings ``AI_RATINGS`` of ``bot/game/ratings.py``).

    .venv/bin/python benchmarks/ai_ratings.py --games 300 --seed 1

Game ``i`` is seeded ``--seed + i`` and seats the three levels, one seat each, in one of the six
seat orders (``i % 6``), on three heroes drawn by the seed, with hero abilities on (the tables
and the game loop of ``benchmarks/ai_strength.py``). The hard level searches its full budget,
256 iterations per searched decision: that is the level the bot seats (its clock of one second
only cuts a slow decision short), and a cheaper budget would calibrate a weaker player than the
one people meet; ``--iterations`` sets another. Nearly all of a game's CPU time is the hard
seat's: stderr shows the total and the time a game.

To openskill each level is one player, all three starting from the newcomer's rating
(``START``). The games are rated in seed order, as one match each with the ratings module's
own places and model (champion, then keys, then hit points). Printed: each level's win share
(95% Wilson interval), its rating after the last game, where it settles (the mean ``mu`` and
``sigma`` over the second half of the games: what ``AI_RATINGS`` holds), its shown number, and
the win share openskill predicts for a game of the three at the settled ratings, to compare with
the measured one. A game that raises or passes 150 rounds counts as an error.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ai_strength import agent, play_out, table, wilson  # noqa: E402
from bot.game.ratings import MODEL, START, Person, Rating, SeatResult, rate, shown  # noqa: E402
from engine.agents import LEVELS  # noqa: E402
from engine.agents.search import DEFAULT_ITERATIONS  # noqa: E402

ORDERS = list(itertools.permutations(LEVELS))


@dataclass(frozen=True)
class Played:
    """One finished game: the level at each seat, each seat's keys and HP, the winning seat."""

    seed: int
    levels: tuple[str, ...]
    keys: tuple[int, ...] = ()
    hp: tuple[int, ...] = ()
    winner: int | None = None
    error: str | None = None


def play(seed: int, iterations: int = DEFAULT_ITERATIONS, cap: int = 150) -> Played:
    """Play game ``seed``: the three levels in seat order ``seed % 6``."""
    levels = ORDERS[seed % len(ORDERS)]
    agents = [agent(level, seed * 8 + i, iterations) for i, level in enumerate(levels)]
    try:
        state = play_out(table(seed, len(levels)), agents, cap)
    except Exception as exc:  # noqa: BLE001 - a benchmark counts every failure, it hides none
        return Played(seed, levels, error=f"{type(exc).__name__}: {exc}")
    return Played(seed, levels, tuple(len(s.keys) for s in state.seats),
                  tuple(s.hp for s in state.seats), state.winner)


def _batch(args: tuple[list[int], int]) -> list[Played]:
    seeds, iterations = args
    return [play(s, iterations) for s in seeds]


def run(games: int, seed: int, iterations: int, workers: int) -> list[Played]:
    """Play ``games`` games over ``workers`` processes, returned in seed order."""
    seeds = [seed + i for i in range(games)]
    if workers <= 1:
        played = _batch((seeds, iterations))
    else:
        chunks = max(1, min(games, workers * 8))
        with ProcessPoolExecutor(workers) as pool:
            parts = pool.map(_batch, [(seeds[c::chunks], iterations) for c in range(chunks)])
            played = [g for part in parts for g in part]
    return sorted(played, key=lambda g: g.seed)


def match(game: Played, ratings: dict[int, Rating]) -> list[SeatResult]:
    """``game`` as a match between three people, one per level (user id: the level's index)."""
    users = [LEVELS.index(level) for level in game.levels]
    return [SeatResult(Person(u, ratings[u]), keys, hp, won=seat == game.winner)
            for seat, (u, keys, hp) in enumerate(zip(users, game.keys, game.hp, strict=True))]


def settle(played: list[Played]) -> dict[str, object]:
    """Rate the finished games in order from START; the figures in the printed JSON shape."""
    ratings = {i: START for i in range(len(LEVELS))}
    history: list[dict[int, Rating]] = []
    for game in played:
        if game.error is None:
            ratings = {**ratings, **rate(match(game, ratings))}
            history.append(ratings)
    late = history[len(history) // 2:] or [ratings]
    settled = {i: Rating(fmean(h[i].mu for h in late), fmean(h[i].sigma for h in late))
               for i in ratings}
    predicted = MODEL.predict_win([[MODEL.rating(r.mu, r.sigma)] for r in settled.values()])
    finished = [g for g in played if g.error is None]
    levels: dict[str, object] = {}
    for i, level in enumerate(LEVELS):
        wins = sum(g.winner is not None and g.levels[g.winner] == level for g in finished)
        lo, hi = wilson(wins, len(finished))
        levels[level] = {
            "share": round(wins / len(finished), 4) if finished else 0.0,
            "ci95": [round(lo, 4), round(hi, 4)],
            "predicted_share": round(predicted[i], 4),
            "last": {"mu": round(ratings[i].mu, 3), "sigma": round(ratings[i].sigma, 3)},
            "settled": {"mu": round(settled[i].mu, 2), "sigma": round(settled[i].sigma, 2)},
            "shown": shown(settled[i]).value,
        }
    return {"games": len(played), "rated": len(history), "levels": levels,
            "errors": len(played) - len(finished)}


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS,
                        help="the hard level's search iterations per searched decision")
    parser.add_argument("--workers", type=int, default=1,
                        help="processes playing the games (up to os.cpu_count())")
    parser.add_argument("--json", action="store_true", help="print only the JSON figures")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    start = time.perf_counter()
    played = run(args.games, args.seed, args.iterations,
                 max(1, min(args.workers, os.cpu_count() or 1)))
    figures = settle(played)
    print(json.dumps(figures, indent=None if args.json else 2))
    if not args.json:
        examples = sorted({g.error for g in played if g.error})[:3]
        if examples:
            print(f"errors: {examples}", file=sys.stderr)
        cpu = sum(resource.getrusage(who).ru_utime + resource.getrusage(who).ru_stime
                  for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
        print(f"{time.perf_counter() - start:.1f} s wall, {cpu:.0f} s CPU "
              f"({cpu / args.games:.2f} s a game)", file=sys.stderr)
    return 1 if figures["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
