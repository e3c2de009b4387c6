"""What happened at a table since a person's last move, for the top of their hand when they
open it: the narration of the other seats' moves since then (what that seat may see), rebuilt
from the stored action log. When nobody else moved since, nothing is replayed."""

from __future__ import annotations

import logging

from bot.storage.interface import Storage
from bot.storage.records import TableRecord, standing
from engine import Event
from engine.replay import Replay, ReplayError

log = logging.getLogger(__name__)


async def since_last_move(store: Storage, record: TableRecord, seat: int) -> tuple[Event, ...]:
    """The events ``seat`` may see of the moves made at ``record`` since that seat's last move
    that stands (since the game's start when it made none); none when the last move is its
    own, or the log does not replay to the table's state (logged)."""
    if record.state is None or record.version == 0:
        return ()
    rows = standing(await store.action_log(record.id))
    own = max((i for i, r in enumerate(rows) if r.seat == seat), default=-1)
    if own == len(rows) - 1:
        return ()  # nothing happened since: no replay
    try:
        replay = Replay(record.state.config, [r.action for r in rows])
    except ReplayError as exc:
        log.warning("table %s: the action log does not replay (%s)", record.id, exc)
        return ()
    if replay.final != record.state:
        return ()
    return tuple(e for step in range(own + 2, len(rows) + 1)
                 for e in replay.events(step, seat))


__all__ = ["since_last_move"]
