"""What happened at a table since a person's last move, for the top of their hand when they
open it: the narration of the other seats' moves since then (what that seat may see).

The moves this process applied last at a running table are kept with their events
(:class:`Said`), so a hand opened during a match reads nothing: the moves since the seat's last
one are at hand. When they are not all kept (the process started since, another process moved
at the table, a move was taken back, or the seat's last move is older than what is kept), they
are rebuilt from the stored action log (:func:`since_last_move`), and so are they when the
table's names changed since they were told (a person forgotten on request, through this process
or another: the kept events name them). When nobody else moved since, nothing is replayed."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.storage.interface import Storage
from bot.storage.records import LogRow, TableRecord, standing
from engine import Event, GameConfig
from engine.events import seen_by
from engine.replay import Replay, ReplayError

log = logging.getLogger(__name__)

#: The moves kept per table: enough for a seat's last move to be among them while it waits for
#: its next one (in 20 four-seat games of the heuristic agent, at most 35 moves came between
#: two moves of a seat).
KEPT_MOVES = 64


@dataclass(frozen=True, slots=True)
class Said:
    """The last moves applied at a table, oldest first, each as the seat that made it (None
    for a move the AI made in a person's place: no move of theirs) and every event it said
    (private ones included: shown through :func:`engine.events.seen_by`). They lead from
    version ``first`` to ``version``; the take-backs of that span are not in it (a take-back
    drops what is kept). ``config``: the game's setup they were told with (its seats' names),
    None when not known."""

    first: int
    version: int
    moves: tuple[tuple[int | None, tuple[Event, ...]], ...] = ()
    config: GameConfig | None = None

    def then(self, version: int, seat: int | None, events: tuple[Event, ...]) -> Said:
        """These moves and the next one, which led from :attr:`version` to ``version``: the
        oldest is let go beyond :data:`KEPT_MOVES`."""
        moves = (*self.moves, (seat, events))
        first = self.first
        if len(moves) > KEPT_MOVES:
            moves, first = moves[1:], first + 1
        return Said(first, version, moves, self.config)

    def holds(self, record: TableRecord) -> bool:
        """Whether these moves are ``record``'s as it stands: they reach its version and were
        told with its names (a person forgotten since is named in them)."""
        return (self.version == record.version and record.state is not None
                and self.config == record.state.config)

    def since(self, seat: int) -> tuple[Event, ...] | None:
        """The events ``seat`` may see of the moves after its last one; None when its last move
        is older than what is kept (it made none since the game's start: all of them)."""
        own = next((i for i in range(len(self.moves) - 1, -1, -1)
                    if self.moves[i][0] == seat), None)
        if own is None and self.first != 0:
            return None
        after = self.moves[own + 1:] if own is not None else self.moves
        return tuple(e for _, events in after for e in seen_by(events, seat))


def own_move(record: TableRecord, row: LogRow) -> bool:
    """Whether the move of ``row`` at ``record``'s table is its seat's own: not one the AI
    made in the place of the seat's person (their turn timer ran out, or they left)."""
    return not row.by_ai or record.seats[row.seat].user is None


async def since_last_move(store: Storage, record: TableRecord, seat: int,
                          said: Said | None = None) -> tuple[Event, ...]:
    """The events ``seat`` may see of the moves made at ``record`` since that seat's last move
    that stands (since the game's start when it made none); none when the last move is its
    own, or the log does not replay to the table's state (logged). A move the AI made in the
    person's place is none of theirs: they are told it too. ``said``: the moves kept of
    the table, used when they reach ``record``'s version with its names
    (:meth:`Said.holds`) and hold the seat's last move."""
    if record.state is None or record.version == 0:
        return ()
    if said is not None and said.holds(record):
        kept = said.since(seat)
        if kept is not None:
            return kept
    try:
        rows = standing(await store.action_log(record.id))
    except ValueError as exc:  # a damaged row
        log.warning("table %s: the action log cannot be read (%s)", record.id, exc)
        return ()
    own = max((i for i, r in enumerate(rows) if r.seat == seat and own_move(record, r)),
              default=-1)
    if own == len(rows) - 1:
        return ()  # nothing happened since: no replay
    try:
        replay = Replay(record.state.config, [r.action for r in rows])
    except (ReplayError, ValueError) as exc:  # an action in no notation, too
        log.warning("table %s: the action log does not replay (%s)", record.id, exc)
        return ()
    if replay.final != record.state:
        return ()
    return tuple(e for step in range(own + 2, len(rows) + 1)
                 for e in replay.events(step, seat))


__all__ = ["KEPT_MOVES", "Said", "own_move", "since_last_move"]
