"""Clicks beside the game: the table message's Log button (the last two turns told privately),
the button that confirms /goblin abandon of a running match, and a solo table's Leave button."""

from __future__ import annotations

from typing import Any

import discord

from bot.discord_side.context import can_manage_channel, loc
from bot.discord_side.messages import Messages
from bot.discord_side.standings import end_lines
from bot.discord_side.ui.hand import leave_view
from bot.discord_side.ui.parts import layout, text_block
from bot.discord_side.ui.table import log_view
from bot.game.lobby import Kept
from bot.game.markup import plain_names
from bot.game.scheduler import Scheduler
from bot.game.service import GameService
from i18n import Msg, msg, translate


def abandoned(table: int, kept: Kept) -> Msg:
    """The answer to whoever abandoned table ``table``: what is kept of it (``kept``), only
    what is true of it (listed in /goblin history, opened by /goblin replay alone, neither)."""
    if kept == "listed":
        return msg("bot.done.abandon", table=table)
    if kept == "replay":
        return msg("bot.done.abandon_replay", table=table)
    return msg("bot.done.abandon_none", table=table)


async def show_log(interaction: discord.Interaction[Any], service: GameService,
                   table: int) -> None:
    """Answer privately with what happened in the current and the previous turn (what the
    clicker may see: their own seat's private events too)."""
    locale = loc(interaction)
    await interaction.response.defer(ephemeral=True, thinking=True)
    told = await service.story.last_turns(table, interaction.user.id)
    lines = [translate(plain_names(e.text), locale) for e in told.events]
    await interaction.edit_original_response(view=log_view(table, lines, told.whole, locale))


async def confirm_abandon(interaction: discord.Interaction[Any], service: GameService,
                          messages: Messages, scheduler: Scheduler, table: int,
                          listed: bool | None = None) -> None:
    """The host (or a channel manager) confirmed /goblin abandon: the match closes, the
    confirmation becomes the one answer, and the table message says it was abandoned; refused
    when it would no longer end as the question said (``listed``: kept in the history, or
    not)."""
    await interaction.response.defer()
    record = await service.lobby.abandon_table(table, interaction.user.id,
                                               can_manage_channel(interaction), listed)
    try:
        told = translate(abandoned(table, await service.lobby.kept(record)), loc(interaction))
        await interaction.edit_original_response(view=layout(
            discord.ui.Container[discord.ui.LayoutView](text_block(told))))
    finally:
        await messages.closed(record, await end_lines(service, record))
        scheduler.forget(table)


async def leave_solo(interaction: discord.Interaction[Any], service: GameService,
                     messages: Messages, scheduler: Scheduler, table: int,
                     sure: bool) -> None:
    """The Leave button of a solo table asks its host once, privately (the click, deferred,
    edits the clicked hand message, else a new private one); the confirmation (``sure``) closes
    the table, and that message says so, with no button left; the table message ends with the
    lines /goblin abandon adds (the hints used)."""
    locale = loc(interaction)
    if not sure:
        record = await service.lobby.may_quit(table, interaction.user.id)
        seat = record.seat_of(interaction.user.id)
        assert seat is not None  # the host holds the first seat
        messages.shown.drop((table, seat, locale))  # the question shows no picture
        note = await service.lobby.abandon_note(record, interaction.user.id)
        listed = await service.lobby.kept(record, interaction.user.id) == "listed"
        await interaction.edit_original_response(
            view=leave_view(record, seat, locale, note, listed), attachments=[])
        return
    record = await service.lobby.quit(table, interaction.user.id)
    try:
        left = ("learn.left" if await service.lobby.kept(record) == "listed"
                else "learn.left_replay")
        told = translate(msg(left, table=table), locale)
        await interaction.edit_original_response(view=layout(
            discord.ui.Container[discord.ui.LayoutView](text_block(told))), attachments=[])
    finally:
        await messages.closed(record, await end_lines(service, record))
        scheduler.forget(table)


__all__ = ["abandoned", "confirm_abandon", "leave_solo", "show_log"]
