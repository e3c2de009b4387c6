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
    HAS_THREAD,
    PUBLIC_THREAD,
    Channel,
    Guild,
    Message,
    User,
    iso_now,
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
        self.threads: dict[int, Channel] = {}  # the threads among the channels
        self.deleted_channels: set[int] = set()  # deleted: Unknown Channel, no breach
        self.messages: dict[int, Message] = {}
        self.channel_log: dict[int, list[int]] = {}
        #: nonce -> the bot's message posted with it enforced, and when (oldest first)
        self.nonces: dict[str, tuple[int, float]] = {}
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
                      channel_id: int | None = None, *, owner: User | None = None,
                      message: Message | None = None, kind: int = PUBLIC_THREAD,
                      auto_archive: int = 1440, slowmode: int = 0) -> Channel:
        """A new thread under ``parent`` (sent as THREAD_CREATE), started by ``owner`` (None: the
        guild's owner): from ``message`` (the thread takes the message's id, and the message
        shows it), or on its own (``kind`` 11 public, 12 private)."""
        if parent.guild_id is None or parent.thread:
            raise LoopbackError("only a server's text channel has threads", "no_channel")
        guild = self.guilds[parent.guild_id]
        tid = message.id if message is not None else channel_id or snowflake()
        thread = Channel(tid, guild.id, name, type=kind, parent_id=parent.id, parent=parent,
                         owner_id=owner.id if owner else guild.owner_id or self.bot.id,
                         auto_archive=auto_archive, slowmode=slowmode, active=self.now())
        if message is not None:
            message.thread = thread
            message.flags |= HAS_THREAD
            message.revision += 1
        guild.channels.append(thread)
        self.channels[thread.id] = thread
        self.threads[thread.id] = thread
        self.channel_log[thread.id] = []
        self.announce("THREAD_CREATE", dict(thread.payload(), newly_created=True))
        self.bump(parent.id)
        return thread

    def threads_of(self, parent: Channel, archived: bool | None = None) -> list[Channel]:
        """The threads under ``parent``, oldest first (``archived``: only those archived, or
        only those active; None: all)."""
        guild = self.guilds.get(parent.guild_id or 0)
        return [c for c in (guild.channels if guild else [])
                if c.thread and c.parent_id == parent.id
                and (archived is None or c.archived == archived)]

    def starter(self, thread: Channel) -> Message | None:
        """The message ``thread`` was started from (None: started on its own, or deleted)."""
        found = self.messages.get(thread.id)
        return found if found is not None and found.thread is thread else None

    def set_archived(self, thread: Channel, archived: bool, locked: bool | None = None) -> None:
        """Archive or unarchive ``thread`` (and lock or unlock it, when ``locked`` is given);
        sent as THREAD_UPDATE when anything changed."""
        if not thread.thread:
            raise LoopbackError(f"channel {thread.id} is no thread", "no_thread")
        before = (thread.archived, thread.locked)
        thread.locked = thread.locked if locked is None else locked
        if thread.archived != archived:
            thread.archived = archived
            thread.archived_at = iso_now()
        thread.active = self.now()
        if (thread.archived, thread.locked) != before:
            self.thread_changed(thread)

    def thread_changed(self, thread: Channel) -> None:
        """``thread`` changed: THREAD_UPDATE, and its starter message and channels redrawn."""
        self.announce("THREAD_UPDATE", thread.payload())
        starter = self.starter(thread)
        if starter is not None:
            starter.revision += 1
        self.bump(thread.parent_id)
        self.bump(thread.id)

    def archive_idle_threads(self) -> None:
        """Archive every thread idle for its ``auto_archive`` minutes (by the stand-in's
        clock), as Discord does."""
        if not self.threads:
            return
        now = self.now()
        for channel in list(self.threads.values()):
            if not channel.archived and now - channel.active >= channel.auto_archive * 60:
                self.set_archived(channel, True)

    def thread_message(self, thread: Channel, message: Message, added: bool) -> None:
        """A message was posted (``added``) into ``thread`` or deleted from it: its counts and
        last activity follow (THREAD_UPDATE is not sent for it, as on Discord)."""
        if added:
            thread.message_count += 1
            thread.total_sent += 1
            thread.active = self.now()
        else:
            thread.message_count = max(0, thread.message_count - 1)
        starter = self.starter(thread)
        if starter is not None:
            starter.revision += 1
            self.bump(thread.parent_id)

    def delete_message(self, message: Message) -> None:
        """``message`` is deleted: gone for everyone (a thread no longer counts it)."""
        channel = self.channels.get(message.channel_id)
        if channel is not None and channel.thread and not message.ephemeral \
                and not message.deleted:
            self.thread_message(channel, message, False)
        message.deleted = True
        message.revision += 1
        self.bump(message.channel_id)

    def delete_thread(self, thread: Channel) -> None:
        """Delete ``thread`` and its messages (sent as THREAD_DELETE): the API answers Unknown
        Channel for it from now on, and its starter message no longer shows it."""
        if not thread.thread:
            raise LoopbackError(f"channel {thread.id} is no thread", "no_thread")
        starter = self.starter(thread)
        if starter is not None:
            starter.thread = None
            starter.revision += 1
        guild = self.guilds[thread.guild_id or 0]
        guild.channels.remove(thread)
        del self.channels[thread.id]
        del self.threads[thread.id]
        self.deleted_channels.add(thread.id)
        for mid in self.channel_log.get(thread.id, []):
            self.messages[mid].deleted = True
        self.announce("THREAD_DELETE", {"id": str(thread.id), "guild_id": str(guild.id),
                                        "parent_id": str(thread.parent_id),
                                        "type": thread.type})
        self.bump(thread.parent_id)
        self.bump(thread.id)

    def delete_channel(self, channel: Channel) -> None:
        """Delete the server's text channel ``channel`` with its threads and all their
        messages, sent as CHANNEL_DELETE alone (as Discord does: no THREAD_DELETE for its
        threads); the API answers Unknown Channel for each of them from now on."""
        if channel.thread or channel.guild_id is None:
            raise LoopbackError(f"channel {channel.id} is no server's text channel",
                                "no_channel")
        guild = self.guilds[channel.guild_id]
        payload = channel.payload()
        for gone in [*self.threads_of(channel), channel]:
            guild.channels.remove(gone)
            del self.channels[gone.id]
            self.threads.pop(gone.id, None)
            self.deleted_channels.add(gone.id)
            for mid in self.channel_log.get(gone.id, []):
                self.messages[mid].deleted = True
            self.bump(gone.id)
        self.announce("CHANNEL_DELETE", payload)
        self.bump()

    def remove_guild(self, guild: Guild) -> None:
        """The bot is removed from ``guild`` (kicked, or the server deleted): sent as
        GUILD_DELETE (without ``unavailable``, as Discord does); its channels and threads stay
        on Discord but out of the bot's reach, so every request about them answers Missing
        Access (403, 50001), and no one there can reach the bot any more."""
        if self.guilds.pop(guild.id, None) is None:
            raise LoopbackError(f"the bot is not in guild {guild.id}", "no_guild")
        for channel in guild.channels:
            channel.bot_permissions = 0
        self.announce("GUILD_DELETE", {"id": str(guild.id)})
        self.bump()

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
        self.announce("CHANNEL_CREATE", channel.payload())
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

    def leave_guild(self, guild: Guild, user: User) -> None:
        """``user`` leaves ``guild`` (or is removed from it). No event: a bot hears of members
        only with the privileged members intent."""
        guild.gone.add(user.id)
        self.bump()

    def join_guild(self, guild: Guild, user: User) -> None:
        """``user`` joins ``guild`` again (no event either)."""
        guild.gone.discard(user.id)
        self.bump()

    def shares_guild(self, user: User) -> bool:
        """Whether ``user`` is in a guild with the bot (a stand-in without guilds does not
        tell: True)."""
        return not self.guilds or any(user.id not in g.gone for g in self.guilds.values())

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
