"""Replay speed and the match animation's time and size, on a long seeded match.

    .venv/bin/python benchmarks/replay.py [--seed S] [--min-actions 650] [--max-actions 800]
                                          [--steps 300] [--rounds 3]

The match: the first seed from ``--seed`` on whose 4-seat game between reach agents (abilities
on) has between ``--min-actions`` and ``--max-actions`` actions. Printed:

* building its :class:`engine.replay.Replay` (every state kept), median of five builds, and the
  memory one holds; then a random step's state and events;
* a replay step: the spectator's view of a random step, its table picture, its battle picture
  when a battle is on, and its narration; p50, p99 and the worst over ``--steps`` random steps
  in one process (its caches filling as it goes), and again from empty caches every step.
  Goal: p99 <= 300 ms;
* the animation of the whole match (:func:`render.animation.match_animation`) from empty caches:
  median time of ``--rounds`` runs, its size and frames. Goals: <= 5 s, <= 8 MiB.

Times are wall-clock (what a person waits) with the process's CPU time beside them; the machine
may be shared, so compare figures taken in the same hour.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import new_game  # noqa: E402
from engine.replay import Replay  # noqa: E402
from engine.simulate import moves, seated  # noqa: E402
from render import battle_image, forget_drawings, table_image  # noqa: E402
from render.animation import MAX_BYTES, match_animation, match_steps  # noqa: E402

STEP_GOAL_MS = 300.0
ANIMATION_GOAL_S = 5.0


def long_match(seed: int, least: int, most: int) -> tuple[int, Replay]:
    """The first seed from ``seed`` on whose reach-agent match has ``least`` to ``most``
    actions, and its replay."""
    for candidate in range(seed, seed + 1000):
        config = seated(candidate, 4, abilities=True)
        actions = [action for _, action, _, _ in moves(new_game(config), "reach")]
        if least <= len(actions) <= most:
            return candidate, Replay(config, actions)
    raise SystemExit(f"no match of {least} to {most} actions from seed {seed}")


def match_options(parser: argparse.ArgumentParser) -> None:
    """The options that pick the long match (:func:`long_match`)."""
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--min-actions", type=int, default=650)
    parser.add_argument("--max-actions", type=int, default=800)


def _step(match: Replay, step: int) -> tuple[float, float]:
    """Wall and CPU milliseconds to show one step: view, pictures, narration."""
    wall, cpu = time.perf_counter(), time.process_time()
    view = match.view(step)
    table_image(view)
    if view.battle is not None:
        battle_image(view)
    match.narration(step, "en")
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _steps_line(label: str, times: list[tuple[float, float]]) -> str:
    walls = [w for w, _ in times]
    cpus = [c for _, c in times]
    p99 = _pct(walls, 0.99)
    verdict = "ok" if p99 <= STEP_GOAL_MS else f"> {STEP_GOAL_MS:.0f} ms"
    return (f"replay step ({label}, {len(times)} steps): p50 {_pct(walls, 0.5):.1f} ms, "
            f"p99 {p99:.1f} ms, worst {max(walls):.1f} ms (cpu p99 {_pct(cpus, 0.99):.1f} ms)"
            f"  goal p99 <= {STEP_GOAL_MS:.0f} ms: {verdict}")


def main(argv: list[str] | None = None) -> int:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    match_options(parser)
    parser.add_argument("--steps", type=int, default=300, help="random steps shown")
    parser.add_argument("--rounds", type=int, default=3, help="animations made")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    seed, match = long_match(args.seed, args.min_actions, args.max_actions)
    print(f"match: seed {seed}, {match.last} actions, {match.final.round} rounds, "
          f"{len(match.turn_starts())} turns, {len(match.bookmarks)} bookmarks")
    builds = []
    for _ in range(5):
        start = time.perf_counter()
        Replay(match.config, match.actions)
        builds.append((time.perf_counter() - start) * 1000)
    tracemalloc.start()
    kept = Replay(match.config, match.actions)
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del kept
    print(f"replay build: {statistics.median(builds):.1f} ms (median of 5), "
          f"{held / 1024:.0f} KiB held")
    order = random.Random(seed).choices(range(match.last + 1), k=args.steps)
    start = time.perf_counter()
    for step in order:
        match.state(step)
        match.events(step)
    each = (time.perf_counter() - start) / len(order) * 1e6
    print(f"a step's state and events, once built: {each:.1f} us (mean of {len(order)})")
    first, _ = _step(match, match.last)
    print(f"the process's first step (fonts and palette loaded, not counted below): "
          f"{first:.1f} ms")
    forget_drawings()
    print(_steps_line("caches filling", [_step(match, s) for s in order]))
    cold = []
    for step in order:
        forget_drawings()
        cold.append(_step(match, step))
    print(_steps_line("empty caches", cold))
    runs = []
    for _ in range(args.rounds):
        forget_drawings()
        wall, cpu = time.perf_counter(), time.process_time()
        gif = match_animation(match)
        runs.append((time.perf_counter() - wall, time.process_time() - cpu))
    wall_s = statistics.median(w for w, _ in runs)
    cpu_s = statistics.median(c for _, c in runs)
    fits = "ok" if wall_s <= ANIMATION_GOAL_S and len(gif) <= MAX_BYTES else "over a goal"
    print(f"animation: {wall_s:.2f} s (cpu {cpu_s:.2f} s, median of {len(runs)}), "
          f"{len(gif) / 2**20:.2f} MiB, {len(match_steps(match))} frames"
          f"  goals <= {ANIMATION_GOAL_S:.0f} s, <= {MAX_BYTES / 2**20:.0f} MiB: {fits}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
