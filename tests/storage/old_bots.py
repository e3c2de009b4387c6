"""What bots of earlier schemas stored, for the upgrade tests of both backends: their seats'
text, a table's rows with its action log, and a whole database of each schema holding a row in
every table that schema has (finished games with and without their results, a running game, an
abandoned one, a damaged one, settings, metadata, rematch offers, ratings, hints, leases and
shares)."""

from __future__ import annotations

import json
from collections import Counter

from bot.storage.migration_rules import CATALOGUE_5
from bot.storage.records import SeatInfo, table_result
from bot.storage.sqlite_schema import MIGRATIONS
from engine import state_to_json
from storage.helpers import ANN, BOB, GUILD, PLACE, SEATS, Game, played

#: The migration that adds ``table_seats`` (who sits at each table).
SEATED = next(i for i, m in enumerate(MIGRATIONS, start=1)
              if isinstance(m, str) and "CREATE TABLE table_seats" in m)

#: Bob's seat was handed to the AI (he ran out of time).
HANDED = (SEATS[0], SEATS[1].model_copy(update={"ai": True, "timeouts": 3}), SEATS[2])
#: A row to insert: its table and its columns.
Row = tuple[str, dict[str, object]]


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
             seats: tuple[SeatInfo, ...] = SEATS) -> list[Row]:
    """Table ``tid`` as the bot of schema ``version`` stored it, at ``step`` of ``game``, with
    its action log: ``(table, columns)`` rows to insert in order."""
    state = None if game is None else game.states[step]
    extra: dict[str, object] = {"ai_level": "easy"} if version >= 4 else {}
    if version >= 5:
        extra["catalogue"] = CATALOGUE_5
    if version >= 13:
        extra["place_key"] = PLACE
    rows: list[Row] = [("tables", dict(
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
        user = seats[row.seat].user  # a person's own move, an AI seat's move
        rows.append(("actions", dict(table_id=tid, step=row.step, seat=row.seat, user_id=user,
                                     by_ai=int(user is None), action=row.action, at=row.at,
                                     **seq)))
    return rows


def result_rows(version: int, tid: int, seats: tuple[SeatInfo, ...], game: Game) -> list[Row]:
    """The result of finished table ``tid`` as the bot of schema ``version`` (5 or later)
    stored it: with its place from schema 13, its order, who abandoned it and who moved from
    schema 14."""
    result = table_result(tid, GUILD, 100 + tid, CATALOGUE_5, seats, game.final, 3000.0 + tid,
                          PLACE)
    head: dict[str, object] = dict(
        table_id=tid, guild_id=GUILD, channel_id=100 + tid, finished_at=result.finished_at,
        rounds=result.rounds, actions=result.actions, catalogue=result.catalogue,
        winner_seat=result.winner_seat, winner_user_id=result.winner_user_id)
    if version >= 13:
        head["place_key"] = PLACE
    if version >= 14:
        head.update(seq=tid, abandoned_by=None)
    rows: list[Row] = [("results", head)]
    for s in result.seats:
        seat: dict[str, object] = dict(
            table_id=tid, seat=s.seat, user_id=s.user_id, kind=s.kind, ai_level=s.ai_level,
            hero=s.hero, keys=s.keys, hp=s.hp, place=s.place, handed_to_ai=int(s.handed_to_ai))
        if version >= 14:
            seat["moved"] = int(s.moved)
        rows.append(("result_seats", seat))
    return rows


def old_database(version: int) -> list[Row]:
    """The rows a bot of schema ``version`` left, in the order to insert them: tables 1 and 2
    finished (2 with Bob's seat handed to the AI; their results from schema 5 on), 3 running at
    step 10, 4 abandoned in its lobby, 5 abandoned at step 5, 6 finished with a damaged state
    (never given a result), a server's settings and a metadata key; from schema 8 a closed
    rematch offer, from 9 a rating with its change and a record against the AI, from 10 a hint,
    from 11 a lease, from 12 a shared animation; from the schema that adds ``table_seats``,
    who sits at each table, as those bots kept it in step with the seats."""
    won, handed, running = played(1), played(2), played(3)
    rows = [*old_rows(version, 1, "finished", won, len(won.moves)),
            *old_rows(version, 2, "finished", handed, len(handed.moves), seats=HANDED),
            *old_rows(version, 3, "running", running, 10),
            *old_rows(version, 4, "abandoned", None, 0),
            *old_rows(version, 5, "abandoned", running, 5),
            *old_rows(version, 6, "finished", won, len(won.moves))[:1]]
    rows[-1][1]["state"] = '{"format": 1}'
    rows += [("settings", dict(guild_id=GUILD, abilities=1, timer=300)),
             ("meta", dict(key="announced:1", value="1"))]
    if version >= 5:
        rows += result_rows(version, 1, SEATS, won) + result_rows(version, 2, HANDED, handed)
    if version >= 8:
        rows.append(("rematches", dict(table_id=2, offered_by=BOB, offered_at=3100.0,
                                       ready=json.dumps([BOB]), closed=1)))
    if version >= 9:
        rows += [("ratings", dict(guild_id=GUILD, user_id=ANN, mu=27.5, sigma=7.5, games=1,
                                  wins=0, last_table=1)),
                 ("rating_changes", dict(table_id=1, guild_id=GUILD, user_id=ANN,
                                         mu_before=None, sigma_before=None, mu_after=27.5,
                                         sigma_after=7.5)),
                 ("ai_records", dict(user_id=BOB, level="easy", hero="taia", games=2, wins=1,
                                     **({"place_key": PLACE} if version >= 13 else {})))]
    if version >= 10:
        rows.append(("hints", dict(table_id=1, version=5, user_id=ANN, seat=0,
                                   answer=b"an old hint", at=1505.0)))
    if version >= 11:
        rows.append(("leases", dict(table_id=4, owner="old", expires_at=2500.0)))
    if version >= 12:
        rows += [("shares", dict(table_id=1, channel_id=101, user_id=ANN, posted_at=3200.0,
                                 message_id=77)),
                 ("sharers", dict(channel_id=101, user_id=ANN, shared_at=3200.0))]
    if version >= SEATED:
        rows += [("table_seats", dict(table_id=columns["id"], user_id=user))
                 for table, columns in list(rows) if table == "tables"
                 for user in sorted({s["user"] for s in json.loads(str(columns["seats"]))
                                     if s.get("user") is not None})]
    return rows


def by_table(rows: list[Row]) -> dict[tuple[str, tuple[str, ...]], Counter[tuple[object, ...]]]:
    """``rows`` grouped by table and columns, as the values each holds (any order)."""
    out: dict[tuple[str, tuple[str, ...]], Counter[tuple[object, ...]]] = {}
    for table, columns in rows:
        out.setdefault((table, tuple(columns)), Counter())[tuple(columns.values())] += 1
    return out
