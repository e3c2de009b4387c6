"""Drive the real discord.py client offline.

Interactions are fed as the gateway delivers them (INTERACTION_CREATE payloads through
``ConnectionState.parse_interaction_create``); the HTTP layer (bot requests and webhook /
interaction-callback requests) is captured, every request body is validated against Discord's
OpenAPI document, and plausible Discord responses are returned so discord.py carries on.
"""
from __future__ import annotations

import asyncio
import itertools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import discord
import discord.http
import discord.webhook.async_ as webhook_async
import pytest
from pace_clock import PaceClock

from bot.client import KarakBot
from bot.service import GameService
from bot.storage import Store
from loopback.spec import SPEC_PATH, Spec, spec  # noqa: F401 - re-exported for the bot tests

ROOT = Path(__file__).resolve().parents[2]
APP_ID = 1100000000000000001
BOT_USER = {"id": str(APP_ID), "username": "Karak", "discriminator": "0", "global_name": None,
            "avatar": None, "bot": True}
GUILD = 1200000000000000001
CHANNEL = 1300000000000000001
ALL_PERMS = str(discord.Permissions.all().value)
MEMBER_PERMS = str(discord.Permissions(view_channel=True, send_messages=True,
                                       use_application_commands=True).value)
_ids = itertools.count(1400000000000000001)


def snowflake() -> int:
    return next(_ids)


def now() -> str:
    return datetime.now(UTC).isoformat()


# ---------------------------------------------------------------------------- the spec
# One validator for the harness and the loopback stand-in: loopback.spec.Spec.

#: The routes the fake answers, as the OpenAPI description names them; without the description
#: (requests not validated) a request's route is found here.
ROUTES = ("/channels/{channel_id}/messages", "/channels/{channel_id}/messages/{message_id}",
          "/interactions/{interaction_id}/{interaction_token}/callback",
          "/webhooks/{webhook_id}/{webhook_token}/messages/@original",
          "/webhooks/{webhook_id}/{webhook_token}", "/applications/{application_id}/commands",
          "/applications/{application_id}/guilds/{guild_id}/commands")


def route_of(path: str) -> str:
    """The route of :data:`ROUTES` that ``path`` belongs to (``path`` itself when none)."""
    for route in ROUTES:
        parts = route.split("/")
        if re.fullmatch("/".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts),
                        path):
            return route
    return path


# ---------------------------------------------------------------------------- captured HTTP


@dataclass
class Call:
    method: str
    path: str
    template: str
    body: Any
    files: list[str]
    query: dict[str, Any] = field(default_factory=dict)


@dataclass
class Message:
    id: int
    channel_id: int
    content: str | None = None
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[dict[str, Any]] = field(default_factory=list)
    flags: int = 0
    files: list[str] = field(default_factory=list)
    deleted: bool = False

    def update(self, body: dict[str, Any], files: list[str]) -> None:
        if "content" in body:
            self.content = body["content"]
        if "embeds" in body:
            self.embeds = body["embeds"] or []
        if "components" in body:
            self.components = body["components"] or []
        if "attachments" in body or files:
            self.files = list(files)
            self.attachments = [
                {"id": str(snowflake()), "filename": f, "size": 1, "url": f"https://cdn/{f}",
                 "proxy_url": f"https://cdn/{f}"} for f in files]
        if "flags" in body and body["flags"] is not None:
            self.flags |= int(body["flags"])

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id), "channel_id": str(self.channel_id), "type": 0,
            "content": self.content or "", "author": BOT_USER, "embeds": self.embeds,
            "components": self.components, "attachments": self.attachments,
            "mentions": [], "mention_roles": [], "mention_everyone": False, "pinned": False,
            "tts": False, "timestamp": now(), "edited_timestamp": None, "flags": self.flags,
            "application_id": str(APP_ID),
        }

    def items(self) -> list[dict[str, Any]]:
        """Every component of the message, nested ones (in containers, rows, sections) too."""
        return list(walk(self.components))

    def text(self) -> str:
        """What the message says: its content, embeds and text displays."""
        parts = [self.content or ""]
        for e in self.embeds:
            parts += [str(e.get("title") or ""), str(e.get("description") or "")]
        parts += [str(c.get("content") or "") for c in self.items() if c.get("type") == 10]
        return "\n".join(p for p in parts if p)

    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in self.items() if "custom_id" in c]

    def pictures(self) -> list[str]:
        """The URLs of the message's media gallery items and embed images."""
        urls = [i["media"]["url"] for c in self.items() if c.get("type") == 12
                for i in c.get("items") or []]
        return urls + [e["image"]["url"] for e in self.embeds if e.get("image")]

    def resolve(self, custom_id: str) -> str:
        """``custom_id`` as the message carries it: a lobby button named without the lobby
        revision it was drawn at (``kg:lobby:1:join``) is found with it (``...:join:3``)."""
        ids = self.custom_ids()
        if custom_id in ids:
            return custom_id
        longer = [i for i in ids if i.startswith(custom_id + ":")]
        return longer[0] if len(longer) == 1 else custom_id

    def component(self, custom_id: str) -> dict[str, Any]:
        custom_id = self.resolve(custom_id)
        for c in self.items():
            if c.get("custom_id") == custom_id:
                return dict(c)
        raise KeyError(custom_id)

    def offered(self) -> dict[str, tuple[str, str | None]]:
        """notation -> (custom_id, option value or None) of every move in this message."""
        out: dict[str, tuple[str, str | None]] = {}
        for c in self.items():
            if True:
                cid = c.get("custom_id", "")
                if c["type"] == 2 and cid.startswith("kg:do:"):
                    out[cid.split(":", 4)[4]] = (cid, None)
                elif c["type"] == 3 and cid.startswith("kg:pick:"):
                    for o in c["options"]:
                        out[o["value"]] = (cid, o["value"])
        return out


def walk(components: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every component in ``components`` and inside them (depth first)."""
    for c in components:
        yield c
        yield from walk(c.get("components") or [])
        if isinstance(c.get("accessory"), dict):
            yield from walk([c["accessory"]])


def body_text(body: dict[str, Any]) -> str:
    """What a request body's message says: content, embeds and text displays."""
    m = Message(0, 0)
    m.update(body, [])
    return m.text()


class FakeDiscord:
    """Captures and answers every request the bot makes; a request that breaks Discord's API
    schema is refused (as Discord would) and remembered in ``violations``, which the autouse
    guard in conftest.py asserts empty after every test."""

    #: Every fake made during the current test (the guard checks their violations).
    instances: list[FakeDiscord] = []

    def __init__(self, validate: bool = True) -> None:
        FakeDiscord.instances.append(self)
        self.violations: list[str] = []
        self.calls: list[Call] = []
        self.messages: dict[int, Message] = {}
        self.channel_order: list[int] = []  # public messages, oldest first
        self.by_token: dict[str, int] = {}  # interaction token -> @original message id
        self.token_interaction: dict[str, int] = {}
        self.validate = validate
        self.missing: set[int] = set()  # message ids that answer 404 (deleted by a user)
        self.too_old: set[int] = set()  # message ids whose edits Discord refuses (30046)
        self.forbidden = False  # channel posts answer 403 (the bot lost its permissions)
        self.expired = False  # interaction answers answer 404 (10062: their 3 seconds ran out)
        self.commands: list[dict[str, Any]] = []

    # -- installation

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        fake = self

        async def http_request(self: discord.http.HTTPClient, route: discord.http.Route, *,
                               files: Any = None, form: Any = None, **kwargs: Any) -> Any:
            body = kwargs.get("json")
            names: list[str] = []
            if form:
                body, names = fake._form(form)
            return await fake.handle(route, body, names, kwargs.get("params") or {})

        async def webhook_request(self: Any, route: discord.http.Route, session: Any = None, *,
                                  payload: Any = None, multipart: Any = None, files: Any = None,
                                  params: Any = None, **kwargs: Any) -> Any:
            body = payload
            names: list[str] = []
            if multipart:
                body, names = fake._form(multipart)
            return await fake.handle(route, body, names, params or {})

        monkeypatch.setattr(discord.http.HTTPClient, "request", http_request)
        monkeypatch.setattr(webhook_async.AsyncWebhookAdapter, "request", webhook_request)

    @staticmethod
    def _form(form: list[dict[str, Any]]) -> tuple[Any, list[str]]:
        body = None
        names = []
        for part in form:
            if part["name"] == "payload_json":
                body = json.loads(part["value"])
            else:
                names.append(part.get("filename") or part["name"])
        return body, names

    # -- answering

    def _path(self, route: discord.http.Route) -> str:
        base = discord.http.Route.BASE
        assert route.url.startswith(base), route.url
        return route.url[len(base):].split("?")[0]

    async def handle(self, route: discord.http.Route, body: Any, files: list[str],
                     query: dict[str, Any]) -> Any:
        await asyncio.sleep(0)
        path = self._path(route)
        try:
            template = (spec().check(route.method, path, body) if self.validate
                        else route_of(path))
        except AssertionError as exc:
            self.violations.append(f"{route.method} {path}: {exc}"[:2000])
            raise
        self.calls.append(Call(route.method, path, template, body, files, dict(query)))
        parts = path.strip("/").split("/")
        m, t = route.method, template
        if t == "/channels/{channel_id}/messages" and m == "POST":
            if self.forbidden:
                raise discord.Forbidden(_Resp(403, "Forbidden"),
                                        {"code": 50013, "message": "Missing Permissions"})
            msg = Message(snowflake(), int(parts[1]))
            msg.update(body, files)
            self.messages[msg.id] = msg
            self.channel_order.append(msg.id)
            return msg.payload()
        if t == "/channels/{channel_id}/messages/{message_id}" and m == "PATCH":
            mid = int(parts[3])
            if mid in self.missing or mid not in self.messages:
                raise discord.NotFound(_Resp(404), {"code": 10008, "message": "Unknown Message"})
            if mid in self.too_old:
                raise discord.HTTPException(_Resp(429, "Too Many Requests"), {
                    "code": 30046, "message": "Maximum number of edits to messages older than "
                                              "1 hour reached. Try again later"})
            self.messages[mid].update(body, files)
            return self.messages[mid].payload()
        if t == "/channels/{channel_id}/messages/{message_id}" and m == "DELETE":
            mid = int(parts[3])
            if mid in self.missing or mid not in self.messages:
                raise discord.NotFound(_Resp(404), {"code": 10008, "message": "Unknown Message"})
            self.messages[mid].deleted = True
            self.channel_order.remove(mid)
            return None
        if self.expired and t.startswith(("/interactions/", "/webhooks/")):
            raise discord.NotFound(_Resp(404), {"code": 10062, "message": "Unknown interaction"})
        if t == "/interactions/{interaction_id}/{interaction_token}/callback":
            return self._callback(parts[1], parts[2], body, files)
        if t == "/webhooks/{webhook_id}/{webhook_token}/messages/@original" and m == "PATCH":
            mid = self.by_token[parts[2]]
            if mid in self.missing:  # dismissed or deleted: Discord answers Unknown Message
                raise discord.NotFound(_Resp(404), {"code": 10008, "message": "Unknown Message"})
            self.messages[mid].update(body, files)
            return self.messages[mid].payload()
        if t == "/webhooks/{webhook_id}/{webhook_token}" and m == "POST":
            msg = Message(snowflake(), CHANNEL)
            msg.update(body, files)
            self.messages[msg.id] = msg
            return msg.payload()
        if t in ("/applications/{application_id}/commands",
                 "/applications/{application_id}/guilds/{guild_id}/commands") and m == "PUT":
            self.commands = [dict(c, id=str(snowflake()), application_id=str(APP_ID),
                                  version=str(snowflake()), default_member_permissions=c.get(
                                      "default_member_permissions"), type=c.get("type", 1))
                             for c in body]
            return self.commands
        raise AssertionError(f"unexpected request {m} {path}")

    def _callback(self, interaction_id: str, token: str, body: dict[str, Any],
                  files: list[str]) -> Any:
        kind = body["type"]
        data = body.get("data") or {}
        ephemeral = bool(int(data.get("flags") or 0) & 64)
        resource: dict[str, Any] = {"type": kind}
        message_id = None
        if kind in (4, 5):  # a new message (or its "thinking" placeholder)
            msg = Message(snowflake(), CHANNEL, flags=64 if ephemeral else 0)
            msg.update(data, files)
            self.messages[msg.id] = msg
            if not ephemeral:
                self.channel_order.append(msg.id)
            self.by_token[token] = msg.id
            message_id = msg.id
            resource["message"] = msg.payload()
        elif kind == 7:  # update the clicked message
            mid = self.by_token[token]
            self.messages[mid].update(data, files)
            message_id = mid
            resource["message"] = self.messages[mid].payload()
        elif kind == 8:  # autocomplete result: nothing to store
            pass
        return {"interaction": {"id": interaction_id, "type": 2, "response_message_id":
                                None if message_id is None else str(message_id),
                                "response_message_loading": kind == 5,
                                "response_message_ephemeral": ephemeral},
                "resource": resource}

    # -- reading

    def public(self) -> list[Message]:
        return [self.messages[i] for i in self.channel_order]

    def last_table_message(self) -> Message:
        for mid in reversed(self.channel_order):
            msg = self.messages[mid]
            if any(c.startswith("kg:hand:") for c in msg.custom_ids()):
                return msg
        raise AssertionError("no table message")

    def requests(self, since: int = 0) -> list[Call]:
        return self.calls[since:]


class _Resp:
    def __init__(self, status: int, reason: str = "Not Found") -> None:
        self.status = status
        self.reason = reason


# ---------------------------------------------------------------------------- users and payloads


@dataclass
class User:
    id: int
    name: str
    perms: str = MEMBER_PERMS

    def payload(self) -> dict[str, Any]:
        return {"id": str(self.id), "username": self.name, "discriminator": "0",
                "global_name": self.name, "avatar": None}

    def member(self) -> dict[str, Any]:
        return {"user": self.payload(), "roles": [], "joined_at": now(), "deaf": False,
                "mute": False, "flags": 0, "permissions": self.perms, "nick": None}


class Harness:
    """One running bot (a "process"): the real client with captured HTTP."""

    def __init__(self, fake: FakeDiscord, bot: KarakBot, store: Store) -> None:
        self.fake = fake
        self.bot = bot
        self.store = store
        self.app_permissions = ALL_PERMS  # what the bot may do in the channel
        self.channel_type = 0  # 0: a text channel, 11: a public thread

    @classmethod
    async def start(cls, fake: FakeDiscord, db: Path, renderer: Any = None, *,
                    clock: Any = None, seeds: Any = None, agent: str = "heuristic",
                    dev_guild: int | None = None, pace: PaceClock | None = None) -> Harness:
        import time

        store = await Store.open(db, clock=clock or time.time)
        if seeds is None:
            numbers = itertools.count(7)
            seeds = lambda: next(numbers)  # noqa: E731 - deterministic games in tests
        service = GameService(store, agent_kind=agent, clock=clock or time.time, seeds=seeds)
        paced = pace or PaceClock()  # table edits wait on a clock of the bot's own work
        bot = KarakBot(service, renderer, dev_guild=dev_guild, ai_pace=0, pace=paced.pace(),
                       timer_poll=3600)
        paced.follow(bot.tasks)
        await bot._async_setup_hook()
        bot._connection.application_id = APP_ID
        bot._connection.user = discord.ClientUser(state=bot._connection, data=BOT_USER)  # type: ignore[arg-type]
        await bot.setup_hook()
        harness = cls(fake, bot, store)
        await harness.settle()
        return harness

    async def stop(self) -> None:
        await self.settle()
        await self.bot.tasks.close()
        await self.bot.pictures.close()
        await self.store.close()

    async def settle(self) -> None:
        """Wait until every task started by the bot (handlers, AI, refreshes) is done."""
        me = asyncio.current_task()
        for _ in range(10000):
            pending = [t for t in asyncio.all_tasks() if t is not me and not t.done()
                       and t.get_name() != "turn-timers"  # endless loops: the timers and
                       and not t.get_name().startswith("drawing-")]  # the drawing feeders
            if not pending:
                return
            await asyncio.wait(pending, timeout=30)
        raise AssertionError("the bot never settled")

    # -- feeding interactions

    def _base(self, user: User, kind: int, data: dict[str, Any],
              message: Message | None = None, locale: str = "en-US") -> dict[str, Any]:
        token = f"tok{snowflake()}"
        payload: dict[str, Any] = {
            "id": str(snowflake()), "application_id": str(APP_ID), "type": kind,
            "token": token, "version": 1, "guild_id": str(GUILD),
            "channel_id": str(CHANNEL),
            "channel": {"id": str(CHANNEL), "type": self.channel_type, "guild_id": str(GUILD),
                        "name": "games",
                        "position": 0, "permission_overwrites": [], "nsfw": False,
                        "parent_id": None},
            "member": user.member(), "locale": locale, "guild_locale": "en-US",
            "app_permissions": self.app_permissions, "entitlements": [],
            "authorizing_integration_owners": {"0": str(GUILD)}, "context": 0, "data": data,
            "attachment_size_limit": 10485760,
        }
        if self.channel_type in (10, 11, 12):  # a thread: Discord sends its metadata
            payload["channel"].update(
                parent_id=str(CHANNEL - 1), owner_id=str(user.id), message_count=0,
                member_count=1, thread_metadata={
                    "archived": False, "auto_archive_duration": 1440,
                    "archive_timestamp": now(), "locked": False})
        if message is not None:
            payload["message"] = message.payload()
            self.fake.by_token[token] = message.id
        return payload

    async def feed(self, payload: dict[str, Any]) -> None:
        self.bot._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
        await self.settle()

    async def command(self, user: User, sub: str, **options: Any) -> None:
        types = {bool: 5, int: 4, str: 3}
        opts = [{"name": k, "type": types[type(v)], "value": v} for k, v in options.items()]
        data = {"id": str(self._command_id()), "name": "goblin", "type": 1,
                "options": [{"name": sub, "type": 1, "options": opts}]}
        await self.feed(self._base(user, 2, data))

    async def autocomplete(self, user: User, sub: str, option: str, text: str) -> None:
        data = {"id": str(self._command_id()), "name": "goblin", "type": 1,
                "options": [{"name": sub, "type": 1, "options": [
                    {"name": option, "type": 3, "value": text, "focused": True}]}]}
        await self.feed(self._base(user, 4, data))

    def _command_id(self) -> int:
        for c in self.fake.commands:
            if c["name"] == "goblin":
                return int(c["id"])
        return snowflake()

    async def click(self, user: User, message: Message, custom_id: str) -> str:
        custom_id = message.resolve(custom_id)
        component = message.component(custom_id)
        assert component["type"] == 2
        payload = self._base(user, 3, {"custom_id": custom_id, "component_type": 2}, message)
        await self.feed(payload)
        return str(payload["token"])

    async def choose(self, user: User, message: Message, custom_id: str,
                     values: list[str]) -> str:
        custom_id = message.resolve(custom_id)
        component = message.component(custom_id)
        assert component["type"] == 3
        offered = {o["value"] for o in component["options"]}
        assert set(values) <= offered, (values, offered)
        payload = self._base(user, 3, {"custom_id": custom_id, "component_type": 3,
                                       "values": values}, message)
        await self.feed(payload)
        return str(payload["token"])

    def reply(self, token: str) -> Message:
        return self.fake.messages[self.fake.by_token[token]]

    def followups(self, since: int) -> list[Any]:
        return [c.body for c in self.fake.calls[since:]
                if c.template == "/webhooks/{webhook_id}/{webhook_token}" and c.method == "POST"]

    def ephemeral_texts(self, since: int) -> list[str]:
        out = []
        for c in self.fake.calls[since:]:
            body = c.body or {}
            if c.template.endswith("/callback") and body.get("data"):
                out.append(body["data"].get("content") or "")
            elif c.template == "/webhooks/{webhook_id}/{webhook_token}":
                out.append(body.get("content") or "")
            elif c.template.endswith("@original") and body.get("content"):
                out.append(body["content"])
        return out
