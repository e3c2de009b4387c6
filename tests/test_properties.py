"""Properties of the engine over random legal play (Hypothesis).

Each example draws a table (seed, 2-4 seats, heroes, stacking preferences, abilities on/off),
optionally lets the random agent play a stretch first (so late-game positions are reached: keys,
rewards, a stocked pawnshop), then follows a drawn sequence of choices among the legal actions,
checking at every step:

* every card is in exactly one place (``engine.validate``), HP stays in 0..5, keys are never lost;
* the legal actions are non-empty and duplicate-free until the game ends, and empty after;
* every legal action applies, and its notation reads back (``parse(str(a)) == a``, <= 60 chars);
* any other action (from every notation the game knows) is refused with :class:`IllegalAction`,
  with the specific reason where one applies;
* the JSON round trip gives the same state; the same seed replays the same game, whatever the
  global :mod:`random` does meanwhile;
* an observation depends only on what its viewer may know: another seat's hand, Taia's drawn pair
  and the order of any deck (beyond the face-up tops of the caverns) never show.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import Phase as Stage
from hypothesis import strategies as st
from msgspec.structs import replace

from engine import (
    Action,
    BuyPawned,
    BuyPotion,
    CancelPurchase,
    Discard,
    DrinkCountercurse,
    DrinkHealing,
    DrinkStrength,
    EndBattle,
    Fight,
    GameConfig,
    GameState,
    IllegalAction,
    KeepDrawn,
    LeaveMerchant,
    NotYourTurn,
    Pay,
    Phase,
    Play,
    Revive,
    SeatConfig,
    SetStacking,
    TakeReward,
    VisitMerchant,
    apply,
    legal_actions,
    new_game,
    observe,
    parse,
    replay,
    state_from_json,
    state_to_json,
)
from engine.actions import LORD_LEVEL, STACK_MODES
from engine.agents import make_agent
from engine.catalog import tables
from engine.legality import HEAL_PHASES
from engine.serialize import to_data
from engine.state import MAX_HP
from engine.validate import card_places, check_state, expected_cards
from i18n import has_key

HEROES = ("argentus", "horan", "xanros", "aderyn", "victorius", "taia")
MAX_STEPS = 300
#: Examples replay up to thousands of agent moves, so shrinking is off (a failure still prints
#: every draw, which reproduces it).
PROPS = settings(deadline=None, max_examples=25,
                 phases=(Stage.explicit, Stage.reuse, Stage.generate),
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --------------------------------------------------------------------------- strategies


@st.composite
def configs(draw: st.DrawFn) -> GameConfig:
    """A legal table: 2-4 distinct heroes, stacking preferences, abilities, any seed."""
    n = draw(st.integers(2, 4), label="seats")
    heroes = draw(st.permutations(HEROES), label="heroes")[:n]
    modes = draw(st.lists(st.sampled_from(STACK_MODES), min_size=n, max_size=n), label="stacking")
    return GameConfig(
        seats=tuple(SeatConfig(h, stacking=m) for h, m in zip(heroes, modes, strict=True)),
        abilities=draw(st.booleans(), label="abilities"),
        seed=draw(st.integers(-(2**63), 2**64), label="seed"),
    )


@cache
def all_notations() -> tuple[str, ...]:
    """Every action notation that makes sense in some game: each card id, target, potion..."""
    t = tables()
    ids = sorted(set(t.actions) | set(t.equipment) | set(t.monsters))
    out = ["merchant", "revive", "heal", "end", "cancel", "leave", "fight:lord",
           "reward:keep", "reward:pawn", "pay:weapon", "pay:armour",
           "strength:attack", "strength:defence", "pay:card:strength", "pay:card:healing",
           "pay:card:countercurse"]
    out += [f"fight:{lv}-{slot}" for lv in (1, 2, 3) for slot in ("gate", 1, 2, 3, 4, 5)]
    out += [f"stack:{m}" for m in STACK_MODES]
    out += [f"buy:potion:{k}" for k in ("strength", "healing", "countercurse")]
    out += [f"counter:{c}" for c in ("green", "blue", "red", "yellow", "attack", "defence",
                                     "draw", "heal", "weapon", "armour")]
    for cid in ids:
        out += [f"play:{cid}", f"discard:{cid}", f"keep:{cid}", f"buy:card:{cid}",
                f"pay:card:{cid}"]
        out += [f"play:{cid}:{e}" for e in ("attack", "defence", "draw", "heal")]
    return tuple(out)


def fast_forward(data: st.DataObject, config: GameConfig) -> GameState:
    """A new game, then a drawn number of moves by random agents (reaches later positions).

    Random games of 2-4 seats end after a median 800 moves (60 drawn tables): after 700 moves
    about a fifth are over (late positions, mostly still in play), after 2,000 all of them."""
    state = new_game(config)
    steps = data.draw(st.sampled_from((0, 0, 50, 400, 700, 2000)), label="agent moves first")
    agents = [make_agent("reach", config.seed % 1000 + i) for i in range(len(config.seats))]
    for _ in range(steps):
        if state.phase is Phase.OVER:
            break
        action = agents[state.current].choose(observe(state, state.current))
        state, _ = apply(state, action, check=False)
    check_state(state)
    return state


def walk(data: st.DataObject, state: GameState, steps: int = MAX_STEPS) -> Iterator[GameState]:
    """Yield ``state`` and its successors along drawn legal choices, up to ``steps`` moves."""
    for _ in range(steps):
        yield state
        legal = legal_actions(state)
        if not legal:
            return
        choice = data.draw(st.integers(0, len(legal) - 1), label="choice")
        state, _ = apply(state, legal[choice])
    yield state


# --------------------------------------------------------------------------- oracle of reasons


PHASES: dict[type[Action], tuple[Phase, ...]] = {
    Fight: (Phase.TURN,), VisitMerchant: (Phase.TURN,), Revive: (Phase.TURN,),
    SetStacking: (Phase.TURN,), Discard: (Phase.DISCARD,), Play: (Phase.BATTLE,),
    DrinkStrength: (Phase.BATTLE,), EndBattle: (Phase.BATTLE,), KeepDrawn: (Phase.TAIA,),
    DrinkCountercurse: (Phase.BATTLE, Phase.DISCARD), DrinkHealing: HEAL_PHASES,
    TakeReward: (Phase.REWARD,), BuyPotion: (Phase.MERCHANT,), BuyPawned: (Phase.MERCHANT,),
    LeaveMerchant: (Phase.MERCHANT,), Pay: (Phase.PAY,), CancelPurchase: (Phase.PAY,),
}
POTION_OF = {DrinkHealing: "healing", DrinkStrength: "strength",
             DrinkCountercurse: "countercurse"}


def expected_reasons(state: GameState, action: Action) -> set[str] | None:
    """The reason codes the rules call for when ``action`` is illegal, or None if not obvious."""
    seat = state.seat
    t = tables()
    if state.phase is Phase.OVER:
        return {"game_over"}
    if state.phase not in PHASES[type(action)]:
        return {"not_now"}
    if isinstance(action, Play | Discard) and action.card not in seat.hand:
        return {"not_in_hand"}
    if type(action) in POTION_OF and POTION_OF[type(action)] not in seat.potions:
        return {"no_potion"}
    if isinstance(action, DrinkHealing):
        return {"no_hp", "full_hp"}
    if isinstance(action, KeepDrawn):
        return {"not_drawn"}
    if isinstance(action, SetStacking):
        return {"stacking_same"}
    if isinstance(action, Fight):
        if seat.hp <= 0:
            return {"no_hp"}
        have = {t.monsters[k].level for k in seat.keys}
        if action.level == LORD_LEVEL:
            return {"lord_needs_keys"}
        if any(lv not in have for lv in range(1, action.level)):
            return {"key_required"}
        if action.slot == 0:
            return {"has_key"} if action.level in have else {"no_gatekeeper"}
        return {"empty_slot"}
    if isinstance(action, BuyPawned):
        if state.bought_pawned:
            return {"one_pawned"}
        if action.card not in state.pawnshop:
            return {"not_in_pawnshop"}
        return {"no_payment"}
    if isinstance(action, BuyPotion):
        return {"potion_held", "sold_out", "no_payment"}
    if isinstance(action, Pay):
        if action.source in ("weapon", "armour"):
            return {"no_equipment"}
        if action.source in seat.keys:
            return {"key_payment"}
        if action.source in ("strength", "healing", "countercurse"):
            return {"potion_payment"}
        if action.source not in seat.hand:
            return {"not_in_hand"}
        return {"starting_card_payment"}
    if isinstance(action, DrinkCountercurse):
        return {"already_countered", "no_such_curse"}
    if isinstance(action, DrinkStrength):
        return {"strength_needs_card", "already_doubled", "strength_no_effect"}
    return None


def check_refused(state: GameState, action: Action) -> None:
    """``action`` (not legal in ``state``) is refused with a specific, translated reason."""
    with pytest.raises(IllegalAction) as info:
        apply(state, action)
    error = info.value
    assert has_key(error.reason.key), error.reason.key
    text = error.message("en")
    assert text and "{" not in text, text
    assert error.code == error.reason.key.rsplit(".", 1)[-1]
    want = expected_reasons(state, action)
    if want is not None:
        assert error.code in want, f"{action}: got {error.code!r}, expected one of {want}"
    else:
        assert error.code != "not_allowed", f"{action}: generic reason in phase {state.phase}"


# --------------------------------------------------------------------------- per-step checks


def check_invariants(state: GameState) -> None:
    """Cards conserved, HP in range, legal actions well-formed."""
    check_state(state)
    assert card_places(state) == expected_cards(state)
    for seat in state.seats:
        assert 0 <= seat.hp <= MAX_HP
    legal = legal_actions(state)
    if state.phase is Phase.OVER:
        assert legal == []
        assert state.winner is not None
    else:
        assert legal, f"no legal action in phase {state.phase}"
        assert len(set(legal)) == len(legal), f"duplicates in {legal}"


def check_successor(before: GameState, after: GameState, events: list[Any]) -> None:
    """One applied action: version +1, keys kept, HP in range, events addressed to a seat."""
    assert after.step == before.step + 1
    assert after.config == before.config
    for old, new in zip(before.seats, after.seats, strict=True):
        assert set(old.keys) <= set(new.keys), "a key was lost"
        assert 0 <= new.hp <= MAX_HP
    n = len(before.seats)
    for event in events:
        assert event.to is None or 0 <= event.to < n


def check_public_events(before: GameState, after: GameState, events: list[Any]) -> None:
    """A public event names no card that is hidden from a spectator both before and after it
    (a card may be named as it goes from a hand to the pawnshop, or from the pawnshop onto a
    deck, but never while it stays in a hand, a deck or Taia's pair)."""
    hidden = _hidden_from(before, None) & _hidden_from(after, None)
    for event in events:
        if event.to is None:
            leaked = set(_strings(to_data(event.text))) & hidden
            assert not leaked, f"public event {event.text.key} names hidden {sorted(leaked)}"


@given(config=configs(), data=st.data())
@settings(PROPS, max_examples=20)
def test_invariants_and_every_legal_action_applies(config: GameConfig, data: st.DataObject) -> None:
    notations = all_notations()
    for state in walk(data, fast_forward(data, config)):
        check_invariants(state)
        legal = legal_actions(state)
        for action in legal:
            text = str(action)
            assert len(text) <= 60 and parse(text) == action, text
            after, events = apply(state, action)
            check_state(after)
            check_successor(state, after, events)
            check_public_events(state, after, events)
            assert apply(state, action, check=False) == (after, events)
        if legal:
            other = (state.current + 1) % len(state.seats)
            with pytest.raises(NotYourTurn):
                apply(state, legal[0], seat=other)
        for text in data.draw(st.lists(st.sampled_from(notations), max_size=3), label="probes"):
            action = parse(text)
            assert str(action) == text
            if action not in legal:
                check_refused(state, action)


@given(config=configs(), data=st.data())
@PROPS
def test_json_round_trip(config: GameConfig, data: st.DataObject) -> None:
    for state in walk(data, fast_forward(data, config), steps=120):
        text = state_to_json(state)
        again = state_from_json(text)
        assert again == state
        assert state_to_json(again) == text


def _hidden_from(state: GameState, viewer: int | None) -> set[str]:
    """Card ids whose place ``viewer`` may not know: other hands, decks, Taia's pair."""
    hidden: set[str] = set()
    for i, seat in enumerate(state.seats):
        hidden.update(seat.deck)
        if i != viewer:
            hidden.update(seat.hand)
    battle = state.battle
    if battle is not None and viewer != state.current:
        hidden.update(battle.drawn)
    for level in state.levels:
        hidden.update(level.deck[1:])  # the top card of a cavern deck is face up
        hidden.update(level.gates[1:])
    return hidden


def _strings(data: Any) -> Iterator[str]:
    """Every string inside plain data, plus the card id of ``card.X`` / ``back.X`` message keys."""
    if isinstance(data, str):
        yield data
        head, _, rest = data.partition(".")
        if head in ("card", "back") and rest:
            yield rest
    elif isinstance(data, dict):
        for key, value in data.items():
            yield from _strings(key)
            yield from _strings(value)
    elif isinstance(data, list):
        for value in data:
            yield from _strings(value)


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
            leaked = set(_strings(plain)) & _hidden_from(state, viewer)
            assert not leaked, f"seat {viewer} sees {sorted(leaked)}"
            other = _shuffle_hidden(state, viewer, rnd)
            check_state(other)
            assert observe(other, viewer) == view, f"seat {viewer} can tell hidden cards apart"
            if viewer == state.current and state.phase is not Phase.OVER:
                assert list(view.legal) == legal_actions(state)
            else:
                assert view.legal == ()


def _disturb(i: int) -> None:
    random.seed(i * 7919)
    for _ in range(i % 5):
        random.random()
    random.shuffle(list(range(10)))


def _play(config: GameConfig, choices: list[int],
          between: Callable[[int], None] | None = None) -> tuple[list[GameState], list[Action]]:
    state = new_game(config)
    states, actions = [state], []
    for i, choice in enumerate(choices):
        legal = legal_actions(state)
        if not legal:
            break
        if between is not None:
            between(i)
        action = legal[choice % len(legal)]
        state, _ = apply(state, action)
        states.append(state)
        actions.append(action)
    return states, actions


@given(config=configs(),
       choices=st.lists(st.integers(0, 1000), min_size=100, max_size=MAX_STEPS))
@settings(deadline=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])
def test_same_seed_same_game(config: GameConfig, choices: list[int]) -> None:
    states, actions = _play(config, choices)
    random.seed(12345)
    again, again_actions = _play(config, choices, between=_disturb)
    assert again_actions == actions
    assert again == states
    assert replay(config, actions) == states[-1]
    assert replay(config, [str(a) for a in actions]) == states[-1]


# --------------------------------------------------------------------------- whole games


def _finished_game() -> tuple[GameConfig, list[Action], list[GameState]]:
    """The first reach-agent 4-seat game (by seed) that ends within the round cap."""
    for seed in range(40):
        config = GameConfig(tuple(SeatConfig(h) for h in HEROES[seed % 3: seed % 3 + 4]),
                            abilities=bool(seed % 2), seed=seed)
        state = new_game(config)
        agents = [make_agent("reach", seed * 8 + i) for i in range(4)]
        actions: list[Action] = []
        states = [state]
        while state.phase is not Phase.OVER and state.round <= 150:
            action = agents[state.current].choose(observe(state, state.current))
            state, _ = apply(state, action)
            actions.append(action)
            states.append(state)
        if state.phase is Phase.OVER:
            return config, actions, states
    raise AssertionError("no random game of 40 seeds ended within 150 rounds")


def test_a_whole_game_to_its_end() -> None:
    config, actions, states = _finished_game()
    for before, after in zip(states, states[1:], strict=False):
        check_invariants(before)
        check_successor(before, after, [])
    end = states[-1]
    check_invariants(end)
    assert end.winner is not None and len(end.seats[end.winner].keys) == 3
    assert legal_actions(end) == []
    for text in all_notations()[:50]:
        with pytest.raises(IllegalAction) as info:
            apply(end, parse(text))
        assert info.value.code == "game_over"
    for viewer in (*range(len(end.seats)), None):
        assert observe(end, viewer).legal == ()
        assert observe(end, viewer).winner == end.winner
    assert replay(config, actions) == end
    assert state_from_json(state_to_json(end)) == end
