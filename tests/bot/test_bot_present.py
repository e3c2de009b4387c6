"""What the hand message offers, checked over random games: every legal move exactly once, in
groups, within Discord's limits, with colours that mean good or bad only when that is true."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bot.discord_side.ui.hand import hand_view
from bot.discord_side.ui.parts import MAX_COMPONENTS, MAX_TEXT, text_length
from bot.game.texts import GROUPS, REVIVE_HP, controls, seat_line
from bot.storage.records import SeatInfo, TableRecord
from engine import EndBattle, GameConfig, Revive, SeatConfig, SetStacking, TakeReward, observe
from engine.names import hero_name
from i18n import translate

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the shared helper
from random_play import random_positions  # noqa: E402

CONFIG = GameConfig(seats=(SeatConfig("aderyn", name="Ann"), SeatConfig("horan", ai=True),
                           SeatConfig("taia", name="Cleo"), SeatConfig("xanros", ai=True)),
                    abilities=True, seed=11)


def positions() -> list[tuple[int, object]]:
    return [(i, s) for i, s in enumerate(random_positions(CONFIG, 1500))]


def record(state: object) -> TableRecord:
    seats = tuple(SeatInfo(user=100 + i, name="x") for i in range(4))
    return TableRecord(id=1, guild_id=1, channel_id=2, host_id=100, status="running",
                       abilities=True, timer=0, seed=1, locale="en", seats=seats,
                       state=state, version=state.step, message_id=None,  # type: ignore[arg-type]
                       lobby_message_id=None, deadline=None, winner=None, created_at=0.0,
                       updated_at=0.0, place_key="guild:1")


def test_every_legal_move_is_offered_once_in_groups_within_discords_limits() -> None:
    seen_groups: set[str] = set()
    for _, state in positions():
        obs = observe(state, state.current)  # type: ignore[attr-defined]
        ctrls = controls(obs)
        offered = [c.notation for g in ctrls.groups
                   for c in (*g.buttons, *(c for m in g.menus for c in m.choices))]
        assert sorted(offered) == sorted(str(a) for a in obs.legal)
        seen_groups.update(g.key for g in ctrls.groups)
        for locale in ("en", "fr", "cs"):
            view = hand_view(record(state), obs.current, obs, locale, ctrls, None,
                             ["hand.png", "battle.png"])
            count = sum(1 for _ in view.walk_children())
            assert count <= MAX_COMPONENTS and text_length(view) <= MAX_TEXT
    assert {"cards", "fight", "turn", "end", "setting"} <= seen_groups <= set(GROUPS)


def test_colours_mean_good_or_bad_only_when_true() -> None:
    checked = {"revive": 0, "end": 0, "stack": 0, "reward": 0}
    for _, state in positions():
        obs = observe(state, state.current)  # type: ignore[attr-defined]
        for g in controls(obs).groups:
            for c in g.buttons:
                action = next(a for a in obs.legal if str(a) == c.notation)
                if isinstance(action, Revive):
                    checked["revive"] += 1
                    assert c.emphasis == "plain"
                    full = obs.seats[obs.current].hp >= REVIVE_HP
                    assert (c.label.key == "bot.move.rest") == full
                elif isinstance(action, EndBattle):
                    checked["end"] += 1
                    totals = obs.battle.totals  # type: ignore[union-attr]
                    assert c.emphasis == ("good" if totals.win else "risky"
                                          if totals.knocked_out else "plain")
                elif isinstance(action, SetStacking):
                    checked["stack"] += 1
                    assert g.key == "setting" and c.emphasis == "plain" and g.note is not None
                elif isinstance(action, TakeReward):
                    checked["reward"] += 1
                    assert g.key == "reward" and g.note is not None  # the reward's stats
                    assert "{" not in translate(g.note, "en")
    assert all(checked.values()), checked


def test_an_ai_seat_is_not_named_twice() -> None:
    state = random_positions(CONFIG, 0)[0]
    obs = observe(state, None)
    ai_line = translate(seat_line(obs, 1), "en")
    assert ai_line.count(translate(hero_name("horan"), "en")) == 1 and "[AI]" in ai_line
    human = translate(seat_line(obs, 0), "en")
    assert "**Ann**" in human and translate(hero_name("aderyn"), "en") in human


@pytest.mark.parametrize(("locale", "none"), [
    ("en", "keys: none,"), ("fr", "clés : aucune,"), ("cs", "klíče: žádné,")])
def test_a_seat_without_keys_says_so_in_words(locale: str, none: str) -> None:
    """A seat line says a seat has no key in words, as it says it has no equipment."""
    obs = observe(random_positions(CONFIG, 0)[0], None)
    line = translate(seat_line(obs, 0), locale)
    assert none in line.replace("\u00a0", " ") and " -," not in line, line
