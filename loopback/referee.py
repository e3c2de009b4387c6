"""The referee: the record of every rule of Discord the bot broke (:attr:`Referee.breaches`),
the interactions lost with the bot's connection (:attr:`Referee.orphaned`), and the time rules
of interactions (the initial response within 3 s, tokens valid for 15 minutes)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from loopback.interaction import Breach, Interaction
from loopback.state import State

log = logging.getLogger("loopback")

#: Discord's rule: the initial response within 3 seconds.
RESPONSE_DEADLINE = 3.0
#: Interaction tokens are valid for 15 minutes.
TOKEN_LIFETIME = 15 * 60.0


def _never_lost(session: str, since: float) -> bool:
    """No gateway: no connection was lost."""
    return False


class Referee:
    """Holds the bot to Discord's rules and records what it broke."""

    def __init__(self, state: State, response_deadline: float = RESPONSE_DEADLINE,
                 token_lifetime: float = TOKEN_LIFETIME) -> None:
        self.state = state
        self.response_deadline = response_deadline
        self.token_lifetime = token_lifetime
        self.breaches: list[Breach] = []
        self.orphaned: list[Interaction] = []
        self.pending: set[int] = set()  # interactions waiting for their initial response
        self.lost_since: Callable[[str, float], bool] = _never_lost

    def breach(self, rule: str, detail: str, route: str = "",
               interaction: Interaction | None = None) -> None:
        """Record a rule the bot broke."""
        item = Breach(rule, detail, route, interaction.id if interaction else None)
        log.warning("Discord rule broken: %s", item)
        self.breaches.append(item)

    def check_deadlines(self) -> None:
        """Fail every interaction left without an initial response past the 3 s deadline."""
        now = self.state.now()
        for iid in list(self.pending):
            ix = self.state.interactions[iid]
            if ix.responded is not None or ix.failed is not None:
                self.pending.discard(iid)
                continue
            if now - ix.created <= self.response_deadline:
                continue
            self.pending.discard(iid)
            if ix.session is not None and self.lost_since(ix.session, ix.created):
                ix.mark_failed("the bot's connection was lost")
                self.orphaned.append(ix)
            else:
                self.breach("late", f"{ix.kind} interaction not answered within "
                            f"{self.response_deadline:g} s", interaction=ix)
                ix.mark_failed(f"no response within {self.response_deadline:g} s")
            self.state.bump(ix.channel_id)

    def session_ended(self, session: str) -> None:
        """A new IDENTIFY replaced ``session`` (the bot restarted): what it still held is lost.

        Interactions not answered yet fail now (no need to wait for the 3 s deadline); deferred
        ones not finished fail too (on Discord they would show "thinking..." until the token
        expires). Both go to :attr:`orphaned`, not to the breaches. A later completion through
        the token still counts.
        """
        for ix in self.state.interactions.values():
            if ix.session != session or ix.completed is not None or ix.failed is not None:
                continue
            self.pending.discard(ix.id)
            ix.mark_failed("the bot's connection was lost" if ix.responded is None
                           else "the bot restarted before finishing")
            self.orphaned.append(ix)
        self.state.bump()
