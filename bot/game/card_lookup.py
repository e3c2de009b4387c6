"""Looking cards up by name in any shipped language, and what the lookup tells about a card
(Discord-free text). Potions and heroes can be looked up too: their ids are ``potion.<kind>``
and ``hero.<hero>``."""

from __future__ import annotations

import re
import unicodedata

from bot.game.facts import joined, potion_facts
from engine.actions import LORD_LEVEL
from engine.catalog import tables
from engine.names import ROMAN, card_name, hero_name, word
from i18n import LOCALES, Msg, Param, msg, translate

POTIONS = ("strength", "healing", "countercurse")
#: What separates the words of a name (a typed beginning matches at the start of any word).
_BETWEEN_WORDS = re.compile(r"[\s/'’-]+")


def card_ids() -> list[str]:
    """Every card a player may look up: starting cards, monsters, gatekeepers and Lords,
    potions and heroes."""
    t = tables()
    out = [c for cards in t.hero_cards.values() for c in cards]
    out += list(t.monsters)
    out += [f"potion.{p}" for p in POTIONS]
    out += [f"hero.{h}" for h in t.hero_cards]
    return out


def _plain(text: str) -> str:
    """``text`` lower-cased without accents (what a phone keyboard may leave out)."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _upper_first(text: str) -> str:
    """``text`` with its first letter a capital (the rest as it is)."""
    return text[:1].upper() + text[1:]


def starts_a_word(label: str, typed: str) -> bool:
    """True when ``typed`` begins ``label`` or any of its words (ignoring case and accents)."""
    return _word_starts(_plain(label), _plain(typed.strip()))


def _word_starts(name: str, wanted: str) -> bool:
    """True when ``wanted`` begins ``name`` or any of its words (both made plain)."""
    starts = [0, *(m.end() for m in _BETWEEN_WORDS.finditer(name))]
    return any(name.startswith(wanted, at) for at in starts)


def suggest(typed: str, locale: str, limit: int = 25) -> list[tuple[str, str]]:
    """(label, id) of up to ``limit`` things to look up whose name has a word starting with
    ``typed``; names that start with it come first. ``typed`` is made plain once: Discord
    sends up to 6,000 characters of it at each keystroke."""
    wanted = _plain(typed.strip())
    found = [(label, c, _plain(label)) for label, c in
             ((card_label(c, locale), c) for c in card_ids())]
    found = [(label, c, name) for label, c, name in found if _word_starts(name, wanted)]
    found.sort(key=lambda three: not three[2].startswith(wanted))
    return [(label, c) for label, c, _ in found[:limit]]


def card_label(card: str, locale: str) -> str:
    """The name shown for a card in the lookup (the monster and its reward for monsters)."""
    t = tables()
    if card.startswith("potion."):
        return _upper_first(translate(word("potion", card.removeprefix("potion.")), locale))
    if card.startswith("hero."):
        return translate(hero_name(card.removeprefix("hero.")), locale)
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
            names = ((card_label(c, lc),) if "." in c else
                     (card_label(c, lc), translate(msg(f"card.{c}"), lc),
                      translate(card_name(c), lc)))
            if wanted in (n.lower() for n in names):
                return c
    return None


def card_lines(card: str, locale: str) -> list[str]:
    """What the lookup tells about a card."""
    t = tables()
    lines: list[str] = []
    if card.startswith("potion."):
        return [translate(potion_facts(card.removeprefix("potion.")), locale)]
    if card.startswith("hero."):
        hero = card.removeprefix("hero.")
        return [_upper_first(translate(msg(f"hero.{hero}.title"), locale)),
                translate(msg(f"hero.{hero}.ability"), locale)]
    if card in t.monsters:
        m = t.monsters[card]
        key = "bot.lookup.lord" if m.level == LORD_LEVEL else "bot.lookup.monster"
        facts: dict[str, Param] = {"attack": m.attack, "hp": m.hp}
        if m.level != LORD_LEVEL:
            facts["level"] = ROMAN[m.level]
        if m.curses:
            facts["curses"] = joined([word("curse", c) for c in m.curses])
        else:
            key += "_uncursed"
        lines.append(translate(msg(key, **facts), locale))
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


__all__ = ["POTIONS", "card_ids", "card_label", "card_lines", "find_card", "starts_a_word",
           "suggest"]
