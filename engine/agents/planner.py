"""Battle planning for the heuristic agent: every sequence of cards a seat could play from its hand.

The search follows the same chaining rules as the engine (R14, R15, R21, R22, R61-R63, R65) and
sums what each prefix of each sequence would add. Cards a draw effect would bring are unknown, so
draws are only counted as a small expected bonus; the agent re-plans after every card.
"""

from __future__ import annotations

from functools import lru_cache

from msgspec import Struct

from engine.catalog import ActionInfo, tables

DRAW_VALUE = 0.8  # attack a drawn card is expected to add, for ranking plans only
_EFFECTS = ("attack", "defence", "draw", "heal")


class Outcome(Struct, frozen=True, gc=False):
    """What playing ``cards`` (in order) would add to the battle."""

    cards: tuple[tuple[str, str], ...]  # (card id, Xanros unlocked effect or "")
    attack: int
    defence: int
    heal: int
    draws: int
    best_attack_card: int  # largest single counted attack (what strength could double)
    best_defence_card: int
    horan: bool


class Situation(Struct, frozen=True, gc=False):
    """Where the chain stands: the previous card, abilities left, curses that apply."""

    hero: str  # "" when abilities are off
    curses: frozenset[str]
    prev: str | None = None
    length: int = 0
    ability_used: bool = False
    horan_bonus: bool = False


def plans(hand: tuple[str, ...], where: Situation, limit: int = 4000) -> list[Outcome]:
    """Every playable prefix of every legal sequence from ``hand`` (the empty plan first)."""
    t = tables().actions
    curses = where.curses
    hero = where.hero
    # Per card: id, colour, next colours, and its four effects as curses leave them.
    cards = []
    for cid in hand:
        info = t[cid]
        effects = tuple(0 if e in curses else info.effect(e) for e in _EFFECTS)
        cursed_effects = tuple(e for e in _EFFECTS if e in curses and info.effect(e))
        cards.append((info, effects, cursed_effects, info.colour in curses))
    out: list[Outcome] = [Outcome((), 0, 0, 0, 0, 0, 0, False)]
    seen: set[tuple[object, ...]] = set()
    xanros = hero == "xanros"

    def walk(prev: ActionInfo | None, length: int, used: bool, horan: bool, left: int,
             seq: tuple[tuple[str, str], ...], att: int, dfn: int, heal: int, draws: int,
             best_a: int, best_d: int) -> None:
        if len(out) >= limit:
            return
        for i, (info, effects, cursed_effects, cursed) in enumerate(cards):
            if not left >> i & 1:
                continue
            follows = prev is None or info.colour in prev.next or (
                hero == "victorius" and length == 1)
            use = used
            if cursed:
                if not (xanros and not used and follows):
                    continue
                use = True
            if not follows:
                if not (hero == "argentus" and info.colour == "blue" and not used):
                    continue
                use = True
            rest = left & ~(1 << i)
            unlocks: tuple[str, ...] = ("",)
            if xanros and not use and cursed_effects:
                unlocks = ("", *cursed_effects)
            for unlock in unlocks:
                a, d, dr, h = effects
                if unlock:
                    value = info.effect(unlock)
                    a, d, dr, h = (value if unlock == "attack" else a,
                                   value if unlock == "defence" else d,
                                   value if unlock == "draw" else dr,
                                   value if unlock == "heal" else h)
                hb = horan
                bonus = 0
                if hero == "horan" and not horan and prev is not None and prev.attack \
                        and info.attack:
                    hb, bonus = True, 1
                now_used = use or bool(unlock)
                key = (rest, info.id, now_used, hb, att + a + bonus, dfn + d, heal + h)
                if key in seen:
                    continue
                seen.add(key)
                nseq = seq + ((info.id, unlock),)
                o = Outcome(nseq, att + a + bonus, dfn + d, heal + h, draws + dr,
                            max(best_a, a), max(best_d, d), hb)
                out.append(o)
                walk(info, length + 1, now_used, hb, rest, nseq, o.attack, o.defence, o.heal,
                     o.draws, o.best_attack_card, o.best_defence_card)

    prev = t[where.prev] if where.prev else None
    walk(prev, where.length, where.ability_used, where.horan_bonus, (1 << len(cards)) - 1, (),
         0, 0, 0, 0, 0, 0)
    return out


def distinct(outcomes: list[Outcome]) -> list[Outcome]:
    """One plan per distinct result (the shortest), keeping the input order otherwise."""
    best: dict[tuple[int, ...], Outcome] = {}
    for o in outcomes:
        key = (o.attack, o.defence, o.heal, o.draws, o.best_attack_card, o.best_defence_card)
        kept = best.get(key)
        if kept is None or len(o.cards) < len(kept.cards):
            best[key] = o
    return list(best.values())


@lru_cache(maxsize=8192)
def best_plans(hand: tuple[str, ...], where: Situation) -> tuple[Outcome, ...]:
    """``distinct(plans(hand, where))``, remembered by value: searches replay the same hands and
    battles many times."""
    return tuple(distinct(plans(hand, where)))
