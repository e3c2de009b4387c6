"""Clicks on a lobby message: Join, Leave, Add AI, Remove AI, Start and Cancel, the hero menu
and an AI seat's level menu; and what follows a lobby change (a started game's first table
message and AI seats, a closed table forgotten, a seat handed to the AI shown).

The lobby buttons' kinds (:mod:`bot.discord_side.ui.custom_ids`) call these handlers through the
click answers' ``lobby`` (:class:`bot.discord_side.interactions.Interactions`); the ``/goblin``
commands that act on a lobby run the same operations. A refused click on a lobby message that
shows an older lobby redraws it, so the next click on it works.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

import discord

from bot.discord_side.context import (
    can_manage_channel,
    missing_message,
    missing_permissions,
    noted,
    told_privately,
)
from bot.discord_side.messages import Messages
from bot.discord_side.threads import in_thread, thread_missing
from bot.game.refusals import Refusal
from bot.game.scheduler import Scheduler
from bot.game.service import GameService
from bot.storage.records import TableRecord
from i18n import msg

log = logging.getLogger("karak.bot")


class LobbyClicks:
    """Answers the clicks on lobby messages (the click answers' ``lobby``)."""

    def __init__(self, service: GameService, messages: Messages, scheduler: Scheduler) -> None:
        self.service = service
        self.messages = messages
        self.scheduler = scheduler
        #: table -> the thread permissions the bot lacked when its match started, to tell
        self._unthreaded: dict[int, list[str]] = {}

    async def click(self, interaction: discord.Interaction[Any], table: int, op: str,
                    revision: int | None) -> None:
        """Join / Leave / Add AI / Remove AI / Start / Cancel on the lobby message, drawn at
        lobby ``revision``."""
        await interaction.response.defer()
        try:
            record = await self.apply(interaction, table, op, revision, clicked=True)
        except Refusal as exc:
            await self._redraw_stale(interaction, exc, revision)
            raise
        try:
            await self._redraw(interaction, record)
        finally:
            await self.changed(record, op, interaction)

    async def changed(self, record: TableRecord, op: str,
                      interaction: discord.Interaction[Any] | None = None) -> None:
        """What follows a lobby change: a started game's table message and AI seats, a closed
        table forgotten, a seat handed to the AI shown; the host who started a match the bot
        could not move to a thread is told why privately, once their ``interaction`` is
        answered, and so they are if Discord refuses the match's table for a permission."""
        missing = self._unthreaded.pop(record.id, None)
        if op == "start" and record.status == "running":
            if interaction is not None:
                self.messages.when_withheld(record.id, told_privately(interaction))
            await self.begin(record)
        elif record.status == "abandoned":
            self.scheduler.forget(record.id)
        elif op == "leave" and record.status == "running":
            self.messages.mark_dirty(record.id)
            self.scheduler.kick_ai(record)
        if missing and interaction is not None:
            await told_privately(interaction)(missing_message(missing,
                                                              "bot.thread.no_permission"))

    async def apply(self, interaction: discord.Interaction[Any], table: int, op: str,
                    revision: int | None = None, clicked: bool = False) -> TableRecord:
        """Run one lobby operation for the interaction's user (``revision``: the lobby revision
        the clicked message showed; None from a command; ``clicked``: a button of the lobby
        message, whose Leave leaves a lobby only, never a match that started meanwhile)."""
        user = interaction.user
        svc = self.service
        match op:
            case "join":
                return await svc.lobby.join(table, user.id, user.display_name)
            case "leave":
                return await svc.lobby.leave(table, user.id, lobby_only=clicked)
            case "ai":
                return await svc.lobby.add_ai(table, user.id, revision)
            case "unai":
                return await svc.lobby.remove_ai(table, user.id, revision)
            case "start":
                missing = missing_permissions(interaction)
                if missing:
                    raise Refusal(missing_message(missing))
                return await self._where_played(
                    interaction, await svc.lobby.start(table, user.id, revision))
            case _:
                return await svc.lobby.cancel(table, user.id, can_manage_channel(interaction))

    async def _where_played(self, interaction: discord.Interaction[Any],
                            record: TableRecord) -> TableRecord:
        """A match started now that should move to a thread of its own where the bot may no
        longer open one or post in it (a moderator took the permission since its lobby
        opened) is played in the channel, and its host is told privately which permission is
        missing, as /goblin new tells it: opened, its thread would stay empty."""
        if (record.status != "running" or not record.threaded or record.thread_id is not None
                or in_thread(interaction)):
            return record
        missing = thread_missing(interaction)
        if not missing:
            return record
        if await noted(self.service.tables.set_thread(record.id, None, False),
                       f"table {record.id}: played in its channel"):
            record = replace(record, threaded=False)
        self._unthreaded[record.id] = missing  # told once the click or command is answered
        return record

    async def hero_pick(self, interaction: discord.Interaction[Any], table: int,
                        values: list[str]) -> None:
        """A seated player picked a hero in the lobby menu."""
        await interaction.response.defer()
        if not values:
            raise Refusal(msg("bot.error.unknown_hero"))
        try:
            record = await self.service.lobby.pick_hero(table, interaction.user.id, values[0])
        except Refusal as exc:
            await self._redraw_stale(interaction, exc, None)
            raise
        await self._redraw(interaction, record)

    async def level_pick(self, interaction: discord.Interaction[Any], table: int, seat: int,
                         revision: int, level: str) -> None:
        """The host picked the level of an AI seat in the lobby drawn at ``revision``."""
        await interaction.response.defer()
        try:
            record = await self.service.lobby.set_level(table, interaction.user.id, seat, level,
                                                        revision)
        except Refusal as exc:  # redrawn even when current: the menu shows the real level again
            await self._redraw_stale(interaction, exc, None)
            raise
        await self._redraw(interaction, record)

    async def _redraw(self, interaction: discord.Interaction[Any], record: TableRecord) -> None:
        """Redraw the clicked lobby after a change to table ``record``; when it is a copy of
        the lobby (the private one /goblin status shows, or a message that is no longer the
        table's lobby message: one posted again in its place), the table's lobby message in
        its channel too, as after the
        same /goblin command (posted again when it is gone)."""
        await self.messages.lobby.redraw(interaction, record.id)
        message = interaction.message
        if message is None or not (message.flags.ephemeral or record.lobby_message_id
                                   not in (None, message.id)):
            return  # the lobby message itself (its id unsaved when the database was full)
        if record.status == "lobby":
            await self.messages.lobby.refresh(record)
        else:
            await self.messages.lobby.redraw(None, record.id)

    async def _redraw_stale(self, interaction: discord.Interaction[Any], refusal: Refusal,
                            revision: int | None) -> None:
        """A lobby click was refused: when the clicked message is the table's lobby message and
        shows an older lobby (a lost edit, a double click, a crash), redraw it on the table's
        feed, so the next click on it works."""
        record = refusal.record
        message = interaction.message
        if (record is None or message is None or message.flags.ephemeral
                or message.id != record.lobby_message_id
                or (revision is not None and revision == record.revision)):
            return
        await self.messages.lobby.redraw(interaction, record.id)

    async def begin(self, record: TableRecord) -> None:
        """The game started: post the table message (pinging the first player), delete the
        lobby message and let AI seats play. The post goes out on the table's feed: a
        /goblin abandon that came after the start is queued after it (and closes the posted
        message), or before it (and nothing is posted: the lobby says it was cancelled)."""
        await self.scheduler.begin(record)


__all__ = ["LobbyClicks"]
