"""Rematches: the people of a finished table play again at once, in the same channel, with the
same seats, heroes, AI levels and settings, without a lobby round.

A person of the table offers the rematch (*Rematch* on the final table message); each person
says they are ready; when every person is ready the new match starts, or the host starts it with
those who are (the seats of the others are left out; the AI seats stay). The host is the
table's, or, when the table's host held no seat there (a tournament's match, hosted by its
tournament's host), the person who offered the rematch: a match is never hosted by someone
not playing it who never asked for it. The offer lapses :data:`LAPSE` seconds after it was
made, or a turn's time after it for a slow match (people who play one move a day answer at that
pace: :func:`lapse`), and a channel that already has an active table refuses it. Every right
is checked under the finished table's lock; the offer is stored in the database
(:class:`~bot.storage.records.RematchOffer`), so a restart loses nothing. It is written only
while it is as read: when another process's click or timer pass, or a person forgotten
meanwhile (forgetting takes no finished table's lock), changed it since, a click is made again
on the offer as it is now (nobody's readiness lost, no forgotten person's id written back), and
the timer pass leaves it alone (a rematch started meanwhile stays linked to its offer).
An offer speaks its server's language as it is when the offer is made (its table takes the
language the server forced, as a language change gives it to the table of an open offer), and
so does the rematch it opens, also when the language changes at that very moment.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from bot.game.limits import TooMany
from bot.game.lobby import Lobby
from bot.game.people import forgotten
from bot.game.refusals import Refusal, Stale
from bot.game.seats import MIN_SEATS, seat_label
from bot.game.tables import Tables
from bot.storage.interface import Storage
from bot.storage.records import DamagedOffer, RematchOffer, SeatInfo, TableExists, TableRecord
from i18n import Msg, msg

#: Seconds an offer stays open at least (a match whose turns take longer: a turn's time).
LAPSE = 600.0
#: How many times a click on an offer is made again when the offer changed between its read
#: and its write (another process's click or timer pass, a person forgotten).
ATTEMPTS = 5
#: The settings of a table a rematch keeps (every field of a table that is not about one match
#: in particular: its seats, game, messages, times, or the cards it was played with).
SETTINGS = ("guild_id", "place_key", "channel_id", "host_id", "abilities", "timer", "locale",
            "ai_level", "lessons", "undo", "hints_choice", "threaded", "thread_choice")


@dataclass(frozen=True, slots=True)
class RematchState:
    """An offer as it stands after a click, its table, and the new match when it started."""

    offer: RematchOffer
    record: TableRecord
    started: TableRecord | None = None

    @property
    def lapses_at(self) -> float:
        """When the offer lapses."""
        return self.offer.offered_at + lapse(self.record)


def lapse(record: TableRecord) -> float:
    """Seconds a rematch offer of ``record`` stays open: :data:`LAPSE`, or a turn's time when
    its turns took longer (a slow match)."""
    return max(LAPSE, float(record.timer))


def people(record: TableRecord) -> tuple[int, ...]:
    """The people who held a seat at the table (a seat the AI finished still counts), but
    those forgotten since (nobody can be ready, or host, in their place)."""
    return tuple([s.user for s in record.seats if s.user is not None and not forgotten(s.user)])


def host_of(record: TableRecord, offer: RematchOffer) -> int:
    """Who hosts the rematch of ``record``: its host, or the one who offered the rematch when
    its host held no seat there (a tournament's match, hosted by its tournament's host), or,
    when neither plays it any more (forgotten since), the first person ready who still does
    (the one who offered it while nobody is)."""
    here = people(record)
    if record.host_id in here:
        return record.host_id
    if offer.offered_by in here:
        return offer.offered_by
    return next((u for u in offer.ready if u in here), offer.offered_by)


def table_active(record: TableRecord, table: int) -> Msg:
    """The refusal of ``record``'s rematch while table ``table`` holds its place: its channel,
    or in direct messages the person's own messages with the bot."""
    key = "rematch.error.table_active" if record.guild_id is not None \
        else "rematch.error.table_active_dm"
    return msg(key, table=table)


class Moved(Exception):
    """The offer changed between its read and its write: read it again."""


@dataclass
class Rematches:
    """Offering, joining and starting rematches (``clock`` and ``seeds`` injectable)."""

    store: Storage
    tables: Tables
    lobby: Lobby
    clock: Callable[[], float]
    seeds: Callable[[], int]

    async def offer(self, table_id: int, user_id: int,
                    blocked: Msg | None = None) -> RematchState:
        """A person of a finished table offers a rematch (or, when one is open, says they are
        ready); ``blocked``: why no match may begin in the channel now (the bot lacks a
        permission its posts need), which refuses the click that would start it."""
        async def make(record: TableRecord) -> RematchState:
            stored, offer = await self._open_offer(record, user_id, may_lapse=True)
            if offer is None:
                await self._channel_free(record)
                offer = RematchOffer(table_id, user_id, self.clock(), (user_id,))
                if set(people(record)) <= {user_id}:  # played alone with the AI: at once
                    return await self._begin(record, offer, stored, blocked, user_id)
                await self._write(offer, stored)
                # drawn from the table as the offer left it: in its server's language now
                return RematchState(offer, await self.tables.load(table_id))
            return await self._ready(record, offer, user_id, blocked)
        return await self._again(table_id, make)

    async def ready(self, table_id: int, user_id: int,
                    blocked: Msg | None = None) -> RematchState:
        """A person of the table says they are ready; the match starts when all are (refused
        then when ``blocked``, see :meth:`offer`)."""
        async def join(record: TableRecord) -> RematchState:
            offer = (await self._open_offer(record, user_id))[1]
            assert offer is not None
            return await self._ready(record, offer, user_id, blocked)
        return await self._again(table_id, join)

    async def start(self, table_id: int, user_id: int,
                    blocked: Msg | None = None) -> RematchState:
        """The host starts the rematch with the people who are ready (the host among them;
        refused when ``blocked``, see :meth:`offer`)."""
        async def begin(record: TableRecord) -> RematchState:
            was = (await self._open_offer(record, user_id))[1]
            assert was is not None
            if user_id != host_of(record, was):
                raise Refusal(msg("rematch.error.host_only"), record)
            offer = was if user_id in was.ready else replace(was, ready=(*was.ready, user_id))
            return await self._begin(record, offer, was, blocked, user_id)
        return await self._again(table_id, begin)

    async def set_message(self, table_id: int, message_id: int) -> None:
        """Remember the offer's public message."""
        for _ in range(ATTEMPTS):
            async with self.tables.hold(table_id):
                try:
                    offer = await self.store.rematch_of(table_id)
                    if offer is None or await self.store.save_rematch(
                            replace(offer, message_id=message_id), offer):
                        return
                except DamagedOffer:  # damaged meanwhile: nothing to remember it in
                    return

    async def offer_of(self, table_id: int) -> RematchOffer | None:
        """The table's rematch offer as stored (open, started or lapsed), or None (also when
        it is damaged: nothing of it can be drawn)."""
        try:
            return await self.store.rematch_of(table_id)
        except DamagedOffer:
            return None

    async def now(self, table_id: int) -> RematchState | None:
        """The table's offer as it stands now, with its table and, once it started, the new
        match; None when there is none, or when it or one of its tables cannot be read."""
        offer = await self.offer_of(table_id)
        if offer is None:
            return None
        try:
            record = await self.tables.load(table_id)
            started = (None if offer.new_table is None
                       else await self.tables.load(offer.new_table))
        except Refusal:
            return None
        return RematchState(offer, record, started)

    async def open_of(self, table_ids: tuple[int, ...]) -> list[RematchState]:
        """The open offers of tables ``table_ids`` whose message was posted, each with its
        table as it is now (a person who played them was forgotten: their messages name
        them)."""
        wanted = set(table_ids)
        out = []
        for offer in await self.store.open_rematches():
            if offer.table_id not in wanted or offer.message_id is None:
                continue
            try:
                record = await self.tables.load(offer.table_id)
            except Refusal:  # a damaged table: its offer cannot be drawn
                continue
            out.append(RematchState(offer, record))
        return out

    async def lapsed(self) -> list[RematchState]:
        """Close every open offer whose time ran out; the offers just closed (one that changed
        since it was read, another process's click or rematch started meanwhile, is left as
        it is)."""
        out = []
        for offer in await self.store.open_rematches():
            if self.clock() < offer.offered_at + LAPSE:  # lapses after LAPSE at the soonest
                continue
            async with self.tables.hold(offer.table_id) as record:
                try:
                    now = await self.store.rematch_of(offer.table_id)
                    if now is None or now.closed \
                            or self.clock() < now.offered_at + lapse(record):
                        continue
                    closed = replace(now, closed=True)
                    if await self.store.save_rematch(closed, now):
                        out.append(RematchState(closed, record))
                except DamagedOffer:  # damaged since it was read: left out of the next pass
                    continue
        return out

    async def _again(self, table_id: int,
                     change: Callable[[TableRecord], Awaitable[RematchState]]) -> RematchState:
        """Make ``change`` on the table held and read, again while the offer keeps changing
        between its read and its write (:class:`Moved`)."""
        for _ in range(ATTEMPTS):
            async with self.tables.hold(table_id) as record:
                try:
                    return await change(record)
                except Moved:
                    continue
        raise Stale(msg("bot.error.lobby_moved"))

    async def _write(self, offer: RematchOffer, was: RematchOffer | None) -> None:
        """Store ``offer`` while the stored one is still ``was``; :class:`Moved` if not (a
        refusal when the stored one is damaged)."""
        try:
            written = await self.store.save_rematch(offer, was)
        except DamagedOffer as exc:
            raise Refusal(msg("rematch.error.damaged", table=offer.table_id)) from exc
        if not written:
            raise Moved

    async def _open_offer(self, record: TableRecord, user_id: int, may_lapse: bool = False
                          ) -> tuple[RematchOffer | None, RematchOffer | None]:
        """The table's offer as stored and its open offer, after checking the user may take
        part; no open offer when there is none and ``may_lapse`` (a new one may be made)."""
        if record.status != "finished":
            raise Refusal(msg("rematch.error.not_finished"), record)
        if user_id not in people(record):
            raise Refusal(msg("rematch.error.not_seated"), record)
        try:
            offer = await self.store.rematch_of(record.id)
        except DamagedOffer as exc:
            raise Refusal(msg("rematch.error.damaged", table=record.id), record) from exc
        if offer is not None and offer.new_table is not None:
            raise Refusal(msg("rematch.error.started", table=offer.new_table), record)
        if offer is not None and not offer.closed \
                and self.clock() >= offer.offered_at + lapse(record):
            closed = replace(offer, closed=True)
            await self._write(closed, offer)
            offer = closed
            if not may_lapse:
                raise Refusal(msg("rematch.error.lapsed"), record)
        if offer is None or offer.closed:
            if may_lapse:
                return offer, None
            raise Refusal(msg("rematch.error.no_offer" if offer is None
                              else "rematch.error.lapsed"), record)
        return offer, offer

    async def _ready(self, record: TableRecord, offer: RematchOffer,
                     user_id: int, blocked: Msg | None = None) -> RematchState:
        if user_id in offer.ready:
            raise Refusal(msg("rematch.error.already_ready"), record)
        was, offer = offer, replace(offer, ready=(*offer.ready, user_id))
        if set(people(record)) <= set(offer.ready):
            return await self._begin(record, offer, was, blocked, user_id)
        await self._write(offer, was)
        return RematchState(offer, record)

    async def _channel_free(self, record: TableRecord) -> None:
        """Refuse when the channel has a table of its own (a tournament's matches played side
        by side in its channel hold none: a lobby may be opened beside them, and so may a
        rematch start). A guided match's rematch that moves to a thread of its own holds no
        place in the channel either: it starts beside the channel's table."""
        if record.lessons and record.threaded:
            return
        active = await self.store.active_in_channel(record.channel_id)
        if active is not None and await self.store.tournament_of_table(active) is None:
            raise Refusal(table_active(record, active), record)

    async def _begin(self, record: TableRecord, offer: RematchOffer,
                     was: RematchOffer | None, blocked: Msg | None = None,
                     by: int | None = None) -> RematchState:
        """Start the new match: the ready people and the AI seats, heroes and levels kept, and
        every setting of the table (:data:`SETTINGS`; its host as :func:`host_of` says).
        ``was``: the offer as stored (None: none yet); the offer links the new match even when
        it changed since (another process's timer pass closed it meanwhile). ``blocked``
        refuses it (nothing written: the click is made again once the channel allows), and so
        does its host playing as many matches at once as the bot allows (said to ``by``, the
        person whose click starts it, naming the host when that is someone else)."""
        if blocked is not None:
            raise Refusal(blocked, record)
        seats = [SeatInfo(user=s.user, name=s.name, hero=s.hero, level=s.level)
                 if s.user is not None else s.model_copy(update={"timeouts": 0})
                 for s in record.seats
                 if s.user is None or s.user in offer.ready and s.user in people(record)]
        if len(seats) < MIN_SEATS:
            raise Refusal(msg("rematch.error.too_few", min=MIN_SEATS), record)
        await self._channel_free(record)
        host = host_of(record, offer)
        try:
            started = await self._open(record, seats, host)
        except TooMany as exc:
            seat = record.seat_of(host)
            if by is None or by == host or seat is None:
                raise TooMany(exc.count, exc.limit, record) from None
            told = (msg("rematch.error.host_too_many", who=seat_label(record, seat),
                        count=exc.count, limit=exc.limit) if exc.count <= exc.limit
                    else msg("rematch.error.host_too_many_over", who=seat_label(record, seat),
                             count=exc.count, limit=exc.limit,
                             ends=exc.count - exc.limit + 1))
            raise Refusal(told, record) from None
        linked = replace(offer, new_table=started.id, closed=True)
        for _ in range(ATTEMPTS):
            if await self.store.save_rematch(linked, was):
                break
            was = await self.store.rematch_of(record.id)  # changed meanwhile: linked as it is
            if was is not None:
                linked = replace(was, new_table=started.id, closed=True)
        return RematchState(linked, record, started)

    async def _open(self, record: TableRecord, seats: list[SeatInfo],
                    host: int) -> TableRecord:
        """Open the rematch of ``record`` with ``seats``, hosted by ``host``, and start it (see
        :meth:`_begin`): refused before anything is written when the host plays as many
        matches at once as the bot allows (:class:`~bot.game.limits.TooMany`; when they
        started another meanwhile, the lobby opened for it is closed again)."""
        if self.lobby.limit is not None:
            await self.lobby.limit.check(host, record.timer, record)
        try:
            new = await self.store.create_table(
                guild_id=record.guild_id, place_key=record.place_key,
                channel_id=record.channel_id,
                host_id=host, seats=seats, abilities=record.abilities,
                timer=record.timer, seed=self.seeds(),
                locale=record.locale,  # unless the server forced one: the store's then
                ai_level=record.ai_level, lessons=record.lessons, undo=record.undo,
                threaded=record.threaded, hints=record.hints_choice,
                thread_chosen=record.thread_choice is not None)
        except TableExists as exc:
            raise Refusal(table_active(record, exc.table_id), record) from exc
        return await self.lobby.start_opened(new.id, host)


__all__ = ["ATTEMPTS", "LAPSE", "SETTINGS", "Moved", "RematchState", "Rematches", "host_of",
           "lapse", "people", "table_active"]
