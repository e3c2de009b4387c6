"""What happened at a table lately, told again: every event of the current and the previous
turn that a seat may see, rebuilt from the stored action log (the state keeps only the last
move's events)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from bot.game.refusals import Refusal
from bot.game.seats import sees_hand
from bot.game.tables import Tables
from bot.game.texts import winner_named
from bot.storage.interface import Storage
from bot.storage.records import TableRecord, standing
from engine import Event, observe
from engine.replay import Replay, ReplayError
from i18n import msg

log = logging.getLogger(__name__)
#: Turns told: the current one and the one before.
TURNS = 2


@dataclass(frozen=True, slots=True)
class Told:
    """The events a viewer may see since the start of the previous turn (``whole``: False when
    the log could not be replayed and only the state's last events are told), the winner
    named as the table names them (:func:`~bot.game.texts.winner_named`)."""

    table: int
    events: tuple[Event, ...]
    whole: bool


@dataclass
class Story:
    """Tells again what happened at a table (from its action log)."""

    store: Storage
    tables: Tables

    async def last_turns(self, table_id: int, user_id: int) -> Told:
        """The events of the current and the previous turn that ``user_id`` may see (their
        seat's private events included; a spectator sees the public ones)."""
        record = await self.tables.load(table_id)
        if record.state is None:
            raise Refusal(msg("bot.error.not_started"), record)
        state = record.state
        viewer = record.seat_of(user_id)
        if viewer is not None and not sees_hand(record, viewer):
            viewer = None  # a seat the AI plays for good: its private events are hidden
        try:
            rows = standing(await self.store.action_log(table_id))
            replay = Replay(state.config, [r.action for r in rows])
        except (ReplayError, ValueError) as exc:  # a row damaged, or in no notation, too
            log.warning("table %s: the action log does not replay (%s)", table_id, exc)
            return Told(table_id, _as_told(record, observe(state, viewer).events), False)
        if replay.final != state:
            log.warning("table %s: the action log does not reach the stored state", table_id)
            return Told(table_id, _as_told(record, observe(state, viewer).events), False)
        starts = replay.turn_starts()
        first = starts[-TURNS] if len(starts) >= TURNS else 0
        said = [e for step in range(first, replay.last + 1)
                for e in replay.events(step, viewer)]
        opening = next((i for i, e in enumerate(said) if e.text.key == "event.turn"), 0)
        return Told(table_id, _as_told(record, said[opening:]), True)


def _as_told(record: TableRecord, events: Sequence[Event]) -> tuple[Event, ...]:
    """``events`` of table ``record`` as the table tells them (its winner named as its other
    texts name them)."""
    return tuple(Event(winner_named(e.text, record), e.to) for e in events)


__all__ = ["TURNS", "Story", "Told"]
