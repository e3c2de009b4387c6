"""The stand-in's HTTP server on 127.0.0.1: Discord's REST API under ``/api/v10``, the gateway at
``/gateway``, stored uploads at ``/attachments/...``, and the control API under ``/_loopback/``.

Control API (JSON over HTTP, for a web page or any script; ids are strings):

``GET  /_loopback/``
    Summary: counts, breaches, whether the bot is connected, the world ``version``.
``GET  /_loopback/users`` / ``POST /_loopback/users`` ``{"name", "locale"?, "admin"?}``
    List or create users (``locale`` as Discord clients send it: ``en-US``, ``fr``, ``cs``).
``GET  /_loopback/guilds`` / ``POST /_loopback/guilds`` ``{"name", "locale"?, "shard"?}``
    List or create guilds (``shard``: one whose id lands on that shard of the recommended
    count); ``POST /_loopback/channels`` ``{"guild_id", "name"}`` adds a channel.
``POST /_loopback/dm`` ``{"user"}``
    The direct message channel between that user and the bot (made the first time).
``GET  /_loopback/commands?guild_id=``
    The slash commands the bot registered, as a user of that guild sees them.
``GET  /_loopback/channels/{channel_id}/messages?user={user_id}``
    ``{"version", "messages": [...]}``: the channel as that user sees it, oldest first (their
    own ephemeral messages included, nobody else's). Each message is Discord's message object
    (embeds' ``attachment://`` images resolved to served URLs) plus a ``loopback`` object:
    ``ephemeral_for``, ``revision``, ``loading``, ``interaction_user``, ``mentions``.
``GET  /_loopback/channels/{channel_id}/threads``
    ``{"threads": [...]}``: the channel's threads, oldest first (each with ``parent_id``,
    ``owner_id``, ``archived``, ``locked``, ``message_count``).
``POST /_loopback/channels/{channel_id}/delete``
    A moderator deletes the text channel, and its threads with it (CHANNEL_DELETE only).
``POST /_loopback/threads`` ``{"channel", "name", "message"?, "user"?, "type"?: 11|12,
"auto_archive"?: 60|1440|4320|10080}``
    A person (``user``; none: the server's owner) starts a thread in the channel, from
    ``message`` when given (the thread takes its id and the message shows it).
``POST /_loopback/threads/{id}/archive`` ``{"locked"?}`` / ``.../lock`` / ``.../unarchive`` /
``.../delete``
    A moderator archives (and locks), locks leaving it open, unarchives, or deletes the thread.
``POST /_loopback/command`` ``{"user", "channel", "command": "goblin new", "options"?: {},
"wait"?: "answered"|"done"}``
    Run a slash command as the user; answers the interaction (see below).
``POST /_loopback/click`` ``{"user", "message", "custom_id", "wait"?}``
    Click a button the user sees.
``POST /_loopback/select`` ``{"user", "message", "custom_id", "values": [...], "wait"?}``
    Choose in a select menu the user sees.
``POST /_loopback/autocomplete`` ``{"user", "channel", "command", "option", "value",
"options"?}``
    ``{"choices": [...]}`` the bot suggests.
``GET  /_loopback/interactions/{id}``
    ``{"id", "kind", "status": pending|deferred|done|failed, "failed", "first_response_ms",
    "done_ms", "original_id", "followups", "choices"}``.
``GET  /_loopback/wait?after={version}&timeout={s}``
    Long poll: returns ``{"version"}`` once anything visible changed after ``version``.
``GET  /_loopback/breaches``
    ``{"breaches": [...], "orphaned": [...]}``: the rules the bot broke.
``GET  /_loopback/attachments/{id}?user={user_id}``
    The file, only when it is on a message that user can see.

A user who cannot do something (hidden message, unknown button, invalid option) gets HTTP 400
``{"error": "<English text>", "code": "<refusal code>", "params": {...}}``: the playground page
shows ``playground.page.refusal.<code>`` with ``params`` in the viewer's language.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from loopback.interaction import Interaction, InteractionFailed
from loopback.model import ARCHIVE_DURATIONS, Message
from loopback.ratelimit import ARRIVED
from loopback.world import LoopbackError, Reply, Upload, World, dumps

log = logging.getLogger("loopback")
API = "/api/v10"
#: A form part's name or file name in its Content-Disposition header (read with a pattern:
#: aiohttp's own parser goes through the email package, a third of the stand-in's time under
#: load).
DISPOSITION = re.compile(r';\s*(name|filename)="([^"\\]*)"')
FAKE_TOKEN = "MTEwMDAwMDAwMDAwMDAwMDAwMQ.GLoopb.loopback-token-not-a-real-discord-token"


class Loopback:
    """A Discord stand-in listening on 127.0.0.1 (``async with Loopback() as lb: ...``).

    It serves a :class:`~loopback.world.World` (:attr:`world`, made from ``options``): the
    server's own are ``api_base`` and ``gateway_url`` once started, and :meth:`env` for the
    bot's settings; every other attribute is the world's (``lb.click`` is
    ``lb.world.click``).
    """

    def __init__(self, *, port: int = 0, host: str = "127.0.0.1", **options: Any) -> None:
        options.setdefault("token", FAKE_TOKEN)
        self.world = World(**options)
        self.host = host
        self.port = port
        self.app = self._make_app()
        self._runner: web.AppRunner | None = None
        self._watchdog: asyncio.Task[None] | None = None

    def __getattr__(self, name: str) -> Any:
        """The world's attribute ``name`` (the user side, the state, the rules' records)."""
        if name == "world":  # not set yet: no world to ask
            raise AttributeError(name)
        return getattr(self.world, name)

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> Loopback:
        """Start listening (``port=0``: a free port)."""
        self._runner = web.AppRunner(self.app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        sockets = getattr(site._server, "sockets", None)  # noqa: SLF001 - aiohttp keeps no public one
        if sockets:
            self.port = sockets[0].getsockname()[1]
        self.world.base_url = f"http://{self.host}:{self.port}"
        self.world.gateway.url = f"ws://{self.host}:{self.port}/gateway"
        self._watchdog = asyncio.get_running_loop().create_task(self._watch())
        return self

    async def stop(self) -> None:
        """Close every socket and stop listening."""
        if self._watchdog is not None:
            self._watchdog.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watchdog
        for s in self.world.gateway.sessions.values():
            if s.conn is not None:
                await s.conn.ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Loopback:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(0.1)
            self.world.check_deadlines()

    @property
    def api_base(self) -> str:
        """The REST base URL (``KARAK_API_BASE``)."""
        return self.world.base_url + API

    @property
    def gateway_url(self) -> str:
        """The gateway URL (``KARAK_GATEWAY_URL``)."""
        return self.world.gateway.url

    def env(self) -> dict[str, str]:
        """The environment that points the bot here."""
        return {"DISCORD_TOKEN": self.world.token or FAKE_TOKEN, "KARAK_API_BASE": self.api_base,
                "KARAK_GATEWAY_URL": self.gateway_url}

    async def wait_connected(self, timeout: float = 30.0) -> None:
        """Wait until the bot is connected to the gateway."""
        await self.world.gateway.wait_connected(timeout)

    # ------------------------------------------------------------------ HTTP glue

    def _make_app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self.world.gateway.handle)
        app.router.add_get("/gateway/", self.world.gateway.handle)
        app.router.add_get("/attachments/{aid}/{secret}/{name}", self._file)
        control: list[tuple[str, str, Callable[[web.Request], Awaitable[Any]]]] = [
            ("GET", "/_loopback/", self._c_summary),
            ("GET", "/_loopback/users", self._c_users),
            ("POST", "/_loopback/users", self._c_new_user),
            ("GET", "/_loopback/guilds", self._c_guilds),
            ("POST", "/_loopback/guilds", self._c_new_guild),
            ("POST", "/_loopback/channels", self._c_new_channel),
            ("POST", "/_loopback/dm", self._c_dm),
            ("GET", "/_loopback/commands", self._c_commands),
            ("GET", "/_loopback/channels/{cid}/messages", self._c_messages),
            ("GET", "/_loopback/channels/{cid}/threads", self._c_threads),
            ("POST", "/_loopback/channels/{cid}/delete", self._c_delete_channel),
            ("POST", "/_loopback/threads", self._c_new_thread),
            ("POST", "/_loopback/threads/{tid}/{act}", self._c_thread_act),
            ("POST", "/_loopback/command", self._c_command),
            ("POST", "/_loopback/click", self._c_click),
            ("POST", "/_loopback/select", self._c_select),
            ("POST", "/_loopback/autocomplete", self._c_autocomplete),
            ("GET", "/_loopback/interactions/{iid}", self._c_interaction),
            ("GET", "/_loopback/wait", self._c_wait),
            ("GET", "/_loopback/breaches", self._c_breaches),
            ("GET", "/_loopback/attachments/{aid}", self._c_attachment),
        ]
        for method, path, handler in control:
            app.router.add_route(method, path, self._control(handler))
        app.router.add_route("*", API + "/{tail:.*}", self._api)
        return app

    async def _api(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        ARRIVED.set(self.world.limiter.clock())  # Discord judges a request when it reaches it
        body: Any = None
        uploads: list[Upload] = []
        if request.headers.get("Content-Type", "").startswith("multipart/"):
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                found = dict(DISPOSITION.findall(part.headers.get("Content-Disposition", "")))
                name = found.get("name") or getattr(part, "name", None) or ""
                data = await part.read()  # type: ignore[union-attr]
                if name == "payload_json":
                    body = json.loads(data.decode())
                else:
                    uploads.append(Upload(name, found.get("filename")
                                          or getattr(part, "filename", None) or name,
                                          part.headers.get("Content-Type",
                                                           "application/octet-stream"),
                                          bytes(data)))
        elif request.can_read_body:
            raw = await request.read()
            if raw:
                try:
                    body = json.loads(raw)
                except ValueError:
                    return web.json_response({"message": "400: Bad Request", "code": 50109},
                                             status=400)
        query = {k: v for k, v in request.query.items()}
        reply = await self.world.rest(request.method, path, query,
                                request.headers.get("Authorization"), body, uploads)
        return self._respond(reply)

    @staticmethod
    def _respond(reply: Reply) -> web.Response:
        if reply.status == 204 or reply.body is None:
            return web.Response(status=reply.status, headers=reply.headers)
        # exactly "application/json": discord.py compares the header without parameters
        headers = dict(reply.headers, **{"Content-Type": "application/json"})
        return web.Response(status=reply.status, body=dumps(reply.body).encode(),
                            headers=headers)

    async def _file(self, request: web.Request) -> web.StreamResponse:
        aid = request.match_info["aid"]
        self.world.state.forget_replaced()
        att = self.world.files.get(int(aid)) if aid.isdigit() else None
        if att is None or att.secret != request.match_info["secret"] or att.data is None:
            return web.json_response({"message": "404: Not Found", "code": 0}, status=404)
        return web.Response(body=att.data, content_type=att.content_type.split(";")[0])

    # ------------------------------------------------------------------ control API

    def _control(self, handler: Callable[[web.Request], Awaitable[Any]]
                 ) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def wrapped(request: web.Request) -> web.StreamResponse:
            try:
                out = await handler(request)
            except (LoopbackError, KeyError, ValueError, TypeError) as exc:
                refusal = (exc if isinstance(exc, LoopbackError)
                           else LoopbackError(f"bad request: {exc!r}", "bad_request"))
                return web.json_response(refusal.public(), status=400)
            if isinstance(out, web.StreamResponse):
                return out
            return web.Response(text=dumps(out), content_type="application/json")
        return wrapped

    @staticmethod
    async def _json(request: web.Request) -> dict[str, Any]:
        data = await request.json()
        if not isinstance(data, dict):
            raise LoopbackError("a JSON object is expected", "bad_request")
        return data

    async def _c_summary(self, request: web.Request) -> Any:
        return dict(self.world.summary(), api_base=self.api_base, gateway_url=self.gateway_url)

    async def _c_users(self, request: web.Request) -> Any:
        return {"users": [u.public() for u in self.world.users.values()]}

    async def _c_new_user(self, request: web.Request) -> Any:
        d = await self._json(request)
        return self.world.create_user(str(d["name"]), str(d.get("locale", "en-US")),
                                bool(d.get("admin", False))).public()

    async def _c_guilds(self, request: web.Request) -> Any:
        return {"guilds": [g.public() for g in self.world.guilds.values()]}

    async def _c_new_guild(self, request: web.Request) -> Any:
        d = await self._json(request)
        shard = d.get("shard")
        return self.world.create_guild(str(d.get("name", "Karak Club")),
                                       str(d.get("locale", "en-US")),
                                       shard=None if shard is None else int(shard)).public()

    async def _c_new_channel(self, request: web.Request) -> Any:
        d = await self._json(request)
        guild = self.world.guilds.get(int(d["guild_id"]))
        if guild is None:
            raise LoopbackError(f"no guild {d['guild_id']}", "no_guild")
        return self.world.create_channel(guild, str(d.get("name", "goblin"))).public()

    async def _c_dm(self, request: web.Request) -> Any:
        d = await self._json(request)
        return self.world.dm(self.world.user(str(d.get("user", "")))).public()

    async def _c_commands(self, request: web.Request) -> Any:
        gid = request.query.get("guild_id")
        return {"commands": self.world.registered(int(gid) if gid else None)}

    async def _c_messages(self, request: web.Request) -> Any:
        channel = self.world.channel(request.match_info["cid"])
        user = self.world.user(request.query["user"])
        return {"version": self.world.version,
                "messages": [self.world.view(m) for m in self.world.messages_for(channel, user)]}

    async def _c_delete_channel(self, request: web.Request) -> Any:
        channel = self.world.channel(request.match_info["cid"])
        self.world.delete_channel(channel)
        return {"deleted": str(channel.id)}

    async def _c_threads(self, request: web.Request) -> Any:
        channel = self.world.channel(request.match_info["cid"])
        return {"threads": [t.public() for t in self.world.threads_of(channel)]}

    async def _c_new_thread(self, request: web.Request) -> Any:
        d = await self._json(request)
        parent = self.world.channel(d["channel"])
        message = self.world.message(d["message"]) if d.get("message") else None
        if message is not None and (message.channel_id != parent.id or message.thread):
            raise LoopbackError(f"message {message.id} cannot start a thread here",
                                "bad_request")
        owner = self.world.user(d["user"]) if d.get("user") else None
        kind, idle = int(d.get("type", 11)), int(d.get("auto_archive", 1440))
        if kind not in (11, 12) or idle not in ARCHIVE_DURATIONS:
            raise LoopbackError("a thread is of type 11 or 12, archived after 60, 1440, 4320 "
                                "or 10080 minutes", "bad_request")
        return self.world.create_thread(parent, str(d.get("name") or "thread")[:100],
                                        owner=owner, message=message, kind=kind,
                                        auto_archive=idle).public()

    async def _c_thread_act(self, request: web.Request) -> Any:
        thread = self.world.channel(request.match_info["tid"])
        act = request.match_info["act"]
        d = await self._json(request) if request.can_read_body else {}
        if act == "archive":
            self.world.archive_thread(thread, locked=bool(d.get("locked", False)))
        elif act == "lock":
            self.world.lock_thread(thread)
        elif act == "unarchive":
            self.world.unarchive_thread(thread)
        elif act == "delete":
            self.world.delete_thread(thread)
            return {"deleted": str(thread.id)}
        else:
            raise LoopbackError(f"no thread action {act!r}", "bad_request")
        return thread.public()

    async def _answer(self, ix: Interaction, wait: Any) -> Any:
        if wait in ("answered", "done"):
            try:
                await (ix.answered() if wait == "answered" else ix.done())
            except InteractionFailed:
                pass
        return ix.public()

    async def _c_command(self, request: web.Request) -> Any:
        d = await self._json(request)
        options = d.get("options") or {}
        if not isinstance(options, dict):
            raise LoopbackError("options must be an object", "bad_request")
        ix = await self.world.command(self.world.user(d["user"]), self.world.channel(d["channel"]),
                                str(d["command"]), **options)
        return await self._answer(ix, d.get("wait"))

    def _target(self, d: dict[str, Any]) -> Message:
        return self.world.message(d["message"])

    async def _c_click(self, request: web.Request) -> Any:
        d = await self._json(request)
        ix = await self.world.click(self.world.user(d["user"]), self._target(d),
                                    str(d["custom_id"]))
        return await self._answer(ix, d.get("wait"))

    async def _c_select(self, request: web.Request) -> Any:
        d = await self._json(request)
        values = d.get("values")
        if not isinstance(values, list):
            raise LoopbackError("values must be a list", "bad_request")
        ix = await self.world.select(self.world.user(d["user"]), self._target(d),
                                     str(d["custom_id"]), [str(v) for v in values])
        return await self._answer(ix, d.get("wait"))

    async def _c_autocomplete(self, request: web.Request) -> Any:
        d = await self._json(request)
        try:
            choices = await self.world.autocomplete(
                self.world.user(d["user"]), self.world.channel(d["channel"]), str(d["command"]),
                str(d["option"]), str(d.get("value", "")), **(d.get("options") or {}))
        except InteractionFailed as exc:
            raise LoopbackError(f"the bot did not answer: {exc}", "bot_silent") from None
        return {"choices": choices}

    async def _c_interaction(self, request: web.Request) -> Any:
        ix = self.world.interactions.get(int(request.match_info["iid"]))
        if ix is None:
            raise LoopbackError("no such interaction", "no_interaction")
        return ix.public()

    async def _c_wait(self, request: web.Request) -> Any:
        after = int(request.query.get("after", "0"))
        timeout = min(60.0, float(request.query.get("timeout", "25")))
        return {"version": await self.world.changed(after, timeout)}

    async def _c_breaches(self, request: web.Request) -> Any:
        self.world.check_deadlines()
        return {"breaches": [str(b) for b in self.world.breaches],
                "orphaned": [ix.public() for ix in self.world.orphaned]}

    async def _c_attachment(self, request: web.Request) -> web.StreamResponse:
        aid = int(request.match_info["aid"])
        user = self.world.user(request.query["user"])
        for m in self.world.messages.values():
            if m.visible_to(user.id):
                for a in m.attachments:
                    if a.id == aid and a.data is not None:
                        return web.Response(body=a.data,
                                            content_type=a.content_type.split(";")[0])
        return web.json_response({"error": "no such attachment for this user"}, status=404)
