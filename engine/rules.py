"""The rules: which actions are legal now (the one source of truth) and what applying one does.

``legal_actions(state)`` lists every action the current seat may take; ``apply(state, action)``
returns the new state and the events it caused, or raises :class:`~engine.errors.IllegalAction`
with the reason. Rule ids (R-n, D-n) refer to ``docs/rules.md``.
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from engine import events, rng
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
    VisitMerchant,
)
from engine.battle import active_curses, hand_size, totals
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
    refuse_fight,
    refuse_play,
    strength_refusal,
)
from engine.names import ROMAN, card_list, card_name, monster_name, seat_name, word
from engine.state import (
    LOG_LENGTH,
    MAX_HP,
    Battle,
    Event,
    GameState,
    Phase,
    Seat,
)
from i18n import Param, msg

# --------------------------------------------------------------------------- legality

#: Actions are immutable values, so the ones offered again and again are built once.
_FIGHTS = (*(Fight(level, slot) for level in (1, 2, 3) for slot in (1, 2, 3, 4, 5, 0)),
           Fight(LORD_LEVEL, 0))
_VISIT, _REVIVE, _END, _HEAL = VisitMerchant(), Revive(), EndBattle(), DrinkHealing()
_STACKING = tuple(SetStacking(m) for m in STACK_MODES)
_REWARDS = (TakeReward(True), TakeReward(False))
_STRENGTH = (DrinkStrength("attack"), DrinkStrength("defence"))
_BUY_POTIONS = tuple(BuyPotion(k) for k in POTIONS)


def fight_targets(state: GameState) -> list[Fight]:
    """Every monster the current seat may fight now (R10-R13, D1), row by row, gatekeeper last,
    the Lord at the end."""
    seat = state.seat
    keys = key_levels(seat)
    return [f for f in _FIGHTS if refuse_fight(seat.hp, keys, state.levels, f) is None]


def _plays(state: GameState, seat: Seat, battle: Battle) -> list[Play]:
    """Every card the seat may play, each followed by the cursed effects Xanros may count."""
    out: list[Play] = []
    hero = seat.hero if state.config.abilities else ""
    curses = active_curses(battle)
    unlocks = [e for e in UNLOCKABLE if e in curses] if hero == "xanros" \
        and not battle.ability_used else []
    for card in seat.hand:
        play = Play(card)
        if refuse_play(hero, battle, curses, play) is None:
            out.append(play)
            if unlocks:
                out.extend(p for p in (Play(card, e) for e in unlocks)
                           if refuse_play(hero, battle, curses, p) is None)
    return out


def _counters(battle: Battle | None, seat: Seat) -> list[DrinkCountercurse]:
    if battle is None:
        return []
    return [DrinkCountercurse(c) for c in tables().monsters[battle.monster].curses
            if counter_refusal(battle, seat, c) is None]


def legal_actions(state: GameState) -> list[Action]:
    """Every action the current seat may take now, without duplicates; empty once the game ends.

    Each kind of action is offered when the rule of :mod:`engine.legality` for it allows it.
    """
    phase = state.phase
    seat = state.seat
    battle = state.battle
    out: list[Action] = []
    if phase is Phase.TURN:
        out.extend(fight_targets(state))
        out.extend(a for a in (_VISIT, _REVIVE, *_STACKING) if refusal(state, a) is None)
    elif phase is Phase.DISCARD:
        out.extend(Discard(c) for c in seat.hand)
        out.extend(_counters(battle, seat))
    elif phase is Phase.BATTLE:
        assert battle is not None
        out.extend(_plays(state, seat, battle))
        out.extend(a for a in _STRENGTH if strength_refusal(battle, seat, a.effect) is None)
        out.extend(_counters(battle, seat))
        out.append(_END)
    elif phase is Phase.TAIA:
        assert battle is not None
        out.extend(KeepDrawn(c) for c in dict.fromkeys(battle.drawn))
    elif phase is Phase.REWARD:
        out.extend(_REWARDS)
    elif phase is Phase.MERCHANT:
        out.extend(a for a in _BUY_POTIONS if potion_refusal(state, a.kind) is None)
        out.extend(a for a in (BuyPawned(c) for c in dict.fromkeys(state.pawnshop))
                   if pawned_refusal(state, a.card) is None)
        out.append(LeaveMerchant())
    elif phase is Phase.PAY:
        out.extend(Pay(p) for p in payments(seat))
        out.append(CancelPurchase())
    if phase in HEAL_PHASES and healing_refusal(seat) is None:
        out.append(_HEAL)
    return out


# --------------------------------------------------------------------------- applying


class _Work:
    """A mutable working copy of a state, used while one action is applied."""

    __slots__ = ("state", "rng", "seats", "levels", "potions", "pawnshop", "phase", "battle",
                 "pending", "bought_pawned", "winner", "turn", "round", "said", "me")

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.rng = state.rng
        self.seats = list(state.seats)
        self.levels = state.levels  # these three change rarely: replaced, never mutated, so an
        self.potions = state.potions  # untouched one stays the same object in the new state
        self.pawnshop = state.pawnshop
        self.phase = state.phase
        self.battle = state.battle
        self.pending = state.pending
        self.bought_pawned = state.bought_pawned
        self.winner = state.winner
        self.turn = state.turn
        self.round = state.round
        self.said: list[Event] = []  # the events of this action, in order
        self.me = state.current

    @property
    def seat(self) -> Seat:
        return self.seats[self.me]

    def set(self, **changes: Any) -> None:
        self.seats[self.me] = replace(self.seats[self.me], **changes)

    def pile(self, kind: str, change: int) -> None:
        """Return potions to (``change`` > 0) or take them from the merchant's ``kind`` pile."""
        piles = list(self.potions)
        piles[POTIONS.index(kind)] += change
        self.potions = (piles[0], piles[1], piles[2])

    def who(self, seat: int | None = None) -> Param:
        return seat_name(self.state, self.me if seat is None else seat)

    def freeze(self) -> GameState:
        state = self.state
        log = (state.log + tuple(self.said))[-LOG_LENGTH:] if self.said else state.log
        return GameState(
            state.config, self.rng, tuple(self.seats), state.order, self.turn, self.round,
            self.levels, state.lord, self.potions, self.pawnshop, self.phase, self.battle,
            self.pending, self.bought_pawned, self.winner, state.step + 1, log,
        )

    # ---- cards

    def rebuild_deck(self, index: int) -> None:
        """R17 + D5: the discard pile becomes the deck, per the seat's stacking preference."""
        seat = self.seats[index]
        actions = tables().actions
        mode = seat.stacking
        if mode == "shuffle":
            deck, self.rng = rng.shuffled(self.rng, seat.discard)
        else:
            start, self.rng = rng.shuffled(
                self.rng, [c for c in seat.discard if not actions[c].reward])
            rewards, self.rng = rng.shuffled(
                self.rng, [c for c in seat.discard if actions[c].reward])
            deck = rewards + start if mode == "top" else start + rewards
        self.seats[index] = replace(seat, deck=seat.deck + deck, discard=())
        self.said.append(events.reshuffle(self.who(index), len(deck)))

    def take(self, index: int) -> str | None:
        """Take the top card of a seat's deck, reshuffling only when it is empty (R17)."""
        if not self.seats[index].deck:
            if not self.seats[index].discard:
                return None
            self.rebuild_deck(index)
        seat = self.seats[index]
        card = seat.deck[0]
        self.seats[index] = replace(seat, deck=seat.deck[1:])
        return card

    def draw(self, index: int, count: int) -> int:
        """Draw up to ``count`` cards into a seat's hand (R17); how many it drew."""
        seat = self.seats[index]
        if len(seat.deck) >= count:  # no reshuffle on the way: take them at once
            drawn = seat.deck[:count]
            seat = replace(seat, hand=seat.hand + drawn, deck=seat.deck[count:])
        else:
            cards: list[str] = []
            for _ in range(count):
                card = self.take(index)
                if card is None:
                    break
                cards.append(card)
            drawn = tuple(cards)
            seat = self.seats[index]
            if drawn:
                seat = replace(seat, hand=seat.hand + drawn)
        self.seats[index] = seat
        if drawn:
            self.said.append(events.draw(self.who(index), len(drawn)))
            self.said.append(events.draw_private(card_list(drawn), to=index))
        return len(drawn)

    # ---- turn flow

    def end_turn(self) -> None:
        """R28: played cards to the discard pile, draw up to a full hand, next seat."""
        me = self.me
        seat = self.seats[me]
        if self.battle is not None:
            self.seats[me] = seat = replace(seat, discard=seat.discard + self.battle.chain)
            self.battle = None
        missing = hand_size(seat) - len(seat.hand)
        if missing > 0:
            self.draw(me, missing)
        self.pending = None
        self.bought_pawned = False
        self.phase = Phase.TURN
        order = self.state.order
        self.turn = (self.turn + 1) % len(order)
        if self.turn == 0:
            self.round += 1
        self.me = order[self.turn]
        self.said.append(events.turn(self.who(), self.round))

    def remove_monster(self, battle: Battle) -> None:
        """R27: take the beaten monster; refill its row slot from the level's deck."""
        if battle.level == LORD_LEVEL:
            return
        levels = list(self.levels)
        lv = levels[battle.level - 1]
        if battle.slot == 0:
            levels[battle.level - 1] = replace(lv, gates=lv.gates[1:])
        else:
            row = list(lv.row)
            row[battle.slot - 1] = lv.deck[0] if lv.deck else None
            levels[battle.level - 1] = replace(lv, row=tuple(row), deck=lv.deck[1:])
        self.levels = tuple(levels)


def _without(cards: tuple[str, ...], card: str) -> tuple[str, ...]:
    """``cards`` with the first copy of ``card`` taken out."""
    i = cards.index(card)
    return cards[:i] + cards[i + 1:]


def apply(state: GameState, action: Action, seat: int | None = None,
          check: bool = True) -> tuple[GameState, list[Event]]:
    """Apply ``action`` for the current seat; return the new state and the events it caused.

    ``seat``, when given, is the seat trying to act (a different seat raises
    :class:`~engine.errors.NotYourTurn`). ``check=False`` skips the legality check and is only for
    callers that took the action from :func:`legal_actions` of this very state.
    """
    if check:
        if state.phase is Phase.OVER:
            raise IllegalAction(msg("error.game_over"))
        if seat is not None and seat != state.current:
            raise NotYourTurn(msg("error.not_your_turn", who=seat_name(state, state.current)))
        if refusal(state, action) is not None:
            raise IllegalAction(why_illegal(state, action))
    w = _Work(state)
    _HANDLERS[type(action)](w, action)
    return w.freeze(), w.said


def _fight(w: _Work, a: Action) -> None:
    assert isinstance(a, Fight)
    state = w.state
    if a.level == LORD_LEVEL:
        monster = state.lord
    elif a.slot == 0:
        monster = state.levels[a.level - 1].gates[0]
    else:
        card = state.levels[a.level - 1].row[a.slot - 1]
        assert card is not None
        monster = card
    w.battle = Battle(level=a.level, slot=a.slot, monster=monster)
    w.said.append(events.fight(w.who(), monster_name(monster), ROMAN[a.level]))
    _enter_battle(w)


def _enter_battle(w: _Work) -> None:
    """R23: discard down first when an equipment curse takes away a hand-size bonus."""
    assert w.battle is not None
    curses = active_curses(w.battle)
    if ("weapon" not in curses and "armour" not in curses) or not (w.seat.weapon or w.seat.armour):
        w.phase = Phase.BATTLE  # no hand-size bonus is taken away
        return
    allowed = hand_size(w.seat, curses)
    if allowed < hand_size(w.seat) and len(w.seat.hand) > allowed:
        w.phase = Phase.DISCARD
    else:
        w.phase = Phase.BATTLE


def _merchant(w: _Work, a: Action) -> None:
    w.phase = Phase.MERCHANT
    w.bought_pawned = False
    w.said.append(events.merchant(w.who()))


def _revive(w: _Work, a: Action) -> None:
    w.set(hp=MAX_HP)
    w.said.append(events.revive(w.who()))
    w.end_turn()


def _stack(w: _Work, a: Action) -> None:
    assert isinstance(a, SetStacking)
    w.set(stacking=a.mode)
    w.said.append(events.stacking(w.who(), word("stacking", a.mode)))


def _heal(w: _Work, a: Action) -> None:
    w.set(hp=MAX_HP, potions=tuple(p for p in w.seat.potions if p != "healing"))
    w.pile("healing", 1)
    w.said.append(events.potion_healing(w.who()))


def _discard(w: _Work, a: Action) -> None:
    assert isinstance(a, Discard) and w.battle is not None
    w.set(hand=_without(w.seat.hand, a.card), discard=w.seat.discard + (a.card,))
    w.said.append(events.discard(w.who(), card_name(a.card)))
    _enter_battle(w)


def _play(w: _Work, a: Action) -> None:
    assert isinstance(a, Play) and w.battle is not None
    t = tables().actions
    battle, card, me = w.battle, a.card, w.me
    seat = w.seats[me]
    info = t[card]
    chain = battle.chain
    curses = active_curses(battle)
    hero = seat.hero if w.state.config.abilities else ""
    who = w.who()  # the seat playing, named in every event below
    prev = t[chain[-1]] if chain else None
    follows = prev is None or info.colour in prev.next or (hero == "victorius"
                                                            and len(chain) == 1)
    idx = len(chain)
    used = battle.ability_used
    unlocked = battle.unlocked
    if info.colour in curses or not follows:
        used = True  # R61 / R63: the once-per-battle ability made this card playable
        w.said.append(events.ability(who, word("hero", f"{seat.hero}.name")))
    if a.ability:
        used = True
        unlocked = unlocked + ((idx, a.ability),)
        w.said.append(events.ability(who, word("hero", f"{seat.hero}.name")))
    horan = battle.horan_bonus
    if hero == "horan" and not horan and prev is not None and prev.attack and info.attack:
        horan = True  # R62
        w.said.append(events.horan(who))
    w.seats[me] = seat = replace(seat, hand=_without(seat.hand, card))
    w.battle = Battle(battle.level, battle.slot, battle.monster, chain + (card,), battle.boosted,
                      battle.countered, used, unlocked, horan, battle.drawn, battle.draws_left,
                      battle.hp_before)
    w.said.append(events.play(who, card_name(card)))
    if info.heal and ("heal" not in curses or (idx, "heal") in unlocked):  # R18
        gain = min(MAX_HP, seat.hp + info.heal) - seat.hp
        if gain:
            w.seats[me] = replace(seat, hp=seat.hp + gain)
            w.said.append(events.heal(who, gain))
    if info.draw and ("draw" not in curses or (idx, "draw") in unlocked):  # R17, R66
        if hero == "taia":
            _taia_draw(w, info.draw)
        else:
            w.draw(me, info.draw)


def _taia_draw(w: _Work, remaining: int) -> None:
    """R66: for each card to draw, Taia draws two, keeps one, the other goes under her deck."""
    assert w.battle is not None
    while remaining > 0:
        first = w.take(w.me)
        if first is None:
            break
        second = w.take(w.me)
        remaining -= 1
        if second is None:
            w.set(hand=w.seat.hand + (first,))
            w.said.append(events.draw(w.who(), 1))
            continue
        w.battle = replace(w.battle, drawn=(first, second), draws_left=remaining)
        w.phase = Phase.TAIA
        w.said.append(events.taia_choice(card_name(first), card_name(second), to=w.me))
        return
    w.battle = replace(w.battle, drawn=(), draws_left=0)
    w.phase = Phase.BATTLE


def _keep(w: _Work, a: Action) -> None:
    assert isinstance(a, KeepDrawn) and w.battle is not None
    other = _without(w.battle.drawn, a.card)[0]
    w.set(hand=w.seat.hand + (a.card,), deck=w.seat.deck + (other,))
    w.said.append(events.draw(w.who(), 1))
    w.said.append(events.taia_kept(card_name(a.card), card_name(other), to=w.me))
    _taia_draw(w, w.battle.draws_left)


def _strength(w: _Work, a: Action) -> None:
    assert isinstance(a, DrinkStrength) and w.battle is not None
    b = w.battle
    w.battle = replace(b, boosted=b.boosted + ((len(b.chain) - 1, a.effect),))
    w.set(potions=tuple(p for p in w.seat.potions if p != "strength"))
    w.pile("strength", 1)
    w.said.append(events.potion_strength(w.who(), word("effect", a.effect),
                                           card_name(b.chain[-1])))


def _counter(w: _Work, a: Action) -> None:
    assert isinstance(a, DrinkCountercurse) and w.battle is not None
    w.battle = replace(w.battle, countered=a.curse)
    w.set(potions=tuple(p for p in w.seat.potions if p != "countercurse"))
    w.pile("countercurse", 1)
    w.said.append(events.potion_counter(w.who(), word("curse", a.curse)))
    if w.phase is Phase.DISCARD:
        _enter_battle(w)


def _end_battle(w: _Work, a: Action) -> None:
    """R24-R27: take hits, heal from equipment, hit the monster, take the reward."""
    battle = w.battle
    assert battle is not None
    result = totals(w.state)
    monster = tables().monsters[battle.monster]
    hp_before = w.seat.hp
    who = w.who()  # the seat that fought, named in every event below
    w.set(hp=result.hp_after)
    if result.damage:
        w.said.append(events.hits(who, result.damage))
    if result.knocked_out:
        w.said.append(events.knocked_out(who))
    elif result.hp_after > hp_before - result.damage:  # R25, narrated as the HP it gave
        w.said.append(events.heal(who, result.hp_after - (hp_before - result.damage)))
    if not result.win:
        if not result.knocked_out:
            w.said.append(events.lost(who, monster_name(monster.id), result.attack,
                                        monster.hp))
        w.end_turn()
        return
    w.said.append(events.won(who, monster_name(monster.id), result.attack, monster.hp))
    if battle.level == LORD_LEVEL:  # R60: the game ends at once
        w.set(discard=w.seat.discard + battle.chain)  # the table is left tidy (no battle)
        w.battle = None
        w.winner = w.me
        w.phase = Phase.OVER
        w.said.append(events.champion(who))
        return
    w.remove_monster(battle)
    if monster.reward == "key":
        w.set(keys=w.seat.keys + (monster.id,))
        w.said.append(events.key(who, ROMAN[monster.level]))
        w.end_turn()
    elif monster.reward == "action":
        w.set(discard=w.seat.discard + (monster.id,))
        w.said.append(events.reward_card(who, card_name(monster.id)))
        w.end_turn()
    else:  # the battle stays open for the keep-or-pawn choice, its outcome settled
        w.battle = replace(battle, hp_before=hp_before)
        w.pending = monster.id
        w.phase = Phase.REWARD


def _reward(w: _Work, a: Action) -> None:
    assert isinstance(a, TakeReward) and w.pending is not None
    card = w.pending
    kind = tables().equipment[card].kind
    if a.keep:
        old = getattr(w.seat, kind)
        if old:
            w.pawnshop += (old,)
            w.said.append(events.pawned(w.who(), card_name(old)))
        w.set(**{kind: card})
        w.said.append(events.equip(w.who(), card_name(card)))
    else:
        w.pawnshop += (card,)
        w.said.append(events.pawned(w.who(), card_name(card)))
    w.end_turn()


def _buy_potion(w: _Work, a: Action) -> None:
    assert isinstance(a, BuyPotion)
    w.pending = f"potion:{a.kind}"
    w.phase = Phase.PAY


def _buy_pawned(w: _Work, a: Action) -> None:
    assert isinstance(a, BuyPawned)
    w.pending = a.card
    w.phase = Phase.PAY


def _cancel(w: _Work, a: Action) -> None:
    w.pending = None
    w.phase = Phase.MERCHANT


def _pay(w: _Work, a: Action) -> None:
    """R40-R42: the payment goes to the pawnshop, then the purchase is delivered."""
    assert isinstance(a, Pay) and w.pending is not None
    if a.source in ("weapon", "armour"):
        paid = getattr(w.seat, a.source)
        w.set(**{a.source: None})
    else:
        paid = a.source
        w.set(hand=_without(w.seat.hand, paid))
    w.pawnshop += (paid,)
    pending, w.pending = w.pending, None
    if pending.startswith("potion:"):
        kind = pending.split(":", 1)[1]
        w.pile(kind, -1)
        w.set(potions=w.seat.potions + (kind,))
        w.said.append(events.bought(w.who(), word("potion", kind), card_name(paid)))
    else:
        w.pawnshop = _without(w.pawnshop, pending)
        w.bought_pawned = True
        equipment = tables().equipment.get(pending)
        if equipment is not None:
            old = getattr(w.seat, equipment.kind)
            if old:
                w.pawnshop += (old,)
            w.set(**{equipment.kind: pending})
        else:
            w.set(deck=(pending,) + w.seat.deck)  # D2: on top of the draw deck
        w.said.append(events.bought(w.who(), card_name(pending), card_name(paid)))
    w.phase = Phase.MERCHANT


def _leave(w: _Work, a: Action) -> None:
    w.said.append(events.leave(w.who()))
    w.end_turn()


_HANDLERS = {
    Fight: _fight, VisitMerchant: _merchant, Revive: _revive, SetStacking: _stack,
    DrinkHealing: _heal, Discard: _discard, Play: _play, KeepDrawn: _keep,
    DrinkStrength: _strength, DrinkCountercurse: _counter, EndBattle: _end_battle,
    TakeReward: _reward, BuyPotion: _buy_potion, BuyPawned: _buy_pawned,
    CancelPurchase: _cancel, Pay: _pay, LeaveMerchant: _leave,
}
