"""The answer to a click on a hand message's Hint button: a new private message, only for the
person who asked, with the suggested move, the estimated chances to win of the best moves and
the reason (the service decides who may ask and keeps the hint)."""

from __future__ import annotations

import asyncio
from typing import Any

import discord

from bot.discord_side.context import loc
from bot.discord_side.ui.parts import layout, text_block
from bot.game.hints import HintAnswer, hint_lines
from bot.game.service import GameService
from i18n import translate


def hint_view(answer: HintAnswer, locale: str) -> discord.ui.LayoutView:
    """The private message of a hint."""
    lines = [translate(line, locale) for line in hint_lines(answer)]
    text = "\n".join([f"### {lines[0]}", *lines[1:-1], f"-# {lines[-1]}"])
    return layout(discord.ui.Container[discord.ui.LayoutView](text_block(text)))


async def answer_hint(service: GameService, interaction: discord.Interaction[Any], table: int,
                      version: int, hand_of: int | None) -> None:
    """Acknowledge privately (the hint takes a moment) while the service works the hint out,
    then show it; a refusal raises for the click's usual private answer, once acknowledged."""
    acknowledging = asyncio.ensure_future(
        interaction.response.defer(ephemeral=True, thinking=True))
    try:
        answer = await service.hints.ask(table, interaction.user.id, version, hand_of=hand_of)
    finally:
        await acknowledging  # an answer or a refusal follows the acknowledgement
    await interaction.edit_original_response(view=hint_view(answer, loc(interaction)))


__all__ = ["answer_hint", "hint_view"]
