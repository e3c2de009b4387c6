"""Render speed and size: median time to draw and encode each picture, and its bytes.

Usage: ``python benchmarks/render.py [--repeat N]`` (or ``python -m benchmarks.render``). Goals
on the development machine: table <= 30 ms, hand <= 15 ms (the first call of a process is slower:
it loads fonts and draws the cached card and icon sprites). Two positions are measured: the
golden "midgame" scenario (4 seats, a long pawnshop) and the demo position reached by simulated
play (3 seats).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import observe  # noqa: E402
from engine.observe import Observation  # noqa: E402
from render import battle_image, hand_image, table_image  # noqa: E402
from render.positions import DEMO_SEED, battle_position, scene  # noqa: E402

KINDS: dict[str, Callable[[Observation, str], bytes]] = {
    "table": table_image, "battle": battle_image, "hand": hand_image,
}
GOALS_MS = {"table": 30.0, "hand": 15.0}


def measure(obs: Observation, draw: Callable[[Observation, str], bytes],
            repeat: int) -> tuple[float, float, float, int]:
    """(first call ms, median wall ms, median CPU ms of the following calls, bytes)."""
    t0 = time.perf_counter()
    png = draw(obs, "en")
    first = (time.perf_counter() - t0) * 1000
    wall, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.thread_time()
        png = draw(obs, "en")
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.thread_time() - c0) * 1000)
    return first, statistics.median(wall), statistics.median(cpu), len(png)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=40)
    args = parser.parse_args()
    state, _ = battle_position(DEMO_SEED)
    positions = {
        "midgame": scene("midgame").observation(),
        f"demo seed {DEMO_SEED}": observe(state, state.current),
    }
    print(f"{'position':16} {'picture':8} {'first ms':>9} {'median ms':>10} {'cpu ms':>7} "
          f"{'KB':>6}  goal")
    worst: dict[str, float] = {}
    for label, obs in positions.items():
        for kind, draw in KINDS.items():
            first, median, cpu, size = measure(obs, draw, args.repeat)
            worst[kind] = max(worst.get(kind, 0.0), median)
            goal = GOALS_MS.get(kind)
            verdict = "" if goal is None else ("ok" if median <= goal else f"> {goal:.0f} ms")
            print(f"{label:16} {kind:8} {first:9.1f} {median:10.1f} {cpu:7.1f} "
                  f"{size / 1024:6.1f}  {verdict}")
    print("worst median (wall): " + ", ".join(f"{k} {v:.1f} ms" for k, v in worst.items()))
    print("(wall time includes waiting for a busy machine; cpu is this thread's time)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
