"""A table's lobby message, in the channel the table was opened in: its seats, heroes, settings
and buttons until the game starts.

It is redrawn through the clicked interaction, or directly; posted again when it was never
posted (the bot died first), is gone, or Discord no longer lets the bot edit it (a lobby open
for more than an hour takes only a few edits an hour, JSON error 30046: the old message is then
deleted); a lobby opened in a thread archived since is edited once the thread is taken out of
the archive; and a redraw asked for by a click or a command goes out on the table's feed
(:mod:`bot.discord_side.feed`), from the table as it is then, so lobby edits never land out of
order. Once the game started, the table message takes over
(:mod:`bot.discord_side.messages`): the lobby message is deleted, or becomes the channel's line
of a match played in a thread (:mod:`bot.discord_side.threads`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import discord

from bot.discord_side.context import (
    NO_MENTIONS,
    TOO_OLD_TO_EDIT,
    UNKNOWN_CHANNEL,
    lobby_channel,
    noted,
)
from bot.discord_side.feed import Feeds, Job
from bot.discord_side.pace import ChannelPace
from bot.discord_side.threads import unarchived
from bot.discord_side.ui.lobby import lobby_view
from bot.game.refusals import Refusal
from bot.game.service import GameService
from bot.storage.records import TableRecord

log = logging.getLogger("karak.bot")


class LobbyMessages:
    """Posts and edits the lobby message of every table (``vanished``: told of a request to a
    channel that failed, and of the channel's server, it says whether Discord found the
    channel deleted, and then has its tables closed:
    :meth:`~bot.discord_side.threads.MatchThreads.vanished`; ``locked``: told of a thread a
    lobby was opened in found locked, :meth:`~bot.discord_side.threads.MatchThreads.locked`)."""

    def __init__(self, client: discord.Client, service: GameService, pace: ChannelPace,
                 feeds: Feeds,
                 vanished: Callable[[int, discord.HTTPException, int | None, int | None], bool]
                 | None = None, locked: Callable[[int], None] | None = None) -> None:
        self.client = client
        self.service = service
        self.pace = pace
        self.feeds = feeds
        self.vanished = vanished
        self.locked = locked

    async def edit(self, interaction: discord.Interaction[Any] | None,
                   record: TableRecord) -> None:
        """Redraw the lobby message: through the clicked interaction, or directly. An open
        lobby whose message Discord no longer lets the bot edit is posted afresh."""
        view = lobby_view(record, record.locale)
        try:
            if interaction is not None:
                await interaction.edit_original_response(view=view)
            elif record.lobby_message_id is not None:
                await self._edit(record, record.lobby_message_id, view)
        except discord.HTTPException as exc:
            if exc.code == TOO_OLD_TO_EDIT and record.status == "lobby":
                await self._afresh(record, interaction is not None)
            elif interaction is not None:
                raise
            elif not self._gone(record, exc):
                log.warning("could not edit the lobby message of table %s", record.id)

    async def _edit(self, record: TableRecord, message_id: int,
                    view: discord.ui.LayoutView) -> None:
        """Edit the lobby message ``message_id`` of ``record`` to ``view``. A lobby opened in a
        thread that was archived since (idle for a while, or by a moderator: Discord refuses
        edits there) is taken out of the archive, and the edit tried once more (a thread a
        moderator locked is not: :attr:`locked` is told)."""
        message = lobby_channel(self.client, record).get_partial_message(message_id)

        async def edit() -> None:
            await self.pace.request(record.channel_id)
            await message.edit(view=view, allowed_mentions=NO_MENTIONS)

        await unarchived(self.client, record.channel_id, edit, self.locked)

    def _gone(self, record: TableRecord, exc: discord.HTTPException) -> bool:
        """True when ``exc`` says the table's channel was deleted (its tables then end with
        it: nothing is to be posted there any more)."""
        return self.vanished is not None and self.vanished(record.channel_id, exc, None,
                                                           record.guild_id)

    async def show(self, record: TableRecord) -> TableRecord:
        """Bring a lobby's message up to date, posting it in the table's channel when it was
        never posted (the bot died first) or is gone; returns the table with the message's id.
        Raises :class:`discord.HTTPException` when Discord refuses both."""
        view = lobby_view(record, record.locale)
        channel = lobby_channel(self.client, record)
        if record.lobby_message_id is not None:
            try:
                await self._edit(record, record.lobby_message_id, view)
                return record
            except discord.NotFound as exc:
                if exc.code == UNKNOWN_CHANNEL:  # the channel itself: nowhere to post it
                    raise
                log.info("the lobby message of table %s is gone; posting it again", record.id)
            except discord.HTTPException as exc:
                if exc.code != TOO_OLD_TO_EDIT:
                    raise
                return await self._afresh(record)
        await self.pace.request(record.channel_id)
        message = await channel.send(view=view, allowed_mentions=NO_MENTIONS)
        await self.note(record.id, message.id)
        return replace(record, lobby_message_id=message.id)

    async def _afresh(self, record: TableRecord, loud: bool = True) -> TableRecord:
        """Post the lobby message anew in place of one Discord no longer lets the bot edit,
        and delete the old one, so no outdated lobby or button is left standing; returns the
        table with the new message's id. Discord's refusal to post is raised when ``loud``,
        else logged."""
        old = record.lobby_message_id
        log.info("the lobby message of table %s is too old to edit; posting it again",
                 record.id)
        channel = lobby_channel(self.client, record)
        try:
            await self.pace.request(record.channel_id)
            message = await channel.send(view=lobby_view(record, record.locale),
                                         allowed_mentions=NO_MENTIONS)
        except discord.HTTPException as exc:
            if loud:
                raise
            log.warning("could not post the lobby message of table %s again (%s)", record.id,
                        exc.status)
            return record
        await self.note(record.id, message.id)
        if old is not None:
            try:
                await self.pace.request(record.channel_id)
                await channel.get_partial_message(old).delete()
            except discord.HTTPException as exc:
                log.warning("could not delete the old lobby message of table %s (%s)",
                            record.id, exc.status)
        return replace(record, lobby_message_id=message.id)

    async def note(self, table: int, message_id: int) -> None:
        """Save ``message_id`` as table ``table``'s lobby message. When the database takes no
        write, a warning says so and the lobby goes on: its clicks redraw it in place."""
        await noted(self.service.tables.set_message(table, lobby_message_id=message_id),
                    f"table {table}: its lobby message")

    async def refresh(self, record: TableRecord) -> TableRecord:
        """Bring the lobby message of ``record``'s table up to date on the table's feed, from
        the table as it is when the redraw goes out (as :meth:`redraw`: so it never lands after
        a later click's redraw and shows an older lobby), posting it again when it was never
        posted or is gone (:meth:`show`); returns the table with the message's id. Discord's
        refusal is logged (never raised); a channel found deleted (while the bot was away) has
        its tables closed instead."""
        return await self._queued(None, record.id, again=True) or record

    async def _shown(self, record: TableRecord) -> TableRecord:
        """:meth:`show`, logging (never raising) Discord's refusal."""
        try:
            return await self.show(record)
        except discord.HTTPException as exc:
            if not self._gone(record, exc):
                log.warning("could not redraw the lobby message of table %s (%s)", record.id,
                            exc.status)
            return record

    async def redraw(self, interaction: discord.Interaction[Any] | None, table: int) -> None:
        """Redraw the lobby message (through the clicked ``interaction``, or directly) from
        the table as it is when the redraw goes out on the table's feed, and wait for it: lobby
        edits never land out of order, and a lobby never shows an outcome a later request
        undid."""
        await self._queued(interaction, table)

    async def _queued(self, interaction: discord.Interaction[Any] | None, table: int,
                      again: bool = False) -> TableRecord | None:
        """Redraw ``table``'s lobby message on its feed, from the table as it is then, and wait
        for it (``again``: an open lobby's message posted again when it never was or is gone,
        see :meth:`refresh`); returns the table as drawn (None: nothing was drawn)."""
        if self.feeds.ended(table):
            return None
        done: asyncio.Future[TableRecord | None] = (
            asyncio.get_running_loop().create_future())

        async def work() -> None:
            drawn: TableRecord | None = None
            try:
                drawn = await self.service.tables.load(table)
                if again and drawn.status == "lobby":
                    drawn = await self._shown(drawn)
                else:
                    await self.edit(interaction, drawn)
            except Refusal:
                return
            finally:
                if not done.done():
                    done.set_result(drawn)
        def dropped() -> None:  # the channel was deleted: the redraw is not sent
            if not done.done():
                done.set_result(None)
        self.feeds.put(table, Job("other", -1, work, dropped=dropped))
        return await done


__all__ = ["LobbyMessages"]
