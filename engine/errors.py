"""Typed errors of the rules engine, each with a reason code and a sentence a player can read."""

from __future__ import annotations

from i18n import Msg, translate


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""


class IllegalAction(EngineError):
    """An action that the rules do not allow now.

    ``code`` is a stable reason code (``colour_cursed``, ``key_required``...); ``reason`` is the
    translatable sentence; ``str(error)`` is that sentence in English.
    """

    def __init__(self, reason: Msg) -> None:
        self.reason = reason
        self.code = reason.key.rsplit(".", 1)[-1]
        super().__init__(translate(reason))

    def message(self, locale: str | None = None) -> str:
        """The reason in the given locale."""
        return translate(self.reason, locale)


class NotYourTurn(IllegalAction):
    """A seat tried to act while another seat must decide."""


class BadNotation(EngineError, ValueError):
    """A text that is not the notation of any action."""


class BadState(EngineError, ValueError):
    """Serialised state that cannot be read (wrong version, corrupt or inconsistent data)."""
