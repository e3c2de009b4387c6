"""Render speed and size: median time to draw and encode each picture, and its bytes.

Usage: ``python benchmarks/render.py [--repeat N] [--rounds R] [--against DIR]``.

Each round runs a fresh process per source tree (this one, and ``--against DIR``, a checkout of
another commit, e.g. ``git worktree add /tmp/render-base <commit>``), alternating which goes
first, so both see the same machine load; the figures are medians over the rounds of each
process's median. Goals on the development machine: table <= 6 ms, battle and hand <= 4 ms
(the first call of a process is slower: it loads fonts and draws the cached sprites; it is not
counted). Two positions are measured: the golden "midgame" scenario (4 seats, a long pawnshop)
and the demo position reached by simulated play (3 seats).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
KINDS = ("table", "battle", "hand")
GOALS_MS = {"table": 6.0, "battle": 4.0, "hand": 4.0}


def worker(root: Path, repeat: int) -> dict[str, dict[str, float]]:
    """Time every picture of both positions with the renderer of ``root`` (in this process)."""
    sys.path.insert(0, str(root))
    import render  # noqa: PLC0415 - imported from the tree being measured
    from engine import observe  # noqa: PLC0415
    from render.positions import DEMO_SEED, battle_position, scene  # noqa: PLC0415

    state, _ = battle_position(DEMO_SEED)
    positions = {"midgame": scene("midgame").observation(),
                 f"demo seed {DEMO_SEED}": observe(state, state.current)}
    out: dict[str, dict[str, float]] = {}
    for label, obs in positions.items():
        for kind in KINDS:
            draw = getattr(render, f"{kind}_image")
            png = draw(obs, "en")  # fonts and sprites: not counted
            cpu = []
            wall = []
            for _ in range(repeat):
                t0, c0 = time.perf_counter(), time.thread_time()
                png = draw(obs, "en")
                cpu.append((time.thread_time() - c0) * 1000)
                wall.append((time.perf_counter() - t0) * 1000)
            out[f"{label}|{kind}"] = {"cpu": statistics.median(cpu),
                                      "wall": statistics.median(wall), "bytes": len(png)}
    return out


def _run(root: Path, repeat: int) -> dict[str, dict[str, float]]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", str(root),
           "--repeat", str(repeat)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=root)
    result: dict[str, dict[str, float]] = json.loads(done.stdout)
    return result


def main() -> int:
    """Print the medians of this tree (and of ``--against``) side by side."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=30, help="draws per process")
    parser.add_argument("--rounds", type=int, default=5, help="processes per tree")
    parser.add_argument("--against", type=Path, help="another checkout to compare with")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        print(json.dumps(worker(args.worker.resolve(), args.repeat)))
        return 0
    trees = {"this": HERE}
    if args.against is not None:
        trees["against"] = args.against.resolve()
    runs: dict[str, list[dict[str, dict[str, float]]]] = {name: [] for name in trees}
    for r in range(args.rounds):
        order = list(trees.items()) if r % 2 == 0 else list(reversed(trees.items()))
        for name, root in order:
            runs[name].append(_run(root, args.repeat))
    print(f"{args.rounds} rounds x {args.repeat} draws; cpu = this thread's time, median of the "
          "rounds' medians")
    head = f"{'position':16} {'picture':7} " + " ".join(
        f"{name + ' cpu ms':>15} {'wall ms':>8} {'KB':>6}" for name in trees)
    print(head + ("   speed-up" if len(trees) > 1 else "") + "  goal")
    worst: dict[str, float] = {}
    for case in runs["this"][0]:
        label, kind = case.split("|")
        cells = []
        cpus = {}
        for name in trees:
            cpu = statistics.median(run[case]["cpu"] for run in runs[name])
            wall = statistics.median(run[case]["wall"] for run in runs[name])
            size = runs[name][0][case]["bytes"] / 1024
            cpus[name] = cpu
            cells.append(f"{cpu:15.2f} {wall:8.2f} {size:6.1f}")
        worst[kind] = max(worst.get(kind, 0.0), cpus["this"])
        ratio = f"   x{cpus['against'] / cpus['this']:6.2f}" if "against" in cpus else ""
        goal = GOALS_MS[kind]
        verdict = "ok" if cpus["this"] <= goal else f"> {goal:.0f} ms"
        print(f"{label:16} {kind:7} " + " ".join(cells) + ratio + f"  {verdict}")
    print("worst median (cpu, this tree): " + ", ".join(f"{k} {v:.2f} ms"
                                                       for k, v in worst.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
