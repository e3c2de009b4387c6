"""A person forgotten on request: everything the store keeps about them removed, or replaced by
a pseudonym, in ONE transaction (:meth:`PeopleRows.forget_person`).

Where a user id is kept (every column of the schema that holds one):

- ``ratings.user_id``, ``rating_changes.user_id``, ``ai_records.user_id`` (and the
  ``ai_records.place_key`` of their direct messages): their ratings, rating history and records
  against the AI, **deleted**;
- ``hints.user_id``: the hints they were given, **deleted**;
- ``sharers.user_id``: when they last shared a match in a channel, **deleted**;
- ``notify.user_id``: whether they asked for direct-message reminders, **deleted**;
- ``reminders.user_id``, ``seat_seen.user_id`` and ``dms_closed.user_id``: the reminders
  sent to them, when they last looked at each table, that their direct messages are closed,
  **deleted**;
- ``shares.user_id``: who posted a match's animation in a channel (the post itself stays, so
  the match is not posted twice in the window), the pseudonym;
- ``tables.host_id``, ``tables.seats`` (JSON: each seat's ``user`` and ``name``),
  ``tables.state`` and ``tables.anchor`` (JSON: the seat's ``name`` in the game's setup),
  ``tables.place_key`` (``dm:<id>``), ``actions.user_id``, ``results.winner_user_id``,
  ``results.abandoned_by``, ``results.place_key``, ``result_seats.user_id``,
  ``rematches.offered_by``, ``rematches.ready`` (JSON list of ids) and ``table_seats.user_id``
  (who sits where, kept in step with ``tables.seats``), ``tournaments.host_id``,
  ``tournament_entrants.user_id`` (its ``name`` emptied), ``tournament_rounds.bye_user`` and
  ``tournament_seats.user_id`` (a tournament's standings and rounds): the pseudonym, and the
  seat's name emptied (a seat without a name is shown by its hero's translated name, as an
  unnamed seat always was), so other people's histories, replays and results stay whole: the
  same moves, the same places, only the name changes;
- ``tables.channel_id``, ``results.channel_id``, ``shares.channel_id`` and
  ``sharers.channel_id`` of their direct messages with the bot (the channel of the tables
  whose place was theirs: Discord tells whose it is, and it is theirs again when they come
  back): the pseudonym.

``settings`` (per server), ``meta`` (the bot's own) and ``leases`` (per process) hold no
person's id. A table added later that holds one must be handled here:
``tests/storage/test_store_people.py`` looks for the id in every column of every table.

The pseudonym is a fresh negative 63-bit number, drawn at random and recorded nowhere: Discord
ids are positive, so it never names a real person; no command maps it back (nothing keeps which
id it replaced); it is drawn again in the rare case it is in use already, so two forgotten
people never share one; and drawn at random rather than counted, it tells nothing about when
the person was forgotten. The person gets ONE pseudonym for all their rows, so a rebuild of the
ratings from the stored results (``python -m bot.admin ratings --recompute``) rates everyone
else exactly as before (the pseudonym stands where the person stood), and stores no rating,
rating change or record against the AI of the pseudonym.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass

from bot.storage.core.base import log
from bot.storage.core.db import Db, lock_person
from bot.storage.core.rows import as_int
from bot.storage.core.tables import TableQueries
from bot.storage.records import seats_from_json, seats_to_json

#: Tables whose rows about a person are deleted: (table, the column holding the id).
DELETED = (("ratings", "user_id"), ("rating_changes", "user_id"), ("ai_records", "user_id"),
           ("hints", "user_id"), ("sharers", "user_id"), ("notify", "user_id"),
           ("reminders", "user_id"), ("seat_seen", "user_id"), ("dms_closed", "user_id"))
#: Columns whose id becomes the pseudonym: (table, column).
RENAMED = (("tables", "host_id"), ("actions", "user_id"), ("results", "winner_user_id"),
           ("results", "abandoned_by"), ("result_seats", "user_id"), ("shares", "user_id"),
           ("rematches", "offered_by"), ("table_seats", "user_id"),
           ("tournaments", "host_id"), ("tournament_entrants", "user_id"),
           ("tournament_rounds", "bye_user"), ("tournament_seats", "user_id"))
#: The parameter of the game's messages that names a seat (its person, or its hero).
WHO = "who"
#: Columns naming a place: a person's direct messages (``dm:<id>``) become the pseudonym's.
PLACES = (("tables", "place_key"), ("results", "place_key"))
#: Tables naming a channel: a person's direct messages with the bot (found by the place of the
#: tables played there) are theirs alone, so there the pseudonym stands for the channel too.
DM_CHANNELS = ("tables", "results", "shares", "sharers")


@dataclass(frozen=True, slots=True)
class Forgotten:
    """What forgetting a person changed: the pseudonym that now stands for them, the ids of
    the tables they had a seat at or hosted (what is kept of those in memory, such as their
    replays, shows the old names: drop it), the number of rows deleted and the number of
    other rows where the pseudonym now stands for them (a tournament they hosted or entered,
    a share they posted...; none of the three: nothing was kept)."""

    pseudonym: int
    tables: tuple[int, ...]
    deleted: int
    renamed: int = 0

    @property
    def anything(self) -> bool:
        """Whether anything was kept about the person."""
        return bool(self.tables) or self.deleted > 0 or self.renamed > 0


def pseudonym() -> int:
    """A fresh pseudonym: a random negative 63-bit number (never a Discord id)."""
    return -1 - secrets.randbelow(2**63 - 1)


def _named_seat(text: str, user_id: int,
                alias: int) -> tuple[str, list[int], str] | None:
    """A table's seats (JSON) with ``user_id``'s seats held by ``alias`` and their names
    emptied, the seats changed and the name they had; None when the person holds none."""
    seats = seats_from_json(text)
    changed = [i for i, s in enumerate(seats) if s.user == user_id]
    if not changed:
        return None
    return seats_to_json(tuple(s.model_copy(update={"user": alias, "name": ""})
                               if i in changed else s for i, s in enumerate(seats))), changed, \
        seats[changed[0]].name


def unnamed_state(text: str | None, seats: list[int], name: str) -> str | None:
    """A stored state (or anchor) with the setup's names of ``seats`` emptied and the lines of
    its game log that name the person (``name``) naming their seat's hero instead, as for a
    seat without a name (the game itself is unchanged: names are only shown); the text
    unchanged when it is not one (damaged)."""
    if text is None:
        return None
    try:
        data = json.loads(text)
        config = data["state"]["config"]["seats"]
        heroes = []
        for seat in seats:
            heroes.append(config[seat]["hero"])
            config[seat]["name"] = ""
    except (ValueError, KeyError, IndexError, TypeError):
        return text
    if name and heroes:
        _rename(data, name, {"key": f"hero.{heroes[0]}.name", "params": []})
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def _rename(node: object, name: str, hero: dict[str, object]) -> None:
    """Replace the person's ``name`` by their hero's name wherever a message inside ``node``
    names a seat (its ``who`` parameter: a pair ``[who, name]``, or for states saved when a
    message's parameters were an object, its ``who`` field), and nowhere else: a person may be
    called as a hero, a deck's stacking or a parameter is spelled ("horan", "top", "card"),
    which the game keeps as they are. The log keeps no seat number beside a name, so another
    seat of the same match shown by the very same name has its lines renamed too (they then
    name the forgotten person's hero)."""
    if isinstance(node, dict):
        params = node.get("params") if set(node) == {"key", "params"} else None
        if isinstance(params, dict) and params.get(WHO) == name:
            params[WHO] = hero
        elif isinstance(params, list):
            for pair in params:
                if pair == [WHO, name]:
                    pair[1] = hero
        for value in node.values():
            _rename(value, name, hero)
    elif isinstance(node, list):
        for value in node:
            _rename(value, name, hero)


class PeopleRows(TableQueries):
    """A person's data, forgotten on request (the tables they sat at written as the tables
    part writes them: kept records dropped, other processes told)."""

    async def keeps_about(self, user_id: int) -> bool:
        """Whether any row still holds person ``user_id`` (what :meth:`forget_person` would
        delete or give the pseudonym), read only: a question of ``/goblin forget-me`` answered
        after a restart says from it whether a Confirm already forgot them. The seats' JSON
        and the action log are not read: ``table_seats`` holds whoever sits at a table, kept
        in step with the seats, and one who moved there sat there."""
        first = ("table_seats", "user_id")  # by index: most people are found there
        unread = {first, ("actions", "user_id")}
        checks: list[tuple[str, object]] = [
            (f"SELECT 1 FROM {table} WHERE {column} = ?", user_id)
            for table, column in (first, *((t, c) for t, c in (*DELETED, *RENAMED)
                                           if (t, c) not in unread))]
        checks += [(f"SELECT 1 FROM {table} WHERE {column} = ?", f"dm:{user_id}")
                   for table, column in (*PLACES, ("ai_records", "place_key"))]
        for query, value in checks:
            if await self._read.fetchrow(f"{query} LIMIT 1", value) is not None:
                return True
        for row in await self._read.fetch(
                "SELECT ready FROM rematches WHERE CAST(ready AS TEXT) LIKE ?", f"%{user_id}%"):
            try:
                ready = json.loads(str(row[0]))
            except ValueError:  # a damaged offer: forgetting renames nothing there either
                continue
            if isinstance(ready, list) and user_id in ready:
                return True
        return False

    async def forget_person(self, user_id: int) -> Forgotten:
        """Forget person ``user_id`` in one transaction (see the module): their ratings,
        records, hints and shares deleted, their id elsewhere replaced by a fresh pseudonym and
        their seats' names emptied. A seat of theirs in an active table keeps its role (the
        caller hands a running seat to the AI and drops them from a lobby first). Running it
        again finds nothing."""
        async with self._tx() as db:
            # their own lock first: a hint, reminder or click of theirs at a table being
            # written now is waited for (its row then deleted below); one written after finds
            # their seat held by the pseudonym, and is not kept
            await lock_person(db, self.dialect, user_id)
            alias = await self._fresh(db)
            # their tables first, locked: a match of theirs another process is ending now
            # (its result and ratings written, not yet committed) is waited for, so its rows
            # are deleted or renamed below, never left under their id
            touched = await self._rename_tables(db, user_id, alias)
            if self.dialect.lock_ratings is not None:
                # and the ratings: a rebuild of them under way (its rows, written from the
                # results as they were, still holding the person's id) is waited for too
                await db.execute(self.dialect.lock_ratings)
            deleted = 0
            for table, column in DELETED:
                deleted += await db.execute(f"DELETE FROM {table} WHERE {column} = ?", user_id)
            await db.execute("UPDATE tournament_entrants SET name = '' WHERE user_id = ?",
                             user_id)
            renamed = 0
            for table, column in RENAMED:
                renamed += await db.execute(f"UPDATE {table} SET {column} = ? "
                                            f"WHERE {column} = ?", alias, user_id)
            dms = [as_int(r[0], "channel_id") for r in await db.fetch(
                "SELECT DISTINCT channel_id FROM tables WHERE place_key = ?", f"dm:{user_id}")]
            for table, column in PLACES:
                renamed += await db.execute(f"UPDATE {table} SET {column} = ? "
                                            f"WHERE {column} = ?", f"dm:{alias}",
                                            f"dm:{user_id}")
            await db.execute("UPDATE ai_records SET place_key = ? WHERE place_key = ?",
                             f"dm:{alias}", f"dm:{user_id}")
            for channel in dms:  # theirs alone, and theirs again when they come back
                for table in DM_CHANNELS:
                    await db.execute(f"UPDATE {table} SET channel_id = ? WHERE channel_id = ?",
                                     alias, channel)
            for row in await db.fetch(  # locked: a Ready written meanwhile is not lost
                    "SELECT table_id, ready FROM rematches WHERE CAST(ready AS TEXT) LIKE ?"
                    f"{self.dialect.for_update}", f"%{user_id}%"):
                try:
                    ready = json.loads(str(row[1]))
                except ValueError:  # a damaged offer (reading it says so): nothing to rename
                    continue
                if isinstance(ready, list) and user_id in ready:
                    await db.execute("UPDATE rematches SET ready = ? WHERE table_id = ?",
                                     json.dumps([alias if u == user_id else u for u in ready]),
                                     row[0])
            for table_id in touched:
                await self._wrote(db, table_id)
        self._writes += 1
        for table_id in touched:
            self._records.pop(table_id, None)
        return Forgotten(alias, tuple(touched), deleted, renamed)

    async def _fresh(self, db: Db) -> int:
        """A pseudonym no stored row uses."""
        while True:
            alias = pseudonym()
            used = await db.fetchrow(
                "SELECT 1 FROM result_seats WHERE user_id = ? UNION ALL "
                "SELECT 1 FROM tables WHERE host_id = ? UNION ALL "
                "SELECT 1 FROM actions WHERE user_id = ?", alias, alias, alias)
            if used is None:
                return alias

    async def _rename_tables(self, db: Db, user_id: int, alias: int) -> list[int]:
        """Every table the person hosted or sat at: their seats held by ``alias`` and
        unnamed in the seats, the state and the anchor (its revision raised: a move another
        process decided on the named seats is refused); the ids of those tables."""
        touched = []
        rows = await db.fetch(
            f"SELECT id, seats, state, anchor, host_id FROM tables WHERE host_id = ? "
            f"OR CAST(host_id AS TEXT) LIKE ? OR CAST(seats AS TEXT) LIKE ? "
            f"{self.dialect.for_update}", user_id, f"%{user_id}%", f"%{user_id}%")
        for row in rows:
            tid = as_int(row[0], "id")
            try:
                named = _named_seat(str(row[1]), user_id, alias)
            except ValueError as exc:  # damaged: no reading finds their seat there
                named = None
                if _holds(row[1], user_id):
                    await self._clear_damaged(db, tid, "seats", "[]", exc)
                    touched.append(tid)
            if named is not None:
                seats, changed, name = named
                await db.execute("UPDATE tables SET seats = ?, state = ?, anchor = ?, "
                                 "revision = revision + 1 WHERE id = ?",
                                 seats, unnamed_state(_text(row[2]), changed, name),
                                 unnamed_state(_text(row[3]), changed, name), tid)
            try:
                hosted = as_int(row[4], "host_id") == user_id
            except ValueError as exc:  # damaged: theirs only when it still holds their id
                hosted = _holds(row[4], user_id)
                if hosted:
                    await self._clear_damaged(db, tid, "host_id", alias, exc)
                else:
                    log.warning("the tables row of table %s is damaged (%s), holding no "
                                "person forgotten there: left as it is", tid, exc)
            if (named is not None or hosted) and tid not in touched:
                touched.append(tid)
        return touched

    async def _clear_damaged(self, db: Db, table_id: int, column: str, value: object,
                             exc: Exception) -> None:
        """Overwrite the damaged ``column`` of table ``table_id``, which still holds the person
        forgotten, by ``value`` (the table could not be read before either), saying so."""
        await db.execute(f"UPDATE tables SET {column} = ?, revision = revision + 1 "
                         "WHERE id = ?", value, table_id)
        log.warning("the tables row of table %s holds the person forgotten in its damaged %s "
                    "(%s): overwritten%s", table_id, column, exc,
                    " (its game may still show their name)" if column == "seats" else "")


def _holds(value: object, user_id: int) -> bool:
    """Whether a damaged value still holds ``user_id`` as a whole number."""
    return re.search(rf"(?<!\d){user_id}(?!\d)", str(value)) is not None


def _text(value: object) -> str | None:
    """A JSON column read as text (None stays None)."""
    return None if value is None else str(value)


__all__ = ["DELETED", "PLACES", "RENAMED", "Forgotten", "PeopleRows", "pseudonym", "unnamed_state"]
