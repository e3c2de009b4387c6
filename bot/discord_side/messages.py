"""The table message in the table's channel (or its thread): posting it, editing it (edits
coalesced) and re-posting it, the hand messages' pictures, the passing lines, and what each
table's feed carries (a game's first message, its end, its closing).

Every request for a table's messages goes out on the table's feed (:mod:`bot.discord_side.feed`),
in the order queued and with no lock held; edits of a table message are coalesced there: while
one waits for its channel, a newer state replaces it, so a fast AI turn costs a handful of edits
instead of one per move. An edit that fails because of Discord's trouble (5xx) or the
connection's is tried again later by the feed; a post is not (it may have been made), but for a
game's first table message, which Discord makes once however often it is sent (its nonce). When
an edit of the table message fails for good (the message is gone, or Discord refuses edits of a
message older than an hour, JSON error 30046), the table is posted afresh and the old message
loses its buttons; a table message posted from here an hour ago or more (a slow match's turn
played hours after it began) is posted afresh before an edit meets that limit, without a second
ping for the turn. Whenever a newer message carries the table, the older one is deleted (or,
when Discord refuses, reduced to one line pointing to the newer one), and so are the lobby
message once the game started and the passing lines (a turn timer ran out, a take-back): the
channel keeps one live message per table, and no stale mention or button is left standing.
"""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial

import discord

from bot.discord_side.context import (
    NEEDED,
    NO_MENTIONS,
    THREAD_TYPES,
    TOO_OLD_TO_EDIT,
    UNDELIVERED,
    jump_url,
    noted,
    permission_names,
    pinging,
    posted_at,
    why,
)
from bot.discord_side.feed import (
    NONCE_KEPT,
    RETRY_CAP,
    Feeds,
    Job,
    made_before,
    nonce,
    undelivered,
    withheld,
)
from bot.discord_side.lobby_message import LobbyMessages
from bot.discord_side.pace import ChannelPace
from bot.discord_side.shown import Shown, Slot
from bot.discord_side.threads import ARCHIVED, MatchThreads
from bot.discord_side.ui.custom_ids import HandButton, RematchButton
from bot.discord_side.ui.hand import hand_view
from bot.discord_side.ui.parts import nested
from bot.discord_side.ui.table import moved_view, shows_round, table_view, to_move
from bot.discord_side.uploads import ImageFile
from bot.game.lessons import emphasised
from bot.game.refusals import Refusal
from bot.game.seats import handed
from bot.game.service import GameService
from bot.game.texts import Controls, controls
from bot.storage.records import StorageError, TableRecord
from bot.supervision.tasks import Tasks
from bot.workers.pictures import Pictures
from engine import observe
from engine.agents.offered import without_undo
from i18n import Msg, msg, translate
from render import battle_key, hand_key, table_key

log = logging.getLogger("karak.bot")
#: The file name of a finished table's summary chart.
SUMMARY = "summary.png"
#: Seconds after its post a table message is posted afresh rather than edited: Discord takes
#: only a few edits an hour of a message older than an hour (JSON error 30046), which a slow
#: match's turn, played hours after its message pinged its person, would run into (a minute
#: left for the post's way to Discord).
FRESH_FOR = 3600.0 - 60.0


def transient(exc: discord.HTTPException) -> bool:
    """True for a failure that may pass by itself (a rate limit, Discord's own trouble); an
    old message's edit limit (429 with JSON code 30046) lasts up to an hour: not transient."""
    return exc.code != TOO_OLD_TO_EDIT and (exc.status == 429 or exc.status >= 500)


@dataclass
class Payload:
    """A table or hand message: its view, its pictures (new drawings, or the attachments the
    edited message already carries when their picture did not change) and the key of each
    picture by file name."""

    view: discord.ui.LayoutView
    files: list[discord.File | discord.Attachment] = field(default_factory=list)
    keys: dict[str, str] = field(default_factory=dict)
    #: a hand offering the Hint button (a decision to make at a table with hints)
    hint: bool = False

    def uploads(self) -> list[discord.File]:
        """The new drawings only (a new message carries no older attachment)."""
        return [f for f in self.files if isinstance(f, discord.File)]


class Messages:
    """Posts and edits the table message of every table (its thread and its lobby message
    are ``threads`` and ``lobby``)."""

    def __init__(self, client: discord.Client, service: GameService, pictures: Pictures,
                 tasks: Tasks, pace: ChannelPace, feeds: Feeds, threads: MatchThreads,
                 lobby: LobbyMessages, unsure: Callable[[int], bool] = lambda table: False
                 ) -> None:
        self.client = client
        self.service = service
        self.pictures = pictures
        self.tasks = tasks
        self.pace = pace
        self.shown = Shown()
        self.feeds = feeds
        self.threads = threads
        self.lobby = lobby
        #: whether another process may have taken a table up since this process last knew
        #: it held it (:meth:`~bot.game.leases.Leases.unsure`), and shown it with pictures of
        #: its own, at the version this process showed or at a later one
        self.unsure = unsure
        self._message_ids: dict[int, int] = {}  # table -> its table message posted last
        #: table -> its passing lines' messages, with the table as the latest was posted
        self._passing: dict[int, tuple[TableRecord, list[int]]] = {}
        #: table -> each mover told that the bot lacks these permissions where it is shown
        self._unshown: dict[int, dict[int, tuple[str, ...]]] = {}
        #: table -> when the post of its turn, refused for a permission the bot lacked there
        #: (its person not pinged), is tried again (:meth:`ping_owed_turns`)
        self._owed: dict[int, float] = {}
        #: table -> the start of its game, while its first table message is not known posted
        #: (given the headline and whether a person's turn began since)
        self._starts: dict[int, Callable[[Msg | None, bool], Awaitable[None]]] = {}
        #: table -> the headline of a person's turn begun while its start waited (it pings)
        self._start_turns: dict[int, Msg | None] = {}
        #: table -> who is told when its game's start is refused for a permission
        self._withheld: dict[int, Callable[[Msg], Awaitable[object]]] = {}
        #: table -> its game's end, queued once its start is done (it ended first)
        self._ends: dict[int, Callable[[], None]] = {}

    def channel(self, record: TableRecord) -> discord.PartialMessageable:
        """The table's channel, or its thread once its match moved to one."""
        return self.client.get_partial_messageable(self.threads.where(record),
                                                   guild_id=record.guild_id)

    async def send_text(self, record: TableRecord, text: str, passing: bool = False) -> None:
        """A plain line in the table's channel (no mention pings); a ``passing`` line is
        deleted when the table message is next posted."""
        await self.pace.request(self.threads.where(record))
        sent = await self.channel(record).send(content=text[:2000],
                                               allowed_mentions=NO_MENTIONS)
        if passing:
            lines = self._passing.get(record.id, (record, []))[1]
            self._passing[record.id] = (record, [*lines, sent.id])

    # ------------------------------------------------------------------ payloads

    async def _picture(self, slot: Slot, message: int | None, name: str, key: str,
                       draw: Callable[[], Awaitable[bytes | None]]
                       ) -> discord.File | discord.Attachment | None:
        """The picture ``name`` of ``key``: the attachment ``message`` already carries when it
        shows that very picture, else a new drawing (None when drawing failed)."""
        kept = self.shown.kept(slot, message, name, key)
        if kept is not None:
            return kept
        png = await draw()
        return ImageFile(png, name) if png is not None else None

    async def table_payload(self, record: TableRecord, locale: str | None = None,
                            urgent: bool = True, headline: Msg | None = None,
                            message: int | None = None, summary: bytes | None = None,
                            below: str | None = None, closed: Msg | None = None) -> Payload:
        """The table message: in the table's (public) language, or in ``locale`` for a private
        copy (``urgent=False``: a background refresh, drawn after the pictures people are
        waiting for; ``message``: the message it will edit, whose picture is kept when it did
        not change; ``below``: lines under the headline; ``closed``: how a closed table ended,
        in place of its being abandoned)."""
        lc = locale or record.locale
        obs = observe(record.game, None)
        kind = "battle" if obs.battle is not None else "table"
        name = f"{kind}.png"
        ai_now = handed(record)  # the seats the AI took over: the table picture marks them
        key = battle_key(obs, lc) if kind == "battle" else table_key(obs, lc, ai_now)
        slot = (record.id, None, lc)
        since = self.shown.version(slot)
        if (since is None or not self.service.play.wrote_all(record.id, since, record.version)
                or self.unsure(record.id)):
            message = None  # another process may have edited it since: its pictures are unknown
        picture = await self._picture(
            slot, message, name, key,
            lambda: self.pictures.battle((record.id, record.version, lc), obs, urgent)
            if kind == "battle" else self.pictures.png(kind, obs, lc, urgent, ai_now))
        files: list[discord.File | discord.Attachment] = [picture] if picture is not None else []
        view = table_view(record, obs, lc, name if files else None,
                          translate(headline, lc) if headline is not None else None,
                          SUMMARY if summary is not None else None, below,
                          await self.service.tables.round_end(record),
                          translate(closed, lc) if closed is not None else None)
        keys = {name: key} if files else {}
        if summary is not None:  # the end's summary chart: only on the message that ends it
            files.append(ImageFile(summary, SUMMARY))
        return Payload(view, files, keys)

    async def hand_payload(self, record: TableRecord, seat: int, locale: str,
                           note: Msg | None = None, message: int | None = None) -> Payload:
        """One seat's private hand message: pictures, note and move controls (``message``: the
        hand message it will edit, whose pictures are kept when they did not change)."""
        obs = observe(record.game, seat)
        playing = record.status == "running" and not record.seats[seat].ai
        offered = obs if record.undo else without_undo(obs)  # the host may forbid take-backs
        ctrls = controls(offered) if playing else Controls(())
        lesson = await self.service.play.lesson(record, seat) if playing else None
        ctrls = ctrls if lesson is None else emphasised(ctrls, lesson)
        slot = (record.id, seat, locale)
        keys = {"hand.png": hand_key(obs, locale)}
        if obs.battle is not None:
            keys["battle.png"] = battle_key(obs, locale)
        hand, battle = await asyncio.gather(
            self._picture(slot, message, "hand.png", keys["hand.png"],
                          lambda: self.pictures.png("hand", obs, locale)),
            self._picture(slot, message, "battle.png", keys["battle.png"],
                          lambda: self.pictures.battle((record.id, record.version, locale), obs))
            if obs.battle is not None else _nothing())
        files = [f for f in (hand, battle) if f is not None]
        names = [f.filename for f in files]
        view = hand_view(record, seat, obs, locale, ctrls, note, names, lesson)
        return Payload(view, files, {n: keys[n] for n in names},
                       hint=bool(record.hints and ctrls.notations()))

    def unshown(self, record: TableRecord, user: int, missing: Sequence[str]) -> Msg | None:
        """The line telling ``user``, who just moved, that the table message cannot show their
        move because the bot lacks the permissions ``missing`` where it is shown (None: nothing
        to tell): each mover once, until those permissions are back (told again when they
        change)."""
        if not missing:
            self._unshown.pop(record.id, None)
            return None
        told = self._unshown.setdefault(record.id, {})
        if told.get(user) == tuple(missing):
            return None
        told[user] = tuple(missing)
        return msg("bot.hand.unshown", channel=f"<#{self.threads.where(record)}>",
                   missing=permission_names(missing), count=len(missing))

    def sent_hand(self, record: TableRecord, seat: int, locale: str,
                  message: discord.Message | None, payload: Payload) -> None:
        """``message`` now carries ``payload``, the seat's hand: its next edit keeps the
        pictures that did not change (None: Discord did not say what the message carries, so
        the next edit sends every picture). A Hint button shown gets the hint workers ready
        before its first click (only once shown: drawing a hand starts nothing)."""
        if message is not None:
            self.shown.remember((record.id, seat, locale), message, payload.keys)
        else:
            self.shown.drop((record.id, seat, locale))
        if payload.hint:
            self.service.hints.prepare(record)

    # ------------------------------------------------------------------ the table message

    async def post_table(self, record: TableRecord, headline: Msg | None = None,
                         summary: bytes | None = None, below: str | None = None,
                         once: str | None = None, ping: bool = True) -> discord.Message:
        """Post a fresh table message (a person's turn starts, the game ends, the old message
        is gone or refuses edits); it pings the person who must play. The older message is
        deleted (``below``: lines under the headline, such as the end's rating changes). When
        the table's thread or channel is found deleted, its tables end as abandoned
        (``threads.gone``); so do its server's when the bot was removed from it
        (``threads.left``). ``once``: the post's :func:`~bot.discord_side.feed.nonce`, for a post
        tried again when it is cut off (Discord makes it once): the message Discord gave back
        may then be the one an earlier try made, showing the table as it stood then). ``ping``
        false: the person who must play was pinged for this turn already, and is not again.
        Returns the message."""
        payload = await self.table_payload(record, headline=headline, summary=summary,
                                           below=below)
        await self.pace.request(self.threads.where(record))
        mover = to_move(record, observe(record.game, None)) if ping else None
        pings = mover is not None
        try:
            message = await self.channel(record).send(
                view=payload.view, files=payload.uploads(),
                allowed_mentions=NO_MENTIONS if mover is None else pinging(mover),
                nonce=secrets.randbits(64) if once is None else once)  # discord.py's default
        except discord.HTTPException as exc:
            self.threads.lost(record, exc)  # its thread, channel or server gone while away
            raise
        self.shown.remember((record.id, None, record.locale), message, payload.keys,
                            record.version)
        await self._carried(record, message.id, pings)
        return message

    async def _carried(self, record: TableRecord, message: int, pings: bool) -> None:
        """Message ``message``, posted now, carries ``record``'s table (``pings``: it names
        the person to move): noted, and the older message and passing lines retired."""
        self._message_ids[record.id] = message
        # known here when it cannot be saved; after a restart the table is posted afresh
        await noted(self.service.tables.set_message(record.id, message_id=message),
                    f"table {record.id}: its new table message")
        if pings:  # after a restart, the turn is edited in, not pinged again
            await noted(self.service.meta.pinged(record),
                        f"table {record.id}: the ping of its turn")
        if record.message_id is not None and record.message_id != message:
            await self.retire(replace(record, message_id=message), record.message_id)
        await self.retire_passing(record)

    async def _made_before(self, record: TableRecord) -> discord.Message | None:
        """The table message of ``record``'s table a try whose answer never came made
        (:func:`~bot.discord_side.feed.made_before`): the bot's message in its channel (or
        thread) with the table's *My hand* button, newer than its lobby message (not one of a
        table of a database replaced since, numbered alike)."""
        mine = HandButton.id_for(record.id)
        return await made_before(
            self.channel(record), self.client.user, record.lobby_message_id or 0,
            lambda message: any(getattr(c, "custom_id", None) == mine
                                for c in nested(message.components)),
            f"the table message of table {record.id}")

    async def end_made_before(self, record: TableRecord) -> bool:
        """Whether the post of ``record``'s end that a try whose answer never came made (a
        stopped process's, at a moment not known here) is found: the bot's message in its
        channel (or thread) with the table's Rematch button, newer than its table message
        (:func:`~bot.discord_side.feed.made_before`). Found, it is taken up as the table
        message, the older one retired."""
        offer = RematchButton.id_for(record.id, "offer")
        made = await made_before(
            self.channel(record), self.client.user,
            record.message_id or record.lobby_message_id or 0,
            lambda message: any(getattr(c, "custom_id", None) == offer
                                for c in nested(message.components)),
            f"the result of table {record.id}")
        if made is None:
            return False
        await self._carried(record, made.id, False)
        return True

    async def _brought_up(self, record: TableRecord, message: discord.Message,
                          headline: Msg | None) -> None:
        """``message``, the game's first table message taken up, may have been made by a try
        whose answer never came, showing the table as it stood then (Discord gives it back for
        its nonce, or it was found): it is brought up to ``record``, and when it did not ping
        the person to move now for this turn (it names someone else, or its footer line shows
        no move of this round: each seat plays one turn a round, so the turn it pinged them for
        is over, whichever try made it, here or in a stopped process), the turn is posted
        afresh to ping them (the older message retired)."""
        mover = to_move(record, observe(record.game, None))
        self.shown.drop((record.id, None, record.locale))  # its pictures may be older
        texts = [getattr(c, "content", None) or "" for c in nested(message.components)]
        lines = {line for text in texts for line in text.split("\n")}
        if mover is not None and (
                not any(f"<@{mover}>" in text for text in texts)
                or not shows_round(lines, record.game.round, record.locale)):
            await self._turn(record, headline)
        else:
            await self.edit_table(record)

    async def retire(self, record: TableRecord, old: int) -> None:
        """Delete the older table message ``old``: the channel keeps one live message per
        table. When Discord refuses the deletion, the old message is reduced to a line pointing
        to the current one instead, so no stale mention or button is left standing."""
        if await self.delete(record, old):
            return
        message = self.channel(record).get_partial_message(old)
        try:
            await self.pace.request(self.threads.where(record))
            await self.threads.unarchived(record, partial(
                message.edit, view=moved_view(record, jump_url(record), record.locale),
                attachments=[], allowed_mentions=NO_MENTIONS))
        except discord.HTTPException as exc:
            log.warning("could not take the buttons off message %s of table %s (%s)", old,
                        record.id, exc.status)

    async def delete(self, record: TableRecord, old: int) -> bool:
        """Delete the bot's own message ``old`` in the table's channel; True when it is gone
        (deleted now or before), False when Discord refused (logged)."""
        try:
            await self.pace.request(self.threads.where(record))
            await self.threads.unarchived(record,
                                          self.channel(record).get_partial_message(old).delete)
        except discord.NotFound:
            return True
        except discord.HTTPException as exc:
            log.info("could not delete message %s of table %s (%s)", old, record.id,
                     exc.code or exc.status)
            return False
        return True

    async def retire_passing(self, record: TableRecord) -> None:
        """Delete the lines that only mattered until the table message was posted again (a
        turn timer ran out, a take-back): the newer table message carries the game on."""
        for old in self._passing.pop(record.id, (record, []))[1]:
            await self.delete(record, old)

    async def edit_table(self, record: TableRecord, repost: bool = True,
                         payload: Payload | None = None) -> None:
        """Bring the table message up to date (with ``payload`` when it is drawn already),
        drawing its picture only when it changed; when Discord will not edit it any more (gone,
        too old, refused), post it afresh (unless ``repost`` is false; nor in a thread still
        archived, which a moderator locked: its match ends). A message posted
        :data:`FRESH_FOR` ago or longer (a slow match's turn played hours after it began; its id
        tells when it was posted, before a restart too) is posted afresh at once, instead of
        running into Discord's few edits an hour of an old message: pinging the person to play
        only when their turn's ping is owed (they are usually the one playing); where the bot
        may no longer post, the message is edited."""
        if record.message_id is None:
            if repost:
                await self._afresh(record)
            return
        if repost and self._aged(record):
            try:
                await self._afresh(record, await self._ping_owed(record))
                return
            except discord.HTTPException as exc:
                if not withheld(exc):
                    raise
                log.info("table %s: could not post it afresh (%s); its message is edited",
                         record.id, exc.code)
        slot = (record.id, None, record.locale)
        if payload is None:
            payload = await self.table_payload(record, urgent=False, message=record.message_id)
        message = self.channel(record).get_partial_message(record.message_id)
        try:
            await self.pace.request(self.threads.where(record))
            edited = await self.threads.unarchived(record, partial(
                message.edit, view=payload.view, attachments=payload.files,
                allowed_mentions=NO_MENTIONS))
        except discord.NotFound:
            self.shown.drop(slot)
            if repost:
                await self._afresh(replace(record, message_id=None))
            return
        except discord.HTTPException as exc:
            self.shown.drop(slot)
            if transient(exc) or not repost or exc.code == ARCHIVED:  # locked: not posted in
                raise
            log.info("table %s: its message refuses edits (%s); posting it again", record.id,
                     exc.code or exc.status)
            await self._afresh(record)
            return
        self.shown.remember(slot, edited, payload.keys, record.version)

    async def _ping_owed(self, record: TableRecord) -> bool:
        """Whether the person to play at ``record``'s table was not pinged for their turn yet
        (False when the database cannot tell: they most likely were)."""
        try:
            return await self.service.meta.ping_owed(record)
        except StorageError as exc:
            log.warning("table %s: could not tell whether its turn was pinged (%s)", record.id,
                        type(exc).__name__)
            return False

    def _aged(self, record: TableRecord) -> bool:
        """Whether ``record``'s table message was posted :data:`FRESH_FOR` ago or longer."""
        return (record.message_id is not None
                and self.service.clock() - posted_at(record.message_id) >= FRESH_FOR)

    async def _afresh(self, record: TableRecord, ping: bool = True) -> None:
        """Post the table afresh for an edit that could not be made (``ping`` false: without
        pinging the person to play, as :meth:`post_table`): a post cut off by Discord's
        trouble or the connection's is told, and not raised as the edit's failure (the edit
        would be tried again, and the post may have been made)."""
        try:
            await self.post_table(record, ping=ping)
        except UNDELIVERED as exc:
            if not undelivered(exc):
                raise
            log.warning("could not post table %s afresh (%s)", record.id, why(exc))

    # ------------------------------------------------------------------ the table's feed

    def current(self, record: TableRecord) -> TableRecord:
        """``record`` with the table message posted last (a move read before a queued post
        went out still names the older message)."""
        known = self._message_ids.get(record.id)
        if known is not None:
            record = replace(record, message_id=known)
        return self.threads.current(record)

    def show(self, record: TableRecord) -> None:
        """Queue an edit of the table message to show ``record`` (coalesced: while it waits
        for its channel, a newer state replaces it); while the game's first table message is
        not posted yet, its start is queued again instead (:meth:`_started`), or, when
        another process holds that start, nothing is (:meth:`_not_moved`)."""
        if self._started(record, None, False) or self._not_moved(record):
            return
        self.feeds.put(record.id, Job("edit", record.version, partial(self._edit, record),
                                      self.threads.where(record)))

    def _started(self, record: TableRecord, headline: Msg | None, turn: bool) -> bool:
        """True when the game's first table message is not posted yet (its start still tried
        again, or given up for a while): the start is queued again in place of the edit (or,
        ``turn``, the post of a person's turn with ``headline``) that would show ``record``,
        so it is never given up for a newer move, and posts the table as it then stands, in
        the match's thread; once the first message is posted, it shows ``record`` instead. A
        start still waiting on the table's feed is replaced, not followed, by the newer one
        (each would edit the table and delete the lobby message again), and a person's turn
        begun meanwhile is kept for whichever runs, so its ping is not lost."""
        start = self._starts.get(record.id)
        if start is None:
            return False
        if turn:  # kept for the start that runs, whichever of those queued it is
            self._start_turns[record.id] = headline
        self.feeds.put(record.id, Job("post", record.version, partial(start, headline, turn),
                                      again=True))
        return True

    def _not_moved(self, record: TableRecord) -> bool:
        """True when the match bound for a thread of its own has neither its thread nor its
        first table message yet, and its start is not this process's (another process holding
        the table begins it, showing the table as it then stands): posted from here, the
        table would stand in the channel without the thread."""
        now = self.current(record)
        return (record.status == "running" and now.threaded and now.thread_id is None
                and now.message_id is None and record.id not in self._starts)

    async def _edit(self, record: TableRecord) -> None:
        """Edit the table message (re-posted when it refuses edits)."""
        await self.edit_table(self.current(record))

    def show_turn(self, record: TableRecord, headline: Msg | None = None) -> None:
        """Queue a fresh table message for a person's new turn (it pings them; ``headline``:
        a line above it). When Discord refuses the post, or the connection fails on its way,
        the line is told and an edit of the old message queued instead (a post is never tried
        again: it may have been made). While the game's first table message is not posted
        yet, its start is queued again instead (:meth:`_started`), or, when another process
        holds that start, nothing is (:meth:`_not_moved`)."""
        if self._started(record, headline, True) or self._not_moved(record):
            return
        self.feeds.put(record.id, Job("post", record.version,
                                      partial(self._turn, record, headline)))

    async def _turn(self, record: TableRecord, headline: Msg | None) -> None:
        """Post the table for a person's new turn; refused, the table message is edited to
        show it instead. Refused for a permission the bot lacks there (a moderator took Send
        Messages in Threads, say), the post is tried again every :data:`RETRY_CAP` seconds
        (:meth:`ping_owed_turns`), so once the permission is given back the person whose turn
        it is gets their ping, without waiting for a move of theirs."""
        try:
            await self.post_table(self.current(record), headline)
            self._owed.pop(record.id, None)
            return
        except UNDELIVERED as exc:  # refused, or cut off on its way
            if record.id in self._owed:  # tried again: warned once already
                log.info("could not post the turn of table %s yet (%s)", record.id, why(exc))
            else:
                log.warning("could not post the turn of table %s (%s)", record.id, why(exc))
            if withheld(exc) and record.guild_id is not None:
                self._owed[record.id] = self.feeds.clock() + RETRY_CAP
        if headline is not None:  # refused too, most likely: the edit shows the turn anyway
            await self._say(record, headline)
        self.show(record)  # queued: tried again when it fails as well

    async def ping_owed_turns(self) -> None:
        """Post again the turns whose post was refused for a permission the bot lacked (a
        pass of the bot's timers, :data:`RETRY_CAP` seconds after the last try): the table
        as it stands now, pinging the person whose turn it is, unless a post pinged them
        since (a move of theirs posted the table afresh), or the match is over."""
        now = self.feeds.clock()
        for table, due in list(self._owed.items()):
            if due > now:
                continue
            self._owed[table] = now + RETRY_CAP  # its post, refused again, is tried later
            try:
                record = await self.service.tables.load(table)
            except StorageError:  # the database away: tried again at a later pass
                continue
            except Refusal:
                record = None
            if record is not None and record.status == "running" and await self._ping_owed(
                    record):
                self.show_turn(record)
            else:
                self._owed.pop(table, None)

    def say(self, record: TableRecord, notice: Msg) -> None:
        """Queue a passing line for the table (deleted when its table message is next
        posted)."""
        self.feeds.put(record.id, Job("other", record.version,
                                      partial(self._say, record, notice)))

    async def _say(self, record: TableRecord, notice: Msg) -> None:
        try:
            await self.send_text(record, translate(notice, record.locale), passing=True)
        except UNDELIVERED as exc:
            log.warning("could not tell table %s that %s (%s)", record.id, notice.key,
                        why(exc))

    def last(self, record: TableRecord, work: Callable[[], Awaitable[None]]) -> None:
        """Queue the table's last messages (its end, its closing): nothing is posted or
        edited for it after them, and what is kept for it is dropped once they are sent."""
        async def then() -> None:
            try:
                await work()
            finally:
                self._drop(record.id)
        self.feeds.put(record.id, Job("last", record.version, then))

    def end(self, record: TableRecord, work: Callable[[], Awaitable[None]]) -> None:
        """Queue a finished game's end (``work``, its last messages, see :meth:`last`); while
        the game's first table message is not posted yet (every seat left to the AI, which
        played the match to its end during Discord's outage or while a permission was away),
        the start goes first, tried again as ever (the match moves to its thread, the lobby
        message makes way), and the end follows it there, posting the final table. So it does
        after a restart, when the stopped process's start never posted the first table message
        (a start taken up, :meth:`begin` ``resumed``)."""
        if record.id in self._starts:
            self._ends[record.id] = partial(self.last, record, work)
            self._started(record, None, False)
        elif record.state is not None and self.current(record).message_id is None:
            self.begin(record, resumed=True)
            self._ends[record.id] = partial(self.last, record, work)
        else:
            self.last(record, work)

    def begin(self, record: TableRecord, resumed: bool = False) -> None:
        """Queue the first table message of a game that started (it pings the first player),
        unless the table was closed meanwhile; once posted, the lobby message has done its work
        and is deleted. Cut off by Discord's trouble or the connection's, or refused for a
        permission a moderator took from the bot (a tournament's round seated meanwhile), it
        is tried again later as an edit is (nothing else would post it before a restart; the
        post carries its nonce, so Discord makes it once), going on from what was done
        already; Discord's trouble or the connection's, or the permission's absence, is waited
        out however long it lasts (at a person's turn, no move would follow to post it).
        Tried again once Discord may have forgotten the nonce of a try whose answer never came
        (:data:`~bot.discord_side.feed.NONCE_KEPT`), it first looks for what that try posted
        (the channel's line of a match moved to its thread, the table message) among the
        channel's latest, and takes it up instead of posting a second one; a message a try
        before made, given back or found, shows the table as it stood then, so it is brought up
        to date (a turn begun since posted afresh, pinging its person). A change of the
        table before its first message is posted (a seat left to the AI, a turn timer run out)
        queues the start again in place of the edit or post that would show it
        (:meth:`_started`): an edit has no message to edit yet, and a post would not open the
        match's thread; a game that ended meanwhile (every seat left to the AI) is posted as it
        ended, its end following (:meth:`end`). ``resumed``: a start taken up from a process
        that stopped (a restart, or another process taking the table up), whose tries may have
        made those posts at a moment not known here, so they are looked for from the first try
        on."""
        refused = False  # Discord refused the match's thread: its host is told, once
        # when the first try whose answer never came began (a resumed start's: long ago)
        unanswered: float | None = -math.inf if resumed else None

        async def work(headline: Msg | None = None, turn: bool = False) -> None:
            nonlocal unanswered
            if record.id in self._start_turns:  # a person's turn began while it waited
                headline, turn = self._start_turns.pop(record.id), True
            began = self.feeds.clock()
            try:
                # past its nonce's time, a try whose answer never came may have made its posts
                await start(unanswered is not None and began - unanswered >= NONCE_KEPT,
                            headline, turn)
            except UNDELIVERED as exc:
                if undelivered(exc) and unanswered is None:
                    unanswered = began
                if withheld(exc):
                    self._withheld_told(record)
                raise
            self._withheld.pop(record.id, None)
            if self._starts.get(record.id) is work:
                del self._starts[record.id]  # done: the table's changes show it from now on
                ended = self._ends.pop(record.id, None)
                if ended is not None:  # the game ended before its start was posted
                    ended()

        async def start(looks: bool, headline: Msg | None, turn: bool) -> None:
            nonlocal refused
            # read under the table's lock, and let it go before posting: a request about the
            # table already waiting for the lock (a /goblin abandon) goes first
            try:
                async with self.service.tables.hold(record.id) as now:
                    pass
            except Refusal:
                return
            if now.status not in ("running", "finished"):  # closed meanwhile: the lobby
                await self.lobby.edit(None, now)  # says it was cancelled
                return
            if now.threaded and now.thread_id is None:
                now, refused = await self.threads.open(now, looks)
            now = self.current(now)
            if now.message_id is not None:  # posted by a try before: a newer move shows it
                await (self._turn(now, headline) if turn else self.edit_table(now))
            else:
                try:
                    made = await self._made_before(now) if looks else None
                    if made is None:
                        made = await self.post_table(now, headline, once=nonce(record, "t"))
                    else:
                        await self._carried(now, made.id, to_move(
                            now, observe(now.game, None)) is not None)
                except UNDELIVERED as exc:
                    if undelivered(exc) or withheld(exc):
                        raise  # tried again later
                    log.warning("could not post the table message of table %s (%s)",
                                record.id, why(exc))
                    return
                now = self.current(now)
                if unanswered is not None:  # made by a try before, as the table stood then
                    await self._brought_up(now, made, headline)
                    now = self.current(now)
            if refused:
                refused = False
                await self.threads.refused(now)
            if now.thread_id is not None:
                await self.threads.channel_line(now)
            elif now.lobby_message_id is not None:
                await self.delete(now, now.lobby_message_id)
        self._starts[record.id] = work
        self.feeds.put(record.id, Job("post", record.version, work, again=True))

    def when_withheld(self, table: int, tell: Callable[[Msg], Awaitable[object]]) -> None:
        """Who is told, once, when Discord refuses the start of ``table``'s game for a
        permission a moderator took from the bot (``tell``: the private answer to the click
        or command that started it, which needs no permission where the table is)."""
        self._withheld[table] = tell

    def _withheld_told(self, record: TableRecord) -> None:
        """The start of ``record``'s game was refused for a permission: whoever started it is
        told (once) that its table is not posted, where, the permissions a table needs there
        (in a thread, the match's own or the one its lobby was opened in, sending in threads
        stands for sending messages), and that it is posted as soon as the bot may (its start
        is tried again). In a person's direct messages, which they closed to the bot (or
        blocked it), they are told so, and that ``/goblin hand`` shows their hand meanwhile."""
        tell = self._withheld.pop(record.id, None)
        if tell is None:
            return
        now = self.current(record)
        if now.guild_id is None:  # the person's own direct messages, closed to the bot
            told = msg("bot.done.start_dms_closed", table=record.id)
        else:
            where = self.threads.where(now)
            in_thread = (where != now.channel_id or getattr(
                self.client.get_channel(where), "type", None) in THREAD_TYPES)
            needed = [("send_messages_in_threads" if p == "send_messages" and in_thread else p)
                      for p in NEEDED]
            told = msg("bot.done.start_withheld", table=record.id, channel=f"<#{where}>",
                       needed=permission_names(needed))

        async def telling() -> None:
            try:
                await tell(told)
            except UNDELIVERED as exc:
                log.warning("could not tell who started table %s that its table was refused "
                            "(%s)", record.id, why(exc))
        self.tasks.spawn(telling(), f"withheld-{record.id}")

    def mark_dirty(self, table: int) -> None:
        """Ask for the table message to be refreshed soon, from the table read once."""
        self.tasks.spawn(self._load_and_show(table), f"refresh-{table}")

    def relocalised(self, table: int) -> None:
        """The table's language changed: its lobby message is redrawn, or its table message
        and the channel's line of a match played in a thread, each from the table as it is
        when the redraw goes out on its feed (so a lobby change made meanwhile is never
        drawn over by the table as it was before); the thread the bot opened for the match is
        named again in that language, on its own (:meth:`MatchThreads.named_again`)."""
        async def work() -> None:
            try:
                record = await self.service.tables.load(table)
            except Refusal:
                return
            if record.status == "lobby":
                await self.lobby.edit(None, record)
            elif record.status == "running":
                record = self.current(record)
                await self.threads.channel_line(record)
                self.threads.named_again(record)
        self.feeds.put(table, Job("other", -1, work))
        self.mark_dirty(table)

    async def _load_and_show(self, table: int) -> None:
        try:
            record = await self.service.tables.load(table)
        except Refusal:
            return
        if record.state is not None and record.status == "running":
            self.show(record)

    def forget(self, table: int) -> None:
        """Drop what is kept for a table that ended (once its feed has gone out, and its end
        waiting for its start went too)."""
        if not self.feeds.busy(table) and table not in self._ends:
            self._drop(table)

    def gone(self, table: int) -> None:
        """The table's channel (or thread) was deleted and the table closed with it: what is
        queued for it is dropped (nothing can be sent there any more), and so is what is kept
        of its messages."""
        self.feeds.end(table)
        self._drop(table)

    def let_go(self, table: int) -> None:
        """Another process shows the table now: drop its posts and edits still queued, and
        what is known here of its messages (read afresh if it comes back). The passing lines
        posted from here (and those still queued, once they went) are deleted: the table's
        own process posts the table afresh, and does not know them."""
        self.feeds.drop(table)
        self._drop(table, lines=False)
        self.feeds.put(table, Job("other", 0, partial(self._retire_lines, table)))

    async def _retire_lines(self, table: int) -> None:
        """Delete the passing lines posted from here for a table another process took."""
        kept = self._passing.pop(table, None)
        if kept is not None:
            record, lines = kept
            for old in lines:
                await self.delete(record, old)

    def _drop(self, table: int, lines: bool = True) -> None:
        self._message_ids.pop(table, None)
        self._owed.pop(table, None)
        self._starts.pop(table, None)
        self._start_turns.pop(table, None)
        self._withheld.pop(table, None)
        self._ends.pop(table, None)
        self.threads.forget(table)
        if lines:
            self._passing.pop(table, None)
        self.shown.forget(table)
        self.feeds.forget(table)
        self._unshown.pop(table, None)

    def busy(self, table: int) -> bool:
        """True while something is kept for the table (tests)."""
        return self.feeds.busy(table)

    async def closed(self, record: TableRecord, below: str | None = None,
                     ending: str = "abandoned") -> None:
        """A table closed: its lobby or table message loses its buttons, says so (a match its
        tournament round's end closed, ``ending`` "round_over", that the round ended first, not
        that it was abandoned), adds ``below``, and the channel's line of a match played in a
        thread says how it ended (``ending``, see :func:`~bot.discord_side.threads.line`),
        queued last on the table's feed."""
        self.last(record, partial(self._close, record, below, ending))

    async def _close(self, record: TableRecord, below: str | None, ending: str) -> None:
        record = self.current(record)
        if record.state is None or record.message_id is None:
            await self.lobby.edit(None, record)  # a game closed before its first message
            return
        await self.threads.channel_line(record, ending)
        closed = msg("bot.table.round_over") if ending == "round_over" else None
        try:
            await self.edit_table(record, repost=False, payload=await self.table_payload(
                record, urgent=False, message=record.message_id, below=below, closed=closed)
                if below or closed else None)
        except UNDELIVERED as exc:
            log.warning("could not close the table message of table %s (%s)", record.id,
                        why(exc))


async def _nothing() -> None:
    """No picture."""
    return None


__all__ = ["Messages", "TOO_OLD_TO_EDIT", "transient"]
