"""The stored rows in the stored values' terms, the same on every backend (its dialect hands
over plain Python values): a ``tables`` row read into a
:class:`~bot.storage.records.TableRecord`, action log rows, a server's defaults and a result's
rows read, and the tables kept once read.

Reading a table's row never raises anything but :class:`~bot.storage.records.CorruptTable` for
that one table.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import TypeVar

from bot.storage.records import (
    STATUSES,
    CorruptTable,
    DamagedResult,
    LogRow,
    SeatKind,
    SeatResult,
    ServerDefaults,
    TableRecord,
    TableResult,
    load_state,
    seats_from_json,
)
from engine import BadState, GameState
from engine.agents import DEFAULT_LEVEL, LEVELS, AiLevel

#: The columns of ``tables`` that :func:`read_record` reads, in its order.
TABLE_COLUMNS = ("id, guild_id, channel_id, host_id, status, abilities, timer, seed, locale, "
                 "seats, state, version, message_id, lobby_message_id, deadline, winner, "
                 "created_at, updated_at, revision, ai_level, catalogue, lessons, undo, "
                 "hints, place_key, anchor, threaded, thread_id, finished_at, tournament_id, "
                 "thread_choice, hints_choice")
#: The columns of ``actions`` that :func:`read_log_row` reads, in its order.
LOG_COLUMNS = "step, seat, user_id, by_ai, action, at, undone"
#: The columns of ``results`` and ``result_seats`` that :func:`read_results` reads and
#: :func:`insert_result` writes, in their order.
RESULT_COLUMNS = ("table_id, guild_id, channel_id, finished_at, rounds, actions, catalogue, "
                  "winner_seat, winner_user_id, place_key, abandoned_by")
SEAT_RESULT_COLUMNS = ("table_id, seat, user_id, kind, ai_level, hero, keys, hp, place, "
                       "handed_to_ai, moved")

#: Parsed states kept per table (the latest one each), so reading a table again is cheap.
STATE_CACHE = 4096
StateCache = dict[int, tuple[str, GameState]]
V = TypeVar("V")
Row = Sequence[object]


def read_record(row: Row, states: StateCache | None = None) -> TableRecord:
    """The table in a stored row (:data:`TABLE_COLUMNS`); any damaged value raises
    :class:`CorruptTable` for this table only (never a bare ValueError or TypeError that would
    stop every other table)."""
    values = tuple(row)
    tid = values[0]
    if not isinstance(tid, int):  # pragma: no cover - an INTEGER PRIMARY KEY is always an int
        raise CorruptTable(-1, f"table id {tid!r}")
    try:
        return _read_record(values, states)
    except CorruptTable as exc:
        reason = exc.reason
    except (ValueError, TypeError, OverflowError) as exc:
        reason = str(exc) or type(exc).__name__
    raise CorruptTable(tid, reason, *_where(values)) from None


def _where(values: tuple[object, ...]) -> tuple[str | None, tuple[int, ...]]:
    """What can be read of where the table of a damaged row is played: its place (None when
    damaged too) and its channel and thread (those that can be read)."""
    found = dict(zip(TABLE_COLUMNS.split(", "), values, strict=True))
    place_key = found["place_key"]
    channels = (found["channel_id"], found["thread_id"])
    return (place_key if isinstance(place_key, str) and place_key else None,
            tuple(c for c in channels if type(c) is int))


def _read_record(values: tuple[object, ...], states: StateCache | None) -> TableRecord:
    (tid, guild, channel, host, status, abilities, timer, seed, locale, seats, state, version,
     message, lobby, deadline, winner, created, updated, revision, ai_level, catalogue,
     lessons, undo, hints, place_key, anchor, threaded, thread, finished, tournament,
     thread_choice, hints_choice) = values
    assert isinstance(tid, int)
    if not isinstance(place_key, str) or not place_key:
        raise CorruptTable(tid, f"place {place_key!r:.40}")
    if status not in STATUSES:
        raise CorruptTable(tid, f"status {status!r}")
    if not isinstance(locale, str) or not locale:
        raise CorruptTable(tid, f"locale {locale!r}")
    if not isinstance(catalogue, str):
        raise CorruptTable(tid, f"catalogue {catalogue!r:.40}")
    try:
        seat_infos = seats_from_json(str(seats))
    except ValueError as exc:
        raise CorruptTable(tid, f"seats: {exc}") from None
    number = as_int(version, "version")
    game: GameState | None = None
    if state is not None:
        text = str(state)
        known = states.get(tid) if states is not None else None
        try:
            # the same stored text always reads back to the same (immutable) state
            game = known[1] if known is not None and known[0] == text else load_state(
                text, None if anchor is None else str(anchor))
        except BadState as exc:
            raise CorruptTable(tid, str(exc)) from None
        if states is not None and (known is None or known[1] is not game):
            remember(states, tid, text, game)
        if game.step > number:  # every action bumps the version; a take-back lowers the step
            raise CorruptTable(tid, f"state step {game.step} > stored version {number}")
        if len(game.seats) != len(seat_infos):
            raise CorruptTable(tid, "seat count differs from the game")
    elif status in ("running", "finished"):
        raise CorruptTable(tid, "no game state")
    timer_s = as_int(timer, "timer")
    if timer_s < 0:
        raise CorruptTable(tid, f"timer {timer_s}")
    return TableRecord(
        id=tid, guild_id=opt_int(guild, "guild_id"), channel_id=as_int(channel, "channel_id"),
        host_id=as_int(host, "host_id"), status=status,
        abilities=bool(abilities), timer=timer_s,
        seed=as_int(seed, "seed"), locale=locale, seats=seat_infos, state=game, version=number,
        message_id=opt_int(message, "message_id"),
        lobby_message_id=opt_int(lobby, "lobby_message_id"),
        deadline=opt_float(deadline, "deadline"), winner=opt_int(winner, "winner"),
        created_at=as_float(created, "created_at"), updated_at=as_float(updated, "updated_at"),
        place_key=place_key,
        revision=as_int(revision, "revision"), ai_level=as_level(ai_level, "ai_level"),
        catalogue=catalogue, lessons=bool(lessons), undo=bool(undo),
        hints=opt_flag(hints, "hints"), threaded=bool(threaded),
        thread_id=opt_int(thread, "thread_id"), finished_at=opt_float(finished, "finished_at"),
        tournament_id=opt_int(tournament, "tournament_id"),
        thread_choice=opt_flag(thread_choice, "thread_choice"),
        hints_choice=opt_flag(hints_choice, "hints_choice"),
    )


def read_defaults(row: Row) -> ServerDefaults:
    """A server's ``settings`` row (abilities, timer, AI level, take-backs, threads); a value
    this bot cannot read (a level it does not know, a damaged column) reads as that setting's
    default, so a damaged row never keeps a server from opening tables or its admins from
    setting them again."""
    abilities, timer, level, undo, threads = row
    base = ServerDefaults()
    return ServerDefaults(_or(any_number_set, abilities, "abilities", base.abilities),
                          _or(as_int, timer, "timer", base.timer),
                          next((lv for lv in LEVELS if lv == level), DEFAULT_LEVEL),
                          _or(any_number_set, undo, "undo", base.undo),
                          _or(opt_flag, threads, "threads", base.threads))


def _or(read: Callable[[object, str], V], value: object, column: str, default: V) -> V:
    """``value`` read by ``read``, or ``default`` when the column holds anything else."""
    try:
        return read(value, column)
    except ValueError:
        return default


def read_log_row(row: Row) -> LogRow:
    """One action log row (:data:`LOG_COLUMNS`)."""
    step, seat, user, by_ai, action, at, undone = row
    return LogRow(as_int(step, "step"), as_int(seat, "seat"), opt_int(user, "user_id"),
                  bool(by_ai), str(action), as_float(at, "at"), bool(undone))


def read_results(heads: Iterable[Row], seats: Iterable[Row],
                 guided: Collection[int] = ()) -> list[TableResult | DamagedResult]:
    """The results of ``heads`` (:data:`RESULT_COLUMNS` rows), each with its rows of ``seats``
    (:data:`SEAT_RESULT_COLUMNS` rows, in seat order); ``guided``: the ids of those tables that
    were guided matches. A result whose row, or one of whose seats' rows, holds a value its
    column cannot is a :class:`DamagedResult` in its place (never a bare ValueError that would
    stop the reading of every other result)."""
    by_table: dict[int, list[SeatResult]] = {}
    damaged: dict[int, str] = {}
    for row in seats:
        tid = row[0]
        if not isinstance(tid, int):  # pragma: no cover - the key of its result row
            continue
        try:
            seat = _read_seat(row)
        except (ValueError, TypeError, OverflowError) as exc:
            damaged.setdefault(tid, f"seat row: {exc}")
        else:
            by_table.setdefault(tid, []).append(seat)
    out: list[TableResult | DamagedResult] = []
    for row in heads:
        tid = row[0]
        if not isinstance(tid, int):  # pragma: no cover - an INTEGER PRIMARY KEY
            continue
        try:
            read: TableResult | DamagedResult = _read_head(row, by_table.get(tid, []),
                                                           tid in guided)
        except (ValueError, TypeError, OverflowError) as exc:
            read = _damaged(row, str(exc) or type(exc).__name__)
        if tid in damaged and isinstance(read, TableResult):
            read = _damaged(row, damaged[tid])
        out.append(read)
    return out


def _read_seat(row: Row) -> SeatResult:
    """One :data:`SEAT_RESULT_COLUMNS` row (its table id aside)."""
    _, seat, user, kind, level, hero, keys, hp, place, handed, moved = row
    if not isinstance(hero, str):
        raise ValueError(f"hero {hero!r:.40}")
    return SeatResult(
        seat=as_int(seat, "seat"), user_id=opt_int(user, "user_id"), kind=as_kind(kind),
        ai_level=None if level is None else as_level(level, "ai_level"), hero=hero,
        keys=as_int(keys, "keys"), hp=as_int(hp, "hp"), place=as_int(place, "place"),
        handed_to_ai=bool(handed), moved=bool(moved))


def _read_head(row: Row, seats: list[SeatResult], guided: bool) -> TableResult:
    """One :data:`RESULT_COLUMNS` row with its ``seats``."""
    (tid, guild, channel, finished, rounds, actions, catalogue, winner, winner_user,
     place_key, abandoned_by) = row
    if not isinstance(place_key, str):
        raise ValueError(f"place {place_key!r:.40}")
    if not isinstance(catalogue, str):
        raise ValueError(f"catalogue {catalogue!r:.40}")
    return TableResult(
        table_id=as_int(tid, "table_id"), guild_id=opt_int(guild, "guild_id"),
        channel_id=as_int(channel, "channel_id"),
        finished_at=as_float(finished, "finished_at"), rounds=as_int(rounds, "rounds"),
        actions=as_int(actions, "actions"), catalogue=catalogue,
        winner_seat=as_int(winner, "winner_seat"),
        winner_user_id=opt_int(winner_user, "winner_user_id"),
        seats=tuple(seats), place_key=place_key,
        abandoned_by=opt_int(abandoned_by, "abandoned_by"), guided=guided)


def _damaged(row: Row, reason: str) -> DamagedResult:
    """The damaged result of the :data:`RESULT_COLUMNS` row ``row``, with its place and
    channel when they still read."""
    tid, channel, place_key = row[0], row[2], row[9]
    assert isinstance(tid, int)
    return DamagedResult(tid, reason,
                         place_key if isinstance(place_key, str) else None,
                         channel if isinstance(channel, int) and not isinstance(channel, bool)
                         else None)


def remember(states: StateCache, table_id: int, text: str, state: GameState) -> None:
    """Keep ``state`` as the parsed form of ``text`` for table ``table_id`` (bounded)."""
    keep(states, table_id, (text, state), STATE_CACHE)


def keep(kept: dict[int, V], key: int, value: V, most: int) -> None:
    """Keep ``value`` for ``key`` (a table's id, a person's) in ``kept``, which holds at most
    ``most`` of them (the one kept longest goes first)."""
    kept.pop(key, None)
    if len(kept) >= most:
        kept.pop(next(iter(kept)))
    kept[key] = value


def as_int(value: object, column: str) -> int:
    """An INTEGER column's value; ValueError naming the column when it holds anything else."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ValueError(f"{column} {value!r:.40}")


def as_flag(value: object, column: str) -> bool:
    """A yes/no column's value (a boolean, or SQLite's 0 or 1); ValueError naming the column
    when it holds anything else."""
    if isinstance(value, bool):
        return value
    if value in (0, 1) and isinstance(value, int):
        return bool(value)
    raise ValueError(f"{column} {value!r:.40}")


def any_number_set(value: object, column: str) -> bool:
    """A yes/no setting written as a number, any number but 0 reading as set (as it always
    did); ValueError naming the column when it holds no number."""
    if isinstance(value, bool | int):
        return bool(value)
    raise ValueError(f"{column} {value!r:.40}")


def opt_flag(value: object, column: str) -> bool | None:
    """A nullable yes/no column's value."""
    return None if value is None else as_flag(value, column)


def opt_int(value: object, column: str = "value") -> int | None:
    """A nullable INTEGER column's value."""
    return None if value is None else as_int(value, column)


def as_float(value: object, column: str) -> float:
    """A REAL column's value; ValueError naming the column when it is not a finite number."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    raise ValueError(f"{column} {value!r:.40}")


def opt_float(value: object, column: str) -> float | None:
    """A nullable REAL column's value."""
    return None if value is None else as_float(value, column)


def as_level(value: object, column: str) -> AiLevel:
    """An AI level column's value; ValueError naming the column for a level this bot does not
    know."""
    level = next((lv for lv in LEVELS if lv == value), None)
    if level is None:
        raise ValueError(f"{column} {value!r:.40}")
    return level


def as_kind(value: object) -> SeatKind:
    """A result seat's kind."""
    if value == "person":
        return "person"
    if value == "ai":
        return "ai"
    raise ValueError(f"kind {value!r:.40}")
