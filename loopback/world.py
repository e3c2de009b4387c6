"""The stand-in's state and rules: guilds, channels, users, messages, interactions, commands,
Discord's REST semantics, and the record of every rule the bot broke.

:class:`World` is transport-free: :mod:`loopback.server` turns HTTP requests into
:meth:`World.rest` calls and :mod:`loopback.gateway` carries events to the bot. The user side
(:meth:`World.command`, :meth:`World.click`, :meth:`World.select`, :meth:`World.autocomplete`,
:meth:`World.messages`) is what a test, a benchmark or the playground page uses to act as people.

Rules held (each breach is appended to :attr:`World.breaches`, and the request is answered the
way Discord answers it):

- ``schema``: a request body that does not validate against Discord's OpenAPI document;
- ``limits``: content, embed, component, attachment or autocomplete limits (:mod:`.limits`);
- ``late``: no initial response within 3 s (the user sees "interaction failed"; a response
  that comes later gets 404 Unknown interaction, as from Discord);
- ``double``: a second initial response (400 "already acknowledged");
- ``response-type``: a response type that does not fit the interaction;
- ``expired``: a follow-up or edit through a token older than 15 minutes (401);
- ``early``: a webhook call of an interaction before its initial response;
- ``retry``: a request repeated before the ``retry_after`` of an injected 429 elapsed;
- ``attachment``: an embed showing ``attachment://name`` that the message does not carry;
- ``empty``, ``unknown``, ``unsupported``: empty messages, unknown objects, routes the stand-in
  does not implement (so a test notices when the bot starts using something new).

An interaction pending when the bot's connection closed (a crash) is not a breach: it goes to
:attr:`World.orphaned` and fails, as on Discord.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loopback import limits
from loopback.clock import Clock, SystemClock
from loopback.gateway import Gateway
from loopback.model import (
    ALL_PERMISSIONS,
    EPHEMERAL,
    LOADING,
    Attachment,
    Breach,
    Channel,
    Guild,
    Interaction,
    Message,
    User,
    iso_now,
    snowflake,
)
from loopback.spec import SPEC_PATH, Spec

log = logging.getLogger("loopback")

#: Discord's rule: the initial response within 3 seconds.
RESPONSE_DEADLINE = 3.0
#: Interaction tokens are valid for 15 minutes.
TOKEN_LIFETIME = 15 * 60.0
#: Tolerance for clock granularity when checking a retry against ``retry_after``.
RETRY_SLACK = 0.02
SUPPRESS_EMBEDS = 1 << 2
SUPPRESS_NOTIFICATIONS = 1 << 12
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$")


class LoopbackError(ValueError):
    """Something a Discord user cannot do (click a hidden message, run an unknown command...).

    The text (``str(error)``) is English, for tests and logs; ``code`` names the refusal and
    ``params`` fill its placeholders, so the playground shows it in the viewer's language
    (``playground.page.refusal.<code>`` in ``i18n/locales/*/playground.toml``)."""

    def __init__(self, text: str, code: str = "bad_request", **params: str | int) -> None:
        super().__init__(text)
        self.code = code
        self.params = {k: str(v) for k, v in params.items()}

    def public(self) -> dict[str, Any]:
        """The error as the control API answers it: English text, code and parameters."""
        return {"error": str(self), "code": self.code, "params": self.params}


class ApiError(Exception):
    """An error answer of the API: HTTP status, Discord error code and message."""

    def __init__(self, status: int, code: int, message: str,
                 errors: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def reply(self) -> Reply:
        """The HTTP answer."""
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors
        return Reply(self.status, body)


@dataclass
class Upload:
    """A file part of a multipart request (``files[n]``)."""

    field: str
    filename: str
    content_type: str
    data: bytes

    @property
    def index(self) -> int | None:
        """``n`` of a ``files[n]`` field name."""
        m = re.fullmatch(r"files\[(\d+)\]", self.field)
        return int(m.group(1)) if m else None


@dataclass
class Reply:
    """An HTTP answer of the API (JSON body, or no body)."""

    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class RateLimit:
    """An injected rate limit: the next ``count`` matching requests get a 429."""

    pattern: re.Pattern[str]
    method: str | None
    count: int
    retry_after: float
    scope: str = "user"
    global_: bool = False
    hits: list[str] = field(default_factory=list)

    def matches(self, method: str, path: str) -> bool:
        """True for a request this rule still limits."""
        return (self.count > 0 and (self.method is None or self.method == method)
                and self.pattern.search(path) is not None)


Watcher = Callable[[Message], None]
Handler = Callable[..., Awaitable[Reply]]


class World:
    """An in-memory Discord for one bot application."""

    def __init__(self, *, clock: Clock | None = None, validate: bool = True,
                 spec_path: Path = SPEC_PATH, token: str | None = None,
                 application_id: int | None = None, bot_name: str = "Karak",
                 keep_files: bool = True, heartbeat_interval: float = 41.25,
                 response_deadline: float = RESPONSE_DEADLINE,
                 token_lifetime: float = TOKEN_LIFETIME) -> None:
        self.clock: Clock = clock or SystemClock()
        self.spec: Spec | None = Spec(spec_path) if validate else None
        self.token = token
        self.application_id = application_id or snowflake()
        self.bot = User(self.application_id, bot_name, bot=True)
        self.keep_files = keep_files
        self.response_deadline = response_deadline
        self.token_lifetime = token_lifetime
        self.base_url = "http://127.0.0.1"
        self.users: dict[int, User] = {}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, Message] = {}
        self.channel_log: dict[int, list[int]] = {}
        self.files: dict[int, Attachment] = {}
        self.interactions: dict[int, Interaction] = {}
        self.by_token: dict[str, Interaction] = {}
        self._pending: set[int] = set()
        self.commands: dict[int | None, list[dict[str, Any]]] = {}
        self.breaches: list[Breach] = []
        self.orphaned: list[Interaction] = []
        self.rate_limits: list[RateLimit] = []
        self._limited: dict[str, tuple[float, float]] = {}
        self.requests: list[tuple[float, str, str]] = []
        self.watchers: list[Watcher] = []
        self.version = 0
        self._changed = asyncio.Event()
        self.channel_versions: dict[int, int] = {}
        self._channel_events: dict[int, asyncio.Event] = {}
        self.gateway = Gateway(self, heartbeat_interval=heartbeat_interval)
        self._routes: list[tuple[str, re.Pattern[str], Handler, bool]] = []
        self._setup_routes()

    # ------------------------------------------------------------------ bookkeeping

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

    def breach(self, rule: str, detail: str, route: str = "",
               interaction: Interaction | None = None) -> None:
        """Record a rule the bot broke."""
        item = Breach(rule, detail, route, interaction.id if interaction else None)
        log.warning("Discord rule broken: %s", item)
        self.breaches.append(item)

    def check_deadlines(self) -> None:
        """Fail every interaction left without an initial response past the 3 s deadline."""
        now = self.now()
        for iid in list(self._pending):
            ix = self.interactions[iid]
            if ix.responded is not None or ix.failed is not None:
                self._pending.discard(iid)
                continue
            if now - ix.created <= self.response_deadline:
                continue
            self._pending.discard(iid)
            if ix.session is not None and self.gateway.lost_since(ix.session, ix.created):
                ix.mark_failed("the bot's connection was lost")
                self.orphaned.append(ix)
            else:
                self.breach("late", f"{ix.kind} interaction not answered within "
                            f"{self.response_deadline:g} s", interaction=ix)
                ix.mark_failed(f"no response within {self.response_deadline:g} s")
            self.bump(ix.channel_id)

    def session_ended(self, session: str) -> None:
        """A new IDENTIFY replaced ``session`` (the bot restarted): what it still held is lost.

        Interactions not answered yet fail now (no need to wait for the 3 s deadline); deferred
        ones not finished fail too (on Discord they would show "thinking..." until the token
        expires). Both go to :attr:`orphaned`, not to the breaches. A later completion through
        the token still counts.
        """
        for ix in self.interactions.values():
            if ix.session != session or ix.completed is not None or ix.failed is not None:
                continue
            self._pending.discard(ix.id)
            ix.mark_failed("the bot's connection was lost" if ix.responded is None
                           else "the bot restarted before finishing")
            self.orphaned.append(ix)
        self.bump()

    # ------------------------------------------------------------------ the world

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
        self.gateway.broadcast("GUILD_CREATE", self.guild_payload(guild))
        self.bump()
        return guild

    def create_channel(self, guild: Guild, name: str = "goblin",
                       channel_id: int | None = None) -> Channel:
        """A new text channel of ``guild`` (sent as CHANNEL_CREATE)."""
        channel = Channel(channel_id or snowflake(), guild.id, name, len(guild.channels))
        guild.channels.append(channel)
        self.channels[channel.id] = channel
        self.channel_log[channel.id] = []
        self.gateway.broadcast("CHANNEL_CREATE", channel.payload())
        self.bump()
        return channel

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

    def _find_command(self, guild_id: int | None, path: str) -> tuple[
            dict[str, Any], list[str], list[dict[str, Any]]]:
        names = path.split()
        if not names:
            raise LoopbackError("empty command", "empty_command")
        root = next((c for c in self.registered(guild_id)
                     if c["name"] == names[0] and c.get("type", 1) == 1), None)
        if root is None:
            known = ", ".join(sorted(c["name"] for c in self.registered(guild_id))) or "none"
            raise LoopbackError(f"no command /{names[0]} is registered (known: {known})",
                                 "unknown_command", command=names[0])
        options: list[dict[str, Any]] = root.get("options") or []
        chain: list[str] = []
        for name in names[1:]:
            sub = next((o for o in options if o["name"] == name and o["type"] in (1, 2)), None)
            if sub is None:
                command = " ".join(names[:len(chain) + 1])
                raise LoopbackError(f"/{command} has no sub-command {name}", "no_subcommand",
                                    command=command, name=name)
            chain.append(name)
            options = sub.get("options") or []
        if any(o["type"] in (1, 2) for o in options):
            raise LoopbackError(f"/{path} needs a sub-command", "needs_subcommand",
                                command=path)
        return root, chain, options

    @staticmethod
    def _option(spec: dict[str, Any], value: Any, forge: bool) -> dict[str, Any]:
        kind = spec["type"]
        name = spec["name"]
        ok = {3: isinstance(value, str), 4: isinstance(value, int) and not isinstance(value, bool),
              5: isinstance(value, bool),
              10: isinstance(value, int | float) and not isinstance(value, bool)}.get(kind, True)
        if not ok and not forge:
            raise LoopbackError(f"option {name}: {value!r} is not of type {kind}", "option_type",
                                option=name)
        if not forge:
            choices = spec.get("choices")
            if choices and value not in [c["value"] for c in choices]:
                raise LoopbackError(f"option {name}: {value!r} is not one of its choices",
                                    "option_choice", option=name, value=str(value))
            if kind == 3:
                low, high = spec.get("min_length", 0), spec.get("max_length", 6000)
                if not low <= len(value) <= high:
                    raise LoopbackError(f"option {name}: length {len(value)} not in "
                                        f"{low}..{high}", "option_length", option=name,
                                        low=low, high=high)
            if kind in (4, 10):
                if "min_value" in spec and value < spec["min_value"]:
                    raise LoopbackError(f"option {name}: below {spec['min_value']}",
                                        "option_below", option=name, limit=spec["min_value"])
                if "max_value" in spec and value > spec["max_value"]:
                    raise LoopbackError(f"option {name}: above {spec['max_value']}",
                                        "option_above", option=name, limit=spec["max_value"])
        return {"name": name, "type": kind, "value": value}

    def _command_data(self, channel: Channel, path: str, options: dict[str, Any],
                      focused: str | None, forge: bool, user: User) -> dict[str, Any]:
        root, chain, specs = self._find_command(channel.guild_id, path)
        perms = root.get("default_member_permissions")
        if perms not in (None, "") and int(perms) & ~user.permissions and not forge:
            raise LoopbackError(f"/{root['name']} is hidden from {user.name} (permissions)",
                                "command_hidden", command=root["name"])
        by_name = {o["name"]: o for o in specs}
        built = []
        for name, value in options.items():
            spec = by_name.get(name)
            if spec is None:
                if not forge:
                    raise LoopbackError(f"/{path} has no option {name}", "no_option",
                                        command=path, option=name)
                spec = {"name": name, "type": 3}
            item = self._option(spec, value, forge or name == focused)
            if name == focused:
                if not spec.get("autocomplete"):
                    raise LoopbackError(f"option {name} has no autocomplete", "no_autocomplete",
                                        option=name)
                item["focused"] = True
            built.append(item)
        if not forge and focused is None:
            missing = [o["name"] for o in specs if o.get("required") and o["name"] not in options]
            if missing:
                raise LoopbackError(f"/{path} needs {', '.join(missing)}", "missing_options",
                                    command=path, options=", ".join(missing))
        for name in reversed(chain):
            kind = 1 if name == chain[-1] else 2
            built = [{"name": name, "type": kind, "options": built}]
        data: dict[str, Any] = {"id": root["id"], "name": root["name"], "type": 1,
                                "options": built}
        if root.get("guild_id"):
            data["guild_id"] = root["guild_id"]
        return data

    async def command(self, user: User, channel: Channel, path: str, *, forge: bool = False,
                      **options: Any) -> Interaction:
        """``user`` runs the slash command ``path`` (``"goblin new"``) in ``channel``.

        Options are checked against the registered command like Discord's client does (types,
        choices, lengths, required ones); ``forge=True`` sends them unchecked, as a modified
        client could. Returns at once; await :meth:`Interaction.answered` / ``done``.
        """
        data = self._command_data(channel, path, options, None, forge, user)
        return self._interact(user, channel, 2, data, None)

    async def autocomplete(self, user: User, channel: Channel, path: str, option: str,
                           text: str, timeout: float = 5.0,
                           **options: Any) -> list[dict[str, Any]]:
        """``user`` types ``text`` into ``option`` of ``path``; returns the bot's choices."""
        data = self._command_data(channel, path, {**options, option: text}, option, False, user)
        ix = self._interact(user, channel, 4, data, None)
        await ix.done(timeout)
        return list(ix.choices or [])

    def _component_target(self, user: User, message: Message, custom_id: str, kind: int,
                          forge: bool) -> dict[str, Any]:
        if not message.visible_to(user.id) and not forge:
            raise LoopbackError(f"{user.name} cannot see message {message.id}", "message_hidden")
        component = message.component(custom_id)
        # Discord's servers (not only its client) refuse a component the message does not have
        if component is None:
            raise LoopbackError(f"message {message.id} has no component {custom_id!r}",
                                "no_component")
        if component.get("type") != kind:
            raise LoopbackError(f"component {custom_id!r} is not of type {kind}", "component_type")
        if forge:
            return component
        if component.get("disabled"):
            raise LoopbackError(f"component {custom_id!r} is disabled", "component_disabled")
        if message.loading:
            raise LoopbackError(f"message {message.id} is still loading", "message_loading")
        return component

    async def click(self, user: User, message: Message, custom_id: str, *,
                    forge: bool = False) -> Interaction:
        """``user`` clicks the button ``custom_id`` on ``message`` (which they must see).

        ``forge=True`` skips what only the client checks (the user sees the message, the
        button is enabled), as a modified client could; Discord's servers still refuse a
        custom_id the message does not carry (use :meth:`plant_message` for damaged ones)."""
        component = self._component_target(user, message, custom_id, 2, forge)
        if component.get("style") == limits.LINK and not forge:
            raise LoopbackError("a link button opens a URL, it sends no interaction", "link_button")
        return self._interact(user, self.channel(message.channel_id), 3,
                              {"custom_id": custom_id, "component_type": 2}, message)

    async def select(self, user: User, message: Message, custom_id: str, values: list[str], *,
                     forge: bool = False) -> Interaction:
        """``user`` picks ``values`` in the select menu ``custom_id`` on ``message``."""
        component = self._component_target(user, message, custom_id, 3, forge)
        if not forge:
            offered = {o["value"] for o in component.get("options") or []}
            unknown = [v for v in values if v not in offered]
            if unknown:
                raise LoopbackError(f"{unknown} are not options of {custom_id!r}", "not_options")
            low, high = component.get("min_values", 1), component.get("max_values", 1)
            if not low <= len(values) <= high:
                raise LoopbackError(f"{len(values)} values, the menu takes {low}..{high}",
                                    "value_count", low=low, high=high)
        return self._interact(user, self.channel(message.channel_id), 3,
                              {"custom_id": custom_id, "component_type": 3,
                               "values": list(values)}, message)

    def plant_message(self, channel: Channel, components: list[dict[str, Any]],
                      content: str = "", owner: User | None = None) -> Message:
        """A message of the bot's application written without the bot: as if an older
        version of the bot (or a corrupted one) had posted it, e.g. with damaged custom_ids."""
        message = Message(snowflake(), channel.id, channel.guild_id, self.bot, content=content,
                          components=components, owner=owner.id if owner else None)
        message.revision = 1
        self.messages[message.id] = message
        self.channel_log.setdefault(channel.id, []).append(message.id)
        self.bump(channel.id)
        return message

    def _interact(self, user: User, channel: Channel, kind: int, data: dict[str, Any],
                  message: Message | None) -> Interaction:
        ix = Interaction(snowflake(), "aW50" + secrets.token_urlsafe(60), kind, user, channel.id,
                         channel.guild_id, data, self.now(),
                         message_id=message.id if message else None)
        self.interactions[ix.id] = ix
        self.by_token[ix.token] = ix
        payload = self._interaction_payload(ix, channel, message)
        ix.session = self.gateway.deliver(payload)
        if ix.session is None:
            ix.mark_failed("the bot is offline")
        else:
            self._pending.add(ix.id)
        self.bump(channel.id)
        return ix

    def _interaction_payload(self, ix: Interaction, channel: Channel,
                             message: Message | None) -> dict[str, Any]:
        guild = self.guilds.get(channel.guild_id)
        out: dict[str, Any] = {
            "id": str(ix.id), "application_id": str(self.application_id), "type": ix.type,
            "token": ix.token, "version": 1, "guild_id": str(channel.guild_id),
            "guild": {"id": str(channel.guild_id), "locale": guild.locale if guild else "en-US",
                      "features": []},
            "channel_id": str(channel.id), "channel": channel.payload(),
            "member": ix.user.member(), "locale": ix.user.locale,
            "guild_locale": guild.locale if guild else "en-US",
            "app_permissions": str(ALL_PERMISSIONS), "entitlements": [],
            "authorizing_integration_owners": {"0": str(channel.guild_id)}, "context": 0,
            "attachment_size_limit": 10 * 1024 * 1024, "data": ix.data,
        }
        if message is not None:
            out["message"] = message.payload(self.base_url, self.application_id)
        return out

    # ------------------------------------------------------------------ rate limits

    def inject_429(self, pattern: str = ".", *, method: str | None = None, count: int = 1,
                   retry_after: float = 0.3, scope: str = "user",
                   global_: bool = False) -> RateLimit:
        """Answer the next ``count`` requests whose path matches ``pattern`` (a regex searched
        in the path after ``/api/v10``) with 429 Too Many Requests, as Discord does."""
        rule = RateLimit(re.compile(pattern), method.upper() if method else None, count,
                         retry_after, scope, global_)
        self.rate_limits.append(rule)
        return rule

    def _rate_limited(self, method: str, path: str, key: str) -> Reply | None:
        now = self.now()
        last = self._limited.get(key)
        if last is not None:
            at, wait = last
            if now < at + wait - RETRY_SLACK:
                self.breach("retry", f"retried {now - at:.3f} s after a 429 asking for "
                            f"{wait:g} s", f"{method} {path}")
            del self._limited[key]
        for rule in self.rate_limits:
            if rule.matches(method, path):
                rule.count -= 1
                rule.hits.append(f"{method} {path}")
                self._limited[key] = (now, rule.retry_after)
                reset = time.time() + rule.retry_after
                headers = {
                    "Retry-After": str(max(1, math.ceil(rule.retry_after))),
                    "X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Reset": f"{reset:.3f}",
                    "X-RateLimit-Reset-After": f"{rule.retry_after:.3f}",
                    "X-RateLimit-Bucket": "loopback" + str(abs(hash(key)) % 10**8),
                    "X-RateLimit-Scope": "global" if rule.global_ else rule.scope,
                    "Via": "1.1 google",
                }
                if rule.global_:
                    headers["X-RateLimit-Global"] = "true"
                return Reply(429, {"message": "You are being rate limited.",
                                   "retry_after": rule.retry_after, "global": rule.global_},
                             headers)
        return None

    # ------------------------------------------------------------------ REST entry point

    def _setup_routes(self) -> None:
        table: list[tuple[str, str, Handler, bool]] = [
            ("GET", "/users/@me", self._me, True),
            ("GET", "/oauth2/applications/@me", self._application, True),
            ("GET", "/applications/@me", self._application, True),
            ("GET", "/gateway", self._gateway, False),
            ("GET", "/gateway/bot", self._gateway, True),
            ("GET", "/applications/{app}/commands", self._commands_get, True),
            ("PUT", "/applications/{app}/commands", self._commands_put, True),
            ("POST", "/applications/{app}/commands", self._commands_post, True),
            ("GET", "/applications/{app}/guilds/{guild}/commands", self._commands_get, True),
            ("PUT", "/applications/{app}/guilds/{guild}/commands", self._commands_put, True),
            ("POST", "/applications/{app}/guilds/{guild}/commands", self._commands_post, True),
            ("POST", "/interactions/{iid}/{token}/callback", self._callback, False),
            ("POST", "/webhooks/{app}/{token}", self._followup, False),
            ("GET", "/webhooks/{app}/{token}/messages/{mid}", self._hook_get, False),
            ("PATCH", "/webhooks/{app}/{token}/messages/{mid}", self._hook_edit, False),
            ("DELETE", "/webhooks/{app}/{token}/messages/{mid}", self._hook_delete, False),
            ("GET", "/channels/{cid}", self._channel_get, True),
            ("GET", "/channels/{cid}/messages", self._history, True),
            ("POST", "/channels/{cid}/messages", self._post, True),
            ("GET", "/channels/{cid}/messages/{mid}", self._message_get, True),
            ("PATCH", "/channels/{cid}/messages/{mid}", self._edit, True),
            ("DELETE", "/channels/{cid}/messages/{mid}", self._delete, True),
        ]
        for method, template, handler, auth in table:
            regex = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template))
            self._routes.append((method, re.compile(f"^{regex}$"), handler, auth))

    def authorised(self, header: str | None) -> bool:
        """True for ``Bot <token>`` with the expected (or, if none set, a well-formed) token."""
        if not header or not header.startswith("Bot "):
            return False
        token = header[4:].strip()
        return token == self.token if self.token else bool(_TOKEN.match(token))

    async def rest(self, method: str, path: str, query: dict[str, str], auth: str | None,
                   body: Any, uploads: list[Upload]) -> Reply:
        """Answer one REST request (``path`` after ``/api/v10``), enforcing the rules."""
        method = method.upper()
        self.requests.append((self.now(), method, path))
        self.check_deadlines()
        for m, regex, handler, needs_auth in self._routes:
            found = regex.match(path)
            if found is None or m != method:
                continue
            if needs_auth and not self.authorised(auth):
                return Reply(401, {"message": "401: Unauthorized", "code": 0})
            if self.spec is not None:
                _, problems = self.spec.problems(method, path, body)
                for p in problems:
                    self.breach("schema", p, f"{method} {path}")
                if problems:
                    return Reply(400, {"message": "Invalid Form Body", "code": 50035,
                                       "errors": {"_errors": [{"code": "SCHEMA",
                                                               "message": problems[0]}]}})
            key = f"{method} {path}"
            if found.groupdict().get("token"):  # one bucket per interaction token
                key = f"{method} {regex.pattern} {found['token']}"
            limited = self._rate_limited(method, path, key)
            if limited is not None:
                return limited
            try:
                reply = await handler(found.groupdict(), body, uploads, query)
            except ApiError as exc:
                return exc.reply()
            if reply.status < 300:
                self.bump()
            return reply
        self.breach("unsupported", "the stand-in does not implement this route",
                    f"{method} {path}")
        return Reply(404, {"message": "404: Not Found", "code": 0})

    # ------------------------------------------------------------------ identity

    async def _me(self, params: dict[str, str], body: Any, uploads: list[Upload],
                  query: dict[str, str]) -> Reply:
        return Reply(200, dict(self.bot.payload(), verified=True, mfa_enabled=False, flags=0,
                               locale="en-US", email=None))

    async def _application(self, params: dict[str, str], body: Any, uploads: list[Upload],
                           query: dict[str, str]) -> Reply:
        return Reply(200, {
            "id": str(self.application_id), "name": self.bot.name, "icon": None,
            "description": "Karak: Goblin (loopback)", "summary": "", "type": None,
            "bot_public": True, "bot_require_code_grant": False, "verify_key": "0" * 64,
            "flags": 0, "owner": {"id": "1", "username": "owner", "discriminator": "0",
                                  "global_name": None, "avatar": None},
            "team": None, "rpc_origins": [], "interactions_endpoint_url": None,
            "bot": self.bot.payload(), "approximate_guild_count": len(self.guilds),
            "redirect_uris": [], "tags": [], "install_params": None,
        })

    async def _gateway(self, params: dict[str, str], body: Any, uploads: list[Upload],
                       query: dict[str, str]) -> Reply:
        return Reply(200, {"url": self.gateway.url, "shards": 1, "session_start_limit": {
            "total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}})

    # ------------------------------------------------------------------ commands

    def _app(self, params: dict[str, str]) -> None:
        if params.get("app") != str(self.application_id):
            raise ApiError(404, 10002, "Unknown Application")

    def _guild_of(self, params: dict[str, str]) -> int | None:
        if "guild" not in params:
            return None
        gid = int(params["guild"]) if params["guild"].isdigit() else -1
        if gid not in self.guilds:
            raise ApiError(404, 10004, "Unknown Guild")
        return gid

    def _stored_command(self, guild: int | None, body: dict[str, Any],
                        old: list[dict[str, Any]]) -> dict[str, Any]:
        prev = next((c for c in old if c["name"] == body["name"]
                     and c.get("type", 1) == body.get("type", 1)), None)
        out = dict(body, id=prev["id"] if prev else str(snowflake()),
                   application_id=str(self.application_id), version=str(snowflake()),
                   type=body.get("type", 1),
                   default_member_permissions=body.get("default_member_permissions"))
        if guild is not None:
            out["guild_id"] = str(guild)
        return out

    async def _commands_get(self, params: dict[str, str], body: Any, uploads: list[Upload],
                            query: dict[str, str]) -> Reply:
        self._app(params)
        return Reply(200, self.commands.get(self._guild_of(params), []))

    async def _commands_put(self, params: dict[str, str], body: Any, uploads: list[Upload],
                            query: dict[str, str]) -> Reply:
        self._app(params)
        guild = self._guild_of(params)
        if not isinstance(body, list):
            raise ApiError(400, 50035, "Invalid Form Body")
        old = self.commands.get(guild, [])
        self.commands[guild] = [self._stored_command(guild, c, old) for c in body]
        return Reply(200, self.commands[guild])

    async def _commands_post(self, params: dict[str, str], body: Any, uploads: list[Upload],
                             query: dict[str, str]) -> Reply:
        self._app(params)
        guild = self._guild_of(params)
        old = self.commands.get(guild, [])
        made = self._stored_command(guild, body, old)
        self.commands[guild] = [c for c in old if c["id"] != made["id"]] + [made]
        return Reply(201, made)

    # ------------------------------------------------------------------ messages

    def _new_attachment(self, upload: Upload, description: str | None = None) -> Attachment:
        att = Attachment(snowflake(), upload.filename, len(upload.data), upload.content_type,
                         upload.data if self.keep_files else None, secrets.token_urlsafe(9),
                         description)
        self.files[att.id] = att
        return att

    def _attachments(self, message: Message | None, body: dict[str, Any],
                     uploads: list[Upload]) -> list[Attachment]:
        """The attachments after a create or edit: kept ones, then the new uploads."""
        old = {str(a.id): a for a in (message.attachments if message else [])}
        by_index = {u.index: u for u in uploads if u.index is not None}
        used: set[int] = set()
        out: list[Attachment] = []
        listed = body.get("attachments")
        if listed is None:
            out = list(old.values())
        else:
            for entry in listed:
                ref = str(entry.get("id"))
                if ref in old:
                    out.append(old[ref])
                elif ref.isdigit() and int(ref) in by_index:
                    used.add(int(ref))
                    out.append(self._new_attachment(by_index[int(ref)],
                                                    entry.get("description")))
                else:
                    raise ApiError(400, 50035, "Invalid Form Body", {"attachments": {
                        "_errors": [{"code": "ATTACHMENT_NOT_FOUND",
                                     "message": f"no attachment {ref}"}]}})
        for u in uploads:
            if u.index is None or u.index not in used:
                out.append(self._new_attachment(u))
        for dropped in set(old) - {str(a.id) for a in out}:
            self.files.pop(int(dropped), None)
        return out

    def _mentions(self, body: dict[str, Any]) -> list[int]:
        ids = [int(i) for i in re.findall(r"<@!?(\d+)>", body.get("content") or "")]
        allowed = body.get("allowed_mentions")
        if allowed is None:
            return ids
        if "users" in (allowed.get("parse") or []):
            return ids
        return [i for i in ids if str(i) in {str(u) for u in allowed.get("users") or []}]

    def _write(self, message: Message | None, body: dict[str, Any], uploads: list[Upload],
               route: str, interaction: Interaction | None = None, *,
               channel_id: int = 0, owner: int | None = None,
               create_flags: int = 0) -> Message:
        """Create (``message`` None) or edit a message from a request body, after the checks."""
        problems = limits.message_problems(body, len(uploads))
        if problems:
            for p in problems:
                self.breach("limits", p, route, interaction)
            raise ApiError(400, 50035, "Invalid Form Body",
                           {"_errors": [{"code": "LIMIT", "message": problems[0]}]})
        if message is None:
            if not (body.get("content") or body.get("embeds") or body.get("components")
                    or uploads or body.get("sticker_ids") or body.get("poll")
                    or create_flags & LOADING):
                self.breach("empty", "cannot send an empty message", route, interaction)
                raise ApiError(400, 50006, "Cannot send an empty message")
            channel = self.channels[channel_id]
            raw = body.get("flags")
            asked = raw if isinstance(raw, int) else 0
            flags = (create_flags | (EPHEMERAL if owner is not None else 0)
                     | (asked & (SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS
                                | limits.IS_COMPONENTS_V2)))
            message = Message(snowflake(), channel_id, channel.guild_id, self.bot,
                              flags=flags, owner=owner)
            if interaction is not None:
                message.interaction_id = interaction.id
                message.interaction_user = interaction.user
                message.interaction_name = (interaction.data.get("name")
                                            if interaction.type == 2 else None)
            message.mentions = self._mentions(body)
            self.messages[message.id] = message
            self.channel_log.setdefault(channel_id, []).append(message.id)
        else:
            message.edited = message.edited if message.loading else iso_now()
            message.flags &= ~LOADING
            raw = body.get("flags")  # a message becomes Components V2 for good, never back
            message.flags |= (raw if isinstance(raw, int) else 0) & limits.IS_COMPONENTS_V2
        if "content" in body:
            message.content = body["content"] or ""
        if "embeds" in body:
            message.embeds = list(body["embeds"] or [])
        if "components" in body:
            message.components = list(body["components"] or [])
        if "attachments" in body or uploads:
            message.attachments = self._attachments(message, body, uploads)
        names = {a.filename for a in message.attachments}
        for e in message.embeds:
            for key in ("image", "thumbnail"):
                url = (e.get(key) or {}).get("url") or ""
                if url.startswith("attachment://") and url[13:] not in names:
                    self.breach("attachment", f"embed {key} {url} is not among the "
                                f"message's attachments {sorted(names)}", route, interaction)
        message.revision += 1
        self.bump(message.channel_id)
        for watch in self.watchers:
            try:
                watch(message)
            except Exception as exc:  # a watcher's finding is a failure of the bot
                self.breach("watch", f"{type(exc).__name__}: {exc}", route, interaction)
        return message

    def _payload(self, message: Message) -> dict[str, Any]:
        return message.payload(self.base_url, self.application_id)

    def _channel_param(self, params: dict[str, str]) -> Channel:
        cid = params["cid"]
        channel = self.channels.get(int(cid)) if cid.isdigit() else None
        if channel is None:
            self.breach("unknown", f"unknown channel {cid}")
            raise ApiError(404, 10003, "Unknown Channel")
        return channel

    def _channel_message(self, params: dict[str, str]) -> Message:
        channel = self._channel_param(params)
        mid = params["mid"]
        message = self.messages.get(int(mid)) if mid.isdigit() else None
        if (message is None or message.channel_id != channel.id or message.deleted
                or message.ephemeral):
            raise ApiError(404, 10008, "Unknown Message")
        return message

    async def _channel_get(self, params: dict[str, str], body: Any, uploads: list[Upload],
                           query: dict[str, str]) -> Reply:
        return Reply(200, self._channel_param(params).payload())

    async def _history(self, params: dict[str, str], body: Any, uploads: list[Upload],
                       query: dict[str, str]) -> Reply:
        channel = self._channel_param(params)
        limit = max(1, min(100, int(query.get("limit", "50") or 50)))
        ids = [i for i in self.channel_log.get(channel.id, [])
               if not self.messages[i].ephemeral and not self.messages[i].deleted]
        return Reply(200, [self._payload(self.messages[i]) for i in reversed(ids[-limit:])])

    async def _post(self, params: dict[str, str], body: Any, uploads: list[Upload],
                    query: dict[str, str]) -> Reply:
        channel = self._channel_param(params)
        message = self._write(None, body or {}, uploads, "POST /channels/{id}/messages",
                              channel_id=channel.id)
        return Reply(200, self._payload(message))

    async def _message_get(self, params: dict[str, str], body: Any, uploads: list[Upload],
                           query: dict[str, str]) -> Reply:
        return Reply(200, self._payload(self._channel_message(params)))

    async def _edit(self, params: dict[str, str], body: Any, uploads: list[Upload],
                    query: dict[str, str]) -> Reply:
        message = self._channel_message(params)
        if not message.author.bot:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        self._write(message, body or {}, uploads, "PATCH /channels/{id}/messages/{id}")
        return Reply(200, self._payload(message))

    async def _delete(self, params: dict[str, str], body: Any, uploads: list[Upload],
                      query: dict[str, str]) -> Reply:
        message = self._channel_message(params)
        message.deleted = True
        message.revision += 1
        self.bump(message.channel_id)
        return Reply(204)

    # ------------------------------------------------------------------ interactions

    async def _callback(self, params: dict[str, str], body: Any, uploads: list[Upload],
                        query: dict[str, str]) -> Reply:
        route = "POST /interactions/{id}/{token}/callback"
        iid = params["iid"]
        ix = self.interactions.get(int(iid)) if iid.isdigit() else None
        if ix is None or ix.token != params["token"]:
            self.breach("unknown", f"callback for unknown interaction {iid}", route)
            raise ApiError(404, 10062, "Unknown interaction")
        now = self.now()
        if ix.responded is not None:
            self.breach("double", "a second initial response", route, ix)
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        if ix.failed is not None:  # already failed (and recorded): too late, or orphaned
            raise ApiError(404, 10062, "Unknown interaction")
        if now - ix.created > self.response_deadline:
            self.breach("late", f"initial response after {now - ix.created:.2f} s "
                        f"(at most {self.response_deadline:g} s)", route, ix)
            self._pending.discard(ix.id)
            ix.mark_failed("answered too late")
            raise ApiError(404, 10062, "Unknown interaction")
        kind = body.get("type") if isinstance(body, dict) else None
        if kind not in limits.RESPONSES.get(ix.type, ()):
            self.breach("response-type", f"response type {kind} to a {ix.kind} interaction",
                        route, ix)
            raise ApiError(400, 50035, "Invalid Form Body")
        data = body.get("data") or {}
        flags = int(data.get("flags") or 0)
        message: Message | None = None
        channel = self.channels[ix.channel_id]
        if kind == 4:
            message = self._write(None, data, uploads, route, ix, channel_id=channel.id,
                                  owner=ix.user.id if flags & EPHEMERAL else None)
            ix.original_id, ix.ephemeral = message.id, bool(flags & EPHEMERAL)
        elif kind == 5:
            message = self._write(None, {}, [], route, ix, channel_id=channel.id,
                                  owner=ix.user.id if flags & EPHEMERAL else None,
                                  create_flags=LOADING | (flags & EPHEMERAL))
            ix.original_id, ix.ephemeral = message.id, bool(flags & EPHEMERAL)
        elif kind in (6, 7):
            target = self.messages.get(ix.message_id or 0)
            if target is None or target.deleted:
                raise ApiError(404, 10008, "Unknown Message")
            ix.original_id = target.id
            if kind == 7:
                message = self._write(target, data, uploads, route, ix)
        elif kind == 8:
            choices = data.get("choices") or []
            problems = limits.choices_problems(choices)
            for p in problems:
                self.breach("limits", p, route, ix)
            if problems:
                raise ApiError(400, 50035, "Invalid Form Body")
            ix.choices = list(choices)
        elif kind == 9:
            ix.modal = dict(data)
        ix.response_type = kind
        self._pending.discard(ix.id)
        ix.mark_responded(now)
        if kind in (4, 7, 8, 9):
            ix.mark_completed(now)
        if uploads and ix.imaged is None:
            ix.imaged = now
        if query.get("with_response", "").lower() not in ("true", "1"):
            return Reply(204)
        resource: dict[str, Any] = {"type": kind}
        if message is not None:
            resource["message"] = self._payload(message)
        return Reply(200, {"interaction": {
            "id": str(ix.id), "type": ix.type, "activity_instance_id": None,
            "response_message_id": str(ix.original_id) if ix.original_id else None,
            "response_message_loading": kind == 5, "response_message_ephemeral": ix.ephemeral},
            "resource": resource})

    def _hook(self, params: dict[str, str], route: str) -> Interaction:
        if params["app"] != str(self.application_id):
            raise ApiError(404, 10015, "Unknown Webhook")
        ix = self.by_token.get(params["token"])
        if ix is None:
            self.breach("unknown", "webhook call with an unknown token", route)
            raise ApiError(404, 10015, "Unknown Webhook")
        if self.now() - ix.created > self.token_lifetime:
            self.breach("expired", f"interaction token used after "
                        f"{(self.now() - ix.created) / 60:.1f} minutes", route, ix)
            raise ApiError(401, 50027, "Invalid Webhook Token")
        if ix.responded is None:
            self.breach("early", "webhook call before the initial response", route, ix)
            raise ApiError(404, 10015, "Unknown Webhook")
        return ix

    def _hook_message(self, ix: Interaction, mid: str) -> Message:
        if mid == "@original":
            found = self.messages.get(ix.original_id or 0)
        else:
            found = (self.messages.get(int(mid))
                     if mid.isdigit() and int(mid) in ix.followups else None)
        if found is None or found.deleted:
            raise ApiError(404, 10008, "Unknown Message")
        return found

    def _complete(self, ix: Interaction, uploads: list[Upload]) -> None:
        now = self.now()
        ix.mark_completed(now)
        if uploads and ix.imaged is None:
            ix.imaged = now

    async def _followup(self, params: dict[str, str], body: Any, uploads: list[Upload],
                        query: dict[str, str]) -> Reply:
        route = "POST /webhooks/{id}/{token}"
        ix = self._hook(params, route)
        body = body or {}
        flags = int(body.get("flags") or 0)
        original = self.messages.get(ix.original_id or 0)
        if (ix.response_type == 5 and original is not None and original.loading
                and not ix.followups):
            # the first follow-up of a deferred reply fills the "thinking..." message
            message = self._write(original, body, uploads, route, ix)
        else:
            message = self._write(None, body, uploads, route, ix, channel_id=ix.channel_id,
                                  owner=ix.user.id if flags & EPHEMERAL else None)
        ix.followups.append(message.id)
        self._complete(ix, uploads)
        if query.get("wait", "").lower() in ("true", "1"):
            return Reply(200, self._payload(message))
        return Reply(204)

    async def _hook_get(self, params: dict[str, str], body: Any, uploads: list[Upload],
                        query: dict[str, str]) -> Reply:
        ix = self._hook(params, "GET /webhooks/{id}/{token}/messages/{id}")
        return Reply(200, self._payload(self._hook_message(ix, params["mid"])))

    async def _hook_edit(self, params: dict[str, str], body: Any, uploads: list[Upload],
                         query: dict[str, str]) -> Reply:
        route = "PATCH /webhooks/{id}/{token}/messages/{id}"
        ix = self._hook(params, route)
        message = self._hook_message(ix, params["mid"])
        self._write(message, body or {}, uploads, route, ix)
        self._complete(ix, uploads)
        return Reply(200, self._payload(message))

    async def _hook_delete(self, params: dict[str, str], body: Any, uploads: list[Upload],
                           query: dict[str, str]) -> Reply:
        ix = self._hook(params, "DELETE /webhooks/{id}/{token}/messages/{id}")
        message = self._hook_message(ix, params["mid"])
        message.deleted = True
        message.revision += 1
        self.bump(message.channel_id)
        self._complete(ix, [])
        return Reply(204)

    # ------------------------------------------------------------------ reports

    def summary(self) -> dict[str, Any]:
        """Counts for the control API and reports."""
        return {"users": len(self.users), "guilds": len(self.guilds),
                "messages": len(self.messages), "interactions": len(self.interactions),
                "breaches": [str(b) for b in self.breaches],
                "orphaned": [ix.id for ix in self.orphaned],
                "bot_connected": self.gateway.connected(), "version": self.version,
                "commands": sum(len(v) for v in self.commands.values())}


def dumps(value: Any) -> str:
    """Compact JSON."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
