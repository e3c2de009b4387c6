"""Why an action is illegal: the reason a player reads when a move is refused.

The decision is :func:`engine.legality.refusal`'s; this module only words it, filling in the
colour, card, monster or level the sentence names.
"""

from __future__ import annotations

from engine.actions import (
    Action,
    DrinkCountercurse,
    DrinkHealing,
    DrinkStrength,
    Fight,
    Pay,
    Play,
)
from engine.catalog import tables
from engine.legality import key_levels, refusal
from engine.names import ROMAN, card_name, monster_name, word
from engine.state import GameState
from i18n import Msg, Param, msg

_POTION_OF = {DrinkHealing: "healing", DrinkStrength: "strength",
              DrinkCountercurse: "countercurse"}


def why_illegal(state: GameState, action: Action) -> Msg:
    """The reason why ``action`` is not legal in ``state`` (``error.not_allowed`` if it is)."""
    key = refusal(state, action) or "error.not_allowed"
    return msg(key, **_details(key, state, action))


def _details(key: str, state: GameState, action: Action) -> dict[str, Param]:
    """The parameters the sentence ``key`` names, for ``action`` in ``state``."""
    battle = state.battle
    if key == "error.not_now":
        return {"pending": word("phase", state.phase.value)}
    if key == "error.no_potion":
        return {"potion": word("potion", _POTION_OF[type(action)])}
    if key in ("error.potion_held", "error.sold_out"):
        return {"potion": word("potion", getattr(action, "kind", ""))}
    if key == "error.no_equipment" and isinstance(action, Pay):
        return {"slot": word("slot", action.source)}
    if isinstance(action, Fight):
        if key == "error.key_required":
            keys = key_levels(state.seat)
            return {"level": ROMAN[min(n for n in range(1, action.level) if n not in keys)]}
        if key in ("error.has_key", "error.no_gatekeeper"):
            return {"level": ROMAN[action.level]}
    if battle is None:
        return {}
    if key == "error.no_such_curse" and isinstance(action, DrinkCountercurse):
        return {"curse": word("curse", action.curse), "monster": monster_name(battle.monster)}
    if key == "error.strength_no_effect" and isinstance(action, DrinkStrength):
        return {"effect": word("effect", action.effect), "card": card_name(battle.chain[-1])}
    if isinstance(action, Play):
        if key == "error.colour_cursed":
            return {"colour": word("colour", tables().actions[action.card].colour),
                    "monster": monster_name(battle.monster)}
        if key == "error.wrong_colour":
            return {"colour": word("colour", tables().actions[action.card].colour),
                    "card": card_name(battle.chain[-1])}
        if key == "error.effect_not_cursed":
            return {"effect": word("effect", action.ability)}
        if key == "error.no_effect":
            return {"card": card_name(action.card), "effect": word("effect", action.ability)}
    return {}
