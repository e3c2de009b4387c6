"""AI strength: how often one seat of a level wins against three normal seats, and how long its
decisions take.

    .venv/bin/python benchmarks/ai_strength.py --games 100                 # every level
    .venv/bin/python benchmarks/ai_strength.py --levels hard --games 500 --json

Game ``i`` of a level is seeded ``--seed + i``: the seed draws the four heroes (of six) and the
engine's table (turn order, shuffles); the seat under test is seat ``i % 4``, so seats and heroes
rotate. Hero abilities are on. The other three seats play the normal level. A fair share is 25%;
the 95% interval is Wilson's. A game that raises, or passes ``--cap`` rounds, counts as an error.

Decision times are the CPU time of the level's ``choose`` calls (every call, forced ones too), so
they stand for one free core even on a shared machine; stderr also shows the turn decisions alone
(the ones the hard level searches). Games run in parallel worker processes.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine import (  # noqa: E402
    GameConfig,
    GameState,
    Phase,
    SeatConfig,
    apply,
    new_game,
    observe,
)
from engine import rng as game_rng  # noqa: E402
from engine.agents import LEVELS, Agent, make_agent  # noqa: E402
from engine.agents.search import DEFAULT_ITERATIONS, HardAgent  # noqa: E402

HEROES = ("argentus", "horan", "xanros", "aderyn", "victorius", "taia")
SEATS = 4


@dataclass
class Game:
    """One game's result for the seat under test."""

    level: str
    seed: int
    won: bool = False
    error: str | None = None
    times: list[float] = field(default_factory=list)  # seconds per decision
    turn_times: list[float] = field(default_factory=list)  # seconds per turn decision


#: What makes the seat under test: (level, seed, iterations, horizon) -> its agent.
MakeAgent = Callable[[str, int, int, int], Agent]


def agent(level: str, seed: int, iterations: int = DEFAULT_ITERATIONS,
          horizon: int = 0) -> Agent:
    """An agent of ``level``; a hard one searches ``iterations`` deals per decision (no clock,
    so its choices do not depend on the machine's speed) with playouts ``horizon`` turns
    deep."""
    if level == "hard":
        return HardAgent(seed, iterations=iterations, horizon=horizon)
    return make_agent(level, seed)


def table(seed: int, seats: int = SEATS) -> GameConfig:
    """Game ``seed``'s table: ``seats`` of the six heroes drawn by the seed, every seat an AI,
    hero abilities on."""
    drawn, _ = game_rng.shuffled(game_rng.seed_state(seed ^ 0xC0FFEE), HEROES)
    return GameConfig(seats=tuple(SeatConfig(h, ai=True) for h in drawn[:seats]),
                      abilities=True, seed=seed)


def play_out(config: GameConfig, agents: Sequence[Agent], cap: int = 150,
             max_steps: int = 5000, timed: Game | None = None,
             tested: int | None = None) -> GameState:
    """Play ``config`` to its end, seat ``i`` choosing with ``agents[i]``; raises RuntimeError
    past ``cap`` rounds or ``max_steps`` moves. The decisions of seat ``tested`` are timed into
    ``timed``."""
    state = new_game(config)
    while state.phase is not Phase.OVER:
        if state.round > cap or state.step > max_steps:
            raise RuntimeError(f"no winner after {cap} rounds or {max_steps} moves")
        seat = state.current
        view = observe(state, seat)
        if timed is not None and seat == tested:
            start = time.process_time()
            action = agents[seat].choose(view)
            spent = time.process_time() - start
            timed.times.append(spent)
            if view.phase is Phase.TURN:
                timed.turn_times.append(spent)
        else:
            action = agents[seat].choose(view)
        state, _ = apply(state, action)
    return state


def play(level: str, seed: int, iterations: int = DEFAULT_ITERATIONS, horizon: int = 0,
         cap: int = 150, max_steps: int = 5000, make: MakeAgent = agent) -> Game:
    """Play game ``seed``: the level at seat ``seed % 4`` (the agent ``make`` gives), normal
    agents at the others."""
    tested = seed % SEATS
    agents = [make(level, seed * 8 + i, iterations, horizon) if i == tested
              else make_agent("normal", seed * 8 + i) for i in range(SEATS)]
    game = Game(level, seed)
    try:
        state = play_out(table(seed), agents, cap, max_steps, game, tested)
        game.won = state.winner == tested
    except Exception as exc:  # noqa: BLE001 - a benchmark counts every failure, it hides none
        game.error = f"{type(exc).__name__}: {exc}"
    return game


def _batch(args: tuple[str, list[int], int, int, MakeAgent]) -> list[Game]:
    level, seeds, iterations, horizon, make = args
    return [play(level, s, iterations, horizon, make=make) for s in seeds]


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a share of ``wins`` in ``n``."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile_ms(values: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank) of ``values`` seconds, in milliseconds."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


def run(levels: list[str], games: int, seed: int, iterations: int, workers: int,
        horizon: int = 0, make: MakeAgent = agent) -> dict[str, list[Game]]:
    """Play ``games`` games per level over ``workers`` processes (``make``, a module-level
    function, makes the seat under test)."""
    jobs: list[tuple[str, list[int], int, int, MakeAgent]] = []
    for level in levels:
        seeds = [seed + i for i in range(games)]
        chunks = max(1, min(games, workers * 8))
        jobs.extend((level, seeds[c::chunks], iterations, horizon, make) for c in range(chunks))
    jobs = [j for j in jobs if j[1]]
    if workers <= 1:
        parts = [_batch(j) for j in jobs]
    else:
        with ProcessPoolExecutor(workers) as pool:
            parts = list(pool.map(_batch, jobs))
    out: dict[str, list[Game]] = {level: [] for level in levels}
    for part in parts:
        for game in part:
            out[game.level].append(game)
    return out


def summary(results: dict[str, list[Game]], games: int) -> dict[str, object]:
    """The figures in the documented JSON shape."""
    levels: dict[str, object] = {}
    times: dict[str, object] = {}
    for level, played in results.items():
        wins = sum(g.won for g in played)
        lo, hi = wilson(wins, len(played))
        levels[level] = {"share": round(wins / len(played), 4) if played else 0.0,
                         "ci95": [round(lo, 4), round(hi, 4)]}
        spent = [t for g in played for t in g.times]
        times[level] = {"p50": percentile_ms(spent, 0.5), "p99": percentile_ms(spent, 0.99)}
    errors = sum(g.error is not None for played in results.values() for g in played)
    return {"games": games, "levels": levels, "decision_ms": times, "errors": errors}


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100, help="games per level")
    parser.add_argument("--levels", default=",".join(LEVELS),
                        help="comma-separated levels to measure (easy, normal, hard)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS,
                        help="the hard level's search iterations per searched decision")
    parser.add_argument("--horizon", type=int, default=0,
                        help="the hard level's playouts: how many of its later turns they play")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--json", action="store_true", help="print only the JSON figures")
    args = parser.parse_args(argv)
    levels = [lv.strip() for lv in args.levels.split(",") if lv.strip()]
    unknown = [lv for lv in levels if lv not in LEVELS]
    if unknown or not levels:
        parser.error(f"unknown level(s) {unknown}; choose among {', '.join(LEVELS)}")
    if args.games < 1:
        parser.error("--games must be at least 1")
    start = time.perf_counter()
    results = run(levels, args.games, args.seed, args.iterations, max(1, args.workers),
                  args.horizon)
    figures = summary(results, args.games)
    print(json.dumps(figures, indent=None if args.json else 2))
    if not args.json:
        for level, played in results.items():
            turns = [t for g in played for t in g.turn_times]
            examples = sorted({g.error for g in played if g.error})[:3]
            print(f"{level}: {sum(g.won for g in played)}/{len(played)} won; turn decisions "
                  f"p50 {percentile_ms(turns, 0.5)} ms, p99 {percentile_ms(turns, 0.99)} ms"
                  + (f"; errors {examples}" if examples else ""), file=sys.stderr)
        print(f"{time.perf_counter() - start:.1f} s wall", file=sys.stderr)
    return 1 if figures["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
