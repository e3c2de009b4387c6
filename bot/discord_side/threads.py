"""A match in a thread of its own: the thread's name, the one line its lobby message becomes in
the channel (who plays, then how it ended, with the thread's link), whether the bot may create
threads where a table is opened, and taking an archived thread out of the archive;
:class:`MatchThreads` opens a starting match's thread, writes the channel's line, links a
rematch from the old match's thread, knows where each table's messages go, closes the tables
of a thread or channel a request found deleted (or of a thread found locked), knowing which are
being closed meanwhile, and tells when a server's channels were out of reach (while the bot was
away, it heard no deletion, lock or removal).

A table opened with threads on (:attr:`~bot.storage.records.TableRecord.threaded`) keeps its
lobby message in the channel; at Start the match moves to a public thread created from that
message (:attr:`~bot.storage.records.TableRecord.thread_id`), where every later message of the
match goes, and the lobby message becomes the channel's line for the match. When Discord
refuses the thread, the match is played in the channel and its host is told so there.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

import discord

from bot.discord_side.context import (
    MISSING_ACCESS,
    NO_MENTIONS,
    THREAD_TYPES,
    UNKNOWN_CHANNEL,
    app_rights,
    lobby_channel,
    noted,
)
from bot.discord_side.feed import Feeds, Job, made_before, nonce, undelivered, withheld
from bot.discord_side.pace import ChannelPace
from bot.discord_side.ui.parts import GREY, MAX_TEXT, cut, layout, nested, text_block
from bot.game.markup import plain_param
from bot.game.people import person
from bot.game.refusals import Refusal
from bot.game.seats import won_for_person
from bot.game.service import GameService
from bot.storage.records import CannotSave, DamagedTournament, StorageError, TableRecord
from i18n import Msg, msg, translate

if TYPE_CHECKING:
    from discord.types.threads import ThreadArchiveDuration

log = logging.getLogger("karak.bot")
T = TypeVar("T")
#: What the bot needs in a channel to move a match to a thread there.
THREAD_NEEDS = ("create_public_threads", "send_messages_in_threads")
#: Discord's JSON error code for an act refused in an archived thread (an edit, a deletion).
ARCHIVED = 50083
#: Discord's JSON error code for a second thread started from one message.
THREAD_MADE = 160004
#: The longest thread name Discord takes.
NAME_LIMIT = 100
#: The minutes of inactivity after which Discord may archive a thread, as it offers them.
ARCHIVE_AFTER: tuple[ThreadArchiveDuration, ...] = (60, 1440, 4320, 10080)


def listed(parts: Sequence[Msg | str]) -> Msg | str:
    """``parts`` in one phrase: "Ann, Bob and 2 AI"."""
    if not parts:
        return msg("list.0")
    out = parts[0]
    for i, part in enumerate(parts[1:], start=1):
        out = msg("list.last" if i == len(parts) - 1 else "list.more", head=out, tail=part)
    return out


def called(record: TableRecord, seat: int) -> Msg | str:
    """How the channel's line and the thread's name call a person's seat: their name, or
    for a seat without one (a person forgotten since) its hero's, as the table shows it."""
    name = record.seats[seat].name
    if name:
        return name
    state = record.state
    return "?" if state is None else msg(f"hero.{state.seats[seat].hero}.name")


def players(record: TableRecord, but: int | None = None) -> Msg | str:
    """The people at the table by name, then how many AI seats ("Ann, Bob and 2 AI"), leaving
    out seat ``but``."""
    seats = [(i, s) for i, s in enumerate(record.seats) if i != but]
    names = [called(record, i) for i, s in seats if s.user is not None]
    ai = sum(s.user is None for _, s in seats)
    return listed([*names, *([msg("bot.thread.ai", count=ai)] if ai else [])])


def thread_name(record: TableRecord, tournament: tuple[str, int] | None = None) -> str:
    """The thread's name: the game (or the tournament's name and round, for a tournament's
    match: ``tournament``) and who plays, in the table's language, at most 100 characters (a
    longer one cut after a whole name, an ellipsis marking the cut)."""
    name = msg("bot.thread.name", players=players(record)) if tournament is None else msg(
        "bot.thread.tournament.name", name=tournament[0], round=tournament[1],
        players=players(record))
    return cut(translate(name, record.locale), NAME_LIMIT)


def archive_after(record: TableRecord, default: ThreadArchiveDuration) -> ThreadArchiveDuration:
    """The minutes of inactivity after which Discord archives the thread of ``record``'s
    match (which hides it from its channel's list): the channel's own ``default``, or for a
    slow match whose turn lasts longer, the shortest duration Discord offers that holds a
    whole turn (a week at most)."""
    turn = next((d for d in ARCHIVE_AFTER if d * 60 >= record.timer), ARCHIVE_AFTER[-1])
    return max(default, turn)


def thread_link(record: TableRecord, thread_id: int) -> str:
    """The link that opens the thread."""
    return f"https://discord.com/channels/{record.guild_id or '@me'}/{thread_id}"


def line(record: TableRecord, thread_id: int, ending: str | None = None) -> Msg:
    """The channel's line for a match in thread ``thread_id``: who plays (``ending`` None), who
    won ("won", for a finished game), that it was abandoned ("abandoned"), that its thread
    was deleted ("deleted") or locked by a moderator ("locked"), or that its tournament's round
    ended first ("round_over"). The line is markdown: its names are shown as typed (the
    thread's name, plain text, takes them untouched). A person's seat the AI won for them (they
    left it) is named as the AI's, as the end's post names it ("Bob [AI]")."""
    link = thread_link(record, thread_id)
    everyone = plain_param(players(record))
    if ending == "won" and record.state is not None and record.state.winner is not None:
        seat = record.state.winner
        winner = record.seats[seat]
        who = plain_param(called(record, seat)) if winner.user is not None else msg(
            f"hero.{record.state.seats[seat].hero}.name")
        if won_for_person(record):  # as the end's post names the AI's win in their seat
            who = msg("bot.table.ai_played", who=who)
        others = [s for i, s in enumerate(record.seats) if i != seat]
        if all(s.user is None for s in others):  # "won against 2 AI", not "2 opponents, 2 AI"
            return msg("bot.thread.won_ai", winner=who, count=len(others), link=link)
        return msg("bot.thread.won", winner=who, others=plain_param(players(record, but=seat)),
                   count=len(others), players=everyone, link=link)
    if ending in ("abandoned", "deleted", "locked", "round_over"):
        return msg(f"bot.thread.{ending}", players=everyone, link=link)
    return msg("bot.thread.playing", players=everyone, link=link)


def line_view(text: str) -> discord.ui.LayoutView:
    """The channel's line for a match in a thread: one line of text, no button, no picture."""
    return layout(discord.ui.Container[discord.ui.LayoutView](text_block(text),
                                                               accent_colour=GREY))


def in_thread(interaction: discord.Interaction[Any]) -> bool:
    """Whether the interaction comes from a thread (a match opened there stays there)."""
    return getattr(interaction.channel, "type", None) in THREAD_TYPES


def thread_missing(interaction: discord.Interaction[Any]) -> list[str]:
    """The permissions the bot lacks in the interaction's channel to move a match to a thread
    there (empty: it may)."""
    have = app_rights(interaction)
    return [p for p in THREAD_NEEDS if not getattr(have, p)]


async def thread_of(client: discord.Client, thread_id: int) -> discord.Thread | None:
    """Thread ``thread_id`` as the bot knows it, or as Discord tells it (an archived thread
    is not always known); None when it is no thread."""
    thread = client.get_channel(thread_id)
    if isinstance(thread, discord.Thread):
        return thread
    fetched = await client.fetch_channel(thread_id)
    return fetched if isinstance(fetched, discord.Thread) else None


async def moderator_locked(client: discord.Client, channel_id: int) -> bool:
    """Whether channel ``channel_id`` is a thread a moderator locked (asked of Discord when
    the bot does not know the channel: discord.py forgets a thread once it is archived). A
    bot that may manage threads could still post there, which would take the thread out of
    the archive the moderator left it in: it is theirs to reopen."""
    channel = client.get_channel(channel_id)
    if channel is None:
        channel = await client.fetch_channel(channel_id)
    return isinstance(channel, discord.Thread) and channel.locked


async def unarchive(client: discord.Client, thread_id: int) -> bool:
    """Take thread ``thread_id`` out of the archive (Discord refuses edits and deletions in an
    archived thread; a post would unarchive it by itself). False, the thread left as it is,
    when a moderator locked it (it is theirs to reopen)."""
    thread = await thread_of(client, thread_id)
    if thread is None:
        return True
    if thread.locked:
        return False
    await thread.edit(archived=False)
    return True


async def unarchived(client: discord.Client, thread_id: int | None,
                     act: Callable[[], Awaitable[T]],
                     locked: Callable[[int], None] | None = None) -> T:
    """``act`` (an edit or deletion in thread ``thread_id``; None: not in a thread); when
    Discord refuses it because a moderator (or Discord, after a while without messages)
    archived the thread, the thread is taken out of the archive and ``act`` tried once more.
    A thread a moderator locked is left archived: ``locked`` is told its id (a lock the bot
    did not hear, made while it was stopped), and Discord's refusal raised."""
    try:
        return await act()
    except discord.HTTPException as exc:
        if exc.code != ARCHIVED or thread_id is None:
            raise
        refused = exc
    log.info("thread %s was archived; unarchiving it", thread_id)
    if not await unarchive(client, thread_id):
        log.info("thread %s is locked", thread_id)
        if locked is not None:
            locked(thread_id)
        raise refused
    return await act()


class MatchThreads:
    """The threads matches are played in: where each table's messages go, a starting match's
    thread, the channel's line of a match played in one, and the link to a rematch."""

    def __init__(self, client: discord.Client, service: GameService, pace: ChannelPace,
                 feeds: Feeds, gone: Callable[[int, int | None, str],
                                              Coroutine[Any, Any, None]] | None = None,
                 left: Callable[[int], Coroutine[Any, Any, bool]] | None = None) -> None:
        self.client = client
        self.service = service
        self.pace = pace
        self.feeds = feeds
        #: closes the tables of a channel or thread a request found deleted, or of a thread
        #: found locked, as when the deletion or the lock is heard (run in the background:
        #: told the channel's id, for a table's thread the channel it belongs to, and how it
        #: ended, "deleted" or "locked")
        self.gone = gone
        #: looks up a server one of whose tables' channels answered Missing Access (the bot
        #: may have been removed from it while it was stopped), told its id, in the
        #: background: closes its tables when the bot is in it no more (True then)
        self.left = left
        self._threads: dict[int, int] = {}  # table -> the thread its match moved to
        self._closing: set[int] = set()  # threads and channels whose tables are being closed
        self._looking: set[int] = set()  # servers looked up now, or found to have removed the bot

    def where(self, record: TableRecord) -> int:
        """Where the table's messages go: its thread (also one opened since ``record`` was
        read), else its channel."""
        return self._threads.get(record.id, record.where)

    def current(self, record: TableRecord) -> TableRecord:
        """``record`` with the thread its match moved to since it was read."""
        thread = self._threads.get(record.id)
        return record if thread is None else replace(record, thread_id=thread)

    async def unarchived(self, record: TableRecord, act: Callable[[], Awaitable[T]]) -> T:
        """``act`` (an edit or deletion where the table's messages go), tried again once the
        thread they go to (the match's own, or the thread the table was opened in) is taken out
        of the archive when Discord refuses it there (:func:`unarchived`)."""
        return await unarchived(self.client, self.where(record), act, self.locked)

    def settling(self, record: TableRecord) -> bool:
        """Whether ``record``'s messages are being brought up to date (its feed has work:
        after a restart, the first request to its thread or channel may find it deleted), or
        its thread or channel was found gone (or its thread locked) and its tables are being
        closed."""
        return self.feeds.busy(record.id) or bool({record.where, record.channel_id}
                                                  & self._closing)

    def _close(self, channel_id: int, parent: int | None, ending: str) -> None:
        """Close the tables of channel (or thread) ``channel_id`` with :attr:`gone`, in the
        background; the channel counts as :meth:`settling` until that is done."""
        if self.gone is None:
            return
        self._closing.add(channel_id)
        task = self.feeds.tasks.spawn(self.gone(channel_id, parent, ending),
                                      f"channel-{ending}-{channel_id}")
        task.add_done_callback(lambda _: self._closing.discard(channel_id))

    def _look(self, guild_id: int) -> None:
        """Look up server ``guild_id`` with :attr:`left`, in the background: once for the many
        requests that fail together, and never again once it was found to have removed the bot
        (a server the bot is in is looked up again at a later refusal)."""
        left = self.left
        if left is None or guild_id in self._looking:
            return
        self._looking.add(guild_id)

        async def look() -> None:
            gone = False
            try:
                gone = await left(guild_id)
            finally:
                if not gone:
                    self._looking.discard(guild_id)

        self.feeds.tasks.spawn(look(), f"server-left-{guild_id}")

    def locked(self, thread_id: int) -> None:
        """A request found thread ``thread_id`` locked by a moderator (while the bot was
        away, it heard no lock): its tables end as on a lock heard (:attr:`gone`)."""
        self._close(thread_id, None, "locked")

    def lost(self, record: TableRecord, exc: discord.HTTPException) -> None:
        """A request for the table's messages failed with ``exc``: when Discord says where
        they go (the table's thread, else its channel) no longer exists (deleted while the bot
        was away, so no deletion was heard), its tables end (:attr:`gone`); when it says the
        bot may not reach it, its server may be looked up (:meth:`vanished`)."""
        self.vanished(self.where(record), exc, record.channel_id, record.guild_id)

    def vanished(self, channel_id: int, exc: discord.HTTPException,
                 parent: int | None = None, guild_id: int | None = None) -> bool:
        """A request to channel (or thread) ``channel_id`` failed with ``exc``: True when
        Discord says it no longer exists, and then its tables end (:attr:`gone`, told
        ``parent``, the channel a table's thread belongs to, which may be gone as well). When
        Discord answers Missing Access for a channel of server ``guild_id``, the server is
        looked up (:meth:`_look`: its tables close when the bot is in it no more)."""
        if exc.code == MISSING_ACCESS and guild_id is not None:
            self._look(guild_id)
        if exc.code != UNKNOWN_CHANNEL:
            return False
        log.info("channel %s is gone", channel_id)
        self._close(channel_id, None if parent == channel_id else parent, "deleted")
        return True

    async def _tournament(self, record: TableRecord) -> tuple[str, int] | None:
        """The name and the round under way of the tournament whose round opened the table
        (None: a match of its own)."""
        found = await self.service.store.tournament_of_table(record.id)
        try:
            tournament = None if found is None else await self.service.store.tournament(found)
        except DamagedTournament:  # its name cannot be read (named in a log): none given
            return None
        return None if tournament is None else (tournament.name, tournament.round)

    async def open(self, record: TableRecord, looks: bool = False) -> tuple[TableRecord, bool]:
        """Move a starting match to a public thread created from its lobby message (from a
        new line in the channel for a match without one, a rematch). When Discord refuses the
        thread, the match is played in the channel, and the True beside the record says the
        host is to be told (:meth:`refused`). When the database takes no note of the new
        thread, the match is played in the channel as well, where the stored table says it is:
        the thread is deleted (where the bot may), a warning is logged, and the host has
        nothing to mend. A match whose channel is itself a thread (a tournament opened in one)
        is played there, as a match opened in a thread is: a thread holds no thread. Opened
        once the bot is ready (a match begun at a restart): it then knows the channel. Discord's
        trouble or the connection's is raised (the start is tried again: its line carries its
        nonce, and the thread a try made before the answer was lost is taken up), and so is
        a refusal of the line for a permission the bot lost in the channel (:func:`withheld`:
        the table could not be posted there either). ``looks``: a try whose answer never came
        may have made the line longer ago than Discord remembers its nonce, so the line that
        try made is looked for first (:meth:`_line_made`), and taken up instead of a second
        one."""
        await self.client.wait_until_ready()
        if await self._in_a_thread(record):
            return await self._in_channel(record), False
        try:
            lobby_id = record.lobby_message_id
            if lobby_id is None:
                text = translate(line(record, record.channel_id), record.locale)
                sent = await self._line_made(record, text) if looks else None
                if sent is None:
                    await self.pace.request(record.channel_id)
                    sent = await lobby_channel(self.client, record).send(
                        view=line_view(text), nonce=nonce(record, "l"),
                        allowed_mentions=NO_MENTIONS)
                lobby_id = sent.id
                record = replace(record, lobby_message_id=lobby_id)
                if not await noted(self.service.tables.set_message(
                        record.id, lobby_message_id=lobby_id),
                        f"table {record.id}: the line of its match"):
                    return await self._in_channel(record), False
            lobby = lobby_channel(self.client, record).get_partial_message(lobby_id)
            await self.pace.request(record.channel_id)
            try:
                channel = self.client.get_channel(record.channel_id)
                default: ThreadArchiveDuration = (
                    channel.default_auto_archive_duration
                    if isinstance(channel, discord.TextChannel) else 1440)
                thread = await lobby.create_thread(
                    name=thread_name(record, await self._tournament(record)),
                    auto_archive_duration=archive_after(record, default))
            except discord.HTTPException as exc:
                made = await self._made(lobby_id) if exc.code == THREAD_MADE else None
                if made is None:
                    raise
                thread = made
        except discord.HTTPException as exc:
            # the line refused for a permission the bot lost: the channel would refuse the
            # table message as well (the start is tried again, thread and all)
            if undelivered(exc) or (withheld(exc) and lobby_id is None):
                raise
            log.warning("could not open a thread for table %s (%s); it is played in its "
                        "channel", record.id, exc.code or exc.status)
            return await self._in_channel(record), True
        if not await noted(self.service.tables.set_thread(record.id, thread.id, True),
                           f"table {record.id}: its thread"):
            await self._delete(record, thread)
            return await self._in_channel(record), False
        self._threads[record.id] = thread.id
        return replace(record, thread_id=thread.id), False

    async def _in_a_thread(self, record: TableRecord) -> bool:
        """Whether ``record``'s channel is itself a thread (a tournament opened in one),
        asked of Discord when the bot does not know it: discord.py forgets a thread once it
        is archived (idle for a while: sign-up or a round lasting days). Discord's trouble or
        the connection's is raised; another refusal (a channel deleted) is left to the start's
        own requests."""
        channel = self.client.get_channel(record.channel_id)
        if channel is None:
            try:
                channel = await self.client.fetch_channel(record.channel_id)
            except discord.HTTPException as exc:
                if undelivered(exc):
                    raise
        return getattr(channel, "type", None) in THREAD_TYPES

    async def _line_made(self, record: TableRecord, text: str) -> discord.Message | None:
        """The channel's line ``text`` of ``record``'s match a try whose answer never came made
        (:func:`~bot.discord_side.feed.made_before`): the bot's message in the channel showing
        that text alone, from which no thread was started. The line of a match under way links
        its thread, so such a line is one a start of these very people left behind."""
        shown = cut(text, MAX_TEXT)
        return await made_before(
            lobby_channel(self.client, record), self.client.user, 0,
            lambda message: not message.flags.has_thread and [
                getattr(c, "content", None) for c in nested(message.components)
                if isinstance(c, discord.TextDisplay)] == [shown],
            f"the line of table {record.id}")

    async def _made(self, message_id: int) -> discord.Thread | None:
        """The thread the bot started from message ``message_id`` (a try whose answer was
        lost made it), None when it is someone else's."""
        thread = await thread_of(self.client, message_id)
        me = self.client.user
        mine = thread is not None and me is not None and thread.owner_id == me.id
        return thread if mine else None

    async def _in_channel(self, record: TableRecord) -> TableRecord:
        """``record`` played in its channel, noted as no longer waiting for a thread. When the
        database takes no note, the stored table still names no thread, so its messages go to
        its channel after a restart too (only a match's start opens a thread). A guided match
        opened for a thread keeps that mark: one person's lesson holds no place in the channel
        (it may have started beside a lobby waiting there, and a lobby may open beside it)."""
        if record.lessons and record.threaded:
            return record
        with contextlib.suppress(CannotSave):
            await self.service.tables.set_thread(record.id, None, False)
        return replace(record, threaded=False)

    async def _delete(self, record: TableRecord, thread: discord.Thread) -> None:
        """Delete ``thread``, opened for table ``record`` but not kept (a warning when Discord
        refuses: the bot needs Manage Threads for it)."""
        try:
            await self.pace.request(record.channel_id)
            await thread.delete()
        except discord.HTTPException as exc:
            log.warning("could not delete the unused thread of table %s (%s)", record.id,
                        exc.status)

    async def refused(self, record: TableRecord) -> None:
        """Tell the match's host, in the channel, that Discord refused the match's thread and
        the match is played there (the host named, no one pinged)."""
        text = translate(msg("bot.thread.refused.line", host=person(record.host_id)),
                         record.locale)
        try:
            await self.pace.request(record.channel_id)
            await lobby_channel(self.client, record).send(content=text,
                                                          allowed_mentions=NO_MENTIONS)
        except discord.HTTPException as exc:
            log.warning("could not tell the host of table %s its thread was refused (%s)",
                        record.id, exc.status)

    async def channel_line(self, record: TableRecord, ending: str | None = None,
                           below: str = "") -> None:
        """Write the channel's line for a match played in a thread (its lobby message): who
        plays, or how it ended (``ending``: see :func:`line`), with ``below`` under it (what a
        match ended with its thread did to the ratings). A channel found deleted is told
        (:meth:`vanished`): its tables end with it."""
        thread = self._threads.get(record.id, record.thread_id)
        if thread is None or record.lobby_message_id is None:
            return
        text = translate(line(record, thread, ending), record.locale)
        view = line_view(f"{text}\n{below}" if below else text)
        message = lobby_channel(self.client, record).get_partial_message(record.lobby_message_id)
        try:
            await self.pace.request(record.channel_id)
            await message.edit(view=view, attachments=[], allowed_mentions=NO_MENTIONS)
        except discord.HTTPException as exc:
            if not self.vanished(record.channel_id, exc, guild_id=record.guild_id):
                log.warning("could not write the channel's line of table %s (%s)", record.id,
                            exc.status)

    def rematched(self, old: TableRecord, new: TableRecord) -> None:
        """Queue, after the first message of ``new`` (a rematch of ``old``), a link to it in
        ``old``'s thread and in the channel's line of ``new``, for matches played in
        threads."""
        async def work() -> None:
            thread = self._threads.get(new.id)
            where = self.where(old)
            if thread is None or where == old.channel_id:
                return
            text = translate(msg("bot.thread.rematch", link=thread_link(new, thread)),
                             old.locale)
            try:
                if await moderator_locked(self.client, where):
                    log.info("the thread of table %s is locked: its rematch is not linked "
                             "there", old.id)
                    return
                await self.pace.request(where)
                await self.client.get_partial_messageable(where, guild_id=old.guild_id).send(
                    content=text, allowed_mentions=NO_MENTIONS)
            except discord.HTTPException as exc:
                log.warning("could not link table %s to its rematch (%s)", old.id, exc.status)
        self.feeds.put(new.id, Job("other", new.version, work))

    def renamed(self, record: TableRecord) -> None:
        """Someone at ``record``'s running match, played in a thread the bot opened for it,
        was forgotten: the channel's line is written again (on the table's feed) and the
        thread named again, from the table as it is now, so their name is in neither. The
        name goes on its own: Discord takes two name changes of a thread in ten minutes and
        holds a third back until its turn, which the match's messages do not wait for."""
        if self._threads.get(record.id, record.thread_id) is None:
            return
        self.feeds.put(record.id, Job("other", record.version,
                                      partial(self.channel_line, record)))
        self.named_again(record)

    def named_again(self, record: TableRecord) -> None:
        """Name the thread of ``record``'s match again from the table as it is now (someone
        at it was forgotten, or its language changed), on its own (see :meth:`renamed`): also
        for a match their forgetting closed (a guided first match), whose channel's line its
        closing writes."""
        thread = self._threads.get(record.id, record.thread_id)
        if thread is not None:
            self.feeds.tasks.spawn(self._rename(record, thread), f"thread-name-{thread}")

    async def _rename(self, record: TableRecord, thread_id: int) -> None:
        """Name thread ``thread_id`` after table ``record`` as it now stands (taken out of
        the archive first, as for any edit there); a refusal is logged as a warning (a thread
        found deleted or locked is told, as for any request: :meth:`lost`)."""
        with contextlib.suppress(Refusal, StorageError):  # the table as it stands now
            record = await self.service.tables.load(record.id)
        try:
            name = thread_name(record, await self._tournament(record))
        except StorageError as exc:
            log.warning("could not name the thread of table %s again (%s)", record.id,
                        type(exc).__name__)
            return
        try:
            await self.pace.request(record.channel_id)
            thread = await thread_of(self.client, thread_id)
            if thread is None or thread.name == name:
                return
            await unarchived(self.client, thread_id, partial(thread.edit, name=name),
                             self.locked)
        except discord.HTTPException as exc:
            self.lost(record, exc)
            log.warning("could not name the thread of table %s again (%s)", record.id,
                        exc.code or exc.status)

    def forget(self, table: int) -> None:
        """Drop the thread kept for a table that ended."""
        self._threads.pop(table, None)


__all__ = ["ARCHIVED", "ARCHIVE_AFTER", "MISSING_ACCESS", "THREAD_MADE", "THREAD_NEEDS",
           "UNKNOWN_CHANNEL", "MatchThreads", "archive_after", "called", "in_thread", "line",
           "line_view", "moderator_locked", "players", "thread_link", "thread_missing",
           "thread_name", "thread_of", "unarchive", "unarchived"]
