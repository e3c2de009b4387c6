"""The lessons of ``/goblin learn`` without Discord: the seed search script agrees with the seed
in the code, each lesson is read from the seat's observation, names its rule and reads in every
language, and its moves are drawn as primary buttons."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bot.game.lessons import LESSON_SEED, LESSONS, emphasised, lesson, lessons_met, situations
from bot.game.texts import controls
from engine import GameConfig, SeatConfig, new_game, observe
from engine.actions import Fight
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
