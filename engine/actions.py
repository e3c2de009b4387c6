"""Every action a seat can take, as small immutable values with a compact text notation.

``str(action)`` is the notation (at most 60 characters, safe inside a Discord custom_id) and
:func:`parse` reads it back: ``parse(str(a)) == a`` for every action.
"""

from __future__ import annotations

import re
from typing import ClassVar, Literal

from msgspec import Struct

from engine.errors import BadNotation

PotionKind = Literal["strength", "healing", "countercurse"]
POTIONS: tuple[PotionKind, ...] = ("strength", "healing", "countercurse")
StackMode = Literal["shuffle", "top", "bottom"]
STACK_MODES: tuple[StackMode, ...] = ("shuffle", "top", "bottom")
LORD_LEVEL = 4
_CARD = re.compile(r"^[a-z0-9-]{2,12}$")
_EFFECTS = ("attack", "defence", "draw", "heal")
_CURSES = ("green", "blue", "red", "yellow", *_EFFECTS, "weapon", "armour")


class Action(Struct, frozen=True, gc=False):
    """Base class of all actions; subclasses are frozen structs (equal and hashed by content)."""

    verb: ClassVar[str] = ""

    def __str__(self) -> str:  # pragma: no cover - every subclass overrides
        raise NotImplementedError


class Fight(Action, frozen=True):
    """Fight a monster: ``level`` 1-3 with ``slot`` 1-5 (row) or 0 (gatekeeper); level 4 = Lord."""

    level: int
    slot: int
    verb: ClassVar[str] = "fight"

    def __str__(self) -> str:
        if self.level == LORD_LEVEL:
            return "fight:lord"
        return f"fight:{self.level}-{'gate' if self.slot == 0 else self.slot}"


class VisitMerchant(Action, frozen=True):
    """Spend the turn at the merchant (R40)."""

    verb: ClassVar[str] = "merchant"

    def __str__(self) -> str:
        return "merchant"


class Revive(Action, frozen=True):
    """Spend the turn reviving: HP back to 5 (R50)."""

    verb: ClassVar[str] = "revive"

    def __str__(self) -> str:
        return "revive"


class SetStacking(Action, frozen=True):
    """Change this seat's standing deck-stacking preference (D5); does not end the decision."""

    mode: StackMode
    verb: ClassVar[str] = "stack"

    def __str__(self) -> str:
        return f"stack:{self.mode}"


class DrinkHealing(Action, frozen=True):
    """Drink the healing potion: back to 5 HP (R35)."""

    verb: ClassVar[str] = "heal"

    def __str__(self) -> str:
        return "heal"


class Play(Action, frozen=True):
    """Play an action card from hand in battle.

    ``ability`` names a cursed effect that Lord Xanros counts anyway with his ability (R63).
    """

    card: str
    ability: str = ""
    verb: ClassVar[str] = "play"

    def __str__(self) -> str:
        return f"play:{self.card}:{self.ability}" if self.ability else f"play:{self.card}"


class DrinkStrength(Action, frozen=True):
    """Drink the strength potion to double the last card's attack or defence (R34)."""

    effect: Literal["attack", "defence"]
    verb: ClassVar[str] = "strength"

    def __str__(self) -> str:
        return f"strength:{self.effect}"


class DrinkCountercurse(Action, frozen=True):
    """Drink the countercurse potion against one curse of the monster (R33)."""

    curse: str
    verb: ClassVar[str] = "counter"

    def __str__(self) -> str:
        return f"counter:{self.curse}"


class EndBattle(Action, frozen=True):
    """Stop playing cards and resolve the battle (R24-R27)."""

    verb: ClassVar[str] = "end"

    def __str__(self) -> str:
        return "end"


class Discard(Action, frozen=True):
    """Discard a card from hand, down to the hand size an equipment curse leaves (R23)."""

    card: str
    verb: ClassVar[str] = "discard"

    def __str__(self) -> str:
        return f"discard:{self.card}"


class KeepDrawn(Action, frozen=True):
    """Taia keeps this one of the two cards she drew; the other goes under her deck (R66)."""

    card: str
    verb: ClassVar[str] = "keep"

    def __str__(self) -> str:
        return f"keep:{self.card}"


class TakeReward(Action, frozen=True):
    """Keep the won weapon or armour (``keep``) or send it to the pawnshop (R27)."""

    keep: bool
    verb: ClassVar[str] = "reward"

    def __str__(self) -> str:
        return f"reward:{'keep' if self.keep else 'pawn'}"


class BuyPotion(Action, frozen=True):
    """Buy a potion of this kind from the merchant (R41); payment is chosen next."""

    kind: PotionKind
    verb: ClassVar[str] = "buy"

    def __str__(self) -> str:
        return f"buy:potion:{self.kind}"


class BuyPawned(Action, frozen=True):
    """Buy this card from the pawnshop (R42); payment is chosen next."""

    card: str
    verb: ClassVar[str] = "buy"

    def __str__(self) -> str:
        return f"buy:card:{self.card}"


class Pay(Action, frozen=True):
    """Pay the pending purchase with ``weapon``, ``armour`` or a reward card from hand (R40)."""

    source: str
    verb: ClassVar[str] = "pay"

    def __str__(self) -> str:
        if self.source in ("weapon", "armour"):
            return f"pay:{self.source}"
        return f"pay:card:{self.source}"


class CancelPurchase(Action, frozen=True):
    """Take back the pending purchase before paying."""

    verb: ClassVar[str] = "cancel"

    def __str__(self) -> str:
        return "cancel"


class LeaveMerchant(Action, frozen=True):
    """Leave the merchant and end the turn (R43)."""

    verb: ClassVar[str] = "leave"

    def __str__(self) -> str:
        return "leave"


class Undo(Action, frozen=True):
    """Take back the seat's last move of this turn, restoring the state before it (N19).

    Offered only while the seat's turn goes on and nothing was revealed or left to chance since
    that move (:mod:`engine.undo`); several in a row walk back move by move.
    """

    verb: ClassVar[str] = "undo"

    def __str__(self) -> str:
        return "undo"


def _card(token: str, text: str) -> str:
    if not _CARD.match(token):
        raise BadNotation(f"not a card id in {text!r}")
    return token


def parse(text: str) -> Action:
    """Read an action from its notation; raises :class:`~engine.errors.BadNotation`."""
    if not isinstance(text, str) or len(text) > 60:
        raise BadNotation("action notation must be a string of at most 60 characters")
    parts = text.split(":")
    head, rest = parts[0], parts[1:]
    simple: dict[str, Action] = {
        "merchant": VisitMerchant(), "revive": Revive(), "heal": DrinkHealing(),
        "end": EndBattle(), "cancel": CancelPurchase(), "leave": LeaveMerchant(),
        "undo": Undo(),
    }
    if head in simple and not rest:
        return simple[head]
    if head == "fight" and len(rest) == 1:
        if rest[0] == "lord":
            return Fight(LORD_LEVEL, 0)
        m = re.fullmatch(r"([123])-(gate|[1-5])", rest[0])
        if m:
            return Fight(int(m[1]), 0 if m[2] == "gate" else int(m[2]))
    elif head == "stack" and len(rest) == 1 and rest[0] in STACK_MODES:
        return SetStacking(rest[0])
    elif head == "play" and len(rest) == 1:
        return Play(_card(rest[0], text))
    elif head == "play" and len(rest) == 2 and rest[1] in _EFFECTS:
        return Play(_card(rest[0], text), rest[1])
    elif head == "strength" and len(rest) == 1 and rest[0] in ("attack", "defence"):
        return DrinkStrength(rest[0])  # type: ignore[arg-type]
    elif head == "counter" and len(rest) == 1 and rest[0] in _CURSES:
        return DrinkCountercurse(rest[0])
    elif head == "discard" and len(rest) == 1:
        return Discard(_card(rest[0], text))
    elif head == "keep" and len(rest) == 1:
        return KeepDrawn(_card(rest[0], text))
    elif head == "reward" and len(rest) == 1 and rest[0] in ("keep", "pawn"):
        return TakeReward(rest[0] == "keep")
    elif head == "buy" and len(rest) == 2 and rest[0] == "potion" and rest[1] in POTIONS:
        return BuyPotion(rest[1])
    elif head == "buy" and len(rest) == 2 and rest[0] == "card":
        return BuyPawned(_card(rest[1], text))
    elif head == "pay" and len(rest) == 1 and rest[0] in ("weapon", "armour"):
        return Pay(rest[0])
    elif head == "pay" and len(rest) == 2 and rest[0] == "card":
        return Pay(_card(rest[1], text))
    raise BadNotation(f"unknown action {text!r}")
