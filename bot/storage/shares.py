"""The records of a match's animation posted in a channel: who posted it there, when, and as
which message (:class:`SharedPost`), and the answer to a claim to post one
(:class:`ShareClaim`). The storage backends keep them (``shares`` and ``sharers`` rows)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SharedPost:
    """The animation of table ``table_id`` posted in channel ``channel_id`` by ``user_id`` at
    ``posted_at``; ``message_id`` is None while it is still being drawn and posted."""

    table_id: int
    channel_id: int
    user_id: int
    posted_at: float
    message_id: int | None


@dataclass(frozen=True, slots=True)
class ShareClaim:
    """The answer to a claim to post a match's animation in a channel, made at ``at``: granted,
    or refused because it was posted there lately (``earlier``), because the person shared
    in that channel less than its slowmode ago (``wait_until``: when they may again), or
    because the match was played in direct messages that are not theirs (``not_theirs``: they
    were forgotten since they opened its replay, so their own became their pseudonym's)."""

    at: float
    earlier: SharedPost | None = None
    wait_until: float | None = None
    not_theirs: bool = False

    @property
    def granted(self) -> bool:
        """True when the claimer may post the animation now."""
        return self.earlier is None and self.wait_until is None and not self.not_theirs


class ShareRefused(Exception):
    """Raised inside a claim's transaction to roll it back and answer ``claim``."""

    def __init__(self, claim: ShareClaim) -> None:
        super().__init__("share refused")
        self.claim = claim


__all__ = ["ShareClaim", "ShareRefused", "SharedPost"]
