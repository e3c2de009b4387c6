"""What the person behind an interaction may look back at (a :class:`~bot.game.places.Sight`):
the place they ask in, and in a server the channels they may view, worked out as Discord does
from their roles and each channel's permission overwrites.

No privileged intent is needed: the interaction carries the member with their roles, and the
guild's roles and channels (with their ``permission_overwrites``) came in GUILD_CREATE and are
kept up to date by discord.py's cache. A public thread is viewed through its parent channel; a
private thread only by those added to it, which the bot cannot tell without a privileged intent,
so it is in sight of those who may manage its threads (they see every one), and from inside it.

The cache holds only active threads: Discord archives every idle thread within a week, and
discord.py then forgets it. Before answering from past matches, :class:`Sights` asks Discord
once about each channel of the place's past matches the cache does not know, and remembers
the answer for as long as the process runs (a thread's parent and privacy never change): an
archived thread is seen as an active one is, through its parent. A channel Discord does not
show the bot (deleted, out of its reach) is out of sight, but for the channel the interaction
comes from, when Discord says the member may view it.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any
from weakref import WeakValueDictionary

import aiohttp
import discord

from bot.game.places import Place, Sight
from bot.game.service import GameService

log = logging.getLogger("karak.bot")
#: Channels remembered from Discord's answers (the most recently used).
KEPT_CHANNELS = 10_000
#: Channels asked about at once.
ASKED_AT_ONCE = 4


def visible_channels(guild: discord.Guild, member: discord.Member) -> set[int]:
    """The ids of the channels and threads of ``guild`` that ``member`` may view (a private
    thread: when they may manage its channel's threads)."""
    seen: set[int] = set()
    for channel in (*guild.channels, *guild.threads):
        if may_look_back(channel.permissions_for(member), private(channel)):
            seen.add(channel.id)
    return seen


def may_look_back(mine: discord.Permissions, private_thread: bool) -> bool:
    """Whether permissions ``mine`` in a channel let one look back at its matches: viewing it,
    and for a private thread managing its threads too (who was added to one is not told
    without a privileged intent)."""
    return mine.view_channel and (not private_thread or mine.manage_threads)


def private(channel: object) -> bool:
    """Whether ``channel`` is a private thread, seen only by those added to it."""
    return isinstance(channel, discord.Thread) and channel.is_private()


def sight_of(interaction: discord.Interaction[Any]) -> Sight:
    """The sight of the person behind ``interaction``, as far as the cache tells: in their
    direct messages, all of their own matches; in a server, its matches played in a channel
    they may view."""
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


def sight_of_table(place_key: str) -> Sight:
    """The sight of the bot itself over a table's place (every channel of it)."""
    return Sight(Place.from_key(place_key))


@dataclass(frozen=True, slots=True)
class Told:
    """What Discord told of a channel of server ``guild_id`` the cache did not know: a thread
    under channel ``parent_id``, ``private`` or not; ``parent_id`` None when it is gone
    (deleted, out of the bot's reach, or no thread of that server)."""

    guild_id: int
    parent_id: int | None = None
    private: bool = False


class Sights:
    """The sights of the people behind interactions, with the threads the cache no longer
    holds: what Discord told of them is kept in memory (at most ``kept`` channels)."""

    def __init__(self, client: discord.Client, service: GameService,
                 kept: int = KEPT_CHANNELS) -> None:
        self.client = client
        self.service = service
        self.kept = kept
        self._told: OrderedDict[int, Told] = OrderedDict()
        #: A lock per server whose channels are being asked about, while anyone holds it.
        self._asking: WeakValueDictionary[int, asyncio.Lock] = WeakValueDictionary()

    def install(self, client: Any) -> None:
        """Listen to the client's deleted threads."""
        client.add_listener(self.on_raw_thread_delete, "on_raw_thread_delete")

    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        """A deleted thread that was archived is out of sight from now on."""
        if payload.thread_id in self._told:
            self._remember(payload.thread_id, Told(payload.guild_id))

    async def of(self, interaction: discord.Interaction[Any],
                 also: Collection[int] = ()) -> Sight:
        """The sight of the person behind ``interaction``, once Discord was asked about the
        channels of the server's past matches (and ``also`` those) that neither the cache nor
        this process knows (none asked when all are known)."""
        if isinstance(interaction.guild, discord.Guild):
            await self.learn(interaction.guild, also)
        return self.known(interaction)

    def known(self, interaction: discord.Interaction[Any]) -> Sight:
        """The sight of the person behind ``interaction`` from the cache and what Discord
        told already (Discord is not asked)."""
        sight = sight_of(interaction)
        guild, member = interaction.guild, interaction.user
        if (sight.channels is None or not isinstance(guild, discord.Guild)
                or not isinstance(member, discord.Member)):
            return sight
        archived = {cid for cid, told in self._told.items()
                    if told.guild_id == guild.id and guild.get_thread(cid) is None
                    and self._through_parent(guild, member, told)}
        return Sight.of(sight.place, sight.channels | archived) if archived else sight

    def open_to_everyone(self, interaction: discord.Interaction[Any], channel_id: int) -> bool:
        """Whether everyone in the interaction's server may view channel ``channel_id`` (a
        public thread, archived too: its parent channel), as far as the cache and what Discord
        told tell; False outside a server, for a private thread or for a channel not known."""
        guild = interaction.guild
        if not isinstance(guild, discord.Guild):
            return False
        channel = guild.get_channel_or_thread(channel_id)
        if channel is None:
            told = self._told.get(channel_id)
            if (told is None or told.guild_id != guild.id or told.parent_id is None
                    or told.private):
                return False
            channel = guild.get_channel(told.parent_id)
        elif private(channel):
            return False
        elif isinstance(channel, discord.Thread):
            channel = channel.parent
        return channel is not None and channel.permissions_for(guild.default_role).view_channel

    def seen_with(self, interaction: discord.Interaction[Any], channel_id: int) -> bool:
        """Whether whoever may view the interaction's channel may view channel ``channel_id``
        too: both are seen through the same channel (a thread is viewed only by those who
        may view its channel, a public one by all of them), as far as the cache and what
        Discord told tell; or everyone in the server may view it (:meth:`open_to_everyone`)."""
        here = interaction.channel
        home = here.parent_id if isinstance(here, discord.Thread) else interaction.channel_id
        if home is not None and self._viewed_through(interaction, channel_id) == home:
            return True
        return self.open_to_everyone(interaction, channel_id)

    def _viewed_through(self, interaction: discord.Interaction[Any],
                        channel_id: int) -> int | None:
        """The channel of the interaction's server whose viewers all may view channel
        ``channel_id``, and only they: the channel itself, or a public thread's parent; None
        for a private thread (seen only by those added to it) or a channel not known."""
        guild = interaction.guild
        if not isinstance(guild, discord.Guild):
            return None
        found = guild.get_channel_or_thread(channel_id)
        if isinstance(found, discord.Thread):
            return None if private(found) else found.parent_id
        if found is not None:
            return found.id
        told = self._told.get(channel_id)
        if told is None or told.guild_id != guild.id or told.private:
            return None
        return told.parent_id

    async def learn(self, guild: discord.Guild, also: Collection[int] = ()) -> None:
        """Ask Discord about each channel of ``guild``'s past matches and tournaments (and
        ``also`` those: the channel of a match with no result, asked about for its replay) that
        neither the cache nor this process knows; one server's questions at a time, so the
        same channel is not asked about twice."""
        past = await self.service.store.past_channels(Place.server(guild.id).key) | set(also)
        if not self._unknown(guild, past):
            return
        lock = self._asking.setdefault(guild.id, asyncio.Lock())
        async with lock:
            unknown = self._unknown(guild, past)
            gate = asyncio.Semaphore(ASKED_AT_ONCE)

            async def ask(channel_id: int) -> tuple[int, Told | None]:
                async with gate:
                    return channel_id, await self._ask(guild.id, channel_id)

            for channel_id, told in await asyncio.gather(*(ask(c) for c in unknown)):
                if told is not None:
                    self._remember(channel_id, told)

    def _unknown(self, guild: discord.Guild, channels: Collection[int]) -> list[int]:
        """Those of ``channels`` neither the cache nor this process knows (those it knows
        are kept as the most recently used)."""
        out = []
        for channel_id in sorted(channels):
            if guild.get_channel_or_thread(channel_id) is not None:
                continue
            if channel_id in self._told:
                self._told.move_to_end(channel_id)
            else:
                out.append(channel_id)
        return out

    async def _ask(self, guild_id: int, channel_id: int) -> Told | None:
        """What Discord tells of channel ``channel_id``; None when it could not be asked (it
        is asked again next time)."""
        try:
            found = await self.client.fetch_channel(channel_id)
        except (discord.NotFound, discord.Forbidden, discord.InvalidData):
            return Told(guild_id)
        except (discord.HTTPException, aiohttp.ClientError, OSError) as exc:
            log.warning("could not ask Discord about channel %s of server %s: %s", channel_id,
                        guild_id, exc)
            return None
        if not isinstance(found, discord.Thread) or found.guild.id != guild_id:
            return Told(guild_id)
        return Told(guild_id, found.parent_id, found.is_private())

    def _remember(self, channel_id: int, told: Told) -> None:
        """Keep what Discord told of ``channel_id``, the least recently used one dropped past
        :attr:`kept`."""
        self._told[channel_id] = told
        self._told.move_to_end(channel_id)
        while len(self._told) > self.kept:
            self._told.popitem(last=False)

    @staticmethod
    def _through_parent(guild: discord.Guild, member: discord.Member, told: Told) -> bool:
        """Whether ``member`` may view a thread the cache no longer holds: a public one when
        they may view its parent, a private one when they may manage its threads too."""
        parent = None if told.parent_id is None else guild.get_channel(told.parent_id)
        if parent is None:
            return False
        return may_look_back(parent.permissions_for(member), told.private)


__all__ = ["ASKED_AT_ONCE", "KEPT_CHANNELS", "Sights", "Told", "may_look_back", "private",
           "sight_of", "sight_of_table", "visible_channels"]
