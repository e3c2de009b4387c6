"""The catalogue's texts recognised in a message, in every shipped language: a regular
expression for a translated template, the texts only a hand message may hold, and the table,
step and seat a table or hand message names."""
from __future__ import annotations

import re
import string

from engine.catalog import tables as tables_of
from engine.names import hero_name
from i18n import LOCALES, catalog, texts, translate

#: Texts only a seat's private hand message may hold: its title, the move prompt, the private
#: draw event and Taia's choice (every language, every plural form).
HAND_ONLY_KEYS = ("bot.hand.title", "bot.hand.your_move", "event.draw_private",
                  "event.taia_choice", "event.taia_kept", "bot.facts.reward_cards",
                  *(f"bot.prompt.you.{phase}" for phase in ("turn", "discard", "battle", "taia",
                                                           "reward", "merchant", "pay")))
_SPACE = "[ \u00a0\u202f]"
_ELIDED = re.compile(r"(?:^|(?<=\W))([Dd]e|[Qq]ue) $")


def template_pattern(template: str, fields: dict[str, str] | None = None) -> str:
    """A regular expression matching what :func:`i18n.translate` makes of ``template``: any text
    for each placeholder (``fields`` may give a named pattern instead), ordinary or no-break
    spaces, and French ``de``/``que`` elided before a parameter."""
    out: list[str] = []
    for literal, name, _, _ in string.Formatter().parse(template):
        lit = literal
        elided = _ELIDED.search(lit) if name else None
        if elided is not None:
            lit = lit[:elided.start(1)]
        out.append(_SPACE.join(re.escape(part) for part in lit.split(" ")))
        if elided is not None:
            word = elided.group(1)
            out.append(f"(?:{re.escape(word)}{_SPACE}|{re.escape(word[:-1])}')")
        if name:
            known = (fields or {}).get(name)
            out.append(f"(?P<{name}>{known})" if known else "[^\n]+?")
    return "".join(out)


def catalogue_patterns(key: str, fields: dict[str, str] | None = None) -> list[re.Pattern[str]]:
    """Patterns of ``key``'s text in every shipped language (and each plural form)."""
    found: dict[str, re.Pattern[str]] = {}
    for locale in LOCALES:
        for text in texts(catalog(locale)[key]):
            pattern = template_pattern(text, fields)
            found.setdefault(pattern, re.compile(pattern))
    return list(found.values())


HAND_ONLY = [(key, p) for key in HAND_ONLY_KEYS for p in catalogue_patterns(key)]
TABLE_TITLE = catalogue_patterns("bot.table.title", {"table": r"\d+"})
HAND_TITLE = catalogue_patterns("bot.hand.title", {"table": r"\d+"})
#: Every hero's name in every language: a hand message names its seat's hero on its seat line.
HERO_NAMES = {h: {translate(hero_name(h), lc) for lc in LOCALES} for h in tables_of().hero_cards}
TABLE_FOOTER = catalogue_patterns("bot.table.footer", {"round": r"\d+", "step": r"\d+"})


def where_shown(text: str) -> tuple[int, int] | None:
    """(table, step) of a public table message, read from its title and footer (any
    language); None for other messages."""
    title = next((m for p in TABLE_TITLE if (m := p.search(text))), None)
    footer = next((m for p in TABLE_FOOTER if (m := p.search(text))), None)
    if title is None or footer is None:
        return None
    return int(title.group("table")), int(footer.group("step"))


def named(name: str, text: str) -> bool:
    """True when ``text`` holds ``name`` as a whole word (or words)."""
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


def hand_table(text: str) -> int | None:
    """The table a hand message is about, read from its title (any language)."""
    found = next((m for p in HAND_TITLE if (m := p.search(text))), None)
    return int(found.group("table")) if found else None


def seat_heroes(text: str) -> set[str]:
    """The heroes named on a hand message's seat line (its first ``-#`` line, any language):
    the seat whose hand it shows, as heroes are one a seat."""
    line = next((line for line in text.splitlines() if line.startswith("-# ")), "")
    return {h for h, names in HERO_NAMES.items() if any(named(n, line) for n in names)}
