"""The REST API's entry point: the route table, the bot token check, the OpenAPI validation
of every request body, the rate limits, then the handler (identity and commands here, messages
in :mod:`loopback.messages`, interactions in :mod:`loopback.hooks`, threads in
:mod:`loopback.threads`)."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from loopback.errors import ApiError, Reply, Upload
from loopback.hooks import Hooks
from loopback.messages import Messages
from loopback.model import snowflake
from loopback.ratelimit import Limiter
from loopback.referee import Referee
from loopback.slash import name_errors
from loopback.spec import Spec
from loopback.state import State
from loopback.threads import Threads

Handler = Callable[..., Awaitable[Reply]]
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$")


def _no_gateway() -> str:
    return ""


def _one_shard() -> int:
    return 1


class Rest:
    """Answers the bot's REST requests (``path`` after ``/api/v10``) under Discord's rules."""

    def __init__(self, state: State, referee: Referee, limiter: Limiter, spec: Spec | None,
                 token: str | None = None, old_message_edits: int | None = None) -> None:
        self.state = state
        self.referee = referee
        self.limiter = limiter
        self.spec = spec
        self.token = token
        self.messages = (Messages(state, referee) if old_message_edits is None
                         else Messages(state, referee, old_message_edits))
        self.hooks = Hooks(state, referee, self.messages)
        self.threads = Threads(state, self.messages, referee, spec)
        self.gateway_url: Callable[[], str] = _no_gateway
        self.recommended_shards: Callable[[], int] = _one_shard
        self.requests: list[tuple[float, str, str]] = []
        self._routes: list[tuple[str, re.Pattern[str], Handler, bool]] = []
        self._setup_routes()

    def _setup_routes(self) -> None:
        """Compile the route table: (method, path template, handler, needs the bot token)."""
        table: list[tuple[str, str, Handler, bool]] = [
            ("GET", "/users/@me", self._me, True),
            ("POST", "/users/@me/channels", self._open_dm, True),
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
            ("POST", "/interactions/{iid}/{token}/callback", self.hooks.callback, False),
            ("POST", "/webhooks/{app}/{token}", self.hooks.followup, False),
            ("GET", "/webhooks/{app}/{token}/messages/{mid}", self.hooks.hook_get, False),
            ("PATCH", "/webhooks/{app}/{token}/messages/{mid}", self.hooks.hook_edit, False),
            ("DELETE", "/webhooks/{app}/{token}/messages/{mid}", self.hooks.hook_delete, False),
            ("GET", "/channels/{cid}", self.messages.channel_get, True),
            ("GET", "/channels/{cid}/messages", self.messages.history, True),
            ("POST", "/channels/{cid}/messages", self.messages.post, True),
            ("GET", "/channels/{cid}/messages/{mid}", self.messages.message_get, True),
            ("PATCH", "/channels/{cid}/messages/{mid}", self.messages.edit, True),
            ("DELETE", "/channels/{cid}/messages/{mid}", self.messages.delete, True),
            ("POST", "/channels/{cid}/messages/{mid}/threads", self.threads.from_message, True),
            ("POST", "/channels/{cid}/threads", self.threads.create, True),
            ("PATCH", "/channels/{cid}", self.threads.edit, True),
            ("DELETE", "/channels/{cid}", self.threads.delete, True),
            ("PUT", "/channels/{cid}/thread-members/@me", self.threads.join, True),
            ("DELETE", "/channels/{cid}/thread-members/@me", self.threads.join, True),
            ("GET", "/channels/{cid}/threads/archived/public", self.threads.archived, True),
            ("GET", "/guilds/{guild}/threads/active", self.threads.active, True),
            ("GET", "/guilds/{guild}/members/{uid}", self._member, True),
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
        self.requests.append((self.state.now(), method, path))
        self.referee.check_deadlines()
        self.state.archive_idle_threads()
        for m, regex, handler, needs_auth in self._routes:
            found = regex.match(path)
            if found is None or m != method:
                continue
            if needs_auth and not self.authorised(auth):
                return Reply(401, {"message": "401: Unauthorized", "code": 0})
            if self.spec is not None:
                _, problems = self.spec.problems(method, path, body)
                for p in problems:
                    self.referee.breach("schema", p, f"{method} {path}")
                if problems:
                    return Reply(400, {"message": "Invalid Form Body", "code": 50035,
                                       "errors": {"_errors": [{"code": "SCHEMA",
                                                               "message": problems[0]}]}})
            key = f"{method} {path}"
            interaction = bool(found.groupdict().get("token"))
            if interaction:  # one bucket per interaction token
                key = f"{method} {regex.pattern} {found['token']}"
            limited = self.limiter.check(method, path, key, interaction)
            if limited is not None:
                return limited
            try:
                reply = await handler(found.groupdict(), body, uploads, query)
            except ApiError as exc:
                return exc.reply()
            if reply.status < 300:
                self.state.bump()
            return reply
        self.referee.breach("unsupported", "the stand-in does not implement this route",
                    f"{method} {path}")
        return Reply(404, {"message": "404: Not Found", "code": 0})

    # ------------------------------------------------------------------ identity

    async def _me(self, params: dict[str, str], body: Any, uploads: list[Upload],
                  query: dict[str, str]) -> Reply:
        return Reply(200, dict(self.state.bot.payload(), verified=True, mfa_enabled=False, flags=0,
                               locale="en-US", email=None))

    async def _application(self, params: dict[str, str], body: Any, uploads: list[Upload],
                           query: dict[str, str]) -> Reply:
        return Reply(200, {
            "id": str(self.state.application_id), "name": self.state.bot.name, "icon": None,
            "description": "Karak: Goblin (loopback)", "summary": "", "type": None,
            "bot_public": True, "bot_require_code_grant": False, "verify_key": "0" * 64,
            "flags": 0, "owner": {"id": "1", "username": "owner", "discriminator": "0",
                                  "global_name": None, "avatar": None},
            "team": None, "rpc_origins": [], "interactions_endpoint_url": None,
            "bot": self.state.bot.payload(), "approximate_guild_count": len(self.state.guilds),
            "redirect_uris": [], "tags": [], "install_params": None,
        })

    async def _gateway(self, params: dict[str, str], body: Any, uploads: list[Upload],
                       query: dict[str, str]) -> Reply:
        return Reply(200, {"url": self.gateway_url(), "shards": self.recommended_shards(),
                           "session_start_limit": {
            "total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}})

    async def _open_dm(self, params: dict[str, str], body: Any, uploads: list[Upload],
                       query: dict[str, str]) -> Reply:
        """The direct message channel with ``recipient_id`` (made the first time)."""
        recipient = str(body.get("recipient_id") if isinstance(body, dict) else None)
        user = self.state.users.get(int(recipient)) if recipient.isdigit() else None
        if user is None:
            self.referee.breach("unknown", f"unknown user {recipient}", "POST /users/@me/channels")
            raise ApiError(400, 50007, "Cannot send messages to this user")
        return Reply(200, self.state.dm(user).payload())

    async def _member(self, params: dict[str, str], body: Any, uploads: list[Upload],
                      query: dict[str, str]) -> Reply:
        """``GET /guilds/{id}/members/{user}``: the member (no privileged intent needed), or
        Unknown Member (404, 10007) for one who left or was never seen."""
        guild = self.state.guilds.get(int(params["guild"]) if params["guild"].isdigit() else -1)
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        user = self.state.users.get(int(params["uid"]) if params["uid"].isdigit() else -1)
        if user is None or user.id in guild.gone:
            raise ApiError(404, 10007, "Unknown Member")
        return Reply(200, guild.member(user))

    # ------------------------------------------------------------------ commands

    def _app(self, params: dict[str, str]) -> None:
        if params.get("app") != str(self.state.application_id):
            raise ApiError(404, 10002, "Unknown Application")

    def _guild_of(self, params: dict[str, str]) -> int | None:
        if "guild" not in params:
            return None
        gid = int(params["guild"]) if params["guild"].isdigit() else -1
        if gid not in self.state.guilds:
            raise ApiError(404, 10004, "Unknown Guild")
        return gid

    def _stored_command(self, guild: int | None, body: dict[str, Any],
                        old: list[dict[str, Any]]) -> dict[str, Any]:
        wrong = name_errors(body)
        if wrong:
            raise ApiError(400, 50035, "Invalid Form Body",
                           {path: {"_errors": [{"code": "APPLICATION_COMMAND_INVALID_NAME",
                                                "message": "Command name is invalid"}]}
                            for path in wrong})
        prev = next((c for c in old if c["name"] == body["name"]
                     and c.get("type", 1) == body.get("type", 1)), None)
        out = dict(body, id=prev["id"] if prev else str(snowflake()),
                   application_id=str(self.state.application_id), version=str(snowflake()),
                   type=body.get("type", 1),
                   default_member_permissions=body.get("default_member_permissions"))
        if guild is not None:
            out["guild_id"] = str(guild)
        return out

    async def _commands_get(self, params: dict[str, str], body: Any, uploads: list[Upload],
                            query: dict[str, str]) -> Reply:
        self._app(params)
        return Reply(200, self.state.commands.get(self._guild_of(params), []))

    async def _commands_put(self, params: dict[str, str], body: Any, uploads: list[Upload],
                            query: dict[str, str]) -> Reply:
        self._app(params)
        guild = self._guild_of(params)
        if not isinstance(body, list):
            raise ApiError(400, 50035, "Invalid Form Body")
        old = self.state.commands.get(guild, [])
        self.state.commands[guild] = [self._stored_command(guild, c, old) for c in body]
        return Reply(200, self.state.commands[guild])

    async def _commands_post(self, params: dict[str, str], body: Any, uploads: list[Upload],
                             query: dict[str, str]) -> Reply:
        self._app(params)
        guild = self._guild_of(params)
        old = self.state.commands.get(guild, [])
        made = self._stored_command(guild, body, old)
        self.state.commands[guild] = [c for c in old if c["id"] != made["id"]] + [made]
        return Reply(201, made)
