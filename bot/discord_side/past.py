"""Past matches on Discord: ``/goblin history`` and ``/goblin replay``, the clicks on their
messages, sharing a match's animation, and rematches. Each answer acknowledges first, asks the
service (:mod:`bot.game.history`, :mod:`bot.game.rematch`) and answers; every state is in the
custom id or the database.

The animation is drawn in a thread of the bot (``asyncio.to_thread``): it is asked for rarely,
and a worker process would have to rebuild the whole replay from the log. One animation is drawn
at a time, and the last few are kept, so clicks on Share never pile up drawings.

A match's animation is posted at most once per channel within a window, and a person shares no
more often than the channel's slowmode lets them post (:mod:`bot.game.shares`; the claim is
kept in the database, so it holds across processes and restarts). An earlier post Discord no
longer knows (a moderator deleted it: the bot hears no message deletions, it asks when a click
is refused for it) no longer holds the match back. A server's clicks all come
through one process (its shard's), so the clicks on one match in one channel are also answered
one after the other in the process: those made while it is being drawn and posted wait, then
are pointed at the post.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Collection
from functools import partial
from typing import Any
from weakref import WeakValueDictionary

import discord

from bot.discord_side.context import (
    DMS_CLOSED,
    MENTIONS,
    NO_MENTIONS,
    THREAD_TYPES,
    UNDELIVERED,
    UNKNOWN_MESSAGE,
    app_rights,
    clicked_at,
    lacking,
    loc,
    missing_message,
    missing_permissions,
    noted,
    place_refusal,
    told_privately,
    views_channel,
    why,
)
from bot.discord_side.messages import Messages
from bot.discord_side.sight import Sights, sight_of_table
from bot.discord_side.threads import ARCHIVED, in_thread, moderator_locked
from bot.discord_side.ui.past import (
    MENU_OPTIONS,
    goto,
    history_view,
    rematch_view,
    replay_view,
)
from bot.discord_side.uploads import ImageFile
from bot.game.history import Loaded
from bot.game.places import Place
from bot.game.refusals import Refusal
from bot.game.rematch import RematchState
from bot.game.seats import handed
from bot.game.service import GameService
from bot.storage.records import TableRecord, Unreachable
from bot.storage.shares import ShareClaim, SharedPost
from engine import GameConfig
from engine.names import seat_name
from engine.replay import Replay
from i18n import Msg, Param, msg, translate
from render.animation import MAX_BYTES, match_animation
from render.charts import SeatSeries, summary_chart

log = logging.getLogger("karak.bot")
#: Discord's upload limit of a message without Nitro boosts.
UPLOAD_LIMIT = 8 * 1024 * 1024
#: Animations kept (by table and language), the most recently made.
KEPT_ANIMATIONS = 2
#: What sharing an animation takes in the channel, of the clicker and of the bot (in a thread,
#: sending messages in threads instead of sending messages).
CLICKER_NEEDS = ("send_messages", "attach_files")
BOT_NEEDS = ("view_channel", "send_messages", "attach_files")
#: Discord's JSON error codes of a post refused in a thread beyond the permissions: archived
#: and locked, or locked, without Manage Threads.
POST_REFUSED = (ARCHIVED, 160005)


def round_series(replay: Replay, ai: Collection[int] = ()) -> list[SeatSeries]:
    """Each seat's keys and hit points at the end of every round of a match (for the summary
    chart), in seat order (``ai``: the seats the AI played at the end, its own or a person's
    it took over, whose names the chart marks as an AI seat's)."""
    ends: dict[int, int] = {}  # round -> its last step
    for step in range(replay.last + 1):
        ends[replay.state(step).round] = step
    states = [replay.state(ends[r]) for r in sorted(ends)]
    final = replay.final
    return [SeatSeries(seat.hero, _name(seat_name(final, i)),
                       keys=tuple([len(s.seats[i].keys) for s in states]),
                       hp=tuple([s.seats[i].hp for s in states]), won=final.winner == i,
                       ai=i in ai)
            for i, seat in enumerate(final.seats)]


def _name(name: Param) -> str | Msg:
    """A seat's name as a chart takes it."""
    return name if isinstance(name, Msg) else str(name)


def share_refusal(interaction: discord.Interaction[Any]) -> Msg | None:
    """Why the clicker's animation cannot be posted in the interaction's channel, or None: the
    bot may only answer there (a group direct message, a server that did not install it: see
    :func:`place_refusal`); in a server, the clicker lacks a permission a post with a file
    takes (their own permissions in the channel, as Discord resolved them); anywhere, the bot
    does."""
    if place_refusal(interaction) is not None:
        return msg("replay.sharing.group_dm" if interaction.guild_id is None
                   else "replay.sharing.not_in_server")
    if interaction.guild_id is not None:
        theirs = lacking(interaction, interaction.permissions, CLICKER_NEEDS)
        if theirs:
            return missing_message(theirs, "replay.sharing.clicker_lacks")
    ours = lacking(interaction, app_rights(interaction), BOT_NEEDS)
    if ours:
        return missing_message(ours, "replay.sharing.bot_lacks")
    return None


def slowmode(interaction: discord.Interaction[Any]) -> float:
    """Seconds the clicker must leave between posts in the interaction's channel: its slowmode,
    which Discord does not apply to those who may manage its messages or the channel (in a
    thread, its threads too)."""
    if interaction.guild_id is None:
        return 0.0
    mine = interaction.permissions
    in_thread = getattr(interaction.channel, "type", None) in THREAD_TYPES
    if mine.manage_messages or mine.manage_channels or (in_thread and mine.manage_threads):
        return 0.0
    return float(getattr(interaction.channel, "slowmode_delay", 0) or 0)


def earlier_message(post: SharedPost, guild_id: int | None) -> Msg:
    """The answer to a click on Share while the match's animation was posted lately in the
    channel (or the person's direct messages with the bot): a link to it (or, while it is
    still being posted by another process, that it is)."""
    dm = "" if guild_id is not None else "_dm"  # in the person's direct messages with the bot
    if post.message_id is None:
        return msg(f"replay.sharing.posting{dm}", table=post.table_id)
    link = (f"https://discord.com/channels/{guild_id or '@me'}/{post.channel_id}/"
            f"{post.message_id}")
    return msg(f"replay.sharing.earlier{dm}", table=post.table_id, link=link,
               when=f"<t:{int(post.posted_at)}:R>")


def started_message(started: TableRecord) -> Msg:
    """What the person whose click started rematch ``started`` is told: its table, and for
    the rematch of a guided match, that it is a guided match again, which counts in no record
    either (the guided match's end pointed to /goblin new for a match that counts)."""
    return msg("rematch.started_guided" if started.lessons else "rematch.started",
               table=started.id)


class PastMatches:
    """History pages, replays, shared animations and rematches (``begin`` posts a started
    match's table message and lets its AI seats play; ``sights`` tells what the asker may look
    back at)."""

    def __init__(self, service: GameService, messages: Messages,
                 begin: Callable[[TableRecord], Awaitable[None]], sights: Sights) -> None:
        self.service = service
        self.messages = messages
        self.begin = begin
        self.sights = sights
        self._drawing = asyncio.Lock()  # one animation drawn at a time
        #: Animations drawn, by table and language, each with the setup (its names) and the
        #: seats marked as handed to the AI it was drawn with.
        self._animations: OrderedDict[tuple[int, str],
                                      tuple[tuple[GameConfig, tuple[int, ...]], bytes]] = (
            OrderedDict())
        #: A lock per (table, channel) whose animation is being shared, while anyone holds it.
        self._sharing: WeakValueDictionary[tuple[int, int], asyncio.Lock] = (
            WeakValueDictionary())
        #: A lock per table whose Rematch is being answered, or whose offer is being drawn,
        #: while anyone holds it.
        self._offering: WeakValueDictionary[int, asyncio.Lock] = WeakValueDictionary()

    def forget(self, table: int) -> None:
        """Drop what is kept of table ``table``'s past (its replay, its animations): the names
        it shows changed."""
        self.service.history.forget(table)
        for key in [k for k in self._animations if k[0] == table]:
            del self._animations[key]

    # ------------------------------------------------------------------ commands

    async def history(self, interaction: discord.Interaction[Any], player: int | None,
                      tournament: str | None = None) -> None:
        """/goblin history [player] [tournament]: the newest matches of this place that the
        asker may see (in a server: played in a channel they may view), of one server
        tournament when given (its number, as suggested, or its name), privately."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        sight = await self.sights.of(interaction)
        cup = None if tournament is None else await self.service.history.tournament_typed(
            sight, tournament)
        page = await self.service.history.page(sight, player,
                                               tournament=None if cup is None else cup.id)
        await interaction.edit_original_response(view=history_view(page, player,
                                                                   loc(interaction)))

    async def replay(self, interaction: discord.Interaction[Any], table: int) -> None:
        """/goblin replay id: the match at its start, privately."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        loaded = await self._replay(interaction, table)
        await self._show(interaction, loaded, 0, False)

    # ------------------------------------------------------------------ clicks

    async def page(self, interaction: discord.Interaction[Any], anchor: int, way: str,
                   player: int, tournament: int = 0) -> None:
        """A history page button: the matches older ("o") or newer than table ``anchor``, of
        one person (0: everyone), of one server tournament (0: every match)."""
        await interaction.response.defer()
        older, newer = (anchor, None) if way == "o" else (None, anchor)
        page = await self.service.history.page(await self.sights.of(interaction), player or None,
                                               older, newer, tournament=tournament or None)
        await interaction.edit_original_response(
            view=history_view(page, player or None, loc(interaction)))

    async def go(self, interaction: discord.Interaction[Any], table: int, step: int,
                 reveal: bool, op: str) -> None:
        """A replay button drawn at ``step`` ("open": a new private replay)."""
        if op == "open":
            await interaction.response.defer(ephemeral=True, thinking=True)
            loaded = await self._replay(interaction, table)
            await self._show(interaction, loaded, goto(loaded.replay, step, op), reveal)
            return
        await interaction.response.defer()
        loaded = await self._replay(interaction, table)
        if op == "flip":
            reveal = not reveal
        await self._show(interaction, loaded, goto(loaded.replay, step, op), reveal)

    async def seek(self, interaction: discord.Interaction[Any], table: int, reveal: bool,
                   values: list[str]) -> None:
        """A step picked in a replay's bookmark menu."""
        await interaction.response.defer()
        loaded = await self._replay(interaction, table)
        picked = values[0] if len(values) == 1 else ""
        if not (picked.isascii() and picked.isdigit()) or int(picked) > loaded.replay.last:
            raise Refusal(msg("replay.error.bad_step"))
        await self._show(interaction, loaded, int(picked), reveal)

    async def _replay(self, interaction: discord.Interaction[Any], table: int) -> Loaded:
        """The replay of ``table`` for the person behind ``interaction``: from what is known of
        the channels they may view, and only when that refuses it, once Discord was asked about
        the server's channels not known (a match in a thread archived since; also the
        match's own channel, as a match abandoned before everyone moved has no result to list
        it among the server's past channels), so stepping through a replay asks nothing of the
        store or Discord beyond the match itself."""
        try:
            return await self.service.history.replay(table, self.sights.known(interaction))
        except Refusal:
            own: tuple[int, ...] = ()
            try:
                record = await self.service.tables.load(table)
            except Refusal:  # none such, or damaged: the replay says which
                pass
            else:  # another server's channel is not asked about
                if (interaction.guild_id is not None
                        and record.place_key == Place.server(interaction.guild_id).key):
                    own = (record.channel_id,)
            return await self.service.history.replay(table,
                                                     await self.sights.of(interaction, own))

    async def _show(self, interaction: discord.Interaction[Any], loaded: Loaded, step: int,
                    reveal: bool) -> None:
        """Show ``step`` of a replay in the interaction's private message (``reveal``: every
        hand, refused before the match's end)."""
        if reveal and not loaded.finished:
            raise Refusal(msg("replay.error.not_over"))
        locale = loc(interaction)
        view = loaded.replay.view(step)
        kinds = ["table", "battle"] if view.battle is not None else ["table"]
        # the seats the AI took over are marked on the match's end, as its texts mark the win:
        # the replay does not say when it took them over
        ai_now = handed(loaded.record) if view.winner is not None else ()
        drawn = await asyncio.gather(*(self.messages.pictures.png(k, view, locale,
                                                                  handed=ai_now)
                                       for k in kinds))
        files = [ImageFile(png, f"{k}.png") for k, png in zip(kinds, drawn, strict=True)
                 if png is not None]
        await interaction.edit_original_response(
            view=replay_view(loaded, step, reveal, locale, [f.filename for f in files]),
            attachments=files)

    async def share(self, interaction: discord.Interaction[Any], table: int) -> None:
        """Post the match's animation in the channel (drawn in a thread of the bot), unless
        the clicker or the bot may not post it there, the match was played in another channel
        that not everyone who may view this one may view (as they may a channel this one is
        a thread of, or a public thread of this one), it was posted there lately (the clicker
        is pointed at that post), the clicker shared there within the channel's slowmode, or
        it was played in the clicker's direct messages and they were forgotten since.
        The clicks on one match in one channel are answered one after the other, so those
        made while it is being posted are pointed at the post once it is there."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        refused = share_refusal(interaction)
        if refused is not None:
            raise Refusal(refused)
        loaded = await self._replay(interaction, table)
        channel = self.messages.client.get_partial_messageable(
            interaction.channel_id or loaded.record.channel_id, guild_id=interaction.guild_id)
        played_in = loaded.record.channel_id
        if (channel.id not in (played_in, loaded.record.where)
                and not self.sights.seen_with(interaction, played_in)):
            # its animation would show the match to people who may not view where it was played
            raise Refusal(msg("replay.sharing.elsewhere", table=table, channel=f"<#{played_in}>"))
        user = interaction.user.id
        lock = self._sharing.setdefault((table, channel.id), asyncio.Lock())
        async with lock:
            claim = await self._claim(interaction, table, channel, user)
            if claim.not_theirs:  # they were forgotten since its replay was read
                raise Refusal(msg("replay.sharing.forgotten", table=table))
            if claim.earlier is not None:
                raise Refusal(earlier_message(claim.earlier, interaction.guild_id))
            if claim.wait_until is not None:
                raise Refusal(msg("replay.sharing.slowmode",
                                  when=f"<t:{math.ceil(claim.wait_until)}:R>"))
            try:
                posted = await self._post(loaded, channel)
            except Exception:
                await self.service.shares.failed(table, channel.id, user, claim)
                raise
            # posted all the same when it cannot be saved: the claim lapses in its time
            await noted(self.service.shares.posted(table, channel.id, claim, posted.id),
                        f"table {table}: its animation's message")
        shared = ("replay.shared_dm" if interaction.guild_id is None  # said where it went
                  else "replay.shared_thread" if in_thread(interaction) else "replay.shared")
        await interaction.edit_original_response(
            content=translate(msg(shared, table=table), loc(interaction)))

    async def _claim(self, interaction: discord.Interaction[Any], table: int,
                     channel: discord.PartialMessageable, user: int) -> ShareClaim:
        """``user``'s claim to post ``table``'s animation in ``channel``; when it was refused
        for an earlier post whose message is gone (a moderator deleted it), that post is given
        up and the claim made again."""
        shares = self.service.shares
        claim = await shares.claim(table, channel.id, user, slowmode(interaction))
        earlier = claim.earlier
        if earlier is None or earlier.message_id is None \
                or not await self._gone(channel, earlier.message_id):
            return claim
        await shares.gone(earlier)
        return await shares.claim(table, channel.id, user, slowmode(interaction))

    @staticmethod
    async def _gone(channel: discord.PartialMessageable, message_id: int) -> bool:
        """True when Discord answers that message ``message_id`` of ``channel`` is unknown
        (deleted); False while it stands, or when Discord could not tell."""
        try:
            await channel.fetch_message(message_id)
        except discord.NotFound as exc:
            return exc.code == UNKNOWN_MESSAGE
        except UNDELIVERED as exc:  # not known to be gone: the click is pointed at it
            log.info("could not ask Discord about message %s of channel %s (%s)", message_id,
                     channel.id, why(exc))
        return False

    async def _post(self, loaded: Loaded,
                    channel: discord.PartialMessageable) -> discord.Message:
        """Post the match's animation in ``channel``; its message."""
        table = loaded.record.id
        gif = await self._animation(loaded)
        if len(gif) > min(MAX_BYTES, UPLOAD_LIMIT):
            raise Refusal(msg("replay.too_big", table=table))
        await self.messages.pace.request(channel.id)
        try:
            return await channel.send(content=translate(msg("replay.animation", table=table),
                                                        loaded.record.locale),
                                      file=ImageFile(gif, f"match-{table}.gif"),
                                      allowed_mentions=NO_MENTIONS)
        except discord.HTTPException as exc:
            if exc.status != 403 and exc.code not in POST_REFUSED:
                raise
            # the permissions Discord showed when clicked did not tell it (a locked thread, a
            # permission taken away while the animation was drawn)
            log.warning("could not post the animation of table %s in channel %s (%s)", table,
                        channel.id, exc.code or exc.status)
            if exc.code == DMS_CLOSED:  # the person's own direct messages, the one place it goes
                raise Refusal(msg("replay.sharing.dms_closed", table=table)) from exc
            raise Refusal(msg("replay.sharing.refused", table=table)) from exc

    async def _animation(self, loaded: Loaded) -> bytes:
        """The GIF of a match in its table's language (kept while its names are the match's
        now, as a person forgotten through another process changes them; or drawn in a
        thread)."""
        key = (loaded.record.id, loaded.record.locale)
        setup = (loaded.replay.final.config, handed(loaded.record))
        async with self._drawing:
            kept = self._animations.get(key)
            if kept is not None and kept[0] == setup:
                gif = kept[1]
            else:
                gif = await asyncio.to_thread(match_animation, loaded.replay, key[1], setup[1])
                self._animations[key] = (setup, gif)
                while len(self._animations) > KEPT_ANIMATIONS:
                    self._animations.popitem(last=False)
            self._animations.move_to_end(key)
        return gif

    # ------------------------------------------------------------------ rematches

    async def rematch(self, interaction: discord.Interaction[Any], table: int, op: str) -> None:
        """Rematch (offer), Ready or Start."""
        await self.service.play.check_channel(table, interaction.channel_id,
                                              clicked_at(interaction), views_channel(interaction))
        locale = loc(interaction)
        user = interaction.user.id
        rematches = self.service.rematches
        # the click that would start it is refused, as Start is, where the bot may not post
        missing = missing_permissions(interaction)
        blocked = missing_message(missing) if missing else None
        if op == "offer":
            await interaction.response.defer(ephemeral=True, thinking=True)
            # Rematch clicked by several at once: the first posts the offer, the others wait
            # for its message and join it there (a server's clicks come through one process)
            async with self._offering.setdefault(table, asyncio.Lock()):
                state = await rematches.offer(table, user, blocked)
                if state.offer.message_id is None and state.started is None:
                    told = await self._post_offer(state, user)
                else:
                    await self._redraw_held(table, state)
                    told = (started_message(state.started) if state.started
                            else msg("rematch.you_are_ready"))
            await interaction.edit_original_response(content=translate(told, locale))
        else:
            await interaction.response.defer()
            try:
                state = await (rematches.start(table, user, blocked) if op == "start"
                               else rematches.ready(table, user, blocked))
            except Refusal as exc:
                if exc.record is not None and exc.reason.key == "rematch.error.lapsed":
                    await self._redraw_offer_of(interaction, exc.record)
                raise
            # drawn as the offer stands once the clicks answered before this one were drawn
            # (a server's clicks come through one process): never an older offer over a newer
            async with self._offering.setdefault(table, asyncio.Lock()):
                now = await rematches.now(table) or state
                await interaction.edit_original_response(
                    view=rematch_view(now, now.record.locale))
        if state.started is not None:
            started = await self._in_person_s_language(interaction, state.started)
            self.messages.when_withheld(started.id, told_privately(interaction))
            await self.begin(started)
            self.messages.threads.rematched(state.record, started)

    async def _in_person_s_language(self, interaction: discord.Interaction[Any],
                                    started: TableRecord) -> TableRecord:
        """The rematch just started, in direct messages speaking the language its person's
        click tells (the finished table spoke the one they had when it ended), before its
        first table message is posted; as it is elsewhere, or while the database is out of
        reach (their next click brings it along)."""
        if interaction.guild_id is not None:
            return started
        try:
            moved = await self.service.lobby.follow_locale(started.channel_id,
                                                           interaction.user.id,
                                                           loc(interaction))
        except Unreachable:
            return started
        return moved or started

    async def _post_offer(self, state: RematchState, user: int) -> Msg:
        """Post the offer's public message (pinging those asked); what ``user`` is told. When
        a moderator locked the match's thread (the bot posts nothing there, even when it may
        manage threads: the post would take the thread out of the archive), or Discord refuses
        the post (the bot may no longer post there), the offer stands all the same: the others
        say they are ready with Rematch on the final table. ``user`` is told where it was posted:
        in the channel, or in the match's own thread."""
        table = state.record.id
        unposted = msg("rematch.offered_unposted" if user == state.offer.offered_by
                       else "rematch.you_are_ready")
        where = self.messages.threads.where(state.record)  # the match's thread, or its channel
        try:
            if state.record.guild_id is not None and await moderator_locked(
                    self.messages.client, where):
                log.info("the thread of table %s is locked: its rematch offer is not posted",
                         table)
                return unposted
            await self.messages.pace.request(state.record.channel_id)
            sent = await self.messages.channel(state.record).send(
                view=rematch_view(state, state.record.locale), allowed_mentions=MENTIONS)
        except discord.HTTPException as exc:
            log.warning("could not post the rematch offer of table %s (%s)", table,
                        exc.code or exc.status)
            return unposted
        await noted(self.service.rematches.set_message(table, sent.id),  # the offer stands
                    f"table {table}: its rematch offer's message")
        return msg("rematch.offered" if where == state.record.channel_id
                   else "rematch.offered_thread")

    async def redraw_offer_of(self, table: int) -> None:
        """Bring table ``table``'s rematch offer message up to date (a language change, a
        person forgotten, the offer lapsing), from the offer and its table as they stand once
        the clicks on it answered before are drawn (a server's clicks come through one
        process): whichever is drawn last was read last, so a change is never drawn over by
        an offer read before it."""
        async with self._offering.setdefault(table, asyncio.Lock()):
            await self._redraw_held(table)

    async def _redraw_held(self, table: int, state: RematchState | None = None) -> None:
        """Draw table ``table``'s offer as it stands now (``state`` when it can no longer be
        read), its lock held."""
        now = await self.service.rematches.now(table) or state
        if now is not None:
            await redraw_offer(self.messages, now)

    async def _redraw_offer_of(self, interaction: discord.Interaction[Any],
                               record: TableRecord) -> None:
        """A click on a lapsed offer: the clicked message loses its buttons."""
        offer = await self.service.rematches.offer_of(record.id)
        if offer is not None and interaction.message is not None:
            await interaction.edit_original_response(
                view=rematch_view(RematchState(offer, record), record.locale, closed=True))

    async def lapse_offers(self) -> None:
        """Close the rematch offers whose time ran out; their messages lose their buttons (a
        pass of the turn timers does it)."""
        for state in await self.service.rematches.lapsed():
            await self.redraw_offer_of(state.record.id)


async def summary_of(service: GameService, record: TableRecord) -> bytes | None:
    """The summary chart of a finished table (keys and HP per seat round by round), drawn
    in a thread; None when its match cannot be replayed (it is then left out)."""
    try:
        loaded = await service.history.replay(record.id, sight_of_table(record.place_key))
        ai = {i for i, seat in enumerate(record.seats) if seat.ai}
        return await asyncio.to_thread(summary_chart, round_series(loaded.replay, ai),
                                       record.locale)
    except Refusal as exc:
        log.warning("no summary chart for table %s: %s", record.id, exc.reason.key)
    except Exception:
        log.exception("could not draw the summary chart of table %s", record.id)
    return None


async def redraw_offer(messages: Messages, state: RematchState) -> None:
    """Bring a rematch offer's public message up to date (in a thread archived since, a slow
    match's offer lasting longer than Discord leaves an idle thread open, the thread is taken
    out of the archive first)."""
    if state.offer.message_id is None:
        return
    message = messages.channel(state.record).get_partial_message(state.offer.message_id)
    await messages.pace.request(state.record.channel_id)
    try:
        await messages.threads.unarchived(state.record, partial(
            message.edit, view=rematch_view(state, state.record.locale),
            allowed_mentions=NO_MENTIONS))
    except discord.HTTPException as exc:
        log.warning("could not edit the rematch offer of table %s (%s)", state.record.id,
                    exc.status)



async def tournament_choices(service: GameService, sights: Sights,
                             interaction: discord.Interaction[Any], current: str,
                             locale: str) -> list[tuple[str, int]]:
    """The suggestions of ``/goblin history tournament:``: up to 25 tournaments of this server
    (held in channels the asker may view, as far as ``sights`` knows without asking Discord;
    none in direct messages), newest first, whose name holds what was typed, each labelled with
    its status. None while the database is out of reach (the command itself says so once
    sent)."""
    typed = current.strip().casefold()
    out: list[tuple[str, int]] = []
    try:
        cups = await service.history.tournaments(sights.known(interaction))
    except Unreachable as exc:
        log.info("no tournaments suggested: the database is out of reach (%s)", exc)
        return []
    for cup in cups:
        if typed and typed not in cup.name.casefold() and typed != str(cup.id):
            continue
        label = translate(msg("history.tournament.choice.running", name=cup.name,
                              round=cup.round) if cup.status == "running"
                          else msg(f"history.tournament.choice.{cup.status}", name=cup.name),
                          locale)
        out.append((label, cup.id))
        if len(out) == MENU_OPTIONS:
            break
    return out

__all__ = ["BOT_NEEDS", "CLICKER_NEEDS", "UPLOAD_LIMIT", "PastMatches", "earlier_message",
           "redraw_offer", "share_refusal", "slowmode", "started_message", "summary_of",
           "tournament_choices"]
