"""The rules the schema migrations compute with, copied as they were when each migration was
released and never changed since: an old migration gives the same rows whatever the game's code
says today. Standard library only (``tests/storage/test_frozen_migrations.py`` reads the imports
of this module and of the schema modules).

Migration 5 back-fills the results of the games finished before it, reading the stored seats and
game state as plain JSON data (:func:`result_rows_5`). Migration 16 moves the anchor of a running
game's take-back out of its stored state into a column of its own (:func:`anchor_out_16`).
"""

from __future__ import annotations

import json

#: The catalogue version of every table that existed before migration 5: the fingerprint of the
#: cards the bot played with when migration 5 was released (``cards.catalogue_version()`` from
#: the commit that added migration 5 until today's: the card data has not changed since).
CATALOGUE_5 = "cee628b9678e08a7"
#: The AI levels, and the level of a seat that names none, when migration 5 was released.
LEVELS_5 = ("easy", "normal", "hard")
DEFAULT_LEVEL_5 = "normal"
#: The saved-game formats the engine read when migration 5 was released.
STATE_FORMATS_5 = (1, 2)

#: A ``results`` row of migration 5: table_id, guild_id, channel_id, finished_at, rounds,
#: actions, catalogue, winner_seat, winner_user_id.
ResultRow = tuple[int, int | None, int, float, int, int, str, int, int | None]
#: A ``result_seats`` row of migration 5: table_id, seat, user_id, kind, ai_level, hero, keys,
#: hp, place, handed_to_ai.
SeatRow = tuple[int, int, int | None, str, str | None, str, int, int, int, int]


def result_rows_5(table_id: object, guild_id: object, channel_id: object, seats: object,
                  state: object, finished_at: object) -> tuple[ResultRow, list[SeatRow]] | None:
    """The result rows of a finished table as migration 5 writes them, from its stored columns
    (``seats`` and ``state`` as JSON text); None when a value is damaged (the table gets no
    result: reading it tells what is wrong).

    Each seat's place: 1 for the champion, the others by keys, then HP, a tie sharing a place
    (1, 2, 2, 4). A seat is a person's when it names a user; ``handed_to_ai`` when the AI played
    a person's seat at the end; ``ai_level`` only for a seat the AI played."""
    try:
        return _result_rows(table_id, guild_id, channel_id, seats, state, finished_at)
    except (ValueError, TypeError, KeyError, IndexError):  # a JSONDecodeError is a ValueError
        return None


def _result_rows(table_id: object, guild_id: object, channel_id: object, seats_text: object,
                 state_text: object, finished_at: object) -> tuple[ResultRow, list[SeatRow]]:
    tid, channel = _int(table_id), _int(channel_id)
    guild = None if guild_id is None else _int(guild_id)
    if not isinstance(finished_at, int | float) or isinstance(finished_at, bool):
        raise ValueError("finished_at")
    infos = _seats(json.loads(str(seats_text)))
    doc = json.loads(str(state_text))
    if doc["format"] not in STATE_FORMATS_5 or doc["state"]["phase"] != "over":
        raise ValueError("not a finished game")
    game = doc["state"]
    winner, rounds, steps = _int(game["winner"]), _int(game["round"]), _int(game.get("step", 0))
    played = game["seats"]
    if not isinstance(played, list) or len(played) != len(infos) or not 0 <= winner < len(infos):
        raise ValueError("seats")
    heroes = [_str(seat["hero"]) for seat in played]
    keys = [len(_list(seat["keys"])) for seat in played]
    hps = [_int(seat["hp"]) for seat in played]
    scores = [(int(i == winner), keys[i], hps[i]) for i in range(len(played))]
    places = [1 + sum(other > mine for other in scores) for mine in scores]
    rows: list[SeatRow] = []
    for i, (user, ai, level) in enumerate(infos):
        rows.append((tid, i, user, "person" if user is not None else "ai", level if ai else None,
                     heroes[i], keys[i], hps[i], places[i], int(ai and user is not None)))
    result: ResultRow = (tid, guild, channel, float(finished_at), rounds, steps, CATALOGUE_5,
                         winner, infos[winner][0])
    return result, rows


def anchor_out_16(state: object) -> tuple[str, str] | None:
    """A stored state (JSON text) whose take-back record holds the whole state it starts from
    (``undo.base``), as migration 16 splits it: the state without it, and that state as a saved
    game of the same format (the table's ``anchor``); None for any other state, damaged ones
    included (they stay as they are)."""
    try:
        doc = json.loads(str(state))
        base = doc["state"]["undo"].pop("base")
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    if not isinstance(base, dict):
        return None
    return (json.dumps(doc, separators=(",", ":")),
            json.dumps({"format": doc["format"], "state": base}, separators=(",", ":")))


def _seats(data: object) -> list[tuple[int | None, bool, str]]:
    """Each stored seat's user (None: the AI's seat), whether the AI plays it, and its level."""
    out = []
    for seat in _list(data):
        if not isinstance(seat, dict):
            raise ValueError("seat")
        user, ai = seat.get("user"), seat.get("ai", False)
        level = seat.get("level", DEFAULT_LEVEL_5)
        if (user is not None and not isinstance(user, int)) or not isinstance(ai, bool) \
                or level not in LEVELS_5:
            raise ValueError("seat")
        out.append((None if user is None else _int(user), ai, str(level)))
    if len(out) > 4:
        raise ValueError("more than 4 seats")
    return out


def _int(value: object) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ValueError(f"{value!r:.40} is not an integer")


def _str(value: object) -> str:
    if isinstance(value, str):
        return value
    raise ValueError(f"{value!r:.40} is not a text")


def _list(value: object) -> list[object]:
    if isinstance(value, list):
        return value
    raise ValueError(f"{value!r:.40} is not a list")


class MigrationFailed(Exception):
    """Schema migration ``number`` failed: its transaction was rolled back, so the database
    stays at the version before it (``number - 1``), every earlier migration kept. ``started``
    is the version the database had when this start of the bot began migrating it (the
    runner sets it; below ``number - 1`` when earlier migrations of the same upgrade worked).
    Defined here, beside the migrations (which import no live code); the bot reads it from
    :mod:`bot.storage.records`."""

    def __init__(self, number: int, error: BaseException) -> None:
        super().__init__(f"migration {number} failed and was rolled back; the database stays "
                         f"at schema version {number - 1}: {type(error).__name__}: {error}")
        self.number = number
        self.started = number - 1


__all__ = ["CATALOGUE_5", "MigrationFailed", "ResultRow", "SeatRow", "anchor_out_16",
           "result_rows_5"]
