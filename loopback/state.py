"""The stand-in's state: users, guilds, channels, messages, stored files, interactions and
registered commands, with the bookkeeping of what changed (:attr:`State.version`, per-channel
versions and waiters) and the lookups the user side and the routes share.

The state knows no transport: a new guild or channel is announced through
:attr:`State.announce` (the world hands it to the gateway).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from loopback.attachment import Attachment
from loopback.clock import Clock
from loopback.errors import LoopbackError, Upload
from loopback.interaction import Interaction
from loopback.model import (
    DM_CHANNEL,
    GROUP_DM,
    PUBLIC_THREAD,
    Channel,
    Guild,
    Message,
    User,
    snowflake,
)
from loopback.permissions import (
    MEMBER_OVERWRITE,
    MEMBER_PERMISSIONS,
    ROLE_OVERWRITE,
    Overwrite,
    Role,
)

REPLACED_FILE_SECONDS = 120.0
"""How long a file an edit replaced stays fetchable."""

Watcher = Callable[[Message], None]
Announce = Callable[[str, dict[str, Any]], None]


def _silent(event: str, data: dict[str, Any]) -> None:
    """No gateway listening."""


class State:
    """Everything the stand-in's Discord holds for one bot application."""

    def __init__(self, clock: Clock, application_id: int, bot_name: str,
                 keep_files: bool = True) -> None:
        self.clock = clock
        self.application_id = application_id
        self.bot = User(application_id, bot_name, bot=True)
        self.keep_files = keep_files
        self.base_url = "http://127.0.0.1"
        self.announce: Announce = _silent
        self.users: dict[int, User] = {}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, Message] = {}
        self.channel_log: dict[int, list[int]] = {}
        self.files: dict[int, Attachment] = {}
        self.replaced: deque[tuple[float, int]] = deque()
        self.interactions: dict[int, Interaction] = {}
        self.by_token: dict[str, Interaction] = {}
        self.commands: dict[int | None, list[dict[str, Any]]] = {}
        self.watchers: list[Watcher] = []
        self.version = 0
        self._changed = asyncio.Event()
        self.channel_versions: dict[int, int] = {}
        self._channel_events: dict[int, asyncio.Event] = {}

    def now(self) -> float:
        """The stand-in's clock."""
        return self.clock()

    def bump(self, channel_id: int | None = None) -> None:
        """Something visible changed (in ``channel_id``): wake the :meth:`changed` waiters
        (and that channel's :meth:`channel_changed` waiters)."""
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()
        if channel_id is not None:
            self.channel_versions[channel_id] = self.channel_versions.get(channel_id, 0) + 1
            event = self._channel_events.pop(channel_id, None)
            if event is not None:
                event.set()

    async def channel_changed(self, channel_id: int, after: int, timeout: float = 25.0) -> int:
        """Wait until the channel's version is above ``after`` (or ``timeout``); return it.

        Cheaper than :meth:`changed` when many channels are busy (one waiter per channel)."""
        deadline = time.monotonic() + timeout
        while self.channel_versions.get(channel_id, 0) <= after:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            event = self._channel_events.get(channel_id)
            if event is None:
                event = self._channel_events[channel_id] = asyncio.Event()
            try:
                await asyncio.wait_for(event.wait(), left)
            except TimeoutError:
                break
        return self.channel_versions.get(channel_id, 0)

    def latest(self, channel: Channel | int, viewer: User | int,
               where: Callable[[Message], bool] = lambda m: True,
               scan: int = 200) -> Message | None:
        """The newest message of the channel that ``viewer`` sees and ``where`` accepts,
        looking at the last ``scan`` messages only."""
        cid = channel if isinstance(channel, int) else channel.id
        uid = viewer if isinstance(viewer, int) else viewer.id
        log_ = self.channel_log.get(cid, [])
        for i in reversed(log_[-scan:]):
            m = self.messages[i]
            if m.visible_to(uid) and where(m):
                return m
        return None

    async def changed(self, after: int, timeout: float = 25.0) -> int:
        """Wait until :attr:`version` is above ``after`` (or ``timeout``); return the version."""
        deadline = time.monotonic() + timeout
        while self.version <= after:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except TimeoutError:
                break
        return self.version

    def create_user(self, name: str, locale: str = "en-US", admin: bool = False,
                    user_id: int | None = None) -> User:
        """A new user (``admin``: every permission, e.g. Manage Channels / Manage Server)."""
        user = User(user_id or snowflake(), name[:32] or "user", locale, admin)
        self.users[user.id] = user
        self.bump()
        return user

    def create_guild(self, name: str = "Karak Club", locale: str = "en-US",
                     owner: User | None = None, guild_id: int | None = None) -> Guild:
        """A new guild the bot is in (sent to a connected bot as GUILD_CREATE)."""
        guild = Guild(guild_id or snowflake(), name, locale, owner.id if owner else 0)
        self.guilds[guild.id] = guild
        self.announce("GUILD_CREATE", self.guild_payload(guild))
        self.bump()
        return guild

    def create_channel(self, guild: Guild, name: str = "goblin",
                       channel_id: int | None = None) -> Channel:
        """A new text channel of ``guild`` (sent as CHANNEL_CREATE)."""
        channel = Channel(channel_id or snowflake(), guild.id, name, len(guild.channels))
        return self._add_channel(guild, channel)

    def create_thread(self, parent: Channel, name: str = "goblin thread",
                      channel_id: int | None = None) -> Channel:
        """A new public thread under ``parent`` (sent as THREAD_CREATE)."""
        if parent.guild_id is None:
            raise LoopbackError("a private channel has no threads", "no_channel")
        guild = self.guilds[parent.guild_id]
        thread = Channel(channel_id or snowflake(), guild.id, name, type=PUBLIC_THREAD,
                         parent_id=parent.id)
        return self._add_channel(guild, thread)

    def set_slowmode(self, channel: Channel, seconds: int) -> None:
        """A moderator sets the channel's slowmode (0 to 21600 seconds; sent as
        CHANNEL_UPDATE or THREAD_UPDATE)."""
        if channel.private or not 0 <= seconds <= 21600:
            raise LoopbackError(f"no slowmode of {seconds} s in channel {channel.id}",
                                "bad_slowmode")
        channel.slowmode = seconds
        self.announce("THREAD_UPDATE" if channel.thread else "CHANNEL_UPDATE", channel.payload())
        self.bump(channel.id)

    def dm(self, user: User, channel_id: int | None = None) -> Channel:
        """The direct message channel between ``user`` and the bot (made the first time, as
        ``POST /users/@me/channels`` or a person's first message makes it, with ``channel_id``
        if given). Discord sends no gateway event for it."""
        found = next((c for c in self.channels.values()
                      if c.type == DM_CHANNEL and c.recipients == (user,)), None)
        if found is not None:
            return found
        channel = Channel(channel_id or snowflake(), None, user.name, type=DM_CHANNEL,
                          recipients=(user,))
        self.channels[channel.id] = channel
        self.channel_log[channel.id] = []
        self.bump()
        return channel

    def create_group_dm(self, people: list[User], name: str = "friends",
                        channel_id: int | None = None) -> Channel:
        """A group direct message of ``people`` (the bot is no member: it may answer
        interactions made there, never post in it)."""
        channel = Channel(channel_id or snowflake(), None, name, type=GROUP_DM,
                          recipients=tuple(people), bot_permissions=0)
        self.channels[channel.id] = channel
        self.channel_log[channel.id] = []
        self.bump()
        return channel

    def _add_channel(self, guild: Guild, channel: Channel) -> Channel:
        guild.channels.append(channel)
        self.channels[channel.id] = channel
        self.channel_log[channel.id] = []
        self.announce("THREAD_CREATE" if channel.thread else "CHANNEL_CREATE", channel.payload())
        self.bump()
        return channel

    def create_role(self, guild: Guild, name: str,
                    permissions: int = MEMBER_PERMISSIONS) -> Role:
        """A new role of ``guild`` (sent as GUILD_ROLE_CREATE)."""
        role = Role(snowflake(), name, permissions, len(guild.roles) + 1)
        guild.roles.append(role)
        self.announce("GUILD_ROLE_CREATE", {"guild_id": str(guild.id), "role": role.payload()})
        self.bump()
        return role

    def give_role(self, guild: Guild, user: User, role: Role) -> None:
        """``user`` gets ``role`` in ``guild`` (no event: a bot hears of members' roles only
        with the privileged members intent; interactions carry them)."""
        mine = guild.member_roles.setdefault(user.id, [])
        if role.id not in mine:
            mine.append(role.id)
        self.bump()

    def set_overwrite(self, channel: Channel, target: Role | User, *, allow: int = 0,
                      deny: int = 0) -> None:
        """Set ``channel``'s permission overwrite of a role (@everyone: the guild's
        :attr:`~loopback.model.Guild.everyone`) or a member (sent as CHANNEL_UPDATE)."""
        if channel.guild_id is None or channel.thread:
            raise LoopbackError("only a server's channel has permission overwrites",
                                "no_overwrites")
        kind = ROLE_OVERWRITE if isinstance(target, Role) else MEMBER_OVERWRITE
        channel.overwrites = [o for o in channel.overwrites
                              if (o.id, o.type) != (target.id, kind)]
        channel.overwrites.append(Overwrite(target.id, kind, allow, deny))
        self.announce("CHANNEL_UPDATE", channel.payload())
        self.bump(channel.id)

    def guild_payload(self, guild: Guild) -> dict[str, Any]:
        """GUILD_CREATE data of ``guild``."""
        return guild.payload(self.bot, len(self.users) + 1)

    def user(self, user_id: int | str) -> User:
        """The user with this id; LoopbackError when there is none."""
        found = self.users.get(int(user_id))
        if found is None:
            raise LoopbackError(f"no user {user_id}", "no_user")
        return found

    def channel(self, channel_id: int | str) -> Channel:
        """The channel with this id; LoopbackError when there is none."""
        found = self.channels.get(int(channel_id))
        if found is None:
            raise LoopbackError(f"no channel {channel_id}", "no_channel")
        return found

    def message(self, message_id: int | str) -> Message:
        """The message with this id; LoopbackError when there is none."""
        found = self.messages.get(int(message_id))
        if found is None:
            raise LoopbackError(f"no message {message_id}", "no_message")
        return found

    # ------------------------------------------------------------------ the user side

    def messages_for(self, channel: Channel | int, viewer: User | int) -> list[Message]:
        """The channel's messages as ``viewer`` sees them, oldest first (their ephemerals
        included, nobody else's)."""
        cid = channel if isinstance(channel, int) else channel.id
        uid = viewer if isinstance(viewer, int) else viewer.id
        return [m for i in self.channel_log.get(cid, []) if (m := self.messages[i]).visible_to(uid)]

    def view(self, message: Message) -> dict[str, Any]:
        """A message's JSON as the control API shows it."""
        return message.view(self.base_url, self.application_id)

    def registered(self, guild_id: int | None) -> list[dict[str, Any]]:
        """The commands a user of ``guild_id`` sees: the guild's, then global ones."""
        out = list(self.commands.get(guild_id, [])) if guild_id is not None else []
        names = {c["name"] for c in out}
        out += [c for c in self.commands.get(None, []) if c["name"] not in names]
        return out

    def payload(self, message: Message) -> dict[str, Any]:
        """The message object as the API returns it."""
        return message.payload(self.base_url, self.application_id)

    def new_attachment(self, upload: Upload, description: str | None = None) -> Attachment:
        """Store an uploaded file (its bytes only when ``keep_files``)."""
        att = Attachment(snowflake(), upload.filename, len(upload.data), upload.content_type,
                         upload.data if self.keep_files else None, secrets.token_urlsafe(9),
                         description)
        self.files[att.id] = att
        self.forget_replaced()
        return att

    def replace_file(self, attachment_id: int) -> None:
        """An edit dropped this file: like Discord's CDN, keep serving it for
        ``REPLACED_FILE_SECONDS`` so a client still loading the old picture gets it."""
        self.replaced.append((self.now() + REPLACED_FILE_SECONDS, attachment_id))
        self.forget_replaced()

    def forget_replaced(self) -> None:
        """Stop serving the replaced files whose grace period is over."""
        now = self.now()
        while self.replaced and self.replaced[0][0] <= now:
            self.files.pop(self.replaced.popleft()[1], None)
