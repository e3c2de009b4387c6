"""What bots of earlier schemas stored, for the upgrade tests of both backends: their seats'
text, and a table's rows with its action log."""

from __future__ import annotations

import json
from dataclasses import replace

from bot.storage.records import SeatInfo, TableResult
from cards import catalogue_version
from engine import state_to_json
from storage.helpers import ANN, GUILD, SEATS, Game

#: Bob's seat was handed to the AI (he ran out of time).
HANDED = (SEATS[0], SEATS[1].model_copy(update={"ai": True, "timeouts": 3}), SEATS[2])


def seats_text(seats: tuple[SeatInfo, ...], version: int) -> str:
    """The seats as the bot of schema ``version`` wrote them: without levels before schema 4."""
    rows = [s.model_dump() for s in seats]
    if version < 4:
        for row in rows:
            del row["level"]
    return json.dumps(rows)


def read_back(seats: tuple[SeatInfo, ...], version: int) -> tuple[SeatInfo, ...]:
    """The seats of :func:`seats_text` as they read today: the normal level when none was
    written."""
    return seats if version >= 4 else tuple(s.model_copy(update={"level": "normal"})
                                            for s in seats)


def old_rows(version: int, tid: int, status: str, game: Game | None, step: int,
             seats: tuple[SeatInfo, ...] = SEATS) -> list[tuple[str, dict[str, object]]]:
    """Table ``tid`` as the bot of schema ``version`` stored it, at ``step`` of ``game``, with
    its action log: ``(table, columns)`` rows to insert in order."""
    state = None if game is None else game.states[step]
    extra: dict[str, object] = {"ai_level": "easy"} if version >= 4 else {}
    if version >= 5:
        extra["catalogue"] = catalogue_version()
    rows: list[tuple[str, dict[str, object]]] = [("tables", dict(
        id=tid, guild_id=GUILD, channel_id=100 + tid, host_id=ANN, status=status,
        seed=tid, seats=seats_text(seats, version), version=step,
        state=None if state is None else state_to_json(state),
        winner=None if state is None else state.winner, created_at=1000.0 + tid,
        updated_at=2000.0 + tid, finished_at=3000.0 + tid if status != "running" else None,
        **extra))]
    for index in range(step):
        assert game is not None
        row = game.log_row(index, at=1500.0 + index)
        seq = {"seq": index + 1} if version >= 5 else {}
        rows.append(("actions", dict(table_id=tid, step=row.step, seat=row.seat, user_id=ANN,
                                     by_ai=0, action=row.action, at=row.at, **seq)))
    return rows


def as_upgraded(result: TableResult) -> TableResult:
    """A result stored by a bot before who made a move was kept, as the upgrade reads it from
    the action log :func:`old_rows` writes (every move there is Ann's own)."""
    return replace(result, seats=tuple(replace(s, moved=s.user_id == ANN) for s in result.seats))
