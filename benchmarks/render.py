"""Render speed and size: median time to draw and encode each picture, and its bytes.

Usage: ``python benchmarks/render.py [--repeat N] [--rounds R] [--against DIR]``.

Each round runs a fresh process per source tree (this one, and ``--against DIR``, a checkout of
another commit, e.g. ``git worktree add /tmp/render-base <commit>``), alternating which goes
first, so both see the same machine load; the figures are medians over the rounds of each
process's median. Goals on the development machine: table <= 6 ms, battle and hand <= 4 ms.

Rows: the golden "midgame" scenario and the demo position, each drawn again and again (what
redrawing an unchanged picture costs: its parts are all cached); "after a move": every position
of a random 4-seat game drawn in order, each after the one before (what a move costs: the parts
it changed are drawn again); "cold": every fifth of those positions from empty caches (a fresh
process; only for a renderer that can empty its caches).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported at run time from the tree being measured
    from engine.observe import Observation

HERE = Path(__file__).resolve().parent.parent
KINDS = ("table", "battle", "hand")
GAME_SEED = 11
GAME_STEPS = 200
COLD_EVERY = 5  # cold draws are slow: every fifth position
GOALS_MS = {"table": 6.0, "battle": 4.0, "hand": 4.0}


def _game(seed: int, steps: int) -> list[Observation]:
    """Observations of the seat to move, after each move of a random 4-seat game."""
    from engine import Phase, apply, new_game, observe  # noqa: PLC0415
    from engine.agents import make_agent  # noqa: PLC0415
    from render.positions import demo_config  # noqa: PLC0415

    state = new_game(demo_config(seed, seats=4))
    agents = [make_agent("random", seed + i) for i in range(4)]
    out: list[Observation] = []
    for _ in range(steps):
        if state.phase is Phase.OVER:
            break
        obs = observe(state, state.current)
        out.append(obs)
        state, _ = apply(state, agents[state.current].choose(obs))
    return out


def _timed(draw: Callable[[Observation, str], bytes], obs: Observation) -> tuple[float, int]:
    c0 = time.thread_time()
    png = draw(obs, "en")
    return (time.thread_time() - c0) * 1000, len(png)


def worker(root: Path, repeat: int) -> dict[str, dict[str, float]]:
    """Time every picture with the renderer of ``root`` (in this process): the same position
    drawn again and again, then each position of a game after the move before it (what a move
    costs), then each drawn from empty caches where the renderer can empty them."""
    sys.path.insert(0, str(root))
    import render  # noqa: PLC0415 - imported from the tree being measured
    from engine import observe  # noqa: PLC0415
    from render.positions import DEMO_SEED, battle_position, scene  # noqa: PLC0415

    state, _ = battle_position(DEMO_SEED)
    positions = {"midgame": scene("midgame").observation(),
                 f"demo seed {DEMO_SEED}": observe(state, state.current)}
    draws = {kind: getattr(render, f"{kind}_image") for kind in KINDS}
    out: dict[str, dict[str, float]] = {}
    for label, obs in positions.items():
        for kind, draw in draws.items():
            draw(obs, "en")  # fonts and sprites: not counted
            times = [_timed(draw, obs) for _ in range(repeat)]
            out[f"{label}|{kind}"] = {"cpu": statistics.median(t for t, _ in times),
                                      "bytes": times[-1][1]}
    game = _game(GAME_SEED, GAME_STEPS)
    forget: Callable[[], None] | None = getattr(render, "forget_drawings", None)
    for label, cold in (("after a move", False), ("cold", True)):
        if cold and forget is None:
            continue
        for kind, draw in draws.items():
            times = []
            for obs in game[::COLD_EVERY] if cold else game:
                if (kind == "battle" and obs.battle is None) or (kind == "hand"
                                                                 and obs.viewer is None):
                    continue
                if cold and forget is not None:
                    forget()
                times.append(_timed(draw, obs))
            out[f"{label}|{kind}"] = {"cpu": statistics.median(t for t, _ in times),
                                      "bytes": statistics.median(n for _, n in times)}
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
    print(f"{args.rounds} rounds x {args.repeat} draws of a position, then {GAME_STEPS} positions "
          f"of a random game (seed {GAME_SEED}); cpu = this thread's time, median of the rounds' "
          "medians")
    head = f"{'position':16} {'picture':7} " + " ".join(
        f"{name + ' cpu ms':>15} {'KB':>6}" for name in trees)
    print(head + ("   speed-up" if len(trees) > 1 else "") + "  goal")
    worst: dict[str, float] = {}
    for case in runs["this"][0]:
        label, kind = case.split("|")
        cells = []
        cpus = {}
        for name in trees:
            if case not in runs[name][0]:
                cells.append(f"{'-':>15} {'-':>6}")
                continue
            cpu = statistics.median(run[case]["cpu"] for run in runs[name])
            size = runs[name][0][case]["bytes"] / 1024
            cpus[name] = cpu
            cells.append(f"{cpu:15.2f} {size:6.1f}")
        ratio = f"   x{cpus['against'] / cpus['this']:6.2f}" if "against" in cpus else ""
        goal = GOALS_MS[kind]
        verdict = "ok" if cpus["this"] <= goal else f"> {goal:.0f} ms"
        if label == "cold":  # a process's first pictures: no goal
            verdict = "(empty caches)"
        else:
            worst[kind] = max(worst.get(kind, 0.0), cpus["this"])
        print(f"{label:16} {kind:7} " + " ".join(cells) + ratio + f"  {verdict}")
    print("worst median (cpu, this tree): " + ", ".join(f"{k} {v:.2f} ms"
                                                       for k, v in worst.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
