"""The rules: which actions are legal now (the one source of truth) and what applying one does.

``legal_actions(state)`` lists every action the current seat may take; ``apply(state, action)``
returns the new state and the events it caused, or raises :class:`~engine.errors.IllegalAction`
with the reason. Applying an action works on a :class:`~engine.table.Table`: the battle's
actions are carried out in :mod:`engine.fighting`, the merchant's in :mod:`engine.merchant`,
reviving, stacking the deck and the healing potion here. Rule ids (R-n, D-n) refer to
``docs/rules.md``.
"""

from __future__ import annotations

from engine import events, fighting, merchant, undo
from engine.actions import (
    LORD_LEVEL,
    POTIONS,
    STACK_MODES,
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
    KeepDrawn,
    LeaveMerchant,
    Pay,
    Play,
    Revive,
    SetStacking,
    TakeReward,
    Undo,
    VisitMerchant,
    parse,
)
from engine.battle import active_curses
from engine.catalog import tables
from engine.errors import IllegalAction, NotYourTurn
from engine.explain import why_illegal
from engine.legality import (
    HEAL_PHASES,
    UNLOCKABLE,
    counter_refusal,
    healing_refusal,
    key_levels,
    pawned_refusal,
    payments,
    potion_refusal,
    refusal,
    refuse_play,
    stacking_refusal,
    strength_refusal,
    visit_refusal,
)
from engine.names import seat_name, word
from engine.state import MAX_HP, Battle, Event, GameState, Phase, Seat
from engine.table import Handler, Table
from i18n import msg

#: Phases read at every step, as module names: reaching an enum member (``Phase.BATTLE``) is a
#: descriptor call on Python 3.11, ten times slower than reaching a module name.
_TURN = Phase.TURN
_DISCARD = Phase.DISCARD
_BATTLE = Phase.BATTLE
_TAIA = Phase.TAIA
_REWARD = Phase.REWARD
_MERCHANT = Phase.MERCHANT
_PAY = Phase.PAY
_OVER = Phase.OVER

# --------------------------------------------------------------------------- legality

#: Actions are immutable values, so the ones offered again and again are built once.
_FIGHTS = (*(Fight(level, slot) for level in (1, 2, 3) for slot in (1, 2, 3, 4, 5, 0)),
           Fight(LORD_LEVEL, 0))
_VISIT, _REVIVE, _END, _HEAL = VisitMerchant(), Revive(), EndBattle(), DrinkHealing()
_UNDO = Undo()
_STACKING = tuple(SetStacking(m) for m in STACK_MODES)
_REWARDS = (TakeReward(True), TakeReward(False))
_STRENGTH = (DrinkStrength("attack"), DrinkStrength("defence"))
_BUY_POTIONS = tuple(BuyPotion(k) for k in POTIONS)


#: The fights of each cavern level: its row slots in order, and its gatekeeper deck.
_LEVEL_FIGHTS = tuple((_FIGHTS[6 * i: 6 * i + 5], _FIGHTS[6 * i + 5]) for i in range(3))


def fight_targets(state: GameState) -> list[Fight]:
    """Every monster the current seat may fight now (R10-R13, D1), row by row, gatekeeper last,
    the Lord at the end: the fights :func:`~engine.legality.refuse_fight` allows, found level by
    level (a seat fights at every turn, and asking the rule of each of the 19 fights apart was
    a tenth of a self-play step)."""
    seat = state.seat
    if seat.hp <= 0:
        return []
    keys = key_levels(seat)
    out: list[Fight] = []
    for n, level in enumerate(state.levels, start=1):
        row, gatekeeper = _LEVEL_FIGHTS[n - 1]
        for i, card in enumerate(level.row):  # its 5 slots
            if card is not None:
                out.append(row[i])
        if n not in keys:  # the next level opens with this one's key, the Lord with all three
            if level.gates:
                out.append(gatekeeper)
            return out
    out.append(_FIGHTS[-1])
    return out


def _plays(state: GameState, seat: Seat, battle: Battle) -> list[Play]:
    """Every card the seat may play, each followed by the cursed effects Xanros may count."""
    out: list[Play] = []
    hero = seat.hero if state.config.abilities else ""
    curses = active_curses(battle)
    if hero not in _PLAY_ABILITIES:  # refuse_play's rule without a hero's ability, inline
        actions = tables().actions
        chain = battle.chain
        follows = actions[chain[-1]].next if chain else None  # the colours that may follow
        for card in seat.hand:
            colour = actions[card].colour
            if colour not in curses and (follows is None or colour in follows):
                play = _PLAY.get(card)
                if play is None:  # the first time this card is offered in this process
                    play = _PLAY[card] = Play(card)
                out.append(play)
        return out
    unlocks = [e for e in UNLOCKABLE if e in curses] if hero == "xanros" \
        and not battle.ability_used else []
    for card in seat.hand:
        play = _PLAY.get(card)
        if play is None:  # the first time this card is offered in this process
            play = _PLAY[card] = Play(card)
        if refuse_play(hero, battle, curses, play) is None:
            out.append(play)
            if unlocks:
                out.extend(p for p in (Play(card, e) for e in unlocks)
                           if refuse_play(hero, battle, curses, p) is None)
    return out


#: The plain plays of each card (no ability), made the first time they are offered: a battle
#: offers its seat's whole hand at every step.
_PLAY: dict[str, Play] = {}
#: The heroes whose ability changes which cards may be played (R61, R63, Victorius's second
#: card): their plays are asked of :func:`~engine.legality.refuse_play` card by card.
_PLAY_ABILITIES = frozenset({"argentus", "victorius", "xanros"})


def _counters(battle: Battle | None, seat: Seat) -> list[DrinkCountercurse]:
    out: list[DrinkCountercurse] = []
    if battle is not None:
        for curse in tables().monsters[battle.monster].curses:
            if counter_refusal(battle, seat, curse) is None:
                out.append(DrinkCountercurse(curse))
    return out


def legal_actions(state: GameState) -> list[Action]:
    """Every action the current seat may take now, without duplicates; empty once the game ends.

    Each kind of action is offered when the rule of :mod:`engine.legality` for it allows it;
    taking back the last move (``undo``, N19) comes last.
    """
    phase = state.phase
    seat = state.seat
    battle = state.battle
    out: list[Action] = []
    # Loops rather than generators, and each kind's rule asked directly: this runs at every step.
    if phase is _TURN:
        out.extend(fight_targets(state))
        if visit_refusal(seat) is None:
            out.append(_VISIT)
        out.append(_REVIVE)  # its rule refuses nothing on a turn
        for stacking in _STACKING:
            if stacking_refusal(seat, stacking.mode) is None:
                out.append(stacking)
    elif phase is _DISCARD:
        out.extend(Discard(c) for c in seat.hand)
        out.extend(_counters(battle, seat))
    elif phase is _BATTLE:
        assert battle is not None
        out.extend(_plays(state, seat, battle))
        for strength in _STRENGTH:
            if strength_refusal(battle, seat, strength.effect) is None:
                out.append(strength)
        out.extend(_counters(battle, seat))
        out.append(_END)
    elif phase is _TAIA:
        assert battle is not None
        out.extend(KeepDrawn(c) for c in dict.fromkeys(battle.drawn))
    elif phase is _REWARD:
        out.extend(_REWARDS)
    elif phase is _MERCHANT:
        out.extend(a for a in _BUY_POTIONS if potion_refusal(state, a.kind) is None)
        out.extend(a for a in (BuyPawned(c) for c in dict.fromkeys(state.pawnshop))
                   if pawned_refusal(state, a.card) is None)
        out.append(LeaveMerchant())
    elif phase is _PAY:
        out.extend(Pay(p) for p in payments(seat))
        out.append(CancelPurchase())
    if phase in HEAL_PHASES and healing_refusal(seat) is None:
        out.append(_HEAL)
    if state.undo is not None:
        out.append(_UNDO)
    return out


# --------------------------------------------------------------------------- applying


def apply(state: GameState, action: Action, seat: int | None = None,
          check: bool = True) -> tuple[GameState, list[Event]]:
    """Apply ``action`` for the current seat; return the new state and the events it caused.

    ``seat``, when given, is the seat trying to act (a different seat raises
    :class:`~engine.errors.NotYourTurn`). ``check=False`` skips the legality check and is only for
    callers that took the action from :func:`legal_actions` of this very state.

    ``undo`` returns the state before the seat's last move, exactly (its step too), with the one
    event naming the move taken back; that event is in no state's log.
    """
    if check:
        if state.phase is _OVER:
            raise IllegalAction(msg("error.game_over"))
        if seat is not None and seat != state.current:
            raise NotYourTurn(msg("error.not_your_turn", who=seat_name(state, state.current)))
        if refusal(state, action) is not None:
            raise IllegalAction(why_illegal(state, action))
    if type(action) is Undo:
        return _take_back(state)
    table = Table(state)
    _HANDLERS[type(action)](table, action)
    said = table.said
    return table.freeze(undo.record(state, action, table, said)), said


def _take_back(state: GameState) -> tuple[GameState, list[Event]]:
    """N19: the state before the last move, rebuilt by replaying the moves before it from the
    take-back record's base, and the event naming the move taken back."""
    history = state.undo
    assert history is not None and history.base is not None
    earlier = history.base
    for move in history.moves[:-1]:
        earlier, _ = apply(earlier, parse(move))
    return earlier, [undo.taken_back(earlier, parse(history.moves[-1]))]


def _revive(table: Table, a: Action) -> None:
    table.set(hp=MAX_HP)
    table.said.append(events.revive(table.who()))
    table.end_turn()


def _stack(table: Table, a: Action) -> None:
    assert isinstance(a, SetStacking)
    table.set(stacking=a.mode)
    table.said.append(events.stacking(table.who(), word("stacking", a.mode)))


def _heal(table: Table, a: Action) -> None:
    table.set(hp=MAX_HP, potions=tuple(p for p in table.seat.potions if p != "healing"))
    table.pile("healing", 1)
    table.said.append(events.potion_healing(table.who()))


_HANDLERS: dict[type[Action], Handler] = {
    Revive: _revive, SetStacking: _stack, DrinkHealing: _heal,
    **fighting.HANDLERS, **merchant.HANDLERS,
}
