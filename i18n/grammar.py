"""Names with grammar: a catalogue name that knows its gender, number and elision, and the forms a
sentence may ask of it (``{monster:the}`` is "l'Araignée" in French, "the Spider" in English).

A name entry is written in a locale file as an inline table instead of a text::

    "m1-05" = { text = "Araignée", gender = "f" }
    "ade3" = { text = "Dagues jumelles", gender = "f", number = "plural" }
    "m2-09" = { text = "Harpie", gender = "f", elision = false }   # h aspiré: « la Harpie »

``elision`` (French) defaults to "the name starts with a vowel"; a name starting with *h* must say
whether its *h* is silent (``l'Hydre``) or aspirated (``la Harpie``), as no rule can tell.

The forms (a placeholder's format spec, capitalised to start a sentence: ``{monster:The}``):

======  =========================  ==========================  ===================
form    French                     English                     Czech
======  =========================  ==========================  ===================
the     le / la / l' / les         the                         (the name alone)
of      du / de la / de l' / des   of the                      (the name alone)
to      au / à la / à l' / aux     to the                      (the name alone)
a       un / une / des             a / an                      (the name alone)
======  =========================  ==========================  ===================

A value with no grammar (a player's name) takes no article: ``of`` gives "de Bob" / "d'Aderyn".

**Czech cases.** A Czech name may also carry the case forms a sentence needs (``gen``, ``dat``,
``acc``, ``ins``, ``loc``): ``attack = { text = "Útok", gender = "m", acc = "útok" }``, asked as
``{effect:acc}``; a name without that form gives its text.

**Agreement.** A word that agrees with a name (a pronoun, an ending) is chosen from the name's
gender with a select: ``{monster:m=le|f=la}`` gives "le" for a masculine monster, "la" for a
feminine one (options ``m``, ``f``, ``n``, and ``pl`` for a plural name; a gender the select does
not list, or a value with no grammar, takes its first option).

**Czech prepositions before a number.** *z*, *s*, *k* and *v* take their vocalised form (*ze*,
*se*, *ke*, *ve*) before a number read with a sound that needs it: "ze 3" (ze tří), "ze 7" (ze
sedmi), "ke 2" (ke dvěma), but "z 5" (z pěti), "k 7" (k sedmi); :func:`czech_preposition`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["CASES", "FORMS", "GENDERS", "NUMBERS", "Name", "agree", "czech_preposition", "inflect",
           "name_entry"]

#: The forms a placeholder may ask of a name.
FORMS = ("the", "of", "to", "a")
GENDERS = ("m", "f", "n")
NUMBERS = ("singular", "plural")
#: The Czech case forms a name may carry (genitive, dative, accusative, instrumental, locative).
CASES = ("gen", "dat", "acc", "ins", "loc")
_FIELDS = {"text", "gender", "number", "elision", *CASES}
_VOWEL = re.compile(r"[AEIOUYÀÂÆÉÈÊËÎÏÔŒÙÛÜaeiouyàâæéèêëîïôœùûü]")

#: French articles by form, then by number: (masculine, feminine, before a vowel).
_FRENCH = {
    "the": (("le ", "la ", "l'"), ("les ", "les ", "les ")),
    "of": (("du ", "de la ", "de l'"), ("des ", "des ", "des ")),
    "to": (("au ", "à la ", "à l'"), ("aux ", "aux ", "aux ")),
}


@dataclass(frozen=True, slots=True)
class Name:
    """A catalogue name with the grammar its language needs to put an article before it."""

    text: str
    gender: str = "m"
    plural: bool = False
    elision: bool | None = None
    cases: tuple[tuple[str, str], ...] = ()

    @property
    def elides(self) -> bool:
        """True when a French article before it elides (``l'Araignée``)."""
        if self.elision is not None:
            return self.elision
        return bool(_VOWEL.match(self.text))


def name_entry(key: str, table: Mapping[str, object]) -> Name:
    """Read a name entry (``{ text = ..., gender = ... }``) of a locale file, checked."""
    unknown = set(table) - _FIELDS
    text, gender = table.get("text"), table.get("gender", "m")
    number, elision = table.get("number", "singular"), table.get("elision")
    cases = tuple((case, table[case]) for case in CASES if case in table)
    if (unknown or not isinstance(text, str) or gender not in GENDERS or number not in NUMBERS
            or not (elision is None or isinstance(elision, bool))
            or not all(isinstance(form, str) for _, form in cases)):
        raise ValueError(f"name {key!r} must be {{ text, gender = m|f|n, number = singular|plural,"
                         f" elision = true|false, {'|'.join(CASES)} = text }}, not {table!r}")
    return Name(text, str(gender), number == "plural", elision,
                tuple((case, str(form)) for case, form in cases))


def _vowel_start(text: str) -> bool:
    return bool(_VOWEL.match(text))


def inflect(text: str, name: Name | None, form: str, locale: str) -> str:
    """``text`` in ``form`` (see the module's table), with ``name``'s grammar, or None for a
    person's name, which takes no article; unknown forms give the text alone."""
    lower = form.lower()
    if lower in CASES:
        return dict(name.cases).get(lower, text) if name is not None else text
    if lower not in FORMS or locale == "cs":
        return text
    if locale == "fr":
        if name is None:
            if lower == "of":
                return _capital(("d'" if _vowel_start(text) else "de ") + text, form)
            return _capital("à " + text, form) if lower == "to" else text
        if lower == "a":
            article = "des " if name.plural else ("une " if name.gender == "f" else "un ")
        else:
            column = 2 if name.elides else (1 if name.gender == "f" else 0)
            article = _FRENCH[lower][name.plural][column]
        return _capital(article + text, form)
    if name is None:
        return text
    if lower == "a":
        article = "" if name.plural else ("an " if _vowel_start(text) else "a ")
    else:
        article = {"the": "the ", "of": "of the ", "to": "to the "}[lower]
    return _capital(article + text, form)


def agree(spec: str, name: Name | None) -> str:
    """The option of the select ``spec`` (``m=le|f=la``) that agrees with ``name``: ``pl`` for a
    plural name, else its gender; the first option when none fits or ``name`` is None."""
    options = dict(option.split("=", 1) for option in spec.split("|"))
    first = spec.split("|", 1)[0].split("=", 1)[1]
    if name is None:
        return first
    if name.plural and "pl" in options:
        return options["pl"]
    return options.get(name.gender, first)


def _capital(text: str, form: str) -> str:
    """Capitalise ``text`` when the form was written capitalised (``{monster:The}``)."""
    return text[:1].upper() + text[1:] if form[:1].isupper() else text


#: Numbers below 20 whose Czech word starts with a consonant cluster (dva, tři, čtyři, dvanáct,
#: třináct, čtrnáct) or with s/š (šest, sedm, šestnáct, sedmnáct); 20 to 90 by their tens digit.
_CLUSTER = frozenset({2, 3, 4, 12, 13, 14})
_SIBILANT = frozenset({6, 7, 16, 17})


def _spoken_start(n: int) -> str:
    """How the Czech words for ``n`` start (cardinal or ordinal, any case): ``cluster`` (dvou,
    tří, čtyř, sta, druhém...), ``sibilant`` (šesti, sedmi...) or ``plain`` (jedné, pěti,
    tisíce...)."""
    if n < 0:
        return "plain"  # minus
    for scale in (10**9, 10**6, 1000):  # miliarda, milion, tisíc: read from the count of them
        if n >= scale:
            if n // scale == 1:
                return "plain"
            n //= scale
            break
    if n >= 100:
        if n // 100 == 1:
            return "cluster"  # sto
        n //= 100  # dvě stě, tři sta, šest set...
    elif n >= 20:
        n //= 10  # dvacet, třicet, čtyřicet, šedesát, sedmdesát...
    return "cluster" if n in _CLUSTER else "sibilant" if n in _SIBILANT else "plain"


def czech_preposition(preposition: str, number: int) -> str:
    """The Czech ``preposition`` (z, s, k, v, any case) in the form it takes before ``number``:
    *ze*/*se* before a cluster or s/š, *ke*/*ve* before a cluster, else as written."""
    start = _spoken_start(number)
    if start == "cluster" or (start == "sibilant" and preposition.lower() in ("z", "s")):
        return preposition + "e"
    return preposition
