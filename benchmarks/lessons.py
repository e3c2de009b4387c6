"""What the guided match's lesson costs a hand, on a long match of the lesson seed.

    .venv/bin/python benchmarks/lessons.py [--moves 600] [--rounds 3] [--against PATH]

The match: ``/goblin learn``'s seed (:data:`bot.game.lessons.LESSON_SEED`) with every seat played
by the easy agent at the bot's AI seed for each step (the same moves in every version: no lesson's
advice followed). Printed, over ``--rounds`` runs:

* a hand: the lesson of each of the learner's decisions (:func:`bot.game.lessons.lesson_now`),
  p50, p99 and the worst, in milliseconds;
* what keeps it up to date: the work done per move (any seat's) to remember what was taught
  (:func:`bot.game.lessons.taught_after`), p50 and p99;
* one replay of the moves to step 100 and to the last (:func:`bot.game.lessons.lessons_met`):
  what a process that did not follow the table (after a restart) does once for it.

``--against PATH`` runs the same on another checkout first (one before ``taught_after`` existed
worked a hand's lesson out by replaying the moves that stand, ``lesson_now(state, moves, seat)``:
only the hand is printed for it). Wall-clock times: compare runs made one right after the other.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def quantile(values: list[float], share: float) -> float:
    """The value at ``share`` of the sorted ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def measure(moves_count: int, rounds: int) -> None:
    """Print the figures of the checkout first on ``sys.path``."""
    engine: Any = importlib.import_module("engine")
    agents: Any = importlib.import_module("engine.agents")
    lessons: Any = importlib.import_module("bot.game.lessons")
    lobby: Any = importlib.import_module("bot.game.lobby")
    play: Any = importlib.import_module("bot.game.play")
    records: Any = importlib.import_module("bot.storage.records")
    seats = (records.SeatInfo(user=1, name="learner"),
             *(records.SeatInfo(ai=True, level=lessons.LESSON_LEVEL)
               for _ in range(lessons.LESSON_AI_SEATS)))
    config = lobby.game_config(seats, False, lessons.LESSON_SEED)[1]
    state = engine.new_game(config)
    moves = []
    while state.phase is not engine.Phase.OVER and state.step < moves_count:
        obs = engine.observe(state, state.current)
        action = agents.make_agent("easy", play.Play.seed_for(lessons.LESSON_SEED, state.step)
                                   ).choose(obs)
        action = action if action in obs.legal else obs.legal[0]
        moves.append(action)
        state, _ = engine.apply(state, action, seat=state.current)
    notations = [str(m) for m in moves]
    taught_after = getattr(lessons, "taught_after", None)
    hands: list[float] = []
    kept: list[float] = []
    for _ in range(rounds):
        state = engine.new_game(config)
        taught: dict[str, int] = {}
        for move in moves:
            if state.current == 0:
                start = time.perf_counter()
                lessons.lesson_now(state, notations[:state.step] if taught_after is None
                                   else taught, 0)
                hands.append((time.perf_counter() - start) * 1000)
            after, _ = engine.apply(state, move, seat=state.current)
            if taught_after is not None:
                start = time.perf_counter()
                taught = taught_after(taught, state, move, after, 0)
                kept.append((time.perf_counter() - start) * 1000)
            state = after
    print(f"{len(moves)} moves, {len(hands) // rounds} learner decisions, {rounds} rounds")
    print(f"a hand's lesson: p50 {quantile(hands, 0.5):.3f} ms, p99 {quantile(hands, 0.99):.3f}"
          f" ms, worst {max(hands):.3f} ms")
    if taught_after is None:
        return
    print(f"kept up to date, per move: p50 {quantile(kept, 0.5):.4f} ms, "
          f"p99 {quantile(kept, 0.99):.4f} ms")
    for upto in sorted({min(100, len(moves)), len(moves)}):
        if upto:
            times = []
            for _ in range(rounds):
                start = time.perf_counter()
                lessons.lessons_met(config, notations[:upto], 0)
                times.append((time.perf_counter() - start) * 1000)
            print(f"one replay to step {upto}: {statistics.median(times):.1f} ms")


def main(argv: list[str] | None = None) -> int:
    """Measure this checkout (after ``--against``'s, when given)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", type=Path, help="another checkout, measured first")
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.against is not None:
        if not (args.against / "bot" / "game" / "lessons.py").is_file():
            print(f"{args.against} is not a checkout of this project")
            return 2
        print(f"{args.against}:", flush=True)
        subprocess.run([sys.executable, __file__, "--moves", str(args.moves), "--rounds",
                        str(args.rounds), "--root", str(args.against)], check=True,
                       env={**os.environ, "PYTHONPATH": str(args.against)})
        print(f"{ROOT}:")
    sys.path.insert(0, str(args.root))
    measure(args.moves, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
