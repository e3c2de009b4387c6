"""Looking cards up by name in any shipped language, and what the lookup tells about a card
(Discord-free text)."""

from __future__ import annotations

from engine.catalog import tables
from engine.names import card_name, word
from i18n import LOCALES, Msg, msg, translate


def card_ids() -> list[str]:
    """Every card a player may look up: starting cards, monsters, gatekeepers and Lords."""
    t = tables()
    out = [c for cards in t.hero_cards.values() for c in cards]
    out += list(t.monsters)
    return out


def card_label(card: str, locale: str) -> str:
    """The name shown for a card in the lookup (the monster and its reward for monsters)."""
    t = tables()
    if card in t.monsters:
        front = translate(msg(f"card.{card}"), locale)
        if t.monsters[card].reward in ("action", "weapon", "armour"):
            return f"{front} / {translate(card_name(card), locale)}"
        return front
    return translate(card_name(card), locale)


def find_card(name: str, locale: str) -> str | None:
    """The card called ``name`` (its label, the monster on its front or the reward on its back),
    in the asker's language first, then in any shipped language."""
    wanted = name.strip().lower()
    for lc in (locale, *(other for other in LOCALES if other != locale)):
        for c in card_ids():
            names = (card_label(c, lc), translate(msg(f"card.{c}"), lc),
                     translate(card_name(c), lc))
            if wanted in (n.lower() for n in names):
                return c
    return None


def card_lines(card: str, locale: str) -> list[str]:
    """What the lookup tells about a card."""
    t = tables()
    lines: list[str] = []
    if card in t.monsters:
        m = t.monsters[card]
        curses = [word("curse", c) for c in m.curses]
        cursed: Msg | str = msg("list.0")
        for i, curse in enumerate(curses):
            cursed = curse if i == 0 else msg("list.more", head=cursed, tail=curse)
        lines.append(translate(msg("bot.card.monster", level=m.level, attack=m.attack, hp=m.hp,
                                   curses=cursed), locale))
        lines.append(translate(msg(f"bot.card.reward_{m.reward}"), locale))
    if card in t.actions:
        a = t.actions[card]
        nxt: Msg | str = msg("list.0")
        for i, c in enumerate(sorted(a.next)):
            w = word("colour", c)
            nxt = w if i == 0 else msg("list.more", head=nxt, tail=w)
        lines.append(translate(msg("bot.card.action", name=card_name(card),
                                   colour=word("colour", a.colour), attack=a.attack,
                                   defence=a.defence, draw=a.draw, heal=a.heal, next=nxt),
                               locale))
    if card in t.equipment:
        e = t.equipment[card]
        lines.append(translate(msg("bot.card.equipment", name=card_name(card),
                                   kind=word("slot", e.kind), attack=e.attack,
                                   defence=e.defence, heal=e.heal, hand=e.hand), locale))
    return lines


__all__ = ["card_ids", "card_label", "card_lines", "find_card"]
