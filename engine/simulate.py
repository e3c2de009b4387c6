"""Play many complete games between agents and print what happened as one JSON object.

    python -m engine.simulate --games 1000 --players 4 --seed 1 --agent heuristic \\
        --abilities on --json

Game ``i`` uses seed ``S + i`` for the table (heroes drawn at random, seat order, shuffles) and for
its agents, so every figure is reproducible. Games run in parallel worker processes.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from engine import rng
from engine.actions import Action
from engine.agents import make_agent
from engine.catalog import tables
from engine.observe import observe
from engine.rules import apply
from engine.setup import new_game
from engine.state import Event, GameConfig, GameState, Phase, SeatConfig

HEROES = ("argentus", "horan", "xanros", "aderyn", "victorius", "taia")
ROUND_CAP = 150


@dataclass
class GameResult:
    """The summary of one simulated game."""

    seed: int
    heroes: tuple[str, ...]
    order: tuple[int, ...]
    winner: int | None
    rounds: int
    steps: int
    error: str | None = None
    fights: Counter[int] = field(default_factory=Counter)
    fight_wins: Counter[int] = field(default_factory=Counter)


def seated(seed: int, players: int, abilities: bool,
           heroes: tuple[str, ...] | None = None) -> GameConfig:
    """The table of game ``seed``: AI seats whose heroes are drawn from the seed unless
    ``heroes`` names them (then ``players`` is their number)."""
    if heroes is None:
        drawn, _ = rng.shuffled(rng.seed_state(seed ^ 0xC0FFEE), HEROES)
        heroes = tuple(drawn[:players])
    return GameConfig(seats=tuple(SeatConfig(h, ai=True) for h in heroes),
                      abilities=abilities, seed=seed)


Move = tuple[GameState, Action, GameState, list[Event]]


def moves(start: GameState, agent: str, cap: int = ROUND_CAP) -> Iterator[Move]:
    """Each move of a game played from ``start`` by ``agent`` players (seeded from the game's
    seed) to its end or the round cap: the state before, the action, the state after and the
    events. An agent's illegal move raises."""
    seed = start.config.seed
    agents = [make_agent(agent, seed * 8 + i) for i in range(len(start.seats))]
    state = start
    while state.phase is not Phase.OVER and state.round <= cap:
        action = agents[state.current].choose(observe(state, state.current))
        after, events = apply(state, action)
        yield state, action, after, events
        state = after


def play_game(seed: int, players: int, agent: str, abilities: bool,
              cap: int = ROUND_CAP, heroes: tuple[str, ...] | None = None) -> GameResult:
    """Play one game to its end (or the round cap) and summarise it. The seated heroes are
    drawn from the seed unless ``heroes`` names them (then ``players`` is their number)."""
    config = seated(seed, players, abilities, heroes)
    start = state = new_game(config)
    result = GameResult(seed, tuple(s.hero for s in config.seats), state.order, None, 0, 0)
    monsters = tables().monsters
    try:
        for before, action, state, events in moves(start, agent, cap):
            if before.phase is Phase.BATTLE and state.phase is not Phase.BATTLE and \
                    before.battle is not None and type(action).__name__ == "EndBattle":
                level = monsters[before.battle.monster].level
                result.fights[level] += 1
                if any(e.text.key == "event.won" for e in events):
                    result.fight_wins[level] += 1
    except Exception as exc:  # noqa: BLE001 - a simulator reports every failure, it never hides one
        result.error = f"{type(exc).__name__}: {exc}"
    result.winner = state.winner
    result.rounds = state.round
    result.steps = state.step
    return result


def settle() -> None:
    """Load the catalogue, then take every object alive so far out of the garbage collector's
    reach (:func:`gc.freeze`). Modules and the catalogue live as long as the process, so no
    full collection needs to walk them again."""
    tables()
    gc.collect()
    gc.freeze()


def _batch(args: tuple[list[int], int, str, bool]) -> list[GameResult]:
    seeds, players, agent, abilities = args
    return [play_game(s, players, agent, abilities) for s in seeds]


def run(games: int, players: int, seed: int, agent: str, abilities: bool,
        workers: int | None = None) -> list[GameResult]:
    """Play ``games`` games, spread over worker processes."""
    seeds = [seed + i for i in range(games)]
    workers = max(1, min(workers or os.cpu_count() or 1, games))
    if workers == 1:
        return _batch((seeds, players, agent, abilities))
    chunks = [seeds[i::workers * 4] for i in range(workers * 4)]
    with ProcessPoolExecutor(workers, initializer=settle) as pool:
        parts = pool.map(_batch, [(c, players, agent, abilities) for c in chunks if c])
        out = [r for part in parts for r in part]
    return sorted(out, key=lambda r: r.seed)


def _pct(values: list[int], q: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summarise(results: list[GameResult], seconds: float) -> dict[str, Any]:
    """The JSON summary of a batch of games."""
    finished = [r for r in results if r.winner is not None]
    rounds = [r.rounds for r in finished] or [0]
    played: Counter[str] = Counter()
    won: Counter[str] = Counter()
    seat_won: Counter[int] = Counter()
    fights: Counter[int] = Counter()
    fight_wins: Counter[int] = Counter()
    for r in results:
        played.update(r.heroes)
        fights.update(r.fights)
        fight_wins.update(r.fight_wins)
        if r.winner is not None:
            won[r.heroes[r.winner]] += 1
            seat_won[r.order.index(r.winner) + 1] += 1
    players = len(results[0].heroes) if results else 0
    return {
        "games": len(results),
        "finished": len(finished),
        "errors": sum(r.error is not None for r in results),
        "error_examples": sorted({r.error for r in results if r.error})[:5],
        "unfinished_seeds": [r.seed for r in results if r.winner is None][:10],
        "rounds": {"mean": round(statistics.fmean(rounds), 2), "p50": _pct(rounds, 0.5),
                   "p95": _pct(rounds, 0.95), "max": max(rounds)},
        "wins_by_hero": {h: {"games": played[h], "wins": won[h],
                             "share": round(won[h] / played[h], 4) if played[h] else 0.0}
                         for h in HEROES if played[h]},
        "wins_by_seat": {str(s): {"wins": seat_won[s],
                                  "share": round(seat_won[s] / max(1, len(finished)), 4)}
                         for s in range(1, players + 1)},
        "fight_win_rate_by_level": {
            ("X" if lv == 4 else str(lv)): round(fight_wins[lv] / fights[lv], 4)
            for lv in sorted(fights) if fights[lv]},
        "fights_by_level": {("X" if lv == 4 else str(lv)): fights[lv] for lv in sorted(fights)},
        "seconds": round(seconds, 2),
        "games_per_second": round(len(results) / seconds, 2) if seconds else None,
    }


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(prog="python -m engine.simulate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--agent", choices=("heuristic", "reach", "random"), default="heuristic")
    parser.add_argument("--abilities", choices=("on", "off"), default="on")
    parser.add_argument("--workers", type=int, default=None,
                        help="worker processes (default: one per core)")
    parser.add_argument("--json", action="store_true", help="print only the JSON summary")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    settle()
    start = time.perf_counter()
    try:
        results = run(args.games, args.players, args.seed, args.agent, args.abilities == "on",
                      args.workers)
    finally:
        gc.unfreeze()  # tests call main() in their own process
    summary = summarise(results, time.perf_counter() - start)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"{summary['finished']}/{summary['games']} games finished, "
              f"{summary['errors']} errors, rounds {summary['rounds']}", file=sys.stderr)
        print(json.dumps(summary, indent=2))
    return 1 if summary["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
