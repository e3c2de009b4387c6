"""engine.replay: stepping through a long seeded match played by AI seats, its bookmarks, what a
spectator sees at every step, and the hands shown only once the match is over."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from engine import EndBattle, Fight, GameState, Phase, apply, new_game, replay
from engine.battle import totals
from engine.replay import Replay, ReplayError, RevealRefused
from engine.serialize import to_data
from engine.simulate import moves, seated
from i18n import LOCALES, Msg, translate

#: A seeded 4-seat match between reach agents: several hundred moves, every kind of bookmark.
SEED = 12
KINDS = {"turn", "won", "lost", "key", "lord", "champion"}


@pytest.fixture(scope="module")
def match() -> Replay:
    config = seated(SEED, 4, abilities=True)
    return Replay(config, [action for _, action, _, _ in moves(new_game(config), "reach")])


@pytest.fixture(scope="module")
def played(match: Replay) -> list[GameState]:
    """Every state of the match, reached by applying its actions one after another."""
    states = [new_game(match.config)]
    for action in match.actions:
        states.append(apply(states[-1], action)[0])
    return states


def test_a_long_match_finishes(match: Replay) -> None:
    assert match.last > 300 and match.finished
    assert match.final.winner is not None


def test_stepping_to_both_ends(match: Replay) -> None:
    assert match.state(0) == new_game(match.config)
    assert match.state(0).step == 0 and match.view(0).step == 0
    end = match.state(match.last)
    assert end == match.final == replay(match.config, match.actions)
    assert end.phase is Phase.OVER and end.step == match.last
    assert match.view(match.last).winner == end.winner
    for outside in (-1, match.last + 1):
        with pytest.raises(IndexError):
            match.state(outside)
        with pytest.raises(IndexError):
            match.events(outside)


def test_random_access_equals_sequential_stepping(match: Replay,
                                                  played: list[GameState]) -> None:
    steps = list(range(match.last + 1))
    random.Random(5).shuffle(steps)
    for step in steps:
        assert match.state(step) == played[step]
        assert match.state(step).step == step


def test_notation_replays_the_same_match(match: Replay) -> None:
    again = Replay(match.config, [str(a) for a in match.actions])
    assert again.final == match.final and again.bookmarks == match.bookmarks


def test_each_move_keeps_its_seat_and_events(match: Replay, played: list[GameState]) -> None:
    for move in match.moves:
        before = played[move.step - 1]
        after, said = apply(before, move.action)
        assert move.seat == before.current and after == played[move.step]
        assert move.events == tuple(said)
        assert match.events(move.step, move.seat) == tuple(
            e for e in said if e.to in (None, move.seat))


def test_a_log_that_no_longer_replays_names_its_move(match: Replay) -> None:
    actions = list(match.actions)
    bad = next(i for i, a in enumerate(actions) if isinstance(a, Fight))
    actions.insert(bad + 1, actions[bad])  # fighting again in the middle of the battle
    with pytest.raises(ReplayError) as caught:
        Replay(match.config, actions)
    assert caught.value.step == bad + 1 and caught.value.action == actions[bad]


def _battle_end(match: Replay, step: int, won: bool) -> None:
    before = match.state(step - 1)
    assert isinstance(match.moves[step - 1].action, EndBattle) and before.battle is not None
    assert totals(before).win is won


def _check_bookmark(match: Replay, kind: str, step: int, first: int, seat: int) -> None:
    state, before = match.state(step), match.state(max(0, step - 1))
    if kind == "turn":
        assert first == step and state.current == seat and state.phase is Phase.TURN
        assert step == 0 or (before.turn, before.round) != (state.turn, state.round)
        return
    assert match.moves[step - 1].seat == seat
    if kind in ("won", "lost", "key", "champion"):
        _battle_end(match, step, kind != "lost")
        battle = before.battle
        assert battle is not None
        opened = match.state(first).battle
        assert opened is not None and opened.monster == battle.monster
        assert match.state(first - 1).battle is None
        assert isinstance(match.moves[first - 1].action, Fight)
    if kind == "key":
        assert len(state.seats[seat].keys) == len(before.seats[seat].keys) + 1
    if kind == "lord":
        assert first == step and state.battle is not None and state.battle.level == 4
    if kind == "champion":
        assert step == match.last and state.winner == seat


def test_bookmarks_mark_what_happened_at_their_step(match: Replay) -> None:
    marks = match.bookmarks
    assert {b.kind for b in marks} == KINDS
    assert [b.step for b in marks] == sorted(b.step for b in marks)
    for b in marks:
        _check_bookmark(match, b.kind, b.step, b.first, b.seat)
    # Nothing is missed: every turn, every battle's end and every key has its bookmark.
    turns = [0] + [s for s in range(1, match.last + 1)
                   if (match.state(s - 1).turn, match.state(s - 1).round)
                   != (match.state(s).turn, match.state(s).round)]
    assert list(match.turn_starts()) == turns
    ends = [m.step for m in match.moves if isinstance(m.action, EndBattle)]
    assert sorted(b.step for b in marks if b.kind in ("won", "lost", "champion")) == ends
    keys = sum(len(seat.keys) for seat in match.final.seats)
    assert sum(b.kind == "key" for b in marks) == keys


def test_bookmark_labels_read_in_every_language(match: Replay) -> None:
    for b in match.bookmarks:
        for locale in LOCALES:
            text = translate(b.label, locale)
            assert text and "{" not in text and b.label.key == f"replay.bookmark.{b.kind}"
    champion = match.bookmarks[-1]
    winner = champion.label.get("who")
    assert champion.kind == "champion" and isinstance(winner, Msg)
    assert translate(champion.label, "en").startswith(translate(winner, "en"))


def _words(data: Any) -> set[str]:
    """Every text inside plain data."""
    if isinstance(data, str):
        return {data}
    if isinstance(data, dict):
        return set().union(*(_words(v) for v in data.values())) if data else set()
    if isinstance(data, list | tuple):
        return set().union(*(_words(v) for v in data)) if data else set()
    return set()


def test_the_spectator_sees_no_card_of_any_hand(match: Replay) -> None:
    held = 0
    for step in range(match.last + 1):
        view = match.view(step)
        state = match.state(step)
        assert view.viewer is None and view.hand == () and view.drawn == () and view.legal == ()
        shown = _words(to_data(msgspec.structs.replace(view, events=())))
        for seat in state.seats:
            held += len(seat.hand)
            assert not shown & set(seat.hand), (step, shown & set(seat.hand))
        assert all(e.to is None for e in view.events)
        assert all(e.to is None for e in match.events(step))
    assert held > match.last  # hands were full all along: the check had cards to look for


def test_private_events_reach_only_their_seat(match: Replay) -> None:
    private = [(m.step, e.to) for m in match.moves for e in m.events if e.to is not None]
    assert private
    for step, seat in private[:50]:
        assert any(e.to == seat for e in match.events(step, seat))
        assert not any(e.to is not None for e in match.events(step))


def test_narration_translates_what_the_spectator_may_see(match: Replay) -> None:
    assert match.narration(0, "en")[0].startswith("The caverns open.")
    step = match.bookmarks[-1].step
    for locale in LOCALES:
        lines = match.narration(step, locale)
        assert lines == [translate(e.text, locale) for e in match.events(step)]


def test_hands_are_revealed_only_for_a_finished_match(match: Replay) -> None:
    step = match.last // 2
    shown = match.reveal(step, final=match.final)
    assert shown.hands == tuple(seat.hand for seat in match.state(step).seats)
    assert any(shown.hands) and shown.spectator == match.view(step)
    assert shown.events == match.moves[step - 1].events
    unfinished = Replay(match.config, match.actions[:step + 10])
    assert not unfinished.finished
    with pytest.raises(RevealRefused):
        unfinished.reveal(step, final=unfinished.final)
    with pytest.raises(RevealRefused):  # another match's end does not open this one
        unfinished.reveal(step, final=match.final)
    other = seated(SEED + 1, 4, abilities=True)
    with pytest.raises(RevealRefused):
        match.reveal(step, final=Replay(other, []).final)
