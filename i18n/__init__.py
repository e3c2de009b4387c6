"""The one translation layer: every user-facing sentence is a :class:`Msg` turned into text here.

A :class:`Msg` is a translation key with parameters; parameters may themselves be messages (a card
name inside an event sentence), and are translated in the same locale. Locale files live in
``i18n/locales/<locale>/*.toml`` as nested tables whose dotted paths are the keys. English is the
reference language and the fallback for unknown locales or missing keys.

Two things a plain ``str.format`` cannot do are handled here, so translators write real sentences:

* **Plurals.** A key may be a table of plural forms (``one``, ``few``, ``other``...; ``other`` is
  required) instead of one text; the form is chosen by the message's ``count`` parameter with the
  language's plural rule (English and French: one/other, French counting 0 as one; Czech:
  one/few/other). ``draw = { one = "{who} draws a card.", other = "{who} draws {count} cards." }``
* **Selects.** A key may instead be a table naming the parameter that chooses its text, ``by``,
  with a text per value of it and ``other`` for the rest (the Lord's fight is at level X):
  ``fight = { by = "level", X = "{who} fights the Lord...", other = "{who} fights the {monster}
  (level {level})." }``.
* **Names with grammar.** A catalogue name may be a table ``{ text = "Araignée", gender = "f" }``
  and a sentence may ask for it with its article: ``{monster:the}`` gives "l'Araignée",
  ``{card:of}`` "du Casque de cuir" (see :mod:`i18n.grammar`); a list gives the form to each name.
  A word that agrees with a name is a select on its gender: ``à {monster:m=le|f=la} vaincre``.
* **French typography.** In French, the space before ``: ; ! ?``, inside ``« »`` and between
  ``n°`` and its number becomes a no-break space, and ``de``/``que`` before a parameter starting
  with a vowel are elided (``la main d'Aderyn``), so translations can be written with ordinary
  spaces.
* **Czech prepositions.** *z*, *s*, *k*, *v* before a number (a parameter that is one, or digits)
  take their vocalised form when the number's spoken word needs it: ``z {hp}`` gives "z 5" but
  "ze 3" (ze tří), "ze 7" (ze sedmi), so a translation writes the plain preposition; ``č.``
  keeps its number on its line (a no-break space).
* **Hit points.** A number (a parameter or digits) and the HP after it ("5 HP", "5 PV",
  "5 points de vie", "5 životů"; in Czech also before it, "životy 5" of a monster's figures)
  are joined by a no-break space, so a line never parts them (the pictures' texts,
  ``render.*``, are drawn as they are).
* **Durations.** A number and the hours or minutes after it ("15 h 59 min") are joined the
  same way, so a phone never shows a lone "h" at the start of a line.
* **Levels and places.** A level or a place and its number ("level II, place 4", "niveau II,
  place 4", "patro II, místo 4") are joined the same way.
"""

from __future__ import annotations

import re
import string
import tomllib
from collections.abc import Mapping
from functools import cache, lru_cache
from pathlib import Path
from typing import Union

from msgspec import Struct

from i18n.grammar import Name, agree, czech_preposition, inflect, name_entry

__all__ = [
    "DEFAULT_LOCALE", "LOCALES", "LOCALE_NAMES", "Msg", "PLURAL_FORMS", "Param", "catalog",
    "has_key", "keys", "msg", "normalise_locale", "placeholders", "plural_form", "texts",
    "translate",
]

DEFAULT_LOCALE = "en"
LOCALES = ("en", "fr", "cs")
#: Each shipped language named in itself (for menus that offer a language).
LOCALE_NAMES = {"en": "English", "fr": "Français", "cs": "Čeština"}
#: The plural categories a key's table of forms may use (CLDR names).
PLURAL_FORMS = ("zero", "one", "two", "few", "many", "other")
_ROOT = Path(__file__).parent / "locales"

Param = Union[str, int, "Msg"]
#: One entry of a locale: a text, a table of plural forms, or a name with its grammar.
Entry = str | Mapping[str, str] | Name


class Msg(Struct, frozen=True, gc=False):
    """A translatable sentence: a key plus named parameters (strings, numbers or messages).

    A frozen struct: made at every move of a game (each event holds one), and a struct is made
    several times quicker than a frozen dataclass. It holds text, numbers and other messages
    only, so it can be part of no reference cycle (``gc=False``)."""

    key: str
    params: tuple[tuple[str, Param], ...] = ()

    def get(self, name: str) -> Param | None:
        """Return the parameter called ``name``, or None."""
        for k, v in self.params:
            if k == name:
                return v
        return None

    def __str__(self) -> str:
        return translate(self)


def msg(key: str, **params: Param) -> Msg:
    """Build a :class:`Msg` from a key and keyword parameters (kept in name order)."""
    return Msg(key, tuple(sorted(params.items())))


def _is_plural(table: Mapping[str, object]) -> bool:
    """True for a table of plural forms: only plural category names, ``other`` among them."""
    return ("other" in table and set(table) <= set(PLURAL_FORMS)
            and all(isinstance(v, str) for v in table.values()))


def _is_select(table: Mapping[str, object]) -> bool:
    """True for a select: a table of texts chosen by the parameter its ``by`` names, ``other``
    among them."""
    return ("by" in table and "other" in table
            and all(isinstance(v, str) for v in table.values()))


def _flatten(prefix: str, table: Mapping[str, object], out: dict[str, Entry]) -> None:
    for name, value in table.items():
        key = f"{prefix}.{name}" if prefix else name
        if isinstance(value, dict):
            if _is_plural(value) or _is_select(value):
                out[key] = {str(k): str(v) for k, v in value.items()}
            elif "text" in value:
                out[key] = name_entry(key, value)
            else:
                _flatten(key, value, out)
        elif isinstance(value, str):
            out[key] = value
        else:
            raise ValueError(f"translation {key!r} must be text, not {type(value).__name__}")


@cache
def catalog(locale: str) -> dict[str, Entry]:
    """Every key of ``locale`` with its entry, read once from that locale's TOML files."""
    out: dict[str, Entry] = {}
    folder = _ROOT / locale
    for path in sorted(folder.glob("*.toml")):
        with path.open("rb") as fh:
            part: dict[str, Entry] = {}
            _flatten("", tomllib.load(fh), part)
        clash = out.keys() & part.keys()
        if clash:
            raise ValueError(f"{path}: keys defined twice: {sorted(clash)[:5]}")
        out.update(part)
    return out


def texts(entry: Entry) -> tuple[str, ...]:
    """The text(s) of an entry: one text, each plural form or select option, or a name's
    text."""
    if isinstance(entry, Name):
        return (entry.text,)
    if isinstance(entry, str):
        return (entry,)
    return tuple([v for k, v in entry.items() if k != "by"])


def normalise_locale(locale: str | None) -> str:
    """Map a Discord-style locale (``fr``, ``cs``, ``en-US``, ``fr_FR``) onto one we ship, else
    English."""
    if not locale:
        return DEFAULT_LOCALE
    base = locale.replace("_", "-").split("-")[0].lower()
    return base if base in LOCALES else DEFAULT_LOCALE


def has_key(key: str, locale: str = DEFAULT_LOCALE) -> bool:
    """True when ``key`` has a text in ``locale``."""
    return key in catalog(locale)


def keys(locale: str = DEFAULT_LOCALE) -> frozenset[str]:
    """All keys defined for ``locale``."""
    return frozenset(catalog(locale))


def placeholders(text: Entry) -> frozenset[str]:
    """The ``{name}`` placeholders a translation uses (every plural form together)."""
    out: set[str] = set()
    for t in texts(text):
        out |= {f for _, f, _, _ in string.Formatter().parse(t) if f}
    return frozenset(out)


def plural_form(locale: str, n: int) -> str:
    """The plural category of the number ``n`` in ``locale`` (CLDR rules for whole numbers)."""
    n = abs(n)
    if locale == "cs":
        if n == 1:
            return "one"
        return "few" if 2 <= n <= 4 else "other"
    if locale == "fr":
        return "one" if n in (0, 1) else "other"
    return "one" if n == 1 else "other"


_VOWEL_START = re.compile(r"[AEIOUÀÂÆÉÈÊËÎÏÔŒÙÛÜaeiouàâæéèêëîïôœùûü]")
_ELIDABLE = re.compile(r"\b([Dd]e|[Qq]ue) \{(\w+)\}")
_FR_SPACE_BEFORE = re.compile(r" ([:;!?»])")
_FR_SPACE_AFTER = re.compile(r"« ")
#: "n°" before its number (a parameter or digits), which a line must not leave alone at its end.
_FR_NUMERO = re.compile(r"(?<!\w)n° (?=\{\w+\}|\d)")


def _french(template: str, values: Mapping[str, object]) -> str:
    """Elide ``de``/``que`` before a vowel-initial parameter (``d'Aderyn``)."""

    def elide(m: re.Match[str]) -> str:
        value = str(values.get(m[2], ""))
        if value and _VOWEL_START.match(value):
            return f"{m[1][0]}'{{{m[2]}}}" if m[1].lower() == "de" else f"{m[1][:2]}'{{{m[2]}}}"
        return m[0]

    return _ELIDABLE.sub(elide, template)


_CZ_PREPOSITION = re.compile(r"(?<!\w)([ZzSsKkVv]) (?:\{(\w+)\}|(\d+))")
#: "č." (číslo) before its number (a parameter or digits), kept on the number's line.
_CZ_NUMERO = re.compile(r"(?<!\w)č\. (?=\{\w+\}|\d)")


def _czech(template: str, values: Mapping[str, object]) -> str:
    """Vocalise ``z s k v`` before a number parameter or digits (``z {hp}``: "ze 3", "ze 7");
    a no-break space after ``č.`` before one (``stůl č. {table}``), as Czech typography asks."""

    def vocalise(m: re.Match[str]) -> str:
        value = values.get(m[2]) if m[2] else int(m[3])
        if not isinstance(value, int) or isinstance(value, bool):
            return m[0]
        return czech_preposition(m[1], value) + m[0][1:]

    return _CZ_NUMERO.sub("č.\u00a0", _CZ_PREPOSITION.sub(vocalise, template))


#: A number (a parameter or digits) before each language's word for hit points (in Czech also
#: after it: "útok 3, životy 5").
_HP_UNIT = {"en": re.compile(r"(?<!\w)(\{\w+\}|\d+) (?=HP\b)"),
            "fr": re.compile(r"(?<!\w)(\{\w+\}|\d+) (?=(?:PV|points? de vie)\b)"),
            "cs": re.compile(r"(?<!\w)(\{\w+\}|\d+) (?=život(?:y|ů)?\b)|(?<=\bživoty) "
                             r"(?=\{\w+\}|\d)")}

#: A number (a parameter or digits) before the hours or minutes of a duration, in every language.
_TIME_UNIT = re.compile(r"(?<!\w)(\{\w+\}|\d+) (?=(?:h|min)\b)")
#: Each language's words for a level or a place before its number (a parameter, digits or a
#: roman numeral): "level {level}", "place 4", "patra I".
_NUMBERED = {lc: re.compile(rf"(?<!\w)({words}) (?=\{{\w+\}}|\d|[IVX]+\b)")
             for lc, words in (("en", "[Ll]evel|place"), ("fr", "[Nn]iveau|place"),
                               ("cs", "[Pp]atr[oaue]|patře|pater|míst[oě]"))}


def _typography(text: str) -> str:
    """French no-break spaces before ``: ; ! ? »``, after ``«`` and after ``n°`` before its
    number."""
    text = _FR_NUMERO.sub("n°\u00a0", _FR_SPACE_BEFORE.sub("\u00a0\\1", text))
    return _FR_SPACE_AFTER.sub("«\u00a0", text)


def _pick(entry: str | Mapping[str, str], locale: str, values: Mapping[str, object]) -> str:
    if isinstance(entry, str):
        return entry
    if "by" in entry:
        return entry.get(str(values.get(entry["by"]))) or entry["other"]
    count = values.get("count")
    form = plural_form(locale, count) if isinstance(count, int) else "other"
    return entry.get(form) or entry["other"]


#: A placeholder asking a form of its value: ``{monster:the}`` (see :mod:`i18n.grammar`).
_FORM = re.compile(r"\{(\w+):(\w+)\}")
#: A select of the word agreeing with a name's gender: ``{monster:m=le|f=la}``.
_AGREE = re.compile(r"\{(\w+):(\w+=[^{}|=]*(?:\|\w+=[^{}|=]*)*)\}")


def translate(message: Msg | str, locale: str | None = DEFAULT_LOCALE) -> str:
    """Turn a message (or a bare key) into text in ``locale``, falling back to English.

    A key missing everywhere is returned as the key itself, so a gap shows instead of crashing.
    """
    m = Msg(message) if isinstance(message, str) else message
    loc = normalise_locale(locale)
    try:
        return _translated(m, loc)
    except TypeError:  # a parameter that cannot be a key (a list, say): rendered each time
        return _render(m, loc, None)


@lru_cache(maxsize=8192)
def _translated(m: Msg, loc: str) -> str:
    """``m`` in ``loc`` (kept: the catalogues never change while the program runs, and the
    same lines are told again on every move of a table)."""
    return _render(m, loc, None)


def _render(m: Msg, loc: str, form: str | None) -> str:
    """``m`` in ``loc``; ``form`` is the form a sentence asked of it (a name takes its article,
    a list gives the form to each of its items, any other message ignores it)."""
    entry = catalog(loc).get(m.key)
    if entry is None:
        loc_text = DEFAULT_LOCALE
        entry = catalog(DEFAULT_LOCALE).get(m.key)
        if entry is None:
            return m.key
    else:
        loc_text = loc
    if isinstance(entry, Name):
        return inflect(entry.text, entry, form, loc_text) if form else entry.text
    inner = form if m.key.startswith("list.") else None
    values: dict[str, object] = {k: _render(v, loc, inner) if isinstance(v, Msg) else v
                                 for k, v in m.params}
    text = _pick(entry, loc_text, values)
    if "{" in text and ":" in text:
        text = _AGREE.sub(lambda f: _agreeing(m, f[1], f[2], loc_text), text)
        text = _FORM.sub(lambda f: _asked(m, f[1], f[2], loc, loc_text), text)
    if loc_text == "fr":
        text = _typography(_french(text, values) if values else text)
    elif loc_text == "cs" and " " in text:
        text = _czech(text, values)
    if loc_text in _HP_UNIT and not m.key.startswith("render."):  # pictures wrap on their own
        text = _HP_UNIT[loc_text].sub(lambda u: f"{u[1] or ''}\u00a0", text)
    if not m.key.startswith("render."):
        text = _TIME_UNIT.sub("\\1\u00a0", text)
        if loc_text in _NUMBERED:
            text = _NUMBERED[loc_text].sub("\\1\u00a0", text)
    if not m.params:
        return text
    try:
        return text.format(**values)
    except (KeyError, IndexError, ValueError):
        return text


def _asked(m: Msg, name: str, form: str, loc: str, loc_text: str) -> str:
    """The parameter ``name`` of ``m`` in ``form``, escaped to stand in a template."""
    value = m.get(name)
    if value is None:
        return "{" + name + "}"
    text = (_render(value, loc, form) if isinstance(value, Msg)
            else inflect(str(value), None, form, loc_text))
    return text.replace("{", "{{").replace("}", "}}")


def _agreeing(m: Msg, name: str, spec: str, loc_text: str) -> str:
    """The option of the select ``spec`` agreeing with the parameter ``name`` of ``m`` (its
    grammar in the language of the sentence), escaped to stand in a template."""
    value = m.get(name)
    entry = None
    if isinstance(value, Msg):
        entry = catalog(loc_text).get(value.key, catalog(DEFAULT_LOCALE).get(value.key))
    word = agree(spec, entry if isinstance(entry, Name) else None)
    return word.replace("{", "{{").replace("}", "}}")
