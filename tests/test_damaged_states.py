"""Damaged saved games: every state the loader accepts is consistent and playable, and every
other one is refused with :class:`BadState` (never a KeyError, IndexError, TypeError...).

States saved along real seeded games (``fixtures/saved_games.json``) are damaged at random: cards
swapped, moved, duplicated or deleted between zones, numbers changed (negative, huge), values
replaced by other types, strings by card ids or nonsense, keys dropped or added.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine import (
    BadState,
    Phase,
    apply,
    legal_actions,
    new_game,
    observe,
    parse,
    state_from_json,
)
from engine.catalog import tables
from engine.serialize import from_data, state_to_json
from engine.state import GameConfig, GameState
from engine.validate import check_state

SAVED = json.loads((Path(__file__).parent / "fixtures" / "saved_games.json").read_text())
MUTATIONS = 1500
Doc = dict[str, Any]
Path_ = tuple[str | int, ...]


def _saved_states(per_phase: int = 3) -> list[str]:
    """States of the recorded games, a few in each phase the game went through, saved."""
    rng = random.Random(1)
    texts = []
    for game in SAVED["games"]:
        state = new_game(from_data(GameConfig, game["config"], "config"))
        by_phase: dict[Phase, list[GameState]] = {}
        for action in game["actions"]:
            by_phase.setdefault(state.phase, []).append(state)
            state, _ = apply(state, parse(action))
        for states in by_phase.values():
            texts += [state_to_json(s) for s in rng.sample(states, min(per_phase, len(states)))]
    return texts


BASES = _saved_states()


def check_playable(state: GameState) -> None:
    """The state plays on: every seat can observe it, the deciding seat has a legal action
    unless the game is over, and each legal action applies to a state that passes the check."""
    for viewer in (None, *range(len(state.seats))):
        observe(state, viewer)
    actions = legal_actions(state)
    if state.phase is Phase.OVER:
        assert not actions
        return
    assert actions, f"no legal action in {state.phase}"
    for action in actions:
        after, _ = apply(state, action)
        check_state(after)


def _zones(doc: Doc) -> list[Path_]:
    """Paths of every list of card ids in the saved state."""
    state = doc["state"]
    zones: list[Path_] = [("pawnshop",)]
    for i, _ in enumerate(state["seats"]):
        zones += [("seats", i, z) for z in ("hand", "deck", "discard", "keys")]
    for i, _ in enumerate(state["levels"]):
        zones += [("levels", i, z) for z in ("row", "deck", "gates")]
    if state.get("battle"):
        zones += [("battle", "chain"), ("battle", "drawn")]
    return zones


def _at(doc: Doc, path: Path_) -> Any:
    node: Any = doc["state"]
    for key in path:
        node = node[key]
    return node


def _leaves(node: Any, path: Path_ = ()) -> list[Path_]:
    """Every path inside ``node`` (containers and leaves)."""
    found = [path] if path else []
    items = node.items() if isinstance(node, dict) else enumerate(node) \
        if isinstance(node, list) else ()
    for key, value in items:
        found += _leaves(value, (*path, key))
    return found


def _set(doc: Doc, path: Path_, value: Any) -> None:
    _at(doc, path[:-1])[path[-1]] = value


def _card_ids() -> list[str]:
    t = tables()
    return sorted({*t.monsters, *t.actions, *t.equipment, *t.lords})


CARDS = _card_ids()
WORDS = ["", "x", "shuffle", "top", "bottom", "potion:healing", "potion:nectar", "lord-9",
         "gandalf"]
ODD = [None, True, False, 0, -1, 1, 7, -(10 ** 30), 10 ** 30, 2 ** 63, 0.5, float("nan"), *WORDS,
       [], [1], ["m1-01"], {}, {"key": "event.turn", "params": []}]


def _swap(rng: random.Random, doc: Doc) -> None:
    zones = [z for z in _zones(doc) if _at(doc, z)]
    a, b = rng.choice(zones), rng.choice(zones)
    za, zb = _at(doc, a), _at(doc, b)
    i, j = rng.randrange(len(za)), rng.randrange(len(zb))
    za[i], zb[j] = zb[j], za[i]


def _move(rng: random.Random, doc: Doc) -> None:
    zones = _zones(doc)
    source = [z for z in zones if any(_at(doc, z))]
    za = _at(doc, rng.choice(source))
    card = za.pop(rng.choice([i for i, c in enumerate(za) if c]))
    zb = _at(doc, rng.choice(zones))
    zb.insert(rng.randrange(len(zb) + 1), card)


def _duplicate(rng: random.Random, doc: Doc) -> None:
    zones = _zones(doc)
    cards = [c for z in zones for c in _at(doc, z) if c]
    zb = _at(doc, rng.choice(zones))
    zb.insert(rng.randrange(len(zb) + 1), rng.choice(cards))


def _delete(rng: random.Random, doc: Doc) -> None:
    za = _at(doc, rng.choice([z for z in _zones(doc) if _at(doc, z)]))
    del za[rng.randrange(len(za))]


def _replace_card(rng: random.Random, doc: Doc) -> None:
    za = _at(doc, rng.choice([z for z in _zones(doc) if _at(doc, z)]))
    za[rng.randrange(len(za))] = rng.choice([*CARDS, "nobody", "", None])


def _scalars(doc: Doc) -> list[Path_]:
    return [p for p in _leaves(doc["state"]) if not isinstance(_at(doc, p), dict | list)]


def _number(rng: random.Random, doc: Doc) -> None:
    paths = [p for p in _scalars(doc) if isinstance(_at(doc, p), int)]
    path = rng.choice(paths)
    value = _at(doc, path)
    _set(doc, path, rng.choice([value + 1, value - 1, -value, 0, -1, 10 ** 30, -(2 ** 70),
                                rng.randrange(-10, 10), True]))


def _retype(rng: random.Random, doc: Doc) -> None:
    _set(doc, rng.choice(_leaves(doc["state"])), rng.choice(ODD))


def _string(rng: random.Random, doc: Doc) -> None:
    paths = [p for p in _scalars(doc) if isinstance(_at(doc, p), str)]
    _set(doc, rng.choice(paths), rng.choice([*CARDS, *WORDS]))


def _seat_field(rng: random.Random, doc: Doc) -> None:
    """A seat's or the state's named field set to a card or an odd value (stacking, pending,
    weapon, armour, potions...)."""
    seat = rng.randrange(len(doc["state"]["seats"]))
    field = rng.choice(["stacking", "weapon", "armour", "potions", "hp", "hero"])
    target: Path_ = ("seats", seat, field)
    if rng.random() < 0.3:
        target = (rng.choice(["pending", "winner", "turn", "round", "phase", "bought_pawned",
                              "lord", "step", "rng", "potions"]),)
    value = rng.choice([*CARDS, *ODD])
    if field == "potions" and rng.random() < 0.5:
        value = [rng.choice(["strength", "healing", "countercurse", "nectar"])]
    _set(doc, target, value)


def _drop_or_add(rng: random.Random, doc: Doc) -> None:
    paths = [p for p in _leaves(doc["state"]) if isinstance(_at(doc, p[:-1]), dict)]
    path = rng.choice(paths)
    if rng.random() < 0.5:
        del _at(doc, path[:-1])[path[-1]]
    else:
        _at(doc, path[:-1])[rng.choice(["sparkle", "battle", "pending", "winner"])] = \
            rng.choice(ODD)


MUTATORS: list[Callable[[random.Random, Doc], None]] = [
    _swap, _swap, _move, _duplicate, _delete, _replace_card, _number, _number, _retype, _string,
    _seat_field, _seat_field, _drop_or_add,
]


def _mutated(rng: random.Random) -> str:
    doc = json.loads(rng.choice(BASES))
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        try:
            rng.choice(MUTATORS)(rng, doc)
        except (KeyError, IndexError, TypeError, AttributeError, ValueError):
            pass  # this damage did not fit this document (an earlier one changed its shape)
    return json.dumps(doc)


def loads_or_refused(text: str) -> GameState | None:
    """The loaded state, or None when it was refused as damaged."""
    try:
        return state_from_json(text)
    except BadState:
        return None


def test_the_bases_load_and_play() -> None:
    phases = set()
    for text in BASES:
        state = state_from_json(text)
        check_playable(state)
        phases.add(state.phase)
    assert phases == set(Phase) - {Phase.OVER}


def test_damaged_states_are_refused_or_playable() -> None:
    rng = random.Random(20261124)
    loaded = refused = 0
    for n in range(MUTATIONS):
        text = _mutated(rng)
        state = loads_or_refused(text)
        if state is None:
            refused += 1
            continue
        loaded += 1
        try:
            check_playable(state)
        except Exception as exc:  # pragma: no cover - the message names the damage
            raise AssertionError(f"mutation {n} loaded but does not play: {exc!r}\n"
                                 f"{text}") from exc
    # both outcomes happen: the damage is neither always fatal nor always harmless
    assert loaded > 50 and refused > MUTATIONS // 2, (loaded, refused)


def _damage(change: Callable[[Doc], None], phase: str = "turn") -> str:
    for text in BASES:
        doc = json.loads(text)
        if doc["state"]["phase"] == phase and any(s["keys"] for s in doc["state"]["seats"]):
            change(doc)
            return json.dumps(doc)
    raise AssertionError("no base state with a key in that phase")


def test_a_card_swapped_between_a_seats_keys_and_its_hand_is_refused() -> None:
    def swap(doc: Doc) -> None:
        seat = next(s for s in doc["state"]["seats"] if s["keys"] and s["hand"])
        seat["keys"][0], seat["hand"][0] = seat["hand"][0], seat["keys"][0]
    with pytest.raises(BadState, match="key"):
        state_from_json(_damage(swap))


def test_a_stacking_preference_set_to_a_card_is_refused() -> None:
    def stack(doc: Doc) -> None:
        seat = doc["state"]["seats"][0]
        seat["stacking"] = seat["hand"][0] if seat["hand"] else "m1-01"
    with pytest.raises(BadState, match="stacking"):
        state_from_json(_damage(stack))


@pytest.mark.parametrize("value", [10 ** 30, -(2 ** 70), 2 ** 64, -1])
def test_negative_or_huge_numbers_are_refused(value: int) -> None:
    for field in ("turn", "round", "rng", "step", "winner"):
        doc = json.loads(BASES[3])
        doc["state"][field] = value
        assert loads_or_refused(json.dumps(doc)) is None, field

