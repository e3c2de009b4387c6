"""A person forgotten on request (``/goblin forget-me``, ``python -m bot.admin forget``).

First their active tables let them go, as ``/goblin leave`` does (:meth:`Lobby.leave`): a lobby
drops them (a lobby they hosted passes to the next person in it, and closes when nobody is
left); a running match goes on with the AI (normal level) in their seat (its rating counts them
as never seated, :mod:`bot.game.results`: their rating is gone), and when they hosted
it the next person seated becomes its host, so someone can still close it (not a tournament's
match, which stays its tournament's and its channel's managers'); a match with no other
person in it (a solo table, a guided first match) closes, as when they leave it. A tournament
still taking sign-ups takes them off its entrants, as its Leave button does; one under way drops
them, as ``/goblin tournament drop`` does (their points stay, no later round seats them). Then
the store forgets them in one transaction
(:meth:`~bot.storage.interface.PeopleStorage.forget_person`): their ratings, records against
the AI, hints and shares deleted, their id everywhere else a pseudonym, their name gone. Other
people's histories and replays stay whole.

Other people's ratings are not recomputed: the ratings they have stay as they are. A later
``python -m bot.admin ratings --recompute`` reads the stored results, where the pseudonym stands
in the forgotten person's seats, so it rates everyone else exactly as before (and it stores no
rating of the pseudonym: :func:`bot.storage.core.ratings.save`).

The tables and tournaments are let go in writes of their own, before the store's transaction:
a database that stops taking writes part of the way (full, failing, out of reach) raises
:class:`PartlyForgotten`, which says what was done (the person is no longer at those tables
nor in those tournaments: their messages are to be drawn again), and the same forgetting
once the database is back does the rest.
"""

from __future__ import annotations

import contextlib
from contextlib import AsyncExitStack
from dataclasses import dataclass, replace

from bot.game.lobby import Lobby
from bot.game.refusals import Refusal, Stale
from bot.game.seats import next_host
from bot.game.tables import Tables
from bot.game.tournaments import Tournaments
from bot.storage.core.people import Forgotten
from bot.storage.interface import Storage
from bot.storage.records import CannotSave, DamagedTournament, StaleVersion, TableRecord
from i18n import Param, msg, translate

#: How many times a seat is handed to the AI when another process keeps moving the table on.
LEAVE_ATTEMPTS = 5


def forgotten(user_id: int | None) -> bool:
    """Whether ``user_id`` is a forgotten person's pseudonym (negative: no Discord id is)."""
    return user_id is not None and user_id < 0


def person(user_id: int) -> Param:
    """How a message names a person by id: their mention, or "a forgotten player"."""
    return msg("forget.player") if forgotten(user_id) else f"<@{user_id}>"


def person_text(user_id: int, locale: str) -> str:
    """:func:`person` as text in ``locale``."""
    return translate(msg("forget.player"), locale) if forgotten(user_id) else f"<@{user_id}>"


@dataclass(frozen=True, slots=True)
class Forgetting:
    """What forgetting a person did: the store's part (:class:`Forgotten`) and their tables
    that were active, as they are now (a lobby without them, a running match with the AI in
    their seat, a table closed), and the tournaments they were signed up for or playing in
    (taken off its entrants, or dropped)."""

    store: Forgotten
    tables: tuple[TableRecord, ...]
    tournaments: tuple[int, ...] = ()

    @property
    def anything(self) -> bool:
        """Whether anything was kept about the person."""
        return self.store.anything or bool(self.tables) or bool(self.tournaments)


class PartlyForgotten(CannotSave):
    """Forgetting a person stopped part of the way, the database refusing a write (``cause``):
    ``done`` is what was done before (their tables let go and tournaments left, as they are
    now), the store's deletion not (nothing of it was written); forgetting them again does the
    rest."""

    def __init__(self, done: Forgetting, cause: CannotSave) -> None:
        super().__init__(str(cause))
        self.done = done
        self.cause = cause


@dataclass
class People:
    """Forgetting people, over the store, the tables' locks, the lobby's and the tournaments'
    rules."""

    store: Storage
    tables: Tables
    lobby: Lobby
    tournaments: Tournaments

    async def forget(self, user_id: int) -> Forgetting:
        """Forget person ``user_id`` (see the module); their active tables' records after (in
        the channels they were in: the messages of a table played in the person's direct
        messages are closed there, though the store keeps the pseudonym for that channel)."""
        active: list[int] = []  # the tables let go so far
        channels: dict[int, int] = {}
        entered: list[int] = []
        try:
            for tid in await self.tables.ids_with_status("lobby") + \
                    await self.tables.ids_with_status("running"):
                try:
                    record = await self.tables.load(tid)
                except Refusal:  # a damaged table: nothing of it can be read, or shown
                    continue
                if record.seat_of(user_id) is None and record.host_id != user_id:
                    continue
                channels[tid] = record.channel_id
                if record.seat_of(user_id) is not None:
                    await self._leave(tid, user_id)
                await self._pass_host(tid, user_id)
                active.append(tid)
            for tid in await self.store.tournaments_with_status("signup", "running"):
                if await self._leave_tournament(tid, user_id):
                    entered.append(tid)
            async with AsyncExitStack() as held:  # no move of theirs writes its seats meanwhile
                for tid in sorted(active):
                    await held.enter_async_context(self.tables.locked(tid))
                gone = await self.store.forget_person(user_id)
        except CannotSave as exc:
            if not active and not entered:  # nothing was done
                raise
            done = Forgetting(Forgotten(0, (), 0), await self._after(active, channels),
                              tuple(entered))
            raise PartlyForgotten(done, exc) from exc
        return Forgetting(gone, await self._after(active, channels), tuple(entered))

    async def _after(self, active: list[int],
                     channels: dict[int, int]) -> tuple[TableRecord, ...]:
        """The records of the tables let go, as they are now, in the channels they were in
        (a table that cannot be read now, damaged or the database away, left out)."""
        after = []
        for tid in active:
            try:
                record = await self.tables.load(tid)
            except (Refusal, CannotSave):
                continue
            if record.channel_id != channels[tid]:
                record = replace(record, channel_id=channels[tid])
            after.append(record)
        return tuple(after)

    async def kept(self, user_id: int) -> bool:
        """Whether the store still keeps anything about person ``user_id`` (read only)."""
        return await self.store.keeps_about(user_id)

    async def _leave_tournament(self, tournament_id: int, user_id: int) -> bool:
        """The person leaves a tournament they entered: taken off its entrants while sign-up
        lasts (as its Leave button does), dropped once it is under way (as ``/goblin
        tournament drop`` does; their match under way goes on with the AI in their seat); True
        when they were in it or host it (its sign-up message names them)."""
        try:
            rows = await self.store.tournament_rows(tournament_id)
        except DamagedTournament:  # nothing of it can be read: left as it is (named in a log)
            return False
        if rows is None:
            return False
        if not any(e.user_id == user_id for e in rows.entrants):
            return rows.record.host_id == user_id
        try:
            await self.tournaments.leave(tournament_id, user_id)
        except Refusal:  # sign-up is over (it may have closed meanwhile): dropped instead
            with contextlib.suppress(Refusal):  # dropped already, or the tournament ended
                await self.tournaments.drop(tournament_id, user_id)
        return True

    async def _leave(self, table_id: int, user_id: int) -> None:
        """The person leaves an active table (as with /goblin leave)."""
        for attempt in range(LEAVE_ATTEMPTS):
            try:
                await self.lobby.leave(table_id, user_id)
                return
            except Stale:  # another process kept changing the table meanwhile: again
                if attempt == LEAVE_ATTEMPTS - 1:
                    raise
            except Refusal:
                return  # the table ended meanwhile, or they left it

    async def _pass_host(self, table_id: int, user_id: int) -> None:
        """A running match the person hosts passes to the next person seated, so someone can
        still close it (a lobby's host role passed on when they left it); a tournament's match
        stays its tournament's, as every match of its later rounds does: none of its players
        may close it for the others (its channel's managers still can). Written only while
        the table is at the version and revision read (its seats as read), read again when
        another process moved it on or changed its seats meanwhile."""
        if await self.store.tournament_of_table(table_id) is not None:
            return
        for attempt in range(LEAVE_ATTEMPTS):
            try:
                async with self.tables.hold(table_id) as now:
                    heir = next_host(now.seats, user_id)
                    if now.status == "running" and heir is not None and now.host_id == user_id:
                        await self.store.update_seats(table_id, now.version, now.seats,
                                                      host_id=heir, revision=now.revision)
                return
            except Refusal:  # the table is gone or damaged
                return
            except StaleVersion:  # another process changed the table meanwhile: again
                if attempt == LEAVE_ATTEMPTS - 1:
                    raise

__all__ = ["LEAVE_ATTEMPTS", "Forgetting", "PartlyForgotten", "People", "forgotten", "person",
           "person_text"]
