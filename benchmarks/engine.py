"""Engine speed on one core: complete random 4-seat games per second, and the cost of each call.

    .venv/bin/python benchmarks/engine.py                  # 20 games
    .venv/bin/python benchmarks/engine.py --games 50 --seed 7

Every seat is played by the random agent (``engine.agents.make_agent("random", seed)``), which
sees only its observation, so one step costs ``observe`` + ``choose`` + ``apply`` (an observation
works out its seats, levels, battle and events only when they are read, and the agent reads them
on its turn, not in battle). Games are played
to their end (a safety cap of ``--cap`` rounds only stops a runaway; such games are reported and
left out of the games/s figure). The same games are then replayed with ``apply(check=False)``
alone, the engine's floor, and the cost of a game as long as heuristic self-play (the way people
play) is shown beside them. Per-call medians are measured on positions sampled from those games,
with the engine's caches emptied before every timing, so each figure is a call's full cost.
Throughput is CPU time of this process (the machine may be shared), wall time is shown beside it.
Like ``engine.simulate``, it first takes the modules and the catalogue out of the garbage
collector's reach (``engine.simulate.settle``).
The goal is >= 50 complete games per second.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine import (  # noqa: E402
    Action,
    GameConfig,
    GameState,
    Phase,
    SeatConfig,
    apply,
    legal_actions,
    new_game,
    observe,
    state_from_json,
    state_to_json,
)
from engine import rng as game_rng  # noqa: E402
from engine.agents import make_agent  # noqa: E402
from engine.observe import Observation  # noqa: E402
from engine.simulate import settle  # noqa: E402
from engine.validate import check_state  # noqa: E402

HEROES = ("argentus", "horan", "xanros", "aderyn", "victorius", "taia")
GOAL = 50.0


@dataclass
class Played:
    """One benchmark game: its configuration, the actions taken and how it ended."""

    config: GameConfig
    actions: list[Action]
    finished: bool
    rounds: int
    seconds: float  # CPU time the game took


def table(seed: int, abilities: bool) -> GameConfig:
    """A 4-seat table with heroes drawn from the seed."""
    heroes, _ = game_rng.shuffled(game_rng.seed_state(seed ^ 0xBE7C4), HEROES)
    return GameConfig(seats=tuple(SeatConfig(h, ai=True) for h in heroes[:4]),
                      abilities=abilities, seed=seed)


def play(config: GameConfig, cap: int, agent: str = "random") -> Played:
    """Play one game with ``agent`` at every seat until it ends or passes ``cap`` rounds."""
    began = time.process_time()
    state = new_game(config)
    agents = [make_agent(agent, config.seed * 8 + i) for i in range(len(config.seats))]
    actions: list[Action] = []
    while state.phase is not Phase.OVER and state.round <= cap:
        action = agents[state.current].choose(observe(state, state.current))
        actions.append(action)
        state, _ = apply(state, action)
    return Played(config, actions, state.phase is Phase.OVER, state.round,
                  time.process_time() - began)


def positions(game: Played, every: int) -> list[tuple[GameState, Action]]:
    """Every ``every``-th position of a played game with the action taken there (replayed)."""
    state = new_game(game.config)
    out: list[tuple[GameState, Action]] = []
    for i, action in enumerate(game.actions):
        if i % every == 0:
            out.append((state, action))
        state, _ = apply(state, action, check=False)
    return out


def engine_only(game: Played) -> None:
    """Replay a game's actions with the legality check off: the engine's own cost."""
    state = new_game(game.config)
    for action in game.actions:
        state, _ = apply(state, action, check=False)


def observe_whole(state: GameState, viewer: int | None) -> Observation:
    """An observation with every part it defers read, as the renderer reads them."""
    view = observe(state, viewer)
    for name in ("seats", "levels", "potion_piles", "battle", "events"):
        getattr(view, name)
    return view


def clear_caches() -> None:
    """Empty the engine's memo of recent positions, so the next call does all its work."""
    rules_module = sys.modules["engine.rules"]
    observe_module = sys.modules["engine.observe"]
    setattr(rules_module, "_last", (None, ()))  # noqa: B010 - a private memo, emptied on purpose
    sys.modules["engine.names"]._card_lists.clear()
    setattr(sys.modules["engine.battle"], "_last", None)  # noqa: B010 - the same
    observe_module._observations.clear()
    observe_module._seat_views.clear()
    observe_module._level_views.clear()
    setattr(observe_module, "_last_levels", (None, ()))  # noqa: B010 - the same


class CollectorClock:
    """Wall time spent in Python's garbage collector while active (the engine makes no cycles,
    so this is pure overhead of allocating many small immutable values)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._began = 0.0

    def __enter__(self) -> CollectorClock:
        gc.callbacks.append(self._tick)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._tick)

    def _tick(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._began


def median_us(calls: list[Callable[[], object]], repeat: int = 3) -> float:
    """The median over ``calls`` of the best of ``repeat`` cold timings of each, in microseconds."""
    clock = time.perf_counter_ns
    best = []
    for call in calls:
        fastest = None
        for _ in range(repeat):
            clear_caches()
            start = clock()
            call()
            took = clock() - start
            fastest = took if fastest is None else min(fastest, took)
        assert fastest is not None
        best.append(fastest)
    return statistics.median(best) / 1000


def heuristic_steps(seed: int, games: int = 4) -> int:
    """The median length, in steps, of a few 4-seat heuristic self-play games."""
    played = [play(table(seed + i, abilities=bool(i % 2)), 200, "heuristic")
              for i in range(games)]
    return int(statistics.median(len(g.actions) for g in played))


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cap", type=int, default=5000,
                        help="safety round cap per game (a capped game is not counted)")
    parser.add_argument("--positions", type=int, default=3000,
                        help="positions sampled for the per-call medians")
    args = parser.parse_args(argv)

    # Positions for the per-call figures are collected afterwards by replaying: holding thousands
    # of states while timing made the garbage collector walk them all (218 -> 153 -> 134 us/step).
    settle()  # as engine.simulate does: the catalogue and modules leave the collector's reach
    start, wall = time.process_time(), time.perf_counter()
    with CollectorClock() as collector:
        games = [play(table(args.seed + i, abilities=bool(i % 2)), args.cap)
                 for i in range(args.games)]
    took, wall = time.process_time() - start, time.perf_counter() - wall
    steps = [len(g.actions) for g in games]
    rounds = [g.rounds for g in games]
    finished = sum(g.finished for g in games)
    per_second = finished / took
    step_us = took / sum(steps) * 1e6
    print("random 4-seat games, random agent at every seat, played to the end, one core:")
    capped = len(games) - finished
    print(f"  games {len(games)}: finished {finished}"
          + (f", stopped at the safety cap {capped}" if capped else ""))
    print(f"  rounds per game: median {statistics.median(rounds):.0f}, max {max(rounds)};"
          f" steps per game: median {statistics.median(steps):.0f}, max {max(steps)}")
    print(f"  {per_second:.2f} complete games/s, {sum(steps) / took:,.0f} steps/s,"
          f" {step_us:.1f} us/step (observe + choose + apply), CPU"
          f" ({finished / wall:.2f} games/s wall)")
    print(f"  of which the garbage collector: {collector.seconds / wall:.0%} of the wall time"
          " (the engine builds no cycles; this is the cost of allocating its small values)")
    if capped and finished:
        done = [g.seconds for g in games if g.finished]
        print(f"  the finished games alone, on their own CPU time: {len(done) / sum(done):.2f}"
              f" games/s (the capped games took {1 - sum(done) / took:.0%} of the time)")
    print(f"  goal >= {GOAL:.0f} complete games/s: {'met' if per_second >= GOAL else 'NOT met'}")

    start = time.process_time()
    for game in games:
        engine_only(game)
    floor = time.process_time() - start
    print(f"  replaying the same actions with apply(check=False) only: {finished / floor:.2f}"
          f" games/s, {floor / sum(steps) * 1e6:.1f} us/step")
    typical = heuristic_steps(args.seed)
    print(f"  a game as long as heuristic self-play ({typical} steps, the way people play):"
          f" {1e6 / (typical * step_us):.1f} games/s at the measured step cost")

    pool = [s for g in games for s in positions(g, 25)]
    stride = max(1, len(pool) // args.positions)
    sample = pool[::stride][:args.positions]
    states = [s for s, _ in sample]
    print(f"per call, median over {len(sample)} positions from these games"
          " (caches emptied, best of 3 each):")
    agent = make_agent("random", 3)
    views = [observe(s, s.current) for s in states]
    texts = [state_to_json(s) for s in states]
    rows: list[tuple[str, list[Callable[[], object]]]] = [
        ("apply(check=True)", [partial(apply, s, a) for s, a in sample]),
        ("apply(check=False)", [partial(apply, s, a, check=False) for s, a in sample]),
        ("legal_actions", [partial(legal_actions, s) for s in states]),
        ("observe (seat to move)", [partial(observe, s, s.current) for s in states]),
        ("observe (other seat)",
         [partial(observe, s, (s.current + 1) % len(s.seats)) for s in states]),
        ("observe (spectator)", [partial(observe, s, None) for s in states]),
        ("observe, every part read", [partial(observe_whole, s, s.current) for s in states]),
        ("random agent choose", [partial(agent.choose, v) for v in views]),
        ("check_state", [partial(check_state, s) for s in states]),
        ("state_to_json", [partial(state_to_json, s) for s in states]),
        ("state_from_json", [partial(state_from_json, t) for t in texts]),
    ]
    figures = {}
    for name, calls in rows:
        figures[name] = median_us(calls)
        print(f"  {name:<24} {figures[name]:9.1f} us")
    check_cost = figures["apply(check=True)"] - figures["apply(check=False)"]
    gc.unfreeze()  # settle() froze this process's objects; tests call main() in theirs
    print(f"  the legality check adds {check_cost:.1f} us to a cold apply"
          f" ({check_cost / figures['apply(check=True)']:.0%}); after observe it is free")
    return 0


if __name__ == "__main__":
    sys.exit(main())
