"""What a user did and what the bot made of it: :class:`Interaction` (times by the stand-in's
clock, responses, follow-ups), :class:`InteractionFailed`, and :class:`Breach`, a rule of Discord
the bot broke."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from loopback.model import User


@dataclass
class Breach:
    """A rule of Discord the bot broke (tests assert there are none)."""

    rule: str
    detail: str
    route: str = ""
    interaction: int | None = None

    def __str__(self) -> str:
        where = f" [{self.route}]" if self.route else ""
        ix = f" (interaction {self.interaction})" if self.interaction else ""
        return f"{self.rule}{where}{ix}: {self.detail}"


class InteractionFailed(Exception):
    """The interaction was not answered: the bot was offline, disconnected, or too slow."""


@dataclass
class Interaction:
    """One interaction a user made, and what the bot did with it.

    Times come from the stand-in's clock: ``created``, ``responded`` (the initial response),
    ``completed`` (the visible result: an immediate response, or the first edit / follow-up after
    a deferral) and ``imaged`` (the first response or edit carrying an image).
    """

    id: int
    token: str
    type: int
    user: User
    channel_id: int
    guild_id: int | None
    data: dict[str, Any]
    created: float
    message_id: int | None = None
    session: str | None = None
    response_type: int | None = None
    ephemeral: bool = False
    original_id: int | None = None
    responded: float | None = None
    completed: float | None = None
    imaged: float | None = None
    failed: str | None = None
    choices: list[dict[str, Any]] | None = None
    modal: dict[str, Any] | None = None
    followups: list[int] = field(default_factory=list)
    _answered: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    _done: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    @property
    def kind(self) -> str:
        """``command``, ``component``, ``autocomplete`` or ``modal``."""
        return {2: "command", 3: "component", 4: "autocomplete", 5: "modal"}.get(self.type, "?")

    def mark_responded(self, at: float) -> None:
        """The initial response arrived."""
        self.responded = at
        self._answered.set()

    def mark_completed(self, at: float) -> None:
        """The visible result arrived (also after a failure: a late result still shows)."""
        if self.completed is None:
            self.completed = at
        self.failed = None
        self._answered.set()
        self._done.set()

    def mark_failed(self, reason: str) -> None:
        """The interaction will never be answered."""
        if self.failed is None and self.completed is None:
            self.failed = reason
            self._answered.set()
            self._done.set()

    async def answered(self, timeout: float = 10.0) -> Interaction:
        """Wait for the initial response; :class:`InteractionFailed` if none will come."""
        try:
            await asyncio.wait_for(self._answered.wait(), timeout)
        except TimeoutError:
            raise InteractionFailed(f"no response within {timeout} s") from None
        if self.responded is None:
            raise InteractionFailed(self.failed or "not answered")
        return self

    async def done(self, timeout: float = 10.0) -> Interaction:
        """Wait for the visible result (after a deferral: the first edit or follow-up)."""
        try:
            await asyncio.wait_for(self._done.wait(), timeout)
        except TimeoutError:
            raise InteractionFailed(f"no result within {timeout} s") from None
        if self.completed is None:
            raise InteractionFailed(self.failed or "not answered")
        return self

    def status(self) -> str:
        """``pending``, ``deferred``, ``done`` or ``failed``."""
        if self.completed is not None:
            return "done"
        if self.failed is not None:
            return "failed"
        if self.responded is not None:
            return "deferred"
        return "pending"

    def public(self) -> dict[str, Any]:
        """What the control API tells about the interaction."""
        return {"id": str(self.id), "kind": self.kind, "user": str(self.user.id),
                "channel_id": str(self.channel_id), "status": self.status(),
                "failed": self.failed, "response_type": self.response_type,
                "message_id": str(self.message_id) if self.message_id else None,
                "original_id": str(self.original_id) if self.original_id else None,
                "followups": [str(f) for f in self.followups],
                "choices": self.choices,
                "first_response_ms": (None if self.responded is None
                                      else round((self.responded - self.created) * 1000, 1)),
                "done_ms": (None if self.completed is None
                            else round((self.completed - self.created) * 1000, 1))}
