"""Engine speed on one core, optionally beside another checkout of the project in the same run.

    .venv/bin/python benchmarks/engine.py                        # this checkout
    .venv/bin/python benchmarks/engine.py --against /tmp/old     # and another one, alternately

Three figures, each the best of ``--rounds`` runs (the machine may be shared, so the runs of the
checkouts alternate and each keeps its best):

* heuristic self-play steps per second: 4-seat games where every seat is the heuristic agent
  (``observe`` + ``choose`` + ``apply`` per step), the work the bot and the balance report do;
* reach-agent 4-seat games per second: complete games where every seat plays the reach agent
  (random among sensible moves, preferring monsters it can beat; ``random`` in older checkouts),
  the engine's own cost with the least agent work;
* ``state_to_json`` + ``state_from_json`` of a midgame state: the storage cost of every move,
  the median over states from the middle half of those games.

Each checkout is measured in its own subprocess that imports that checkout's engine. Throughput
is CPU time of that process; per-call figures are the median over the positions of the best of
three timings each.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(os.environ.get("ENGINE_BENCH_ROOT", Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(ROOT))  # before this file's own folder, whose engine.py is not the engine

from engine import (  # noqa: E402
    Action,
    GameConfig,
    GameState,
    Phase,
    SeatConfig,
    apply,
    new_game,
    observe,
    state_from_json,
    state_to_json,
)
from engine import rng as game_rng  # noqa: E402
from engine.agents import Agent, make_agent  # noqa: E402
from engine.simulate import settle  # noqa: E402

HEROES = ("argentus", "horan", "xanros", "aderyn", "victorius", "taia")


def table(seed: int, abilities: bool) -> GameConfig:
    """A 4-seat table with heroes drawn from the seed."""
    heroes, _ = game_rng.shuffled(game_rng.seed_state(seed ^ 0xBE7C4), HEROES)
    return GameConfig(seats=tuple(SeatConfig(h, ai=True) for h in heroes[:4]),
                      abilities=abilities, seed=seed)


def agent(kind: str, seed: int) -> Agent:
    """An agent by name; ``reach`` is called ``random`` by checkouts that predate the name."""
    try:
        return make_agent(kind, seed)
    except ValueError:
        if kind != "reach":
            raise
        return make_agent("random", seed)


def play(config: GameConfig, kind: str, cap: int) -> tuple[list[GameState], list[Action], bool]:
    """Play one game with ``kind`` at every seat until it ends or passes ``cap`` rounds: its
    states, the actions taken and whether it ended."""
    state = new_game(config)
    agents = [agent(kind, config.seed * 8 + i) for i in range(len(config.seats))]
    states, actions = [state], []
    while state.phase is not Phase.OVER and state.round <= cap:
        action = agents[state.current].choose(observe(state, state.current))
        actions.append(action)
        state, _ = apply(state, action)
        states.append(state)
    return states, actions, state.phase is Phase.OVER


def best_us(call: Any, *args: Any) -> float:
    """The best of three timings of ``call(*args)``, in microseconds."""
    took = []
    for _ in range(3):
        start = time.perf_counter_ns()
        call(*args)
        took.append(time.perf_counter_ns() - start)
    return min(took) / 1000


def measure(games: int, heuristic_games: int, seed: int) -> dict[str, float]:
    """The three figures of this process's engine (see the module docstring)."""
    settle()
    start = time.process_time()
    steps = 0
    for i in range(heuristic_games):
        _, actions, _ = play(table(seed + i, abilities=bool(i % 2)), "heuristic", 200)
        steps += len(actions)
    heuristic = steps / (time.process_time() - start)
    start = time.process_time()
    played = [play(table(seed + i, abilities=bool(i % 2)), "reach", 5000) for i in range(games)]
    took = time.process_time() - start
    finished = sum(ended for _, _, ended in played)
    middle = [s for states, _, _ in played
              for s in states[len(states) // 4: 3 * len(states) // 4: 25]]
    texts = [state_to_json(s) for s in middle]
    encode = statistics.median(best_us(state_to_json, s) for s in middle)
    decode = statistics.median(best_us(state_from_json, t) for t in texts)
    return {"heuristic_steps_per_s": heuristic, "reach_games_per_s": finished / took,
            "reach_steps_per_s": sum(len(a) for _, a, _ in played) / took,
            "games": len(played), "finished": finished, "to_json_us": encode,
            "from_json_us": decode, "json_us": encode + decode,
            "json_bytes": statistics.median(len(t) for t in texts)}


def run_child(root: Path, args: argparse.Namespace) -> dict[str, float]:
    """:func:`measure` in a subprocess that imports the engine of checkout ``root``."""
    command = [sys.executable, str(Path(__file__).resolve()), "--child", "--games",
               str(args.games), "--heuristic-games", str(args.heuristic_games), "--seed",
               str(args.seed)]
    env = dict(os.environ, ENGINE_BENCH_ROOT=str(root), PYTHONPATH=str(root))
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"benchmark of {root} failed: {done.stderr[-800:]}")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def best(runs: list[dict[str, float]]) -> dict[str, float]:
    """Each figure's best over several runs (highest rate, lowest time)."""
    out = dict(runs[0])
    for run in runs[1:]:
        for key, value in run.items():
            out[key] = min(out[key], value) if key.endswith("_us") else max(out[key], value)
    return out


def report(name: str, f: dict[str, float], base: dict[str, float] | None) -> None:
    """Print one checkout's figures (and their ratio to ``base``'s)."""
    def versus(key: str) -> str:
        return f" ({f[key] / base[key]:.0%} of the other's)" if base else ""
    print(f"{name}:")
    print(f"  heuristic self-play: {f['heuristic_steps_per_s']:,.0f} steps/s"
          + versus("heuristic_steps_per_s"))
    print(f"  reach-agent 4-seat games: {f['reach_games_per_s']:.2f} complete games/s"
          f" ({f['finished']:.0f} of {f['games']:.0f} finished),"
          f" {f['reach_steps_per_s']:,.0f} steps/s" + versus("reach_games_per_s"))
    print(f"  state_to_json + state_from_json, midgame: {f['json_us']:.1f} us"
          f" ({f['to_json_us']:.1f} + {f['from_json_us']:.1f}), {f['json_bytes']:,.0f} bytes"
          + versus("json_us"))


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20, help="reach-agent games")
    parser.add_argument("--heuristic-games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=2, help="runs of each checkout")
    parser.add_argument("--against", type=Path, help="another checkout, measured the same way")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.games, args.heuristic_games, args.seed)))
        return 0
    checkouts = [("this checkout", ROOT)]
    if args.against is not None:
        if not (args.against / "engine" / "rules.py").is_file():
            print(f"{args.against} is not a checkout of this project")
            return 2
        checkouts.append((str(args.against), args.against.resolve()))
    runs: dict[str, list[dict[str, float]]] = {name: [] for name, _ in checkouts}
    for _ in range(max(1, args.rounds)):
        for name, root in checkouts:
            runs[name].append(run_child(root, args))
    figures = {name: best(r) for name, r in runs.items()}
    print(f"one core, best of {max(1, args.rounds)} alternating runs; {args.heuristic_games}"
          f" heuristic and {args.games} reach-agent 4-seat games from seed {args.seed}")
    other = figures[checkouts[1][0]] if len(checkouts) > 1 else None
    report(checkouts[0][0], figures[checkouts[0][0]], other)
    if other is not None:
        report(checkouts[1][0], other, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
