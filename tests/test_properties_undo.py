"""Properties of taking back a move (N19) over random legal play (Hypothesis): every move that
shows the seat a hidden card or makes a random choice closes the take-back, every other move of
the seat's own turn can be taken back, and taking back restores the earlier state exactly (its
JSON and every seat's observation), step by step; replaying a game with take-backs rebuilds it;
agents never take a move back."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from property_play import PROPS, configs, fast_forward, hidden_from, walk
from random_play import random_positions

from engine import (
    GameConfig,
    GameState,
    Phase,
    SeatConfig,
    Undo,
    apply,
    legal_actions,
    new_game,
    observe,
    replay,
    state_to_json,
)
from engine.agents import make_agent
from engine.state import Event
from engine.validate import check_state
from i18n import translate


def shows_or_draws(before: GameState, after: GameState, events: list[Event]) -> bool:
    """The rule as players know it, worked out independently of the engine's: the move made a
    random choice, told one seat alone something, rebuilt a deck (a reshuffle was told), or
    showed the seat that moved a card that was hidden from it."""
    me = before.current
    return (after.rng != before.rng or any(e.to is not None for e in events)
            or any(e.text.key == "event.reshuffle" for e in events)
            or bool(hidden_from(before, me) - hidden_from(after, me)))


def viewers(state: GameState) -> list[int | None]:
    return [*range(len(state.seats)), None]


def check_take_back(before: GameState, after: GameState) -> None:
    """``after`` came from ``before`` by one move: taking it back gives ``before`` exactly, and
    the same move again gives ``after`` exactly."""
    back, events = apply(after, Undo())
    assert back == before
    assert state_to_json(back) == state_to_json(before)
    assert back.step == before.step
    assert [(e.text.key, e.to) for e in events] == [("event.take_back", None)]
    for locale in ("en", "fr", "cs"):  # every kind of move is named in every language
        text = translate(events[0].text, locale)
        assert "{" not in text and "move." not in text, text
    for viewer in viewers(before):
        assert observe(back, viewer) == observe(before, viewer)


def check_every_move(state: GameState) -> tuple[int, int]:
    """Apply each legal move of ``state``: it can be taken back exactly when it neither ended
    the turn nor :func:`shows_or_draws`; then taking it back and playing it again changes
    nothing. How many moves could be taken back, and how many of the turn's could not."""
    open_count = closed = 0
    for action in legal_actions(state):
        if action == Undo():
            continue
        after, events = apply(state, action)
        same_turn = (after.turn, after.round) == (state.turn, state.round)
        open_ = same_turn and after.phase is not Phase.OVER \
            and not shows_or_draws(state, after, events)
        assert (Undo() in legal_actions(after)) == open_, (str(action), state.phase)
        if open_:
            check_take_back(state, after)
            again, _ = apply(apply(after, Undo())[0], action)
            assert again == after and state_to_json(again) == state_to_json(after)
            open_count += 1
        elif same_turn:
            closed += 1
    return open_count, closed


def check_walk_back(state: GameState) -> None:
    """Taking back every recorded move, one at a time, reaches the record's base."""
    if state.undo is None:
        return
    earlier = state
    for _ in state.undo.moves:
        earlier, _ = apply(earlier, Undo())
        check_state(earlier)
    assert earlier == state.undo.base
    assert Undo() not in legal_actions(earlier)


@given(config=configs(), data=st.data())
@settings(PROPS, max_examples=15)
def test_what_can_be_taken_back(config: GameConfig, data: st.DataObject) -> None:
    for state in walk(data, fast_forward(data, config), steps=60):
        check_every_move(state)
        check_walk_back(state)


def test_seeded_games_take_back_and_close() -> None:
    """The positions of seeded random games: both kinds of move occur, each handled right."""
    open_count = closed = 0
    for seed, heroes in ((1, ("taia", "horan")), (2, ("xanros", "aderyn", "victorius"))):
        config = GameConfig(tuple(SeatConfig(h) for h in heroes), abilities=True, seed=seed)
        for state in random_positions(config, 250):
            opened, shut = check_every_move(state)
            open_count += opened
            closed += shut
            check_walk_back(state)
    assert open_count > 500 and closed > 100, (open_count, closed)


@given(config=configs(), choices=st.lists(st.integers(0, 1000), min_size=50, max_size=200))
@settings(deadline=None, max_examples=20)
def test_replay_rebuilds_games_with_take_backs(config: GameConfig, choices: list[int]) -> None:
    """A game whose seats often take back moves replays from its seed and action list (the
    notations included) to the same state; agents asked along the way never take back."""
    state = new_game(config)
    moves: list[str] = []
    agents = [make_agent("heuristic", i) for i in range(len(config.seats))]
    for choice in choices:
        legal = legal_actions(state)
        if not legal:
            break
        if Undo() in legal:
            assert agents[state.current].choose(observe(state, state.current)) != Undo()
        action = Undo() if Undo() in legal and choice % 3 == 0 else legal[choice % len(legal)]
        state, _ = apply(state, action)
        moves.append(str(action))
    assert replay(config, moves) == state
