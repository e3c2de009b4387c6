"""The lessons of ``/goblin learn`` without Discord: the seed search script agrees with the seed
in the code, each lesson is read from the seat's observation, names its rule and reads in every
language, and its moves are drawn as primary buttons; a guided match whose learner takes moves
back reads the moves that stand."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bot.game.lessons import (
    LESSON_SEED,
    LESSONS,
    emphasised,
    lesson,
    lesson_now,
    lessons_met,
    situations,
)
from bot.game.service import GameService
from bot.game.texts import controls
from engine import Action, GameConfig, Phase, SeatConfig, Undo, new_game, observe, replay
from engine.actions import Fight
from engine.agents import make_agent
from i18n import LOCALES, translate

ROOT = Path(__file__).resolve().parents[2]


def test_the_search_script_meets_every_lesson_on_the_seed_in_the_code() -> None:
    out = subprocess.run([sys.executable, "scripts/find_lesson_seed.py", "--first",
                          str(LESSON_SEED), "--seeds", "1"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, check=True).stdout.splitlines()
    assert out[0] == f"seed {LESSON_SEED}"
    assert [line.split()[0] for line in out[1:]] == list(LESSONS)


def test_a_lesson_comes_from_the_observation_and_reads_in_every_language() -> None:
    state = new_game(GameConfig(seats=(SeatConfig("horan", name="Ann"),
                                       SeatConfig("taia", name="Taia", ai=True)), seed=3))
    seat = state.current
    obs = observe(state, seat)
    assert situations(obs)[0] == "fight"
    assert situations(observe(state, 1 - seat)) == []  # not that seat's decision
    shown = lesson("fight", obs)
    assert shown.rule == "R10"
    assert shown.highlight == {str(a) for a in obs.legal if isinstance(a, Fight)}
    for lc in LOCALES:
        text = translate(shown.text, lc)
        assert text and not text.startswith("learn.")
    styled = {c.notation: c.style for g in emphasised(controls(obs), shown).groups
              for c in g.buttons}
    assert {n for n, s in styled.items() if s == "primary"} <= shown.highlight
    assert len([s for s in styled.values() if s == "primary"]) >= 5  # lifted out of the menu
    assert lessons_met(state.config, [], seat) == {"fight": 0}


async def test_the_lessons_of_a_match_with_take_backs_read_the_moves_that_stand(
        service: GameService) -> None:
    learner = 101
    record = await service.lobby.learn(guild_id=9, channel_id=1, host_id=learner,
                                       host_name="Ann")
    seat = record.seat_of(learner)
    assert seat is not None
    kept: list[str] = []  # the moves that stand, as the players know them
    took_back = shown = 0
    turns: set[tuple[int, int]] = set()
    while record.game.step < 150 and record.game.phase is not Phase.OVER:
        outcome = await service.play.ai_step(record.id)
        if outcome is not None:
            kept.append(str(outcome.action))
            record = outcome.record
            continue
        state = record.game
        assert replay(state.config, kept) == state
        now = await service.play.lesson(record, seat)
        assert now == lesson_now(state, kept, seat)
        shown += now is not None and took_back > 0
        obs = observe(state, seat)
        action: Action = make_agent("easy", state.step).choose(obs)
        if Undo() in obs.legal and (state.round, state.turn) not in turns:
            turns.add((state.round, state.turn))  # one take-back a turn
            action = Undo()
            kept.pop()
            took_back += 1
        else:
            kept.append(str(action))
        record = (await service.play.act(record.id, learner, record.version, str(action),
                                         sure=True)).record
    assert took_back > 5 and shown > 0
    assert lessons_met(record.game.config, kept, seat)
