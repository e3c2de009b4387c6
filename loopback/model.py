"""The stand-in's Discord objects (users, guilds, channels, messages, attachments, interactions)
and their JSON payloads as Discord's API and gateway shape them.

Everything here is plain data; :mod:`loopback.world` holds the objects and applies the rules.
"""

from __future__ import annotations

import copy
import itertools
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from loopback.attachment import Attachment
from loopback.components import interactive, media_urls, texts, walk
from loopback.layout import IS_COMPONENTS_V2
from loopback.permissions import (
    ALL_PERMISSIONS,
    ATTACH_FILES,
    MEMBER_PERMISSIONS,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
    Overwrite,
    Role,
    resolve,
)

#: 2015-01-01, Discord's epoch for snowflakes (milliseconds).
DISCORD_EPOCH = 1_420_070_400_000
EPHEMERAL = 1 << 6
LOADING = 1 << 7
#: Channel types: a guild text channel, a direct message, a group direct message, a public
#: thread, a private thread.
TEXT_CHANNEL, DM_CHANNEL, GROUP_DM, PUBLIC_THREAD, PRIVATE_THREAD = 0, 1, 3, 11, 12
#: A message flag: a thread was started from the message.
HAS_THREAD = 1 << 5
#: How long (minutes) a thread may stay idle before Discord archives it, as Discord offers.
ARCHIVE_DURATIONS = (60, 1440, 4320, 10080)
#: Interaction contexts: a server, the bot's direct messages, any other private channel.
GUILD_CONTEXT, BOT_DM_CONTEXT, PRIVATE_CONTEXT = 0, 1, 2

_counter = itertools.count()


def snowflake() -> int:
    """A new unique snowflake id whose timestamp is now."""
    ms = int(time.time() * 1000) - DISCORD_EPOCH
    return (ms << 22) | (next(_counter) & 0x3FFFFF)


def iso_now() -> str:
    """The current time as Discord writes timestamps."""
    return datetime.now(UTC).isoformat()


@dataclass
class User:
    """A Discord user; ``locale`` is what their client sends (``en-US``, ``fr``, ``cs`` ...)."""

    id: int
    name: str
    locale: str = "en-US"
    admin: bool = False
    bot: bool = False
    #: False: the user closed their direct messages to the bot (a post there gets 403, 50007)
    dms_open: bool = True
    #: Their nickname on the server (the stand-in's servers share it), shown instead of their
    #: name where they are a member; None: none
    nick: str | None = None

    @property
    def permissions(self) -> int:
        """The user's permissions in every channel of the stand-in."""
        return ALL_PERMISSIONS if self.admin else MEMBER_PERMISSIONS

    def payload(self) -> dict[str, Any]:
        """The user object."""
        return {"id": str(self.id), "username": self.name.lower().replace(" ", "_")[:32] or "u",
                "discriminator": "0", "global_name": self.name, "avatar": None,
                "bot": self.bot, "public_flags": 0}

    def member(self, joined: str | None = None, roles: list[int] | None = None,
               permissions: int | None = None) -> dict[str, Any]:
        """The guild member object (with ``permissions``, as interactions carry it: the
        member's in the channel, when given; ``roles``: their role ids, @everyone's left out
        as Discord does)."""
        shown = self.permissions if permissions is None else permissions
        return {"user": self.payload(), "nick": self.nick, "avatar": None,
                "roles": [str(r) for r in roles or []],
                "joined_at": joined or iso_now(), "premium_since": None, "deaf": False,
                "mute": False, "flags": 0, "pending": False,
                "permissions": str(shown), "communication_disabled_until": None}

    def public(self) -> dict[str, Any]:
        """What the control API tells about the user."""
        return {"id": str(self.id), "name": self.name, "locale": self.locale,
                "admin": self.admin}


@dataclass
class Channel:
    """A text channel of a guild, a thread (``type`` 11 public, 12 private) under ``parent``, or a
    private channel without a guild: a direct message between one person and the bot (``type``
    1) or a group direct message of several people the bot is no member of (``type`` 3), their
    people in ``recipients``. ``bot_permissions`` are the bot's permissions in it (interactions
    carry them as ``app_permissions``; a post without the ones it needs is refused with 403),
    ``overwrites`` its permission overwrites (of roles and members, resolved as Discord does),
    ``slowmode`` its rate_limit_per_user.

    A thread also has its ``owner_id`` (who started it), its archive state (``archived``,
    ``locked``, ``auto_archive`` minutes of inactivity, ``archived_at`` as Discord writes it,
    ``active`` the stand-in's clock at its last activity) and counts its messages (the starter
    message and deleted ones left out, as Discord counts them)."""

    id: int
    guild_id: int | None
    name: str
    position: int = 0
    type: int = TEXT_CHANNEL
    parent_id: int | None = None
    bot_permissions: int = ALL_PERMISSIONS
    recipients: tuple[User, ...] = ()
    overwrites: list[Overwrite] = field(default_factory=list)
    slowmode: int = 0
    parent: Channel | None = field(default=None, repr=False, compare=False)
    owner_id: int = 0
    archived: bool = False
    locked: bool = False
    auto_archive: int = 1440
    archived_at: str = field(default_factory=iso_now)
    created_at: str = field(default_factory=iso_now)
    active: float = 0.0
    message_count: int = 0
    total_sent: int = 0

    @property
    def private(self) -> bool:
        """True for a direct message or a group direct message (no guild)."""
        return self.type in (DM_CHANNEL, GROUP_DM)

    @property
    def context(self) -> int:
        """The interaction context of a command run here (0 server, 1 bot DM, 2 private)."""
        return {DM_CHANNEL: BOT_DM_CONTEXT, GROUP_DM: PRIVATE_CONTEXT}.get(self.type,
                                                                           GUILD_CONTEXT)

    @property
    def thread(self) -> bool:
        """True for a thread (public or private)."""
        return self.type in (PUBLIC_THREAD, PRIVATE_THREAD)

    @property
    def bot_rights(self) -> int:
        """The bot's permissions here: a thread's are its parent's (a thread has no overwrites
        of its own), less any the test took from the thread itself."""
        if self.parent is not None:
            return self.bot_permissions & self.parent.bot_rights
        return self.bot_permissions

    def bot_may(self, permissions: int) -> bool:
        """True when the bot holds every one of ``permissions`` here."""
        return self.bot_rights & permissions == permissions

    def may_post(self, uploads: int) -> bool:
        """Whether the bot may post here (a message with ``uploads`` files)."""
        send = SEND_MESSAGES_IN_THREADS if self.thread else SEND_MESSAGES
        return self.bot_may(VIEW_CHANNEL | send | (ATTACH_FILES if uploads else 0))

    def payload(self) -> dict[str, Any]:
        """The channel object."""
        if self.private:
            out: dict[str, Any] = {"id": str(self.id), "type": self.type, "flags": 0,
                                   "last_message_id": None,
                                   "recipients": [u.payload() for u in self.recipients]}
            if self.type == GROUP_DM:
                out.update(name=self.name, icon=None, owner_id=str(self.recipients[0].id))
            return out
        if self.thread:
            return self._thread_payload()
        out = {
            "id": str(self.id), "type": self.type, "guild_id": str(self.guild_id),
            "name": self.name, "position": self.position,
            "permission_overwrites": [o.payload() for o in self.overwrites],
            "nsfw": False, "parent_id": str(self.parent_id) if self.parent_id else None,
            "topic": None, "last_message_id": None, "rate_limit_per_user": self.slowmode,
            "flags": 0}
        return out

    def _thread_payload(self) -> dict[str, Any]:
        """A thread's channel object, as Discord shapes it (no position nor overwrites: a
        thread has its parent's)."""
        meta: dict[str, Any] = {"archived": self.archived, "locked": self.locked,
                                "auto_archive_duration": self.auto_archive,
                                "archive_timestamp": self.archived_at,
                                "create_timestamp": self.created_at}
        if self.type == PRIVATE_THREAD:
            meta["invitable"] = True
        return {"id": str(self.id), "type": self.type, "guild_id": str(self.guild_id),
                "parent_id": str(self.parent_id), "owner_id": str(self.owner_id),
                "name": self.name, "last_message_id": None, "flags": 0,
                "rate_limit_per_user": self.slowmode, "message_count": self.message_count,
                "member_count": 1, "total_message_sent": self.total_sent,
                "thread_metadata": meta}

    def public(self) -> dict[str, Any]:
        """What the control API tells about the channel (a thread: its parent, archive
        state and message count too)."""
        out = {"id": str(self.id),
               "guild_id": str(self.guild_id) if self.guild_id is not None else None,
               "name": self.name, "type": self.type,
               "recipients": [str(u.id) for u in self.recipients]}
        if self.thread:
            out.update(parent_id=str(self.parent_id), owner_id=str(self.owner_id),
                       archived=self.archived, locked=self.locked,
                       message_count=self.message_count)
        return out


@dataclass
class Guild:
    """A guild (server); ``locale`` is its preferred locale."""

    id: int
    name: str
    locale: str = "en-US"
    owner_id: int = 0
    channels: list[Channel] = field(default_factory=list)
    joined: str = field(default_factory=iso_now)
    roles: list[Role] = field(default_factory=list)  # beside @everyone
    member_roles: dict[int, list[int]] = field(default_factory=dict)  # user id -> role ids
    #: The people who left the guild (or were removed): every other user is a member.
    gone: set[int] = field(default_factory=set)

    @property
    def everyone(self) -> Role:
        """The @everyone role (its id is the guild's): a plain member's permissions."""
        return Role(self.id, "@everyone")

    def roles_of(self, user: User) -> list[Role]:
        """The roles ``user`` has in the guild (besides @everyone)."""
        ids = self.member_roles.get(user.id, [])
        return [r for r in self.roles if r.id in ids]

    def permissions_in(self, user: User, channel: Channel) -> int:
        """``user``'s permissions in ``channel`` (a thread: its parent's), as Discord computes
        them (:func:`~loopback.permissions.resolve`)."""
        where = next((c for c in self.channels if c.id == channel.parent_id), channel) \
            if channel.thread else channel
        return resolve(self.everyone, self.roles_of(user), where.overwrites, user.id,
                       user.admin or user.id == self.owner_id)

    def member(self, user: User, channel: Channel | None = None) -> dict[str, Any]:
        """``user``'s member object in the guild (their permissions in ``channel`` when
        given)."""
        return user.member(roles=[r.id for r in self.roles_of(user)],
                           permissions=None if channel is None
                           else self.permissions_in(user, channel))

    def payload(self, bot: User, members: int) -> dict[str, Any]:
        """The GUILD_CREATE payload (everything a bot with the guilds intent receives)."""
        return {
            "id": str(self.id), "name": self.name, "icon": None, "splash": None,
            "discovery_splash": None, "owner_id": str(self.owner_id or bot.id),
            "afk_channel_id": None, "afk_timeout": 300, "verification_level": 0,
            "default_message_notifications": 0, "explicit_content_filter": 0,
            "roles": [r.payload() for r in (self.everyone, *self.roles)], "emojis": [],
            "features": [], "mfa_level": 0,
            "application_id": None, "system_channel_id": None, "system_channel_flags": 0,
            "rules_channel_id": None, "vanity_url_code": None, "description": None,
            "banner": None, "premium_tier": 0, "premium_subscription_count": 0,
            "preferred_locale": self.locale, "public_updates_channel_id": None,
            "nsfw_level": 0, "stickers": [], "premium_progress_bar_enabled": False,
            "joined_at": self.joined, "large": False, "unavailable": False,
            "member_count": members, "voice_states": [], "members": [bot.member(self.joined)],
            "channels": [c.payload() for c in self.channels if not c.thread],
            "threads": [c.payload() for c in self.channels if c.thread and not c.archived],
            "presences": [],
            "stage_instances": [], "guild_scheduled_events": [], "soundboard_sounds": [],
        }

    def public(self) -> dict[str, Any]:
        """What the control API tells about the guild."""
        return {"id": str(self.id), "name": self.name, "locale": self.locale,
                "channels": [c.public() for c in self.channels]}


@dataclass
class Message:
    """A message in a channel. ``owner`` is set for an ephemeral message: only they see it."""

    id: int
    channel_id: int
    guild_id: int | None
    author: User
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    flags: int = 0
    owner: int | None = None
    interaction_id: int | None = None
    interaction_user: User | None = None
    interaction_name: str | None = None  # "goblin new": the command path, sub-commands included
    mentions: list[int] = field(default_factory=list)
    timestamp: str = field(default_factory=iso_now)
    edited: str | None = None
    revision: int = 0
    created: float = 0.0  # by the stand-in's clock
    old_edits: list[float] = field(default_factory=list)  # edits made once over an hour old
    deleted: bool = False
    thread: Channel | None = field(default=None, repr=False, compare=False)  # started from it

    @property
    def ephemeral(self) -> bool:
        """True when only ``owner`` sees the message."""
        return self.owner is not None

    @property
    def loading(self) -> bool:
        """True while the message is a "thinking..." placeholder of a deferred response."""
        return bool(self.flags & LOADING)

    def visible_to(self, user_id: int) -> bool:
        """True when ``user_id`` can see this message in its channel."""
        return not self.deleted and (self.owner is None or self.owner == user_id)

    def _resolve(self, media: Any, base: str) -> Any:
        """A media object with an ``attachment://name`` URL pointed at the served file (as
        Discord answers with its CDN URL); anything else unchanged."""
        url = _url(media)
        found = next((a for a in self.attachments if url == f"attachment://{a.filename}"), None)
        if found is None:
            return media
        return dict(media, url=base + found.path, proxy_url=base + found.path,
                    content_type=found.content_type, attachment_id=str(found.id))

    def _embeds(self, base: str) -> list[dict[str, Any]]:
        """Embeds with ``attachment://name`` URLs resolved to the served file."""
        return [dict(e, **{key: self._resolve(e[key], base) for key in ("image", "thumbnail")
                           if isinstance(e.get(key), dict)}) for e in self.embeds]

    def _components(self, base: str) -> list[dict[str, Any]]:
        """Components with their pictures' and files' ``attachment://`` URLs resolved (only a
        layout shows pictures and files in its components)."""
        if not self.components_v2:
            return self.components
        out: list[dict[str, Any]] = copy.deepcopy(self.components)
        for c in walk(out):
            for key in ("media", "file"):
                if isinstance(c.get(key), dict):
                    c[key] = self._resolve(c[key], base)
            for item in c.get("items") or []:
                if isinstance(item, dict) and isinstance(item.get("media"), dict):
                    item["media"] = self._resolve(item["media"], base)
        return out

    def payload(self, base: str, application_id: int) -> dict[str, Any]:
        """The message object as the API returns it."""
        out: dict[str, Any] = {
            "id": str(self.id), "channel_id": str(self.channel_id), "type": 0,
            "content": self.content, "author": self.author.payload(),
            "embeds": self._embeds(base), "components": self._components(base),
            "attachments": [a.payload(base) for a in self.attachments],
            "mentions": [], "mention_roles": [], "mention_everyone": False, "pinned": False,
            "tts": False, "timestamp": self.timestamp, "edited_timestamp": self.edited,
            "flags": self.flags,
        }
        if self.guild_id is not None:
            out["guild_id"] = str(self.guild_id)
        if self.thread is not None:
            out["thread"] = self.thread.payload()
        if self.author.bot:
            out["application_id"] = str(application_id)
        if self.interaction_id is not None and self.interaction_user is not None:
            out["type"] = 20 if self.interaction_name else 0
            out["webhook_id"] = str(application_id)
            if self.interaction_name:  # the full command path, as Discord's client shows it
                out["interaction"] = {
                    "id": str(self.interaction_id), "type": 2, "name": self.interaction_name,
                    "user": self.interaction_user.payload()}
            out["interaction_metadata"] = {
                "id": str(self.interaction_id), "type": 2 if self.interaction_name else 3,
                "user": self.interaction_user.payload(), "authorizing_integration_owners": {}}
        return out

    def view(self, base: str, application_id: int) -> dict[str, Any]:
        """The payload plus what the stand-in knows (ephemeral owner, revision, loading)."""
        out = self.payload(base, application_id)
        out["loopback"] = {"ephemeral_for": str(self.owner) if self.owner else None,
                           "revision": self.revision, "loading": self.loading,
                           "interaction_user": (str(self.interaction_user.id)
                                                if self.interaction_user else None),
                           "mentions": [str(m) for m in self.mentions]}
        return out

    # -- what a person sees

    @property
    def components_v2(self) -> bool:
        """True for a Components V2 message (its layout lives in ``components``)."""
        return bool(self.flags & IS_COMPONENTS_V2)

    def items(self) -> list[dict[str, Any]]:
        """Every interactive component (buttons and select menus), wherever it is nested."""
        return interactive(self.components)

    def component(self, custom_id: str) -> dict[str, Any] | None:
        """The interactive component with this custom_id, or None."""
        return next((c for c in self.items() if c.get("custom_id") == custom_id), None)

    def custom_ids(self) -> list[str]:
        """The custom_ids of the message's interactive components, in reading order."""
        return [c["custom_id"] for c in self.items() if isinstance(c.get("custom_id"), str)]

    def text(self) -> str:
        """Every text a person can read in the message: content, embeds (title, author,
        description, fields, footer), text displays, button labels, menu placeholders and
        options, pictures' descriptions, attachment names and alt texts."""
        parts = [self.content]
        for e in self.embeds:
            parts += [str(e.get("title") or ""), str((e.get("author") or {}).get("name") or ""),
                      str(e.get("description") or ""),
                      str((e.get("footer") or {}).get("text") or "")]
            parts += [f"{f.get('name')}\n{f.get('value')}" for f in e.get("fields") or []]
        parts += texts(self.components)
        for a in self.attachments:
            parts += [a.filename, a.description or ""]
        return "\n".join(p for p in parts if p)

    def images(self) -> list[str]:
        """The pictures the message shows, as sent (``attachment://name`` for an upload): embed
        images and thumbnails, gallery items and thumbnails of a Components V2 message, and
        (legacy messages only) image attachments no embed shows, which Discord lists below."""
        shown = [url for e in self.embeds for key in ("image", "thumbnail")
                 if (url := _url(e.get(key)))]
        shown += media_urls(self.components)
        if not self.components_v2:
            shown += [f"attachment://{a.filename}" for a in self.attachments
                      if a.picture and f"attachment://{a.filename}" not in shown]
        return shown


def _url(media: Any) -> str:
    url = media.get("url") if isinstance(media, dict) else None
    return url if isinstance(url, str) else ""


def command_path(data: dict[str, Any]) -> str:
    """The full path of an application command's interaction data: the command's name followed
    by its sub-command group and sub-command, if any (``"goblin new"``)."""
    names = [str(data.get("name", ""))]
    options: list[dict[str, Any]] = data.get("options") or []
    while (sub := next((o for o in options if o.get("type") in (1, 2)), None)) is not None:
        names.append(str(sub.get("name", "")))
        options = sub.get("options") or []
    return " ".join(names)
