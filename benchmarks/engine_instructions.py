"""Engine cost in machine instructions per step, counted by valgrind: steady where seconds are not.

    python3 scripts/dev.py python benchmarks/engine_instructions.py
    python3 scripts/dev.py python benchmarks/engine_instructions.py --against ../old-checkout

The machines here are shared, so two timings of one version differ by 5-10%, more than many
changes are worth. valgrind's callgrind tool counts the instructions a process runs instead: the
same from run to run, whatever else the machine does. This script runs, under callgrind, the first
``--games`` games of ``benchmarks/engine.py`` (reach agents, observe + choose + apply) once and
twice, and their actions replayed with ``apply(check=False)`` once and twice; the differences,
divided by the steps, are the instructions of one step with start-up left out. ``--against``
counts another checkout of the project the same way, with this project's Python, for a comparison
in one run. Needs valgrind (Debian: ``apt-get install valgrind``); one count takes about 15 s.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine import Action, GameConfig

ROOT = Path(__file__).resolve().parent.parent


def workload(root: Path, games: int, passes: int, replay: bool) -> int:
    """Play (or replay) the first ``games`` games of ``benchmarks/engine.py`` ``passes`` times with
    the engine of ``root``; return the steps of one pass."""
    sys.path.insert(0, str(root))
    from engine import Phase, apply, new_game, observe
    from engine.simulate import settle

    sys.path.insert(0, str(ROOT))
    from benchmarks.engine import agent, table  # this checkout's tables, any checkout's engine

    settle()
    tables = [table(1 + i, abilities=bool(i % 2)) for i in range(games)]

    def play(config: GameConfig) -> list[Action]:
        state = new_game(config)
        seats = [agent("reach", config.seed * 8 + i) for i in range(len(config.seats))]
        actions = []
        while state.phase is not Phase.OVER and state.round <= 5000:
            action = seats[state.current].choose(observe(state, state.current))
            actions.append(action)
            state, _ = apply(state, action)
        return actions

    played = [(config, play(config)) for config in tables] if replay else []
    steps = 0
    for _ in range(passes):
        if replay:
            for config, actions in played:
                state = new_game(config)
                for action in actions:
                    state, _ = apply(state, action, check=False)
            steps = sum(len(actions) for _, actions in played)
        else:
            steps = sum(len(play(config)) for config in tables)
    return steps


def count(root: Path, games: int, passes: int, replay: bool) -> tuple[int, int]:
    """Instructions and steps of one callgrind run of :func:`workload`."""
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
               sys.executable, __file__, "--child", str(root), str(games), str(passes),
               "replay" if replay else "play"]
    env = dict(os.environ, PYTHONHASHSEED="0")  # string hashes, hence dict probing, repeat
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    found = re.search(r"Collected : (\d+)", done.stderr)
    steps = re.search(r"^steps (\d+)$", done.stdout, re.MULTILINE)
    if done.returncode != 0 or found is None or steps is None:
        raise RuntimeError(f"valgrind run failed ({done.returncode}): {done.stderr[-500:]}")
    return int(found[1]), int(steps[1])


def per_step(root: Path, games: int, replay: bool) -> float:
    """Instructions of one step: two passes minus one, over the steps of a pass."""
    once, steps = count(root, games, 1, replay)
    twice, _ = count(root, games, 2, replay)
    return (twice - once) / steps


def main(argv: list[str] | None = None) -> int:
    """Count and print instructions per step for this checkout (and ``--against``'s)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--child"]:
        where, games, passes, mode = args[1:5]
        steps = workload(Path(where), int(games), int(passes), mode == "replay")
        print(f"steps {steps}")
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--against", type=Path, help="another checkout to count the same way")
    options = parser.parse_args(args)
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (Debian: apt-get install valgrind); nothing counted")
        return 2
    roots = [("this checkout", ROOT)]
    if options.against is not None:
        if not (options.against / "engine" / "rules.py").is_file():
            print(f"{options.against} is not a checkout of this project")
            return 2
        roots.append((str(options.against), options.against.resolve()))
    print(f"instructions per step, first {options.games} games of benchmarks/engine.py:")
    for name, root in roots:
        full = per_step(root, options.games, replay=False)
        replay = per_step(root, options.games, replay=True)
        print(f"  {name}: {full:,.0f} (observe + choose + apply), {replay:,.0f} (apply only)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
