"""The bodies of the ``/goblin`` commands: each acknowledges in time, asks the service, and
answers (the rights themselves are the service's)."""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from bot.discord_side.asides import abandoned
from bot.discord_side.context import (
    can_manage_channel,
    jump_url,
    loc,
    missing_message,
    missing_permissions,
    place_refusal,
    public_locale,
    told_privately,
)
from bot.discord_side.counting import refused_here
from bot.discord_side.interactions import Interactions
from bot.discord_side.messages import Messages
from bot.discord_side.replies import Reply
from bot.discord_side.standings import end_lines
from bot.discord_side.threads import in_thread, thread_missing
from bot.discord_side.ui.custom_ids import AbandonButton
from bot.discord_side.ui.lobby import lobby_view
from bot.discord_side.ui.parts import MAX_TEXT, button, cut, layout, picture, row, text_block
from bot.discord_side.uploads import ImageFile
from bot.game.card_lookup import card_ids, card_label, card_lines, find_card
from bot.game.lobby import Kept
from bot.game.refusals import Refusal
from bot.game.service import GameService
from bot.game.texts import on_off, timer_text
from bot.storage.records import TableRecord
from i18n import Msg, msg, translate
from render.card_picture import card_png

log = logging.getLogger("karak.bot")
RULES = ("goal", "turn", "battle", "rewards", "merchant", "lord", "bot")


def note_view(title: str, body: str) -> discord.ui.LayoutView:
    """A private message of text only (rules, a card)."""
    return layout(discord.ui.Container[discord.ui.LayoutView](
        text_block(cut(f"### {title}\n{body}", MAX_TEXT))))


def confirm_view(table: int, locale: str, note: Msg | None = None,
                 kept: Kept = "listed") -> discord.ui.LayoutView:
    """The private question before abandoning a running match (``note``: what it would do to
    the ratings; ``kept``: whether /goblin history would list it, or only /goblin replay open
    it), with its one button."""
    ask = translate(msg("bot.channel.abandon_ask" if kept == "listed"
                        else "bot.channel.abandon_ask_replay", table=table), locale)
    if note is not None:
        ask += "\n" + translate(note, locale)
    return layout(discord.ui.Container[discord.ui.LayoutView](
        text_block(ask),
        row(button(translate(msg("bot.channel.abandon_yes"), locale),
                   AbandonButton.id_for(table, kept == "listed"), "danger"))))


def after(answered: asyncio.Event,
          tell: Callable[[Msg], Awaitable[None]]) -> Callable[[Msg], Awaitable[None]]:
    """``tell``, held until ``answered`` is set: a follow-up sent before a deferred command's
    answer would fill its "thinking..." message, which that answer then replaces."""
    async def held(text: Msg) -> None:
        await answered.wait()
        await tell(text)
    return held


class Commands:
    """The command bodies (the cog only declares the commands)."""

    def __init__(self, service: GameService, messages: Messages, clicks: Interactions) -> None:
        self.service = service
        self.messages = messages
        self.clicks = clicks
        # per channel: held while a /goblin new there opens a table and posts its lobby
        self._opening: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary())

    async def new(self, interaction: discord.Interaction[Any], abilities: bool | None,
                  timer: int | None, ai_level: str | None = None,
                  undo: bool | None = None, hints: bool | None = None,
                  thread: bool | None = None) -> None:
        """/goblin new: open a lobby in this channel (``ai_level``: the level of the AI seats
        the host adds, ``undo``: whether players may take back a move; None: the server's
        default for each; ``hints``: None decides at the start; ``thread``: whether the match
        moves to a thread of its own at Start, None: the server's choice). Simultaneous ones in
        a channel
        take turns (each waiting one answers privately first, in Discord's 3 seconds): the
        first opens the table and posts its lobby, the others are pointed to that lobby."""
        self._may_open(interaction)
        assert interaction.channel_id is not None
        lock = self._opening.setdefault(interaction.channel_id, asyncio.Lock())
        if lock.locked():
            await interaction.response.defer(ephemeral=True, thinking=True)
        async with lock:
            await self._open(interaction, interaction.channel_id, abilities, timer, ai_level,
                             undo, hints, thread)

    @staticmethod
    def _may_open(interaction: discord.Interaction[Any]) -> None:
        """Refuse a table where none can live, or where the bot lacks permissions."""
        if interaction.channel_id is None:
            raise Refusal(msg("bot.error.guild_only"))
        refused = place_refusal(interaction)
        if refused is not None:
            raise Refusal(refused)
        missing = missing_permissions(interaction)
        if missing:
            raise Refusal(missing_message(missing))

    async def learn(self, interaction: discord.Interaction[Any]) -> None:
        """/goblin learn: a guided first match for the asker alone, started at once; the
        answer is the asker's hand, which explains each rule as it comes. In a server it moves
        to a thread of its own as any match does (the server's choice), so the channel stays
        open to other matches while it lasts; where the bot may not create one, it is played
        in the channel and the learner is told which permission is missing, as a host is; so
        they are, below their hand, when Discord refuses the match's table for a permission."""
        self._may_open(interaction)
        assert interaction.channel_id is not None
        await interaction.response.defer(ephemeral=True, thinking=True)
        threaded, _, missing = await self._threaded(interaction, None)
        try:
            record = await self.service.lobby.learn(
                guild_id=interaction.guild_id, channel_id=interaction.channel_id,
                host_id=interaction.user.id, host_name=interaction.user.display_name,
                locale=public_locale(interaction), threaded=threaded)
        except Refusal as exc:
            refused_here(interaction)
            answer = translate(exc.reason, loc(interaction))
            found = exc.record
            await interaction.edit_original_response(
                content=answer + (" " + jump_url(found) if found is not None else ""))
            return
        answered = asyncio.Event()  # the hand is the answer: what follows it comes after
        self.messages.when_withheld(record.id, after(answered, told_privately(interaction)))
        try:
            await self.clicks.lobby.begin(record)
            record = await self.service.tables.load(record.id)
            async with Reply(interaction, in_place=False) as reply:  # acknowledged above
                await self.clicks.reply_hand(reply, record, 0, loc(interaction))
        finally:
            answered.set()
        if missing:
            await interaction.followup.send(translate(missing_message(
                missing, "bot.thread.no_permission"), loc(interaction)), ephemeral=True)

    async def _open(self, interaction: discord.Interaction[Any], channel_id: int,
                    abilities: bool | None, timer: int | None, ai_level: str | None,
                    undo: bool | None = None, hints: bool | None = None,
                    thread: bool | None = None) -> None:
        """Open a lobby and post it (under the channel's opening lock), or point to the
        channel's table. A match that should move to a thread where the bot may not create
        one is played in the channel, and the host is told which permission is missing."""
        locale = loc(interaction)
        threaded, chosen, missing = await self._threaded(interaction, thread)
        try:
            record = await self.service.lobby.create(
                guild_id=interaction.guild_id, channel_id=channel_id,
                host_id=interaction.user.id, host_name=interaction.user.display_name,
                abilities=abilities, timer=timer, locale=public_locale(interaction),
                ai_level=ai_level, undo=undo, hints=hints, threaded=threaded,
                thread_chosen=chosen)
        except Refusal as exc:
            refused_here(interaction)
            found = exc.record
            if found is not None and found.status == "lobby":
                await self._point_to_lobby(interaction, found, locale)
                return
            answer = translate(exc.reason, locale)
            if found is not None:
                answer += " " + jump_url(found)
            if interaction.response.is_done():
                await interaction.edit_original_response(content=answer)
            else:
                await interaction.response.send_message(answer, ephemeral=True)
            return
        if interaction.response.is_done():  # answered privately while waiting its turn
            # posted on the table's feed, as it is then: a /goblin join meanwhile (the table is
            # open) redraws it there too, after this post, not with a second lobby before it
            record = await self.messages.lobby.refresh(record)
            await interaction.edit_original_response(content=translate(
                msg("bot.done.new", table=record.id, url=jump_url(record)), locale))
            return
        response = await interaction.response.send_message(
            view=lobby_view(record, record.locale))
        if response is not None and response.message_id is not None:
            await self.messages.lobby.note(record.id, response.message_id)
        if missing:
            await interaction.followup.send(translate(missing_message(
                missing, "bot.thread.no_permission"), locale), ephemeral=True)

    async def _threaded(self, interaction: discord.Interaction[Any],
                        thread: bool | None) -> tuple[bool, bool, list[str]]:
        """Whether a match opened now moves to a thread of its own at Start (``thread``: the
        host's choice, None: the server's), whether that is settled now (false: only the
        server's choice for now, which its choice at Start replaces), and the permissions the
        bot lacks here for it when it should but cannot (then it is played in the channel,
        as the host is told). Never in direct messages, nor from inside a thread (the match
        is played in that thread)."""
        if interaction.guild_id is None or in_thread(interaction):
            return False, True, []
        wanted = (thread if thread is not None
                  else await self.service.servers.threads(interaction.guild_id))
        missing = thread_missing(interaction) if wanted else []
        return wanted and not missing, thread is not None or bool(missing), missing

    async def _point_to_lobby(self, interaction: discord.Interaction[Any], record: TableRecord,
                              locale: str) -> None:
        """/goblin new where a lobby is already open: its message is brought up to date (posted
        again when it never was, or is gone) and the asker gets a link to it."""
        if not interaction.response.is_done():
            await interaction.response.defer(ephemeral=True, thinking=True)
        record = await self.messages.lobby.refresh(record)  # else the link leads to the channel
        key = "bot.error.lobby_exists" if record.guild_id is not None \
            else "bot.error.lobby_exists_dm"  # in the person's direct messages with the bot
        await interaction.edit_original_response(content=translate(
            msg(key, table=record.id, url=jump_url(record)), locale))

    async def lobby(self, interaction: discord.Interaction[Any], op: str) -> None:
        """/goblin join|leave|start: the same as the lobby buttons, for this channel's table."""
        locale = loc(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        assert interaction.channel_id is not None
        table = await self.service.tables.in_channel(interaction.channel_id,
                                                     interaction.user.id,
                                                     interaction.guild_id is None)
        record = await self.clicks.lobby.apply(interaction, table.id, op)
        try:
            await interaction.edit_original_response(
                content=translate(msg(f"bot.done.{op}", table=record.id), locale))
        finally:
            if record.status == "lobby":  # posted again if it was lost or deleted
                await self.messages.lobby.refresh(record)
            elif op == "start" or (record.status == "abandoned" and record.state is None):
                # a match left (a solo one closes) is closed below: its lobby message is gone,
                # or is the channel's line of its thread
                await self.messages.lobby.redraw(None, record.id)
            if record.status == "abandoned" and record.state is not None:  # a solo match left
                # with the lines /goblin abandon adds (the hints used)
                await self.messages.closed(record, await end_lines(self.service, record))
            await self.clicks.lobby.changed(record, op, interaction)

    async def hand(self, interaction: discord.Interaction[Any]) -> None:
        """/goblin hand."""
        assert interaction.channel_id is not None
        table = await self.service.tables.in_channel(interaction.channel_id,
                                                     interaction.user.id,
                                                     interaction.guild_id is None)
        await self.clicks.show_hand(interaction, table.id)

    async def status(self, interaction: discord.Interaction[Any]) -> None:
        """/goblin status: the table as it is now, only for the asker, with a link to its table
        message (none before the game's first is posted: the lobby message is no table's), in
        the channel, in the match's thread or, for a solo table, in the person's direct
        messages (which they may have closed to the bot: they are told to open them)."""
        locale = loc(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        assert interaction.channel_id is not None
        record = await self.service.tables.in_channel(interaction.channel_id,
                                                      interaction.user.id,
                                                      interaction.guild_id is None)
        if record.state is None:
            await interaction.edit_original_response(view=lobby_view(record, locale))
            return
        record = self.messages.current(record)  # its table message posted last, if any
        where = ("_dm" if record.guild_id is None  # a solo table in direct messages
                 else "_thread" if record.thread_id is not None else "")
        payload = await self.messages.table_payload(
            record, locale, headline=msg(f"bot.channel.status_link{where}", url=jump_url(record))
            if record.message_id is not None else msg(f"bot.channel.status_unposted{where}"))
        await interaction.edit_original_response(view=payload.view, attachments=payload.files)

    async def abandon(self, interaction: discord.Interaction[Any]) -> None:
        """/goblin abandon: the host or a channel manager closes the table (its match kept to
        look back at, as :meth:`~bot.game.lobby.Lobby.kept` says).
        The answer is private until the service agreed; then the channel is told."""
        assert interaction.channel_id is not None
        await interaction.response.defer(ephemeral=True, thinking=True)
        manager = can_manage_channel(interaction)
        dms = interaction.guild_id is None
        running = await self.service.lobby.to_confirm(interaction.channel_id,
                                                      interaction.user.id, manager, dms)
        if running is not None:  # a match in progress ends for everyone: asked once
            note = await self.service.lobby.abandon_note(running, interaction.user.id)
            await interaction.edit_original_response(view=confirm_view(
                running.id, loc(interaction), note,
                await self.service.lobby.kept(running, interaction.user.id)))
            return
        closed = await self.service.lobby.abandon(interaction.channel_id, interaction.user.id,
                                                  manager, dms)
        record = closed if isinstance(closed, TableRecord) else None
        tid = closed.id if isinstance(closed, TableRecord) else closed
        try:  # one answer: the table's own message tells the channel
            kept: Kept = "none" if record is None else await self.service.lobby.kept(record)
            await interaction.edit_original_response(
                content=translate(abandoned(tid, kept), loc(interaction)))
        finally:
            if record is not None:
                await self.messages.closed(record, await end_lines(self.service, record))
            self.clicks.scheduler.forget(tid)

    async def settings(self, interaction: discord.Interaction[Any], abilities: bool | None,
                       timer: int | None, language: str | None,
                       ai_level: str | None = None, undo: bool | None = None,
                       threads: bool | None = None) -> None:
        """/goblin settings: the server's defaults for new tables (AI level, take-backs and
        threads included) and the language of its tables (the service checks Manage
        Server). Refused in a server that did not install the bot, as /goblin new is: no
        table of the bot's lives there."""
        refused = place_refusal(interaction) if interaction.guild_id is not None else None
        if refused is not None:
            raise Refusal(refused)
        locale = loc(interaction)
        # answer first (Discord's 3 seconds), then write and redraw the server's tables
        await interaction.response.defer(ephemeral=True, thinking=True)
        now = await self.service.servers.change_settings(
            interaction.guild_id, bool(interaction.permissions.manage_guild),
            abilities=abilities, timer=timer, language=language, ai_level=ai_level, undo=undo,
            threads=threads, discord_locale=public_locale(interaction))
        threaded = await self.service.servers.threads(interaction.guild_id)
        shown: Msg = msg(f"bot.language.{now.forced_locale}") if now.forced_locale else msg(
            "bot.done.language_auto",
            language=msg(f"bot.language.{public_locale(interaction)}"))
        try:
            await interaction.edit_original_response(content=translate(msg(
                "bot.done.settings", abilities=msg("bot.lobby.on" if now.defaults.abilities
                                                   else "bot.lobby.off"),
                timer=timer_text(now.defaults.timer),
                level=msg(f"bot.level.{now.defaults.ai_level}"),
                language=shown), locale) + "\n" + translate(msg(
                    "bot.undo.done", state=on_off(now.defaults.undo)), locale) + "\n" +
                translate(msg("bot.thread.setting", state=on_off(threaded)), locale))
        finally:  # the lobbies, tables and tournaments' sign-ups are redrawn after the answer
            for tid in now.relocalised:
                self.messages.relocalised(tid)
            for offer in await self.service.rematches.open_of(now.relocalised):
                table = offer.record.id  # an open offer: as a lobby is, once drawn before
                self.messages.tasks.spawn(self.clicks.past.redraw_offer_of(table),
                                          f"offer-{table}")
            if self.clicks.tournaments is not None:
                for tournament in now.tournaments:
                    await self.clicks.tournaments.signup_changed(tournament)

    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        """/goblin rules: a short summary of the rules, privately."""
        locale = loc(interaction)
        parts = [translate(Msg(f"bot.rules.{k}"), locale) for k in RULES]
        await interaction.response.send_message(
            view=note_view(translate(Msg("bot.rules.title"), locale), "\n\n".join(parts)),
            ephemeral=True)

    async def card(self, interaction: discord.Interaction[Any], name: str) -> None:
        """/goblin card: what a card is, privately."""
        locale = loc(interaction)
        found = name if name in card_ids() else find_card(name, locale)
        if found is None:
            raise Refusal(msg("bot.error.unknown_card", name=name[:100]))
        png = await asyncio.to_thread(card_png, found, locale)
        view = note_view(card_label(found, locale), "\n".join(card_lines(found, locale)))
        if png is None:
            await interaction.response.send_message(view=view, ephemeral=True)
            return
        box = view.children[0]
        assert isinstance(box, discord.ui.Container)
        box.add_item(picture("card.png", card_label(found, locale)))
        await interaction.response.send_message(view=view, file=ImageFile(png, "card.png"),
                                                ephemeral=True)


__all__ = ["Commands", "note_view"]
