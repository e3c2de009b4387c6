"""The one translation layer: every user-facing sentence is a :class:`Msg` turned into text here.

A :class:`Msg` is a translation key with parameters; parameters may themselves be messages (a card
name inside an event sentence), and are translated in the same locale. Locale files live in
``i18n/locales/<locale>/*.toml`` as nested tables whose dotted paths are the keys. English is the
reference language and the fallback for unknown locales or missing keys.
"""

from __future__ import annotations

import string
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Union

__all__ = ["Msg", "msg", "translate", "has_key", "keys", "LOCALES", "DEFAULT_LOCALE"]

DEFAULT_LOCALE = "en"
LOCALES = ("en",)
_ROOT = Path(__file__).parent / "locales"

Param = Union[str, int, "Msg"]


@dataclass(frozen=True, slots=True)
class Msg:
    """A translatable sentence: a key plus named parameters (strings, numbers or messages)."""

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
    """Build a :class:`Msg` from a key and keyword parameters."""
    return Msg(key, tuple(sorted(params.items())))


def _flatten(prefix: str, table: dict[str, object], out: dict[str, str]) -> None:
    for name, value in table.items():
        key = f"{prefix}.{name}" if prefix else name
        if isinstance(value, dict):
            _flatten(key, value, out)
        elif isinstance(value, str):
            out[key] = value
        else:
            raise ValueError(f"translation {key!r} must be text, not {type(value).__name__}")


@cache
def catalog(locale: str) -> dict[str, str]:
    """Every key of ``locale`` with its text, read once from that locale's TOML files."""
    out: dict[str, str] = {}
    folder = _ROOT / locale
    for path in sorted(folder.glob("*.toml")):
        with path.open("rb") as fh:
            part: dict[str, str] = {}
            _flatten("", tomllib.load(fh), part)
        clash = out.keys() & part.keys()
        if clash:
            raise ValueError(f"{path}: keys defined twice: {sorted(clash)[:5]}")
        out.update(part)
    return out


def normalise_locale(locale: str | None) -> str:
    """Map a Discord-style locale (``fr``, ``cs``, ``en-US``) onto one we ship, else English."""
    if not locale:
        return DEFAULT_LOCALE
    base = locale.split("-")[0].lower()
    return base if base in LOCALES else DEFAULT_LOCALE


def has_key(key: str, locale: str = DEFAULT_LOCALE) -> bool:
    """True when ``key`` has a text in ``locale``."""
    return key in catalog(locale)


def keys(locale: str = DEFAULT_LOCALE) -> frozenset[str]:
    """All keys defined for ``locale``."""
    return frozenset(catalog(locale))


def placeholders(text: str) -> frozenset[str]:
    """The ``{name}`` placeholders a translation uses."""
    return frozenset(f for _, f, _, _ in string.Formatter().parse(text) if f)


def translate(message: Msg | str, locale: str | None = DEFAULT_LOCALE) -> str:
    """Turn a message (or a bare key) into text in ``locale``, falling back to English.

    A key missing everywhere is returned as the key itself, so a gap shows instead of crashing.
    """
    loc = normalise_locale(locale)
    m = Msg(message) if isinstance(message, str) else message
    text = catalog(loc).get(m.key) or catalog(DEFAULT_LOCALE).get(m.key)
    if text is None:
        return m.key
    if not m.params:
        return text
    values = {k: translate(v, loc) if isinstance(v, Msg) else v for k, v in m.params}
    try:
        return text.format(**values)
    except (KeyError, IndexError, ValueError):
        return text
