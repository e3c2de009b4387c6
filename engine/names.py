"""Translatable names of the game's things (cards, heroes, seats, colours), as i18n messages."""

from __future__ import annotations

from functools import cache

from engine.catalog import Tables, tables
from engine.state import GameConfig, GameState
from i18n import Msg, Param, msg

ROMAN = {1: "I", 2: "II", 3: "III", 4: "X"}


@cache
def monster_name(card: str) -> Msg:
    """The name on a monster's front."""
    return msg(f"card.{card}")


def _names_for(t: Tables) -> None:
    """Forget the names built for another catalogue (tools that edit it reload it)."""
    if _card_names_of[0] is not t:
        _card_names.clear()
        _card_lists.clear()
        _card_names_of[0] = t


def card_name(card: str) -> Msg:
    """The name of a card as held by a seat: starting card, or the reward on a monster's back."""
    t = tables()
    _names_for(t)
    name = _card_names.get(card)
    if name is None:
        back = card in t.monsters and t.monsters[card].reward in ("action", "weapon", "armour")
        name = _card_names[card] = msg(f"back.{card}" if back else f"card.{card}")
    return name


def card_list(cards: tuple[str, ...]) -> Msg:
    """A list of card names as one message ("Cleave, Guard and Lunge")."""
    _names_for(tables())
    out = _card_lists.get(cards)
    if out is not None:
        return out
    if not cards:
        return msg("list.0")
    out = card_name(cards[0])
    for i, card in enumerate(cards[1:], start=2):
        out = msg("list.last" if i == len(cards) else "list.more", head=out, tail=card_name(card))
    if len(_card_lists) >= 1024:
        _card_lists.clear()
    _card_lists[cards] = out
    return out


#: Card names and lists built so far (messages are immutable), for the catalogue in
#: ``_card_names_of``.
_card_names: dict[str, Msg] = {}
_card_lists: dict[tuple[str, ...], Msg] = {}
_card_names_of: list[Tables | None] = [None]


@cache
def hero_name(hero: str) -> Msg:
    """A hero's name."""
    return msg(f"hero.{hero}.name")


def seat_name(state: GameState, seat: int) -> Param:
    """What to call a seat: the player's name if the table knows it, else the hero's name."""
    return seat_names(state.config)[seat]


def seat_names(config: GameConfig) -> tuple[Param, ...]:
    """What to call every seat of a table (see :func:`seat_name`), worked out once per table."""
    hit = _seat_names.get(id(config))
    if hit is not None and hit[0] is config:
        return hit[1]
    names = tuple(s.name if s.name else hero_name(s.hero) for s in config.seats)
    if len(_seat_names) >= 256:
        _seat_names.clear()
    _seat_names[id(config)] = (config, names)  # holding the config keeps its id unique
    return names


#: Seat names by table (configurations are immutable, so identity is enough).
_seat_names: dict[int, tuple[GameConfig, tuple[Param, ...]]] = {}


@cache
def word(kind: str, value: str) -> Msg:
    """A game word: ``word('colour', 'red')``, ``word('curse', 'weapon')``, ``word('potion', ...)``.
    """
    return msg(f"{kind}.{value}")
