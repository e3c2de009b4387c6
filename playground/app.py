"""The playground's server side: the stand-in plus the page, one server, one channel, four users
(each with a direct message channel with the bot, for solo tables), and the real bot connected
to it.

Settings (environment or ``.env``, besides the bot's own ``KARAK_*`` ones, which still apply):

``KARAK_PLAYGROUND_DB``
    The playground's database file (default ``karak-playground.sqlite3``); it never mixes with the
    Discord bot's ``KARAK_DB``. Server, channel and user ids are fixed, so a match goes on after a
    restart of the playground.
``KARAK_PLAYGROUND_PORT``
    The page's port on 127.0.0.1 (default 8080; a free port is taken when it is busy; 0 = any).
``KARAK_PLAYGROUND_HOST``
    The address to listen on (default ``127.0.0.1``; the page has no password, so only open it
    to a network you trust).
``KARAK_PLAYGROUND_LOCALE``
    ``en``, ``fr`` or ``cs``: the server's language and the users' (default: from ``LANG``).

Routes added to the stand-in (its own API is documented in :mod:`loopback.server`): ``GET /``
the page, ``GET /static/...`` its files, ``GET /play/config`` the channel, users and the page's
texts in every language, ``POST /play/locale`` ``{"user", "locale"}`` a user's language,
``POST /play/dms`` ``{"user", "open"}`` whether a user's direct messages are open to the bot
(closed, as Discord's privacy setting closes them, the bot's posts there are refused with 403,
code 50007: a reminder of a slow match's turn cannot reach them, and ``/goblin notify`` says so),
``POST /play/clock`` ``{"advance": seconds}`` moves the clock on (one of :data:`CLOCK_STEPS`):
a slow match played over a fake day. The stand-in's clock and the bot's follow the same jump,
so turn timers, reminders and the time left move with it.

The page's moderator menu: ``GET /play/channel`` the server's channel (``{"id", "name", "hidden",
"bot_files", "nicknamed"}``: the ids of the people it is hidden from, whether the bot may attach
files there, the ids of the people with a server nickname), ``POST /play/moderate`` ``{"act",
"thread"?, "user"?}`` does what a moderator of the server does, through the stand-in's own world
operations, so the bot hears the gateway events Discord sends (:data:`MODERATION`): a thread of the
channel archived (``archive``), archived and locked (``lock``), unarchived and unlocked
(``unarchive``) or deleted (``delete_thread``); the channel deleted (``delete_channel``: a new
empty #goblin takes its place, with a new id, so the page has somewhere to play; the next start of
the playground has the fixed id again, and the bot finds the other one gone as a channel deleted
while it was away); the channel hidden from a person or shown to them again (``hide``, ``show``:
their View Channel denied by a permission overwrite, or the overwrite emptied); the bot's Attach
Files taken in the channel and its threads, or given back (``take_files``, ``give_files``): the bot
can no longer update its tables there, and each mover is told so once in their hand; a person's
server nickname set to their name between markdown's double asterisks, or cleared (``nick``,
``unnick``: no event, Discord sends member updates only to bots with the members intent; the bot
reads the nickname from the person's next command or click, and shows it as typed); the bot's
newest post in the channel or in the thread shown deleted (``delete_post``: no event either, the
bot asks for no message events and finds it gone when it next uses it, such as a match's shared
animation, which Share then posts again).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import logging
import os
import signal
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

from bot.process.settings import ConfigProblem, Settings, load_settings, read_env_file
from i18n import LOCALE_NAMES, LOCALES, catalog, msg, normalise_locale, placeholders, translate
from loopback import FAKE_TOKEN, Loopback, LoopbackError, ManualClock
from loopback.model import Channel
from loopback.permissions import ATTACH_FILES, VIEW_CHANNEL
from loopback.spec import unavailable_reason, validation_off
from loopback.world import dumps

if TYPE_CHECKING:
    from bot.discord_side.client import KarakBot

log = logging.getLogger("karak.playground")

STATIC = Path(__file__).with_name("static")
#: Fixed ids (well-formed snowflakes), so the playground's database outlives a restart.
GUILD_ID = 1_220_000_000_000_000_001
CHANNEL_ID = 1_220_000_000_000_000_002
#: The people of the playground (user id, name); the first one owns the server (an admin).
PEOPLE = ((1_220_000_000_000_000_011, "Ann"), (1_220_000_000_000_000_012, "Bob"),
          (1_220_000_000_000_000_013, "Cleo"), (1_220_000_000_000_000_014, "Dan"))
#: A person's direct message channel with the bot: their user id plus this (fixed, like theirs).
DM_OFFSET = 100
#: How far the page's clock control moves the clock on, in seconds (1 hour, 8 hours, 1 day).
CLOCK_STEPS = (3600, 8 * 3600, 86400)
#: What the page's moderator menu does, and the gateway event the bot hears for it: to a thread
#: of the channel, to the channel, to a person's sight of the channel.
MODERATION = {"archive": "THREAD_UPDATE", "lock": "THREAD_UPDATE", "unarchive": "THREAD_UPDATE",
              "delete_thread": "THREAD_DELETE", "delete_channel": "CHANNEL_DELETE",
              "hide": "CHANNEL_UPDATE", "show": "CHANNEL_UPDATE",
              "take_files": "CHANNEL_UPDATE", "give_files": "CHANNEL_UPDATE",
              "nick": "", "unnick": "", "delete_post": ""}
GUILD_NAME = "Karak Club"
CHANNEL_NAME = "goblin"
#: Our locale -> the locale a Discord client of that language sends.
DISCORD_LOCALES = {"en": "en-US", "fr": "fr", "cs": "cs"}
DEFAULT_PORT = 8080
DEFAULT_DB = Path("karak-playground.sqlite3")
ENV_DB = "KARAK_PLAYGROUND_DB"
ENV_PORT = "KARAK_PLAYGROUND_PORT"
ENV_HOST = "KARAK_PLAYGROUND_HOST"
ENV_LOCALE = "KARAK_PLAYGROUND_LOCALE"
#: Bot settings the playground sets itself (a leftover Discord value must not leak in).
OVERRIDDEN = ("DISCORD_TOKEN", "KARAK_API_BASE", "KARAK_GATEWAY_URL", "KARAK_DB",
              "KARAK_DEV_GUILD")
PAGE_PREFIX = "playground.page."
#: Seconds to wait for the bot to be ready before printing the page's address anyway.
CONNECT_WAIT = 60.0


def nickname(name: str) -> str:
    """The server nickname the moderator menu gives a person: their name between markdown's
    double asterisks, which the bot must show as typed (not their name in bold)."""
    return f"**{name}**"


@dataclass(frozen=True)
class Options:
    """Where the playground listens, its database and its language."""

    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    db: Path = DEFAULT_DB
    locale: str = "en"


def page_strings(locale: str) -> dict[str, str]:
    """The page's texts in ``locale`` (``playground.page.*`` without the prefix), placeholders
    kept as ``{name}`` for the page to fill in."""
    out: dict[str, str] = {}
    for key, entry in catalog(locale).items():
        if key.startswith(PAGE_PREFIX):
            keep = {p: "{" + p + "}" for p in placeholders(entry)}
            out[key[len(PAGE_PREFIX):]] = translate(msg(key, **keep), locale)
    return out


def _static_version() -> str:
    """A short hash of the page's files (cache busting after an update)."""
    digest = hashlib.sha256()
    for path in sorted(STATIC.iterdir()):
        if path.is_file():
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:10]


class Playground:
    """The stand-in with the page's routes, one server with one channel, and four users.

    ``async with Playground(port=0) as pg: ...`` then point a bot at ``pg.lb.env()``; the page
    is at :attr:`url`.
    """

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0, locale: str = "en",
                 validate: bool | None = None) -> None:
        self.host = host
        self.port = port
        self.locale = normalise_locale(locale)
        if validate is None:
            reason = unavailable_reason()
            validate = reason is None
            if reason is not None:
                log.warning("%s", validation_off(reason))
        self.validate = validate
        #: The stand-in's clock: the page's clock control moves it on, and the bot's with it.
        self.clock = ManualClock()
        #: The bot, once built: told when the clock jumps.
        self.bot: KarakBot | None = None
        self.lb = self._standin(port)
        self.channel: Channel | None = None

    def _standin(self, port: int) -> Loopback:
        lb = Loopback(host=self.host, port=port, validate=self.validate, clock=self.clock)
        lb.app.router.add_get("/", self._page)
        lb.app.router.add_post("/play/clock", self._advance)
        lb.app.router.add_get("/play/config", self._config)
        lb.app.router.add_post("/play/locale", self._set_locale)
        lb.app.router.add_post("/play/dms", self._set_dms)
        lb.app.router.add_get("/play/channel", self._channel_state)
        lb.app.router.add_post("/play/moderate", self._moderate)
        lb.app.router.add_static("/static/", STATIC)
        return lb

    async def start(self) -> Playground:
        """Listen (on a free port when the chosen one is busy) and create the people."""
        try:
            await self.lb.start()
        except OSError as exc:
            if self.port == 0 or exc.errno != errno.EADDRINUSE:
                raise
            await self.lb.stop()
            log.info("port %s is busy, taking a free one", self.port)
            self.lb = self._standin(0)
            await self.lb.start()
        self._populate()
        return self

    def _populate(self) -> None:
        lc = DISCORD_LOCALES[self.locale]
        users = [self.lb.create_user(name, locale=lc, admin=i == 0, user_id=uid)
                 for i, (uid, name) in enumerate(PEOPLE)]
        guild = self.lb.create_guild(GUILD_NAME, locale=lc, owner=users[0], guild_id=GUILD_ID)
        self.channel = self.lb.create_channel(guild, CHANNEL_NAME, channel_id=CHANNEL_ID)
        for user in users:
            self.lb.dm(user, user.id + DM_OFFSET)

    async def restore_threads(self, db: str | Path) -> None:
        """Make again, with the same ids, the threads of the matches database ``db`` holds as
        still running in the playground's channel: the stand-in forgets its threads when the
        playground stops, and the bot goes on with such a match in its thread."""
        from bot.discord_side.threads import thread_name
        from bot.storage.choice import open_storage

        assert self.channel is not None
        store = await open_storage(db)
        try:
            for table in await store.ids_with_status("running"):
                record = await store.get(table)
                if (record is None or record.thread_id is None
                        or record.channel_id != self.channel.id
                        or record.thread_id in self.lb.state.channels):
                    continue
                self.lb.create_thread(self.channel, thread_name(record), record.thread_id,
                                      owner=self.lb.state.bot)
        finally:
            await store.close()

    async def stop(self) -> None:
        """Stop listening."""
        await self.lb.stop()

    async def __aenter__(self) -> Playground:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def bot_clock(self) -> float:
        """The bot's clock: the time, plus every move of the page's clock control."""
        return time.time() + self.clock.offset

    def follow(self, bot: KarakBot) -> None:
        """The bot is built: it is told when the clock jumps."""
        self.bot = bot

    def ready(self) -> bool:
        """Whether the bot is built and ready (it knows the server and its channels)."""
        return self.bot is not None and self.bot.is_ready()

    @property
    def url(self) -> str:
        """The page's address."""
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.lb.port}/"

    # ------------------------------------------------------------------ routes

    async def _page(self, request: web.Request) -> web.Response:
        html = (STATIC / "index.html").read_text(encoding="utf-8")
        html = html.replace("{{version}}", _static_version())
        return web.Response(text=html, content_type="text/html", charset="utf-8",
                            headers={"Cache-Control": "no-cache"})

    def config(self) -> dict[str, Any]:
        """What the page needs: the channel, each user's direct message channel with the bot,
        the users, the languages and the page's texts."""
        assert self.channel is not None
        return {
            "guild": str(self.channel.guild_id), "guild_name": GUILD_NAME,
            "channel": str(self.channel.id), "channel_name": self.channel.name,
            "dms": {str(u.id): str(self.lb.dm(u).id) for u in self.lb.users.values()},
            "bot": {"id": str(self.lb.bot.id), "name": self.lb.bot.name},
            "users": [dict(u.public(), locale=normalise_locale(u.locale), dms_open=u.dms_open)
                      for u in self.lb.users.values()],
            "locale": self.locale,
            "languages": {lc: LOCALE_NAMES[lc] for lc in LOCALES},
            "discord_locales": DISCORD_LOCALES,
            "strings": {lc: page_strings(lc) for lc in LOCALES},
            "clock": {"steps": list(CLOCK_STEPS), "offset": self.clock.offset},
        }

    async def _config(self, request: web.Request) -> web.Response:
        return web.Response(text=dumps(self.config()), content_type="application/json",
                            headers={"Cache-Control": "no-cache"})

    async def _set_locale(self, request: web.Request) -> web.Response:
        try:
            data = await request.json()
            if not isinstance(data, dict):
                raise LoopbackError("a JSON object is expected", "bad_request")
            user = self.lb.user(str(data["user"]))
            locale = str(data["locale"])
            if locale not in DISCORD_LOCALES:
                raise LoopbackError(f"unknown locale {locale!r}", "unknown_locale")
        except (LoopbackError, KeyError, ValueError) as exc:
            refusal = (exc if isinstance(exc, LoopbackError)
                       else LoopbackError(f"bad request: {exc!r}", "bad_request"))
            return web.json_response(refusal.public(), status=400)
        user.locale = DISCORD_LOCALES[locale]
        self.lb.bump()
        return web.json_response(dict(user.public(), locale=locale))

    async def _set_dms(self, request: web.Request) -> web.Response:
        """Open or close a user's direct messages to the bot; the user."""
        try:
            data = await request.json()
            if not isinstance(data, dict) or not isinstance(data.get("open"), bool):
                raise LoopbackError('{"user", "open": true or false} is expected', "bad_request")
            user = self.lb.user(str(data.get("user")))
        except (LoopbackError, ValueError) as exc:
            refusal = (exc if isinstance(exc, LoopbackError)
                       else LoopbackError(f"bad request: {exc!r}", "bad_request"))
            return web.json_response(refusal.public(), status=400)
        user.dms_open = data["open"]
        self.lb.bump()
        return web.json_response(dict(user.public(), locale=normalise_locale(user.locale),
                                      dms_open=user.dms_open))

    def channel_state(self) -> dict[str, Any]:
        """The server's channel the page shows (a new one once a moderator deleted it), the
        ids of the people it is hidden from, whether the bot may attach files there, and the
        ids of the people with a server nickname (``nicknamed``) and those nicknames (``nicks``,
        which Discord shows in a mention in the server)."""
        assert self.channel is not None
        guild = self.lb.guilds[GUILD_ID]
        hidden = [str(u.id) for u in self.lb.users.values()
                  if not guild.permissions_in(u, self.channel) & VIEW_CHANNEL]
        nicks = {str(u.id): u.nick for u in self.lb.users.values() if u.nick is not None}
        return {"id": str(self.channel.id), "name": self.channel.name, "hidden": hidden,
                "bot_files": self.channel.bot_may(ATTACH_FILES), "nicknamed": list(nicks),
                "nicks": nicks}

    def moderate(self, act: str, thread: str | None = None, user: str | None = None) -> None:
        """Do what a moderator does (one of :data:`MODERATION`) to ``thread`` of the server's
        channel, to the channel, or to ``user``'s sight of it; LoopbackError when it cannot
        be done."""
        assert self.channel is not None
        channel = self.channel
        guild = self.lb.guilds[GUILD_ID]
        if act in ("archive", "lock", "unarchive", "delete_thread"):
            found = self.lb.channel(str(thread))
            if not found.thread or found.parent_id != channel.id:
                raise LoopbackError(f"channel {found.id} is no thread of #{channel.name}",
                                    "no_thread")
            if act == "delete_thread":
                self.lb.delete_thread(found)
            elif act == "unarchive":
                self.lb.unarchive_thread(found)
            else:
                self.lb.archive_thread(found, locked=act == "lock")
        elif act == "delete_channel":
            self.lb.delete_channel(channel)
            self.channel = self.lb.create_channel(guild, CHANNEL_NAME)
        elif act in ("hide", "show"):
            person = self.lb.user(str(user))
            if person.admin or person.id == guild.owner_id:
                raise LoopbackError(f"{person.name} sees every channel of the server",
                                    "sees_every_channel")
            self.lb.set_overwrite(channel, person, deny=VIEW_CHANNEL if act == "hide" else 0)
        elif act in ("take_files", "give_files"):  # its threads' permissions are the channel's
            if act == "take_files":
                channel.bot_permissions &= ~ATTACH_FILES
            else:
                channel.bot_permissions |= ATTACH_FILES
            self.lb.state.announce("CHANNEL_UPDATE", channel.payload())
            self.lb.bump()
        elif act == "delete_post":
            place = channel if thread is None else self.lb.channel(str(thread))
            if thread is not None and (not place.thread or place.parent_id != channel.id):
                raise LoopbackError(f"channel {place.id} is no thread of #{channel.name}",
                                    "no_thread")
            posts = [m for m in self.lb.state.messages.values()
                     if m.channel_id == place.id and m.author.bot and not m.ephemeral
                     and not m.deleted]
            if not posts:
                raise LoopbackError(f"the bot has no post in {place.id}", "no_post")
            self.lb.delete_message(max(posts, key=lambda m: m.id))
        elif act in ("nick", "unnick"):
            person = self.lb.user(str(user))
            person.nick = nickname(person.name) if act == "nick" else None
            self.lb.bump()
        else:
            raise LoopbackError(f"no moderator act {act!r}", "bad_request")

    async def _channel_state(self, request: web.Request) -> web.Response:
        return web.Response(text=dumps(self.channel_state()), content_type="application/json",
                            headers={"Cache-Control": "no-cache"})

    async def _moderate(self, request: web.Request) -> web.Response:
        """What the moderator menu asks for; the channel's state after it."""
        try:
            data = await request.json()
            if not isinstance(data, dict):
                raise LoopbackError("a JSON object is expected", "bad_request")
            self.moderate(str(data.get("act")), data.get("thread"), data.get("user"))
        except (LoopbackError, ValueError) as exc:
            refusal = (exc if isinstance(exc, LoopbackError)
                       else LoopbackError(f"bad request: {exc!r}", "bad_request"))
            return web.json_response(refusal.public(), status=400)
        return web.json_response(self.channel_state())

    async def _advance(self, request: web.Request) -> web.Response:
        """Move the clock on by one of :data:`CLOCK_STEPS` seconds: the stand-in's and the
        bot's (the reminders due by then go out at once; the turn timers and the time left
        follow at their next pass)."""
        try:
            data = await request.json()
            seconds = data.get("advance") if isinstance(data, dict) else None
            if seconds not in CLOCK_STEPS:
                raise LoopbackError(f"the clock moves on by one of {list(CLOCK_STEPS)} seconds",
                                    "bad_request")
        except (LoopbackError, ValueError) as exc:
            refusal = (exc if isinstance(exc, LoopbackError)
                       else LoopbackError(f"bad request: {exc!r}", "bad_request"))
            return web.json_response(refusal.public(), status=400)
        self.clock.advance(float(seconds))
        if self.bot is not None:
            self.bot.clock_moved()
        self.lb.bump()
        return web.json_response({"offset": self.clock.offset})


# ---------------------------------------------------------------------- settings and running


def _values(environ: Mapping[str, str] | None, env_file: Path | None) -> dict[str, str]:
    """The ``.env`` file's values overridden by the environment's (as the bot reads them)."""
    values: dict[str, str] = {}
    if env_file is not None:
        values.update(read_env_file(env_file))
    values.update(os.environ if environ is None else environ)
    return values


def _default_locale(values: Mapping[str, str]) -> str:
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = values.get(name, "").split(".")[0]
        if value and value not in ("C", "POSIX"):
            return normalise_locale(value)
    return "en"


def prepare(environ: Mapping[str, str] | None = None,
            env_file: Path | None = Path(".env")) -> tuple[Options, Settings]:
    """Read the playground's options and the bot's settings (with a placeholder address, filled
    in once the stand-in listens); :class:`ConfigProblem` with one line when one is wrong."""
    values = _values(environ, env_file)
    port_text = values.get(ENV_PORT, "").strip() or str(DEFAULT_PORT)
    if not port_text.isdigit() or int(port_text) > 65535:
        raise ConfigProblem(translate(msg("playground.config.bad_port", name=ENV_PORT,
                                          value=port_text[:80])))
    locale_text = values.get(ENV_LOCALE, "").strip().lower()
    if locale_text and locale_text not in LOCALES:
        raise ConfigProblem(translate(msg("playground.config.bad_locale", name=ENV_LOCALE,
                                          value=locale_text[:80])))
    options = Options(host=values.get(ENV_HOST, "").strip() or "127.0.0.1",
                      port=int(port_text),
                      db=Path(values.get(ENV_DB, "").strip() or DEFAULT_DB),
                      locale=locale_text or _default_locale(values))
    bot_values = {k: v for k, v in values.items() if k not in OVERRIDDEN}
    bot_values.update({"DISCORD_TOKEN": FAKE_TOKEN, "KARAK_DB": str(options.db),
                       "KARAK_API_BASE": "http://127.0.0.1/api/v10",
                       "KARAK_GATEWAY_URL": "ws://127.0.0.1/gateway"})
    if not bot_values.get("KARAK_LOG_LEVEL", "").strip():  # unset or empty: quieter here
        bot_values["KARAK_LOG_LEVEL"] = "WARNING"
    try:
        settings = load_settings(bot_values, env_file=None)
    except ConfigProblem as exc:
        if str(options.db) in str(exc):
            raise ConfigProblem(translate(msg("playground.config.db_unwritable", name=ENV_DB,
                                              path=str(options.db)))) from None
        raise
    return options, settings


async def serve(options: Options, settings: Settings,
                announce: Callable[[str], None] | None = None) -> None:
    """Run the stand-in, the page and the bot until cancelled; ``announce`` gets the one line
    with the page's address once the bot is ready (or after :data:`CONNECT_WAIT` seconds
    anyway: the page then says it waits for the bot)."""
    from bot.process.app import run

    playground = await Playground(host=options.host, port=options.port,
                                  locale=options.locale).start()
    bot: asyncio.Task[None] | None = None
    try:
        await playground.restore_threads(settings.db)
        lb = playground.lb
        settings = settings.model_copy(update={"api_base": lb.api_base,
                                               "gateway_url": lb.gateway_url})
        loop = asyncio.get_running_loop()
        bot = loop.create_task(run(settings, force_sync=True, clock=playground.bot_clock,
                                   built=playground.follow))
        deadline = loop.time() + CONNECT_WAIT
        # ready, not only connected: discord.py is ready two seconds after the server arrived,
        # and a match started before (a person quick on the page) waits for it to open its
        # thread
        while not (playground.ready() and lb.gateway.connected()) and loop.time() < deadline:
            if bot.done():
                await bot  # raises what stopped the bot
                return
            await lb.changed(lb.version, 0.2)
        line = translate(msg("playground.console.ready", url=playground.url), options.locale)
        (announce or _print)(line)
        await bot
    finally:
        if bot is not None and not bot.done():
            bot.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await bot
        await playground.stop()


def _print(line: str) -> None:
    print(line, flush=True)


def main(env_file: Path | None = Path(".env"), environ: Mapping[str, str] | None = None) -> int:
    """``scripts/dev.py run`` without a token: run the playground until Ctrl-C; the exit status."""
    from bot.process.app import explain_fatal, setup_logging

    try:
        options, settings = prepare(environ, env_file)
    except ConfigProblem as exc:
        print(str(exc), file=sys.stderr)
        return 2
    setup_logging(settings)
    if logging.getLogger().level >= logging.WARNING:
        # discord.py warns that voice support is missing: noise for someone trying the game
        logging.getLogger("discord.client").setLevel(logging.ERROR)
    # SIGTERM stops the playground as Ctrl-C does: the bot closes, its workers with it
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        asyncio.run(serve(options, settings))
    except KeyboardInterrupt:
        return 0
    except Exception as exc:
        return explain_fatal(exc)
    return 0
