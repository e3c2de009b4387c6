"""Numbers as a language writes them: ratings with its thousands separator, and signed
changes of rating."""

from __future__ import annotations

from i18n import msg, translate


def points(value: int, locale: str) -> str:
    """A whole number with the language's thousands separator (1,512; 1 512)."""
    sign = "-" if value < 0 else ""
    digits = str(abs(value))
    groups = [digits[max(0, i - 3):i] for i in range(len(digits), 0, -3)][::-1]
    return sign + translate(msg("ratings.thousands"), locale).join(groups)


def signed(delta: int, locale: str) -> str:
    """A change of rating with its sign (+26, −14: a true minus sign)."""
    return ("+" if delta >= 0 else "−") + points(abs(delta), locale)


__all__ = ["points", "signed"]
