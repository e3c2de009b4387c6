"""Translatable names of the game's things (cards, heroes, seats, colours), as i18n messages."""

from __future__ import annotations

from engine.catalog import tables
from engine.state import GameState
from i18n import Msg, Param, msg

ROMAN = {1: "I", 2: "II", 3: "III", 4: "X"}


def monster_name(card: str) -> Msg:
    """The name on a monster's front."""
    name = tables().monster_names.get(card)
    return msg(f"card.{card}") if name is None else name


def card_name(card: str) -> Msg:
    """The name of a card as held by a seat: starting card, or the reward on a monster's back."""
    name = tables().card_names.get(card)
    return msg(f"card.{card}") if name is None else name


def card_list(cards: tuple[str, ...]) -> Msg:
    """A list of card names as one message ("Cleave, Guard and Lunge")."""
    if not cards:
        return msg("list.0")
    out = card_name(cards[0])
    last = len(cards)
    for i in range(1, last):  # the message made directly, its parameters in name order
        out = Msg("list.last" if i == last - 1 else "list.more",
                  (("head", out), ("tail", card_name(cards[i]))))
    return out


def hero_name(hero: str) -> Msg:
    """A hero's name."""
    name = tables().hero_names.get(hero)
    return msg(f"hero.{hero}.name") if name is None else name


def seat_name(state: GameState, seat: int) -> Param:
    """What to call a seat: the player's name if the table knows it, else the hero's name."""
    seated = state.config.seats[seat]
    return seated.name if seated.name else hero_name(seated.hero)


def word(kind: str, value: str) -> Msg:
    """A game word: ``word('colour', 'red')``, ``word('curse', 'weapon')``, ``word('potion', ...)``.
    """
    return msg(f"{kind}.{value}")
