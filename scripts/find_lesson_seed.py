"""Find the seed of ``/goblin learn``: a seed whose match meets every lesson early.

Each candidate seed is played as the bot plays a ``/goblin learn`` table: the learner in the first
seat and :data:`~bot.game.lessons.LESSON_AI_SEATS` easy AI seats, heroes dealt from the seed as
the lobby deals them, every seat choosing at the AI's seed for the table's version. The
learner's seat follows each lesson's advice when one is shown (one of the moves it highlights)
and is played by the easy agent otherwise (``--agent`` picks another). The seed whose last
lesson comes soonest wins; the script prints it and, for each lesson, the step and the learner's
turn it is met at::

    python scripts/find_lesson_seed.py --seeds 2000
"""

from __future__ import annotations

import argparse

from bot.game.lessons import (
    LESSON_AI_SEATS,
    LESSON_LEVEL,
    LESSONS,
    advised,
    lesson,
    lessons_met,
    shown_at,
    taught_after,
)
from bot.game.lobby import game_config
from bot.game.play import Play
from bot.storage.records import SeatInfo
from engine import Action, GameConfig, Phase, apply, new_game, observe
from engine.agents import make_agent

#: Moves played per candidate at most (the lessons must come in the first turns).
HORIZON = 300


def lesson_config(seed: int) -> GameConfig:
    """The game of a ``/goblin learn`` table with ``seed``."""
    seats = (SeatInfo(user=1, name="learner"),
             *(SeatInfo(ai=True, level=LESSON_LEVEL) for _ in range(LESSON_AI_SEATS)))
    return game_config(seats, False, seed)[1]


def play_lesson(seed: int, agent: str = LESSON_LEVEL, horizon: int = HORIZON) -> list[Action]:
    """The first ``horizon`` moves of the lesson match on ``seed``: AI seats at the lesson level
    and the learner by ``agent`` following each lesson shown, each deciding with the bot's AI
    seed for the table's version."""
    state = new_game(lesson_config(seed))
    moves: list[Action] = []
    taught: dict[str, int] = {}
    while state.phase is not Phase.OVER and state.step < horizon:
        seat = state.current
        kind = agent if seat == 0 else LESSON_LEVEL
        obs = observe(state, seat)
        now = shown_at(state, taught, 0)
        if now is not None:  # the lesson shown now (as the hand shows it): its advice followed
            obs = advised(obs, lesson(now[0], obs, now[1]))
        action = make_agent(kind, Play.seed_for(seed, state.step)).choose(obs)
        if action not in obs.legal:  # an agent's shortcut the lesson does not advise
            action = obs.legal[0]
        after, _ = apply(state, action, seat=seat)
        taught = taught_after(taught, state, action, after, 0)
        state = after
        moves.append(action)
    return moves


def first_met(taught: dict[str, int]) -> dict[str, int]:
    """Each lesson of :data:`LESSONS` taught, and the step it was first taught at (the curse
    lesson: its first kind of curse)."""
    out: dict[str, int] = {}
    for topic, step in sorted(taught.items(), key=lambda item: item[1]):
        out.setdefault(topic.split(":")[0], step)
    return out


def learner_turns(config: GameConfig, moves: list[Action]) -> dict[int, int]:
    """The learner's turn number (1 for its first) at each step of the game."""
    state = new_game(config)
    out: dict[int, int] = {}
    turns = 0
    last: tuple[int, int] | None = None
    for move in [*moves, None]:
        if state.current == 0 and (state.round, state.turn) != last:
            turns += 1
            last = (state.round, state.turn)
        out[state.step] = turns
        if move is None:
            break
        state, _ = apply(state, move, seat=state.current)
    return out


def main() -> None:
    """Search seeds and print the best one with its lessons."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1000, help="seeds to try, from --first")
    parser.add_argument("--first", type=int, default=1)
    parser.add_argument("--agent", default=LESSON_LEVEL, help="the agent playing the learner")
    args = parser.parse_args()
    best: tuple[int, int, dict[str, int]] | None = None
    for seed in range(args.first, args.first + args.seeds):
        moves = play_lesson(seed, args.agent)
        met = first_met(lessons_met(lesson_config(seed), moves, 0))
        if len(met) == len(LESSONS) and (best is None or max(met.values()) < best[1]):
            best = (seed, max(met.values()), met)
    if best is None:
        print("no seed met every lesson; try more seeds")
        return
    seed, _, met = best
    turns = learner_turns(lesson_config(seed), play_lesson(seed, args.agent))
    print(f"seed {seed}")
    for name in LESSONS:
        print(f"  {name:<9} step {met[name]:>3}  learner's turn {turns[met[name]]}")


if __name__ == "__main__":
    main()
