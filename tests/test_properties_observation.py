"""Properties of observations over random legal play (Hypothesis): an observation depends only
on what its viewer may know (another seat's hand, Taia's drawn pair and the order of any deck,
beyond the face-up tops of the caverns, never show), private events reach only their seat, and
only the seat deciding is offered the legal actions."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st
from msgspec.structs import replace
from property_play import PROPS, configs, fast_forward, hidden_from, strings, walk

from engine import GameConfig, GameState, Phase, legal_actions, observe
from engine.serialize import to_data
from engine.validate import check_state


def _shuffle_hidden(state: GameState, viewer: int | None, rnd: random.Random) -> GameState:
    """The same position with everything ``viewer`` may not know rearranged at random."""
    seats = []
    battle = state.battle
    for i, seat in enumerate(state.seats):
        if i == viewer:
            deck = list(seat.deck)
            rnd.shuffle(deck)
            seats.append(replace(seat, deck=tuple(deck)))
            continue
        pool = list(seat.hand + seat.deck)
        pair = battle is not None and i == state.current and bool(battle.drawn)
        if pair:
            assert battle is not None
            pool += battle.drawn
        rnd.shuffle(pool)
        hand, pool = pool[:len(seat.hand)], pool[len(seat.hand):]
        if pair:
            assert battle is not None
            n = len(battle.drawn)
            battle, pool = replace(battle, drawn=tuple(pool[:n])), pool[n:]
        seats.append(replace(seat, hand=tuple(hand), deck=tuple(pool)))
    levels = []
    for level in state.levels:
        deck, gates = list(level.deck[1:]), list(level.gates[1:])
        rnd.shuffle(deck)
        rnd.shuffle(gates)
        levels.append(replace(level, deck=level.deck[:1] + tuple(deck),
                              gates=level.gates[:1] + tuple(gates)))
    return replace(state, seats=tuple(seats), levels=tuple(levels), battle=battle)


@given(config=configs(), data=st.data())
@PROPS
def test_observation_shows_only_what_the_viewer_may_know(config: GameConfig,
                                                         data: st.DataObject) -> None:
    rnd = random.Random(config.seed)
    viewers: list[int | None] = [*range(len(config.seats)), None]
    for state in walk(data, fast_forward(data, config), steps=80):
        for viewer in viewers:
            view = observe(state, viewer)
            assert all(e.to is None or e.to == viewer for e in view.events)
            if viewer is not None:
                assert view.hand == state.seats[viewer].hand
            plain = to_data(view)
            plain.pop("events")  # public history: "X bought Y" stays true after Y is drawn
            leaked = set(strings(plain)) & hidden_from(state, viewer)
            assert not leaked, f"seat {viewer} sees {sorted(leaked)}"
            other = _shuffle_hidden(state, viewer, rnd)
            check_state(other)
            assert observe(other, viewer) == view, f"seat {viewer} can tell hidden cards apart"
            if viewer == state.current and state.phase is not Phase.OVER:
                assert list(view.legal) == legal_actions(state)
            else:
                assert view.legal == ()
