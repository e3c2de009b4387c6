"""What the engine's property tests share (Hypothesis): a drawn table (seed, 2-4 seats, heroes,
stacking preferences, abilities on/off), a stretch of random-agent play first (so late-game
positions are reached: keys, rewards, a stocked pawnshop), a walk along drawn choices among the
legal actions, every notation the game knows, and the checks made at every step of a walk."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import Phase as Stage
from hypothesis import strategies as st

from engine import GameConfig, GameState, Phase, SeatConfig, apply, legal_actions, new_game, observe
from engine.actions import STACK_MODES
from engine.agents import make_agent
from engine.catalog import tables
from engine.state import MAX_HP
from engine.validate import card_places, check_state, expected_cards

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
    """One applied action: version +1 (-1 when it took a move back), keys kept, HP in range,
    events addressed to a seat."""
    took_back = any(e.text.key == "event.take_back" for e in events)
    assert after.step == before.step + (-1 if took_back else 1)
    assert after.config == before.config
    for old, new in zip(before.seats, after.seats, strict=True):
        assert set(old.keys) <= set(new.keys), "a key was lost"
        assert 0 <= new.hp <= MAX_HP
    n = len(before.seats)
    for event in events:
        assert event.to is None or 0 <= event.to < n


# --------------------------------------------------------------------------- what is hidden


def hidden_from(state: GameState, viewer: int | None) -> set[str]:
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


def strings(data: Any) -> Iterator[str]:
    """Every string inside plain data, plus the card id of ``card.X`` / ``back.X`` message keys."""
    if isinstance(data, str):
        yield data
        head, _, rest = data.partition(".")
        if head in ("card", "back") and rest:
            yield rest
    elif isinstance(data, dict):
        for key, value in data.items():
            yield from strings(key)
            yield from strings(value)
    elif isinstance(data, list):
        for value in data:
            yield from strings(value)
