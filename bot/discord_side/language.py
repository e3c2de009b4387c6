"""The language of a solo table in direct messages: there, the table message, its buttons and
its picture speak the language of the table's one person as their Discord client says it now
(each of their clicks and commands tells it), not the one they had when the table was created.
A server's tables keep the server's language (``/goblin settings``)."""

from __future__ import annotations

from typing import Any

import discord

from bot.discord_side.context import loc
from bot.discord_side.messages import Messages
from bot.game.service import GameService
from bot.storage.records import CannotSave


def follow_person(interaction: discord.Interaction[Any], service: GameService,
                  messages: Messages) -> None:
    """In direct messages, bring the channel's table into the language of ``interaction``'s
    user, in the background (the interaction is answered meanwhile)."""
    if interaction.guild_id is not None or interaction.channel_id is None:
        return
    messages.tasks.spawn(
        _follow(interaction.channel_id, interaction.user.id, loc(interaction), service, messages),
        f"language-{interaction.channel_id}")


async def _follow(channel_id: int, user_id: int, locale: str, service: GameService,
                  messages: Messages) -> None:
    """Relocalise the table, then redraw its lobby message (under the table's lock, read as it
    is then) or its table message (a coalesced edit). Not while the database is out of reach
    or cannot save (full, failing): the click or command itself is answered so when it needs
    the database, and the next one tells the language again; no error at every click."""
    try:
        record = await service.lobby.follow_locale(channel_id, user_id, locale)
    except CannotSave:  # out of reach too
        return
    if record is None:
        return
    if record.status == "running":
        messages.mark_dirty(record.id)
        return
    if record.status == "lobby":
        await messages.lobby.redraw(None, record.id)


__all__ = ["follow_person"]
