"""What the person behind an interaction may look back at (a :class:`~bot.game.places.Sight`):
the place they ask in, and in a server the channels they may view, worked out as Discord does
from their roles and each channel's permission overwrites.

No privileged intent is needed: the interaction carries the member with their roles, and the
guild's roles and channels (with their ``permission_overwrites``) came in GUILD_CREATE and are
kept up to date by discord.py's cache. A public thread is viewed through its parent channel; a
private thread only by those added to it, which the bot cannot tell without a privileged intent,
so it is in sight of those who may manage its threads (they see every one), and from inside it.
A channel the cache does not know (deleted since, or a server the bot is no member of) is out of
sight, but for the channel the interaction comes from, when Discord says the member may view it.
"""

from __future__ import annotations

from typing import Any

import discord

from bot.game.places import Place, Sight


def visible_channels(guild: discord.Guild, member: discord.Member) -> set[int]:
    """The ids of the channels and threads of ``guild`` that ``member`` may view (a private
    thread: when they may manage its channel's threads)."""
    seen: set[int] = set()
    for channel in (*guild.channels, *guild.threads):
        mine = channel.permissions_for(member)
        if mine.view_channel and (not private(channel) or mine.manage_threads):
            seen.add(channel.id)
    return seen


def private(channel: object) -> bool:
    """Whether ``channel`` is a private thread, seen only by those added to it."""
    return isinstance(channel, discord.Thread) and channel.is_private()


def sight_of(interaction: discord.Interaction[Any]) -> Sight:
    """The sight of the person behind ``interaction``: in their direct messages, all of their
    own matches; in a server, its matches played in a channel they may view."""
    user = interaction.user
    place = Place.of(interaction.guild_id, user.id)
    if interaction.guild_id is None:
        return Sight(place)
    guild = interaction.guild
    seen = (visible_channels(guild, user)
            if isinstance(guild, discord.Guild) and isinstance(user, discord.Member) else set())
    here = interaction.channel_id
    if here is not None and interaction.permissions.view_channel:
        seen.add(here)
    return Sight.of(place, seen)


def open_to_everyone(interaction: discord.Interaction[Any], channel_id: int) -> bool:
    """Whether everyone in the interaction's server may view channel ``channel_id`` (a public
    thread: its parent channel), as far as the cache tells; False outside a server, for a
    private thread or for a channel the cache does not know."""
    guild = interaction.guild
    if not isinstance(guild, discord.Guild):
        return False
    channel = guild.get_channel_or_thread(channel_id)
    if private(channel):
        return False
    if isinstance(channel, discord.Thread):
        channel = channel.parent
    return channel is not None and channel.permissions_for(guild.default_role).view_channel


def sight_of_table(place_key: str) -> Sight:
    """The sight of the bot itself over a table's place (every channel of it)."""
    return Sight(Place.from_key(place_key))


__all__ = ["open_to_everyone", "private", "sight_of", "sight_of_table", "visible_channels"]
