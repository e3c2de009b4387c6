"""The merchant: visiting, buying a potion or a pawned card, paying, leaving (R40-R43, D2).

A purchase is chosen first (the phase becomes PAY), then paid with a card from the hand or an
equipment; the payment goes to the pawnshop and the purchase is delivered (R40-R42).
:data:`HANDLERS` maps each of these actions to its handler for :func:`engine.rules.apply`.
"""

from __future__ import annotations

from engine import events
from engine.actions import (
    Action,
    BuyPawned,
    BuyPotion,
    CancelPurchase,
    LeaveMerchant,
    Pay,
    VisitMerchant,
)
from engine.catalog import tables
from engine.names import card_name, word
from engine.state import Phase
from engine.table import Handler, Table, without


def _merchant(table: Table, a: Action) -> None:
    table.phase = Phase.MERCHANT
    table.bought_pawned = False
    table.said.append(events.merchant(table.who()))


def _buy_potion(table: Table, a: Action) -> None:
    assert isinstance(a, BuyPotion)
    table.pending = f"potion:{a.kind}"
    table.phase = Phase.PAY


def _buy_pawned(table: Table, a: Action) -> None:
    assert isinstance(a, BuyPawned)
    table.pending = a.card
    table.phase = Phase.PAY


def _cancel(table: Table, a: Action) -> None:
    table.pending = None
    table.phase = Phase.MERCHANT


def _pay(table: Table, a: Action) -> None:
    """R40-R42: the payment goes to the pawnshop, then the purchase is delivered."""
    assert isinstance(a, Pay) and table.pending is not None
    if a.source in ("weapon", "armour"):
        paid = getattr(table.seat, a.source)
        table.set(**{a.source: None})
    else:
        paid = a.source
        table.set(hand=without(table.seat.hand, paid))
    table.pawnshop += (paid,)
    pending, table.pending = table.pending, None
    if pending.startswith("potion:"):
        kind = pending.split(":", 1)[1]
        table.pile(kind, -1)
        table.set(potions=table.seat.potions + (kind,))
        table.said.append(events.bought(table.who(), word("potion", kind), card_name(paid)))
    else:
        table.pawnshop = without(table.pawnshop, pending)
        table.bought_pawned = True
        equipment = tables().equipment.get(pending)
        if equipment is not None:
            old = getattr(table.seat, equipment.kind)
            if old:
                table.pawnshop += (old,)
            table.set(**{equipment.kind: pending})
        else:
            table.set(deck=(pending,) + table.seat.deck)  # D2: on top of the draw deck
        table.said.append(events.bought(table.who(), card_name(pending), card_name(paid)))
    table.phase = Phase.MERCHANT


def _leave(table: Table, a: Action) -> None:
    table.said.append(events.leave(table.who()))
    table.end_turn()


HANDLERS: dict[type[Action], Handler] = {
    VisitMerchant: _merchant, BuyPotion: _buy_potion, BuyPawned: _buy_pawned,
    CancelPurchase: _cancel, Pay: _pay, LeaveMerchant: _leave,
}
