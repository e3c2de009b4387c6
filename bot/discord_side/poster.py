"""What posts the game's work: the outcome of moves becomes messages on the table's own feed
(:mod:`bot.discord_side.feed`, :class:`~bot.discord_side.messages.Messages`), a finished game's
end is announced once, and on start the tables this process holds get their messages back.

After any moves, :meth:`Poster.show` shows them: a new table message (pinging the person to
play) when a person's turn starts or the game ends, else a coalesced edit. When to do game work
(AI seats, timers, leases) is :class:`bot.game.scheduler.Scheduler`'s business; it hands what
happened here.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from functools import partial

import discord

from bot.discord_side.context import UNDELIVERED, UNKNOWN_CHANNEL, why
from bot.discord_side.feed import nonce
from bot.discord_side.messages import Messages
from bot.discord_side.standings import end_lines, rating_lines
from bot.game.markup import plain
from bot.game.play import Outcome
from bot.game.refusals import Refusal
from bot.game.scheduler import Scheduler
from bot.game.seats import won_for_person
from bot.game.service import GameService
from bot.storage.records import DamagedTournament, Shards, StorageError, TableRecord
from engine import Undo
from i18n import Msg, msg

log = logging.getLogger("karak.bot")


async def _no_summary(record: TableRecord) -> bytes | None:
    """No summary chart."""
    return None


def winner_name(record: TableRecord) -> str | Msg:
    """Who won the finished game ``record``, as its end's post names them: a person by a
    mention, a person's seat the AI played to the end by their name marked as the table marks
    an AI seat (the ratings count them as having left), an AI seat by its name or hero."""
    state = record.game
    assert state.winner is not None
    winner = record.seats[state.winner]
    if winner.user and not winner.ai:
        return f"<@{winner.user}>"
    if not winner.name:
        return msg(f"hero.{state.seats[state.winner].hero}.name")
    return (msg("bot.table.ai_played", who=plain(winner.name)) if won_for_person(record)
            else plain(winner.name))


class Poster:
    """Posts what happened at the tables (``summary``: the summary chart of a finished table,
    None: none)."""

    def __init__(self, service: GameService, messages: Messages,
                 summary: Callable[[TableRecord], Awaitable[bytes | None]] = _no_summary
                 ) -> None:
        self.service = service
        self.messages = messages
        self.summary = summary

    def show(self, outcomes: Sequence[Outcome], notice: Msg | None = None) -> None:
        """Queue what the moves changed on the table's feed (``notice``: a line for the table,
        the headline of the table message posted now, else a passing line deleted when the next
        one is posted; a take-back among the moves is told the same way). The table shown is
        the one the last move wrote (nothing is read again); it is sent in order with no lock
        held."""
        if not outcomes:
            return
        notice = notice or take_back_notice(outcomes)
        record = outcomes[-1].record
        state = record.game
        if record.status == "finished" and state.winner is not None:
            self.end(record)  # what is kept for it goes once the scheduler forgets the table
            return
        if record.status != "running":
            return
        seat = record.seats[state.current]
        if any(o.turn_changed for o in outcomes) and seat.user is not None and not seat.ai:
            self.messages.show_turn(record, notice)
        else:
            if notice is not None:
                self.messages.say(record, notice)
            self.messages.show(record)

    def begin(self, record: TableRecord) -> None:
        """Queue a started game's table message (pinging the first player); the lobby message
        is deleted."""
        self.messages.begin(record)

    async def refresh(self, record: TableRecord) -> None:
        """Queue the table message of a running table brought up to date (on start): a new one
        pinging the person to play when the bot stopped before their turn's was posted, and
        the game's beginning when it stopped before the first was (the match moved to its
        thread, the lobby message made its channel's line or deleted, as at the start; what a
        try of the stopped process may have posted is looked for first, as Discord may have
        forgotten its nonce since)."""
        if record.message_id is None:
            self.messages.begin(record, resumed=True)
        elif await self.service.meta.ping_owed(record):
            self.messages.show_turn(record)
        else:
            self.messages.show(record)

    async def take_up(self, record: TableRecord) -> None:
        """Queue the table message of a running table this process took up brought up to date
        (the process that held it may have stopped before showing its last move, or before
        pinging the person to play), unless this process already shows that state (a table it
        began, whose lease it had not claimed yet)."""
        if self.messages.feeds.showing(record.id) >= record.version:
            return
        await self.refresh(record)

    def let_go(self, table: int) -> None:
        """Another process took the table: its posts and edits still queued here are dropped
        (they would show an older state after that process's), and so is what is known here
        of its messages."""
        self.messages.let_go(table)

    def changed_elsewhere(self, table: int) -> None:
        """Another process wrote the table and may have edited its table message since, with
        pictures of its own: the pictures known here to be on it are drawn again, not sent
        back by their attachments (which that message may no longer carry)."""
        self.messages.shown.unsure(table)

    async def redraw_lobby(self, record: TableRecord) -> None:
        """Redraw an open lobby's message from the database (posted again when it was never
        posted or is gone)."""
        await self.messages.lobby.refresh(record)

    async def closed(self, record: TableRecord) -> None:
        """Queue the message of a lobby the bot closed (a day without a change) losing its
        buttons and saying why, as a cancelled lobby's does."""
        await self.messages.closed(record)

    def end(self, record: TableRecord, resumed: bool = False, late: bool = False) -> None:
        """Queue the end of a finished game on its table's feed (see :meth:`announce_end`);
        when Discord refuses it, it is posted again on the next start (``resumed``; ``late``:
        one that ended longer ago than the start's window is shown on its last table
        message)."""
        async def work() -> None:
            try:
                await self.announce_end(record, resumed, late)
            except UNDELIVERED as exc:
                log.warning("could not post the result of table %s (%s)", record.id,
                            why(exc))
        if late:  # nothing posted, its start neither
            self.messages.last(record, work)
        else:
            self.messages.end(record, work)

    async def announce_end(self, record: TableRecord, resumed: bool = False,
                           late: bool = False) -> None:
        """Post the final table with the winner and, for a rated match, what it did to each
        person's rating (once: remembered in the database; the post carries its
        :func:`~bot.discord_side.feed.nonce`, so Discord makes it once). ``resumed`` (on
        start): a try of the stopped process whose answer never came may have made it, longer
        ago than Discord remembers its nonce, so it is looked for first and taken up instead
        of a second one. ``late`` (the bot was away longer than the start's window since):
        the last table message is edited to show it instead, as no one waits for a new post
        any more, and none pings; a game whose table message was never posted, or that
        Discord will not edit, shows nothing more."""
        changes = await end_lines(self.service, record)
        headline = msg("bot.table.game_over", who=winner_name(record), steps=record.game.step)
        now = self.messages.current(record)
        if (resumed or late) and await self.messages.end_made_before(now):
            pass  # made by a try whose answer never came: taken up
        elif not late:
            await self.messages.post_table(now, headline, await self.summary(record),
                                           below=changes or None, once=nonce(record, "e"))
        elif now.message_id is not None:
            try:
                await self.messages.edit_table(now, repost=False, payload=(
                    await self.messages.table_payload(
                        now, urgent=False, headline=headline, message=now.message_id,
                        summary=await self.summary(record), below=changes or None)))
            except discord.HTTPException as exc:
                if exc.status >= 500:
                    raise  # Discord's trouble: shown on the next start
                log.warning("could not show the result of table %s (%s)", record.id,
                            exc.code or exc.status)
        await self.service.meta.announced(record.id)
        await self.messages.threads.channel_line(self.messages.current(record), "won")


async def channel_deleted(service: GameService, messages: Messages, scheduler: Scheduler,
                          channel_id: int, by: int, line: bool = True,
                          ending: str = "deleted") -> None:
    """Channel (or thread) ``channel_id`` was deleted, heard or found by a request, or
    (``ending`` "locked") a moderator locked thread ``channel_id``, where no one may write
    any more: every tournament held there is cancelled, then every lobby and running table it
    takes with it (opened in it, played in threads of it, or played in it) is closed, a match
    ending as abandoned (``by``: the bot itself, who sits at no table, so no person forfeits;
    its log and result are kept as for any abandoned match). The channel's line of a match
    whose thread was deleted or locked says so (unless ``line`` is false: its channel is gone
    too), with what that did to the ratings (rated as it stood once everyone moved, or why
    not: the line is all anyone sees of it now); nothing else is sent for the tables closed,
    whose place is gone or shut. The finished and closed matches of a deleted thread (those
    closed now too) no longer name it: the history places them in their channel."""
    async def ended(closed: TableRecord) -> None:
        try:
            below = await rating_lines(service, closed)
        except StorageError as exc:  # the line says how it ended all the same
            log.warning("could not read what table %s's end did to the ratings (%s)",
                        closed.id, type(exc).__name__)
            below = ""
        await messages.threads.channel_line(closed, ending, below)

    for tournament in await service.tournaments.channel_gone(channel_id):
        # its sign-up message went with its place: none to draw cancelled at the next start
        await service.meta.signup_closed(tournament)
    for closed in await service.lobby.close_within(channel_id, by):
        if line and closed.thread_id == channel_id:
            messages.last(closed, partial(ended, closed))
        else:
            messages.gone(closed.id)
        log.info("table %s closed: its channel %s was %s", closed.id, channel_id, ending)
        scheduler.forget(closed.id)
    if ending == "deleted":
        try:
            await service.tables.thread_gone(channel_id)
        except StorageError as exc:  # the history links to the thread as before
            log.warning("could not note that thread %s was deleted (%s)", channel_id,
                        type(exc).__name__)


async def server_left(service: GameService, messages: Messages, scheduler: Scheduler,
                      guild_id: int, by: int) -> None:
    """The bot was removed from server ``guild_id`` (kicked, or the server deleted): nothing
    can be shown there any more, so every lobby and running table of the server, and every
    tournament taking sign-ups or under way there, is closed as when its channel is deleted
    (:func:`channel_deleted`, nothing sent)."""
    channels: set[int] = set()
    for tid in await service.store.active_in_guild(guild_id):
        try:
            channels.add((await service.tables.load(tid)).channel_id)
        except Refusal:  # a table that cannot be read is closed by a moderator, as ever
            continue
    for tid in await service.store.tournaments_with_status("signup", "running"):
        try:
            tournament = await service.store.tournament(tid)
        except DamagedTournament:  # nothing of it can be read (named in a log)
            continue
        if tournament is not None and tournament.guild_id == guild_id:
            channels.add(tournament.channel_id)
    log.info("the bot left server %s: closing the tables of %d channels", guild_id,
             len(channels))
    for channel in sorted(channels):
        await channel_deleted(service, messages, scheduler, channel, by, line=False)


async def found_deleted(service: GameService, messages: Messages, scheduler: Scheduler,
                        channel_id: int, parent: int | None, by: int,
                        ending: str = "deleted") -> None:
    """A request found channel (or thread) ``channel_id`` deleted, or (``ending`` "locked")
    thread ``channel_id`` locked, what the bot did not hear (it was stopped): its tables are
    closed as when it is heard (:func:`channel_deleted`). For a table's thread (of channel
    ``parent``), Discord is asked about its channel first: when that is gone as well, the
    channel's deletion is what is handled (its tournament cancelled before its matches close,
    and no channel's line written)."""
    line = True
    if parent is not None:
        try:
            await messages.client.fetch_channel(parent)
        except discord.NotFound as exc:
            if exc.code == UNKNOWN_CHANNEL:
                channel_id, line = parent, False
        except discord.HTTPException as exc:  # not told: the thread alone, as it stands
            log.info("could not look up channel %s (%s)", parent, exc.status)
    await channel_deleted(service, messages, scheduler, channel_id, by, line, ending)


async def found_left(service: GameService, messages: Messages, scheduler: Scheduler,
                     guild_id: int, by: int) -> bool:
    """A request to a channel of server ``guild_id`` answered Missing Access: once the bot is
    ready (it then knows every server it is in), when it is in that server no more (removed
    while it was stopped, so no removal was heard), the server's tables and tournaments are
    closed as when the removal is heard (:func:`server_left`). True when they were; False for
    a server the bot is in (a channel it may not see) or that its shards here do not hear."""
    client = messages.client
    await client.wait_until_ready()
    ids = getattr(client, "shard_ids", None)
    count = getattr(client, "shard_count", None)
    if ids is not None and count is not None and not Shards(count, tuple(ids)).hear(guild_id):
        return False
    if client.get_guild(guild_id) is not None:
        return False
    await server_left(service, messages, scheduler, guild_id, by)
    return True


async def found_locked(service: GameService, messages: Messages, scheduler: Scheduler,
                       guild: discord.Guild, by: int) -> None:
    """Discord told the bot of server ``guild`` whole (at the start, or in a new session),
    its open threads included: a thread it tells locked that
    still holds a lobby, a running match or a tournament was locked while the bot heard
    nothing (stopped, or between two sessions; a thread left open by its lock refuses
    nothing the bot may do with Manage Threads), so what it holds is closed as on a lock
    heard live (:func:`channel_deleted`)."""
    locked = [t.id for t in guild.threads if t.locked]
    if not locked:
        return
    held: set[int] = set()
    for tid in await service.store.tournaments_with_status("signup", "running"):
        try:
            tournament = await service.store.tournament(tid)
        except DamagedTournament:  # nothing of it can be read (named in a log)
            continue
        if tournament is not None and tournament.guild_id == guild.id:
            held.add(tournament.channel_id)
    for thread in locked:
        if thread in held or await service.store.active_within(thread):
            log.info("thread %s was locked while the bot was away", thread)
            await channel_deleted(service, messages, scheduler, thread, by, ending="locked")


def take_back_notice(outcomes: Sequence[Outcome]) -> Msg | None:
    """Who took back which move ("Ann takes back Slip Away."), the last take-back among
    ``outcomes``: the table message then shows the game as it was before that move, and the
    take-back is in no state's narration. None when no move was taken back."""
    told = [said.text for o in outcomes if isinstance(o.action, Undo)
            for said in o.events if said.to is None]
    return told[-1] if told else None


__all__ = ["Poster", "channel_deleted", "found_deleted", "found_left", "found_locked",
           "server_left", "take_back_notice", "winner_name"]
