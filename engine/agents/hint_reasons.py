"""Why a hinted move is good, in one sentence a player reads (``hint.*`` in the locales).

The sentence compares the seat as it sees itself before the move with what follows the move, as
it would see it:

* right after the move (on one deal of the hidden cards; the battle totals, HP and hand a move
  changes do not depend on the deal), and
* at the end of its turn, on each of :data:`REASON_DEALS` deals played on by the heuristic agent
  (the search's own playouts): an outcome counts when more than half the deals reach it.

The first rule that holds gives the sentence, from what matters most to what matters least: the
game won, a key, the battle in progress (won by ending it now, won by this card, the last HP
saved, the colour chain kept), the reward or purchase at hand, equipment, a potion, a reward
card or a monster beaten, HP back, leaving the merchant, a fight that only draws new cards, a
discard; and when none holds, that the search found the move best.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple, TypeVar

from engine.actions import (
    Action,
    BuyPawned,
    BuyPotion,
    Discard,
    EndBattle,
    Fight,
    LeaveMerchant,
    Pay,
    Play,
    TakeReward,
)
from engine.agents.heuristic import HeuristicAgent
from engine.catalog import tables
from engine.names import ROMAN, card_name, monster_name, word
from engine.observe import Observation, SeatView, observe
from engine.rules import apply
from engine.state import GameState, Phase
from i18n import Msg, msg

#: Deals of the hidden cards the end-of-turn outcomes are counted over.
REASON_DEALS = 8
#: HP at or below which getting HP back is a reason of its own.
LOW_HP = 2

T = TypeVar("T")


class Outcome(NamedTuple):
    """How the rest of the seat's turn went on one deal, as the seat sees it."""

    seat: SeatView  # the seat at the end of its turn
    beaten: str | None  # the monster it beat this turn, if any
    won: bool  # it won the game


def outcome(state: GameState, action: Action, me: int) -> Outcome:
    """Play ``action`` in ``state``, then the heuristic agent until seat ``me``'s turn ends."""
    agent = HeuristicAgent()
    beaten = None
    while True:
        fighting = state.battle.monster if state.battle is not None else None
        state, events = apply(state, action, check=False)
        if fighting and any(e.text.key in ("event.won", "event.champion") for e in events):
            beaten = fighting
        if state.phase is Phase.OVER or state.current != me:
            break
        action = agent.choose(observe(state, me))
    return Outcome(observe(state, me).seats[me], beaten, state.winner == me)


def reason(obs: Observation, action: Action, deals: list[GameState]) -> Msg:
    """The sentence saying why ``action`` is the move to make in ``obs``, from ``deals``
    (complete states the seat cannot tell from the real one, at least one)."""
    me = obs.current
    ends = [outcome(deal, action, me) for deal in deals]
    half = len(ends) / 2
    now = obs.seats[me]
    if sum(o.won for o in ends) > half:
        return msg("hint.champion")
    key = _majority((lv for o in ends for lv in set(o.seat.keys) - set(now.keys)), half)
    if key is not None:
        return msg("hint.last_key") if len(now.keys) == 2 else msg("hint.key", level=ROMAN[key])
    battle = _battle_reason(obs, action, observe(apply(deals[0], action, check=False)[0], me))
    if battle is not None:
        return battle
    deal = _deal_reason(obs, action)
    if deal is not None:
        return deal
    worn = (now.weapon, now.armour)
    item = _majority((i for o in ends for i in (o.seat.weapon, o.seat.armour)
                      if i and i not in worn), half)
    if item is not None:
        return msg("hint.equipment", item=card_name(item))
    potion = _majority((k for o in ends for k in o.seat.potions if k not in now.potions), half)
    if potion is not None:
        return msg("hint.potion", potion=word("potion", potion))
    beaten = _majority((o.beaten for o in ends if o.beaten), half)
    if beaten is not None:
        if tables().monsters[beaten].reward == "action":
            return msg("hint.card", card=card_name(beaten))
        return msg("hint.beats", monster=monster_name(beaten))
    healed = _majority((o.seat.hp for o in ends if o.seat.hp > now.hp), half)
    if now.hp <= LOW_HP and healed is not None:  # the HP reached: 5 on reviving, less on a card
        return msg("hint.heal", count=healed)
    if isinstance(action, LeaveMerchant):
        return msg("hint.leave")
    if isinstance(action, Fight):
        target = obs.target(action)
        if target is not None:
            return msg("hint.cycle", monster=monster_name(target))
    if isinstance(action, Discard):
        return msg("hint.discard", card=card_name(action.card))
    return msg("hint.best")


def _battle_reason(obs: Observation, action: Action, after: Observation) -> Msg | None:
    """What the move does to the battle in progress: win it now, reach enough attack, keep the
    last HP, or keep the colour chain going with cards already in hand."""
    battle, later = obs.battle, after.battle
    if battle is None:
        return None
    monster = monster_name(battle.monster)
    before = battle.totals
    if isinstance(action, EndBattle):
        return msg("hint.win_now", monster=monster) if before.win else None
    if later is None:
        return None
    if later.totals.win and not before.win and before.attack < before.monster_hp:
        return msg("hint.enough_attack", attack=later.totals.attack, monster=monster)
    if before.knocked_out and not later.totals.knocked_out:
        return msg("hint.keeps_hp", monster=monster)
    if isinstance(action, Play):
        rest = list(obs.hand)
        rest.remove(action.card)
        if any(isinstance(a, Play) and a.card in rest for a in after.legal):
            return msg("hint.chain", card=card_name(action.card))
    return None


def _deal_reason(obs: Observation, action: Action) -> Msg | None:
    """Why to keep or pawn won equipment, buy at the merchant or pay with this."""
    if isinstance(action, TakeReward) and obs.pending:
        item = card_name(obs.pending)
        return msg("hint.keep", item=item) if action.keep else msg("hint.pawn", item=item)
    if isinstance(action, BuyPotion):
        return msg("hint.potion", potion=word("potion", action.kind))
    if isinstance(action, BuyPawned):
        return msg("hint.pawned", card=card_name(action.card))
    if isinstance(action, Pay):
        source = action.source
        if source in ("weapon", "armour"):
            worn = getattr(obs.seats[obs.current], source)
            source = worn or source
        return msg("hint.pay", item=card_name(source))
    return None


def _majority(values: Iterable[T], half: float) -> T | None:
    """The most common of ``values`` if it counts more than ``half``, else None."""
    common = Counter(values).most_common(1)
    return common[0][0] if common and common[0][1] > half else None
