"""A match's result as the game hands it to storage: the places, and who made a move.

Who made a move matters to the ratings (:mod:`bot.game.standings`): a person who left, or whose
turns the AI played, before their first move of their own is treated as never seated, their seat
one more AI seat; a match where fewer than two people made a move is not rated. So is a person
forgotten on request (``/goblin forget-me``) before the match ended: their ratings are deleted,
so rating them as they stood is impossible, and a rebuild of the ratings (which would rate the
pseudonym from their past results) must give the numbers the live update gave.

A match abandoned (``/goblin abandon``) before every person still seated has moved is not rated
and has no result, as on lichess, where a game can be aborted before both players have moved.
After that it is rated as it stands: the one who abandoned it (when seated) last, the others by
the standings at that moment, more keys first, then more hit points, with no champion.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from bot.storage.records import (
    LogRow,
    SeatInfo,
    TableRecord,
    TableResult,
    seat_results,
    table_result,
)
from engine import GameState, Undo

UNDO = str(Undo())


def movers(log: Iterable[LogRow]) -> frozenset[tuple[int, int]]:
    """(seat, user) of each person with a move of their own that stands in ``log``: a move
    taken back, a take-back itself and a move the AI made for them (their turn timer ran
    out) are none, and so are the moves of a person forgotten since (their pseudonym is
    negative: see :mod:`bot.storage.core.people`)."""
    return frozenset((row.seat, row.user_id) for row in log
                     if row.user_id is not None and row.user_id > 0 and not row.by_ai
                     and not row.undone and row.action != UNDO)


def finished_result(record: TableRecord, seats: Sequence[SeatInfo], state: GameState,
                    log: Iterable[LogRow], finished_at: float) -> TableResult:
    """The result of the game ``state`` that just ended at ``record``'s table, with ``seats``
    as they are at the end and ``log`` every action applied (the final one included)."""
    moved = movers(log)
    result = table_result(record.id, record.guild_id, record.channel_id, record.catalogue,
                          seats, state, finished_at, record.place_key)
    return replace(result, seats=tuple(replace(s, moved=(s.seat, s.user_id) in moved)
                                       for s in result.seats), guided=record.lessons)


def waiting(record: TableRecord, moved: frozenset[tuple[int, int]]) -> bool:
    """True while a person still holding their seat at ``record``'s table has not made a move
    yet (``moved``: :func:`movers`)."""
    return any(s.user is not None and not s.ai and (i, s.user) not in moved
               for i, s in enumerate(record.seats))


def rated_if_abandoned(record: TableRecord, log: Iterable[LogRow]) -> bool:
    """True when abandoning the running match now would rate it: every person still seated
    has moved, and at least two people have."""
    moved = movers(log)
    return not waiting(record, moved) and len(moved) >= 2


def lost_alone(record: TableRecord, log: Iterable[LogRow], by: int) -> bool:
    """True when user ``by`` abandoning the running match now counts as a game they lost
    against the AI: they are the one person who made a move (a guided match aside) and
    nobody else still holds a seat (everyone else left, or the AI took their seat over,
    before moving: played to its end, the match would count in their record against the
    AI), so a game about to be lost is not left out of their record by closing it."""
    others = [s for s in record.seats if s.user is not None and s.user != by and not s.ai]
    return (not record.lessons and not others
            and {u for _, u in movers(log)} == {by})


def abandoned_result(record: TableRecord, log: Iterable[LogRow], by: int,
                     finished_at: float) -> TableResult | None:
    """The result of the running match at ``record``'s table abandoned now by user ``by``
    (seated or not), or None when it counts for nothing: not rated
    (:func:`rated_if_abandoned`), nor lost by its one person (:func:`lost_alone`)."""
    rows = list(log)
    if not (rated_if_abandoned(record, rows) or lost_alone(record, rows, by)):
        return None
    moved = movers(rows)
    state = record.game

    def standing(i: int) -> tuple[bool, int, int]:
        return (record.seats[i].user == by, -len(state.seats[i].keys), -state.seats[i].hp)

    order = [standing(i) for i in range(len(state.seats))]
    places = [1 + sum(other < mine for other in order) for mine in order]
    seats = seat_results(record.seats, state, places, moved)
    return TableResult(
        table_id=record.id, guild_id=record.guild_id, channel_id=record.channel_id,
        finished_at=finished_at, rounds=state.round, actions=state.step,
        catalogue=record.catalogue, winner_seat=places.index(1), winner_user_id=None,
        seats=seats, place_key=record.place_key, abandoned_by=by, guided=record.lessons)


__all__ = ["abandoned_result", "finished_result", "lost_alone", "movers", "rated_if_abandoned",
           "waiting"]
