"""Pydantic models of every card kind; unknown fields, colours, effects and curses are rejected."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

Colour = Literal["green", "blue", "red", "yellow"]
CurseName = Literal[
    "green", "blue", "red", "yellow", "attack", "defence", "draw", "heal", "weapon", "armour"
]
COLOURS: tuple[Colour, ...] = ("green", "blue", "red", "yellow")
EFFECT_CURSES = ("attack", "defence", "draw", "heal")
EQUIPMENT_CURSES = ("weapon", "armour")
CURSES: tuple[str, ...] = COLOURS + EFFECT_CURSES + EQUIPMENT_CURSES
HERO_IDS = ("argentus", "horan", "xanros", "aderyn", "victorius", "taia")

Small = Annotated[int, Field(ge=0, le=20)]
#: Ids a card may not have: ``Pay`` names its source by card id or by the words ``weapon`` and
#: ``armour`` (the seat's equipment slots), so a card with such an id would mean two things.
RESERVED_IDS = frozenset({"weapon", "armour"})


def _not_reserved(card_id: str) -> str:
    if card_id in RESERVED_IDS:
        raise ValueError(f"{card_id!r} names an equipment slot in the action notation")
    return card_id


CardId = Annotated[str, Field(pattern=r"^[a-z0-9-]{2,12}$"), AfterValidator(_not_reserved)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _ActionFace(_Strict):
    """What an action card shows: one colour, the colours that may follow it, its effects."""

    colour: Colour
    next: tuple[Colour, ...] = Field(min_length=1, max_length=4)
    attack: Small = 0
    defence: Small = 0
    draw: Small = 0
    heal: Small = 0

    @model_validator(mode="after")
    def _check_face(self) -> _ActionFace:
        if len(set(self.next)) != len(self.next):
            raise ValueError("next colours repeat")
        if not (self.attack or self.defence or self.draw or self.heal):
            raise ValueError("an action card needs at least one effect")
        return self


class ActionCard(_ActionFace):
    """An action card: a starting card, or the action back of a monster (``reward``)."""

    id: CardId
    reward: bool = False


class _EquipmentFace(_Strict):
    """What a weapon or an armour gives: attack, defence, heal after battle, hand size."""

    kind: Literal["weapon", "armour"]
    attack: Small = 0
    defence: Small = 0
    heal: Small = 0
    hand: Annotated[int, Field(ge=0, le=2)] = 0

    @model_validator(mode="after")
    def _check_face(self) -> _EquipmentFace:
        if not (self.attack or self.defence or self.heal or self.hand):
            raise ValueError("equipment needs at least one effect")
        return self


class Equipment(_EquipmentFace):
    """A weapon or an armour in play (the id of the monster whose back it is)."""

    id: CardId


class ActionReward(_ActionFace):
    """The back of a monster that is an action card (drawn to the discard pile on a win)."""

    kind: Literal["action"]


class EquipmentReward(_EquipmentFace):
    """The back of a monster that is a weapon or an armour."""


class KeyReward(_Strict):
    """The back of a gatekeeper: that level's key."""

    kind: Literal["key"]


Reward = Annotated[ActionReward | EquipmentReward | KeyReward, Field(discriminator="kind")]


class Monster(_Strict):
    """A regular monster or gatekeeper of level I-III, with the reward on its back."""

    id: CardId
    level: Literal[1, 2, 3]
    gatekeeper: bool = False
    attack: Small
    hp: Annotated[int, Field(ge=1, le=30)]
    curses: tuple[CurseName, ...] = Field(default=(), max_length=2)
    reward: Reward

    @model_validator(mode="after")
    def _check(self) -> Monster:
        if len(set(self.curses)) != len(self.curses):
            raise ValueError("curses repeat")
        if self.gatekeeper != (self.reward.kind == "key"):
            raise ValueError("gatekeepers, and only they, carry a key")
        return self


class Lord(_Strict):
    """A Lord of All Monsters (level X): no reward, defeating it wins the game."""

    id: CardId
    attack: Small
    hp: Annotated[int, Field(ge=1, le=40)]
    curses: tuple[CurseName, ...] = Field(default=(), max_length=2)


class Hero(_Strict):
    """A hero with its six starting action cards."""

    id: Literal["argentus", "horan", "xanros", "aderyn", "victorius", "taia"]
    cards: tuple[ActionCard, ...] = Field(min_length=6, max_length=6)


class PotionPile(_Strict):
    """One of the merchant's potion piles (R5): its kind and how many potions it holds."""

    kind: Literal["strength", "healing", "countercurse"]
    count: Annotated[int, Field(ge=1, le=12)]


class Catalogue(_Strict):
    """Every card of the game, with lookup tables built once."""

    heroes: tuple[Hero, ...]
    monsters: tuple[Monster, ...]
    lords: tuple[Lord, ...]
    potions: tuple[PotionPile, ...]

    @property
    def potions_per_kind(self) -> int:
        """Potions in each pile at setup (the loader checks that the piles are equal)."""
        return self.potions[0].count

    def hero(self, hero_id: str) -> Hero:
        """The hero called ``hero_id``."""
        for h in self.heroes:
            if h.id == hero_id:
                return h
        raise KeyError(hero_id)

    def action_cards(self) -> dict[str, ActionCard]:
        """Every action card by id: starting cards and the action backs of monsters."""
        out = {c.id: c for h in self.heroes for c in h.cards}
        for m in self.monsters:
            r = m.reward
            if isinstance(r, ActionReward):
                out[m.id] = ActionCard(
                    id=m.id, colour=r.colour, next=r.next, attack=r.attack,
                    defence=r.defence, draw=r.draw, heal=r.heal, reward=True,
                )
        return out

    def equipment(self) -> dict[str, Equipment]:
        """Every weapon and armour by id (the id of the monster whose back it is)."""
        return {
            m.id: Equipment(id=m.id, kind=m.reward.kind, attack=m.reward.attack,
                            defence=m.reward.defence, heal=m.reward.heal, hand=m.reward.hand)
            for m in self.monsters
            if isinstance(m.reward, EquipmentReward)
        }
