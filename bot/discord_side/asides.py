"""Clicks beside the game: the table message's Log button (the last two turns told privately)
and the button that confirms /goblin abandon of a running match."""

from __future__ import annotations

from typing import Any

import discord

from bot.discord_side.background import Background
from bot.discord_side.context import can_manage_channel, loc
from bot.discord_side.messages import Messages
from bot.discord_side.standings import end_lines
from bot.discord_side.ui.parts import layout, text_block
from bot.discord_side.ui.table import log_view
from bot.game.service import GameService
from i18n import msg, translate


async def show_log(interaction: discord.Interaction[Any], service: GameService,
                   table: int) -> None:
    """Answer privately with what happened in the current and the previous turn (what the
    clicker may see: their own seat's private events too)."""
    locale = loc(interaction)
    await interaction.response.defer(ephemeral=True, thinking=True)
    told = await service.story.last_turns(table, interaction.user.id)
    lines = [translate(e.text, locale) for e in told.events]
    await interaction.edit_original_response(view=log_view(table, lines, told.whole, locale))


async def confirm_abandon(interaction: discord.Interaction[Any], service: GameService,
                          messages: Messages, background: Background, table: int) -> None:
    """The host (or a channel manager) confirmed /goblin abandon: the match closes, the
    confirmation becomes the one answer, and the table message says it was abandoned."""
    await interaction.response.defer()
    record = await service.lobby.abandon_table(table, interaction.user.id,
                                               can_manage_channel(interaction))
    try:
        told = translate(msg("bot.done.abandon", table=table), loc(interaction))
        await interaction.edit_original_response(view=layout(
            discord.ui.Container[discord.ui.LayoutView](text_block(told))))
    finally:
        await messages.closed(record, await end_lines(service, record))
        background.forget(table)


__all__ = ["confirm_abandon", "show_log"]
