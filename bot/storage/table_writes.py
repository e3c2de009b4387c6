"""The writes of a table's columns that every backend makes alike: which columns a lobby change,
a seat change, a status, a started game or a message id write, each through the backend's own
guarded ``_update``, and the columns a move writes."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

from bot.storage.records import SeatInfo, Status, anchor_column, seats_to_json, storable
from bot.storage.sqlite_rows import StateCache, remember
from cards import catalogue_version
from engine import GameState


class TableWrites(ABC):
    """A store's column writes; the store provides :meth:`_update`, ``clock`` and the parsed
    states it keeps (``_states``)."""

    clock: Callable[[], float]
    _states: StateCache

    @abstractmethod
    async def _update(self, table_id: int, guard: int | None, columns: dict[str, object],
                      bump: bool = False) -> None:
        """Write ``columns`` of one table (guarded by its version when ``guard`` is given;
        ``bump``: a lobby change, which raises its revision); raises
        :class:`~bot.storage.records.StaleVersion` when no row was written."""

    async def update_lobby(self, table_id: int, seats: Sequence[SeatInfo],
                           host_id: int | None = None) -> None:
        """Store a lobby's seats (and a new host when the host left)."""
        changes: dict[str, object] = {"seats": seats_to_json(seats)}
        if host_id is not None:
            changes["host_id"] = host_id
        await self._update(table_id, None, changes, bump=True)

    async def update_seats(self, table_id: int, version: int, seats: Sequence[SeatInfo]) -> None:
        """Store a running table's seats (timeouts, seat handed to the AI) at ``version``."""
        await self._update(table_id, version, {"seats": seats_to_json(seats)})

    async def set_status(self, table_id: int, status: Status) -> None:
        """Mark a table abandoned/finished (kept as history)."""
        changes: dict[str, object] = {"status": status, "deadline": None}
        if status in ("finished", "abandoned"):
            changes["finished_at"] = self.clock()
        await self._update(table_id, None, changes, bump=True)

    async def start_game(self, table_id: int, seats: Sequence[SeatInfo], state: GameState,
                         deadline: float | None) -> None:
        """Turn a lobby into a running game holding ``state`` (version ``state.step``), played
        with this bot's cards (its catalogue version)."""
        text = storable(state)
        await self._update(table_id, 0, {"status": "running", "seats": seats_to_json(seats),
                                          "state": text, "version": state.step,
                                          "deadline": deadline,
                                          "catalogue": catalogue_version()}, bump=True)
        remember(self._states, table_id, text, state)

    async def set_message(self, table_id: int, *, message_id: int | None = None,
                          lobby_message_id: int | None = None) -> None:
        """Remember the table's public message (or its lobby message)."""
        changes: dict[str, object] = {}
        if message_id is not None:
            changes["message_id"] = message_id
        if lobby_message_id is not None:
            changes["lobby_message_id"] = lobby_message_id
        if changes:
            await self._update(table_id, None, changes)


def moved_columns(state: GameState, version: int, text: str, now: float,
                  seats: Sequence[SeatInfo] | None, deadline: float | None) -> dict[str, object]:
    """The columns a move writes: the state (``text``, stored at ``version``), its take-back's
    anchor when it changed (:func:`~bot.storage.records.anchor_column`), its deadline, the
    seats when they changed, and for a finished game its status and winner."""
    columns: dict[str, object] = {
        "state": text, "version": version, "deadline": deadline, "updated_at": now,
        **anchor_column(state),
    }
    if seats is not None:
        columns["seats"] = seats_to_json(seats)
    if state.winner is not None:
        columns.update(status="finished", winner=state.winner, finished_at=now, deadline=None)
    return columns


__all__ = ["TableWrites", "moved_columns"]
