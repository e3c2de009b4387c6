"""The Discord client: no privileged intents, the ``/goblin`` commands, the persistent dynamic
items, command sync only when the commands changed (or on request), and table resumption. It
builds none of the bot's parts: the composition root (:mod:`bot.process.compose`) builds them
all and hands them over (:class:`Parts`); the client holds them for the time it runs."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, cast

import discord
import discord.gateway
import discord.http
import yarl
from discord import app_commands
from discord.ext import commands

from bot.discord_side.cog import GoblinCog
from bot.discord_side.commands import Commands
from bot.discord_side.context import answer_privately, loc
from bot.discord_side.counting import FAILURES, answered
from bot.discord_side.interactions import Interactions
from bot.discord_side.messages import Messages
from bot.discord_side.options import OptionTree
from bot.discord_side.poster import Poster, channel_deleted, found_locked, server_left
from bot.discord_side.ratelimits import GlobalWait
from bot.discord_side.reminders import Reminders
from bot.discord_side.ui.custom_ids import KINDS, is_ours
from bot.discord_side.ui.parts import nested
from bot.game.scheduler import Scheduler
from bot.game.service import GameService
from bot.storage.records import CannotSave, Unreachable
from bot.supervision.metrics import UNCOUNTED, Metrics
from bot.supervision.tasks import Tasks
from bot.workers.pictures import Pictures
from i18n import DEFAULT_LOCALE, Msg, has_key, normalise_locale, translate

log = logging.getLogger("karak.bot")
#: Seconds given to moves being saved and messages being sent when the bot is stopped.
SHUTDOWN_GRACE = 5.0
#: Seconds the bot waits on Discord when it stops, once its own work is done: for its goodbye
#: to the gateway and for discord.py's reconnection loop to end. While Discord cannot be reached
#: that loop sleeps between attempts (up to 17 minutes) and would notice the stop only on waking.
DISCORD_WAIT = 2.0


def is_connected(client: discord.Client) -> bool:
    """True while ``client`` is connected to Discord: ready, not closed, and the gateway
    connection of each of its shards open. discord.py still calls a client ready while a
    connection is cut and it keeps trying to connect again, however long Discord stays out of
    reach: the heartbeat of the health check is not written then."""
    if not client.is_ready() or client.is_closed():
        return False
    if isinstance(client, discord.AutoShardedClient):
        return all(not shard.is_closed() for shard in client.shards.values())
    return client.ws is not None and client.ws.open


class Translator(app_commands.Translator):
    """Command names, descriptions, option names and choices through i18n.

    Every ``locale_str`` of the command tree carries its i18n ``key`` as an extra; Discord gets
    each shipped language's text as a localisation (English is the default text itself).
    """

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        """The text for ``locale`` when that locale has its own translation, else None."""
        key = string.extras.get("key")
        lc = normalise_locale(str(locale.value))
        if not key or lc == DEFAULT_LOCALE or not has_key(key, lc):
            return None
        return translate(Msg(key), lc)


def invite_permissions() -> discord.Permissions:
    """The channel permissions the bot needs: see the channel, post, embed, upload, and start
    a thread for each match and post in it."""
    return discord.Permissions(view_channel=True, send_messages=True,
                               send_messages_in_threads=True, create_public_threads=True,
                               embed_links=True, attach_files=True)


def invite_url(application_id: int) -> str:
    """The invite link with scopes ``bot`` and ``applications.commands``."""
    return discord.utils.oauth_url(application_id, permissions=invite_permissions(),
                                   scopes=("bot", "applications.commands"))


def route_to(api_base: str | None = None, gateway_url: str | None = None) -> None:
    """Send ALL of discord.py's traffic to another Discord (a stand-in) instead of discord.com.

    REST and webhook / interaction-callback requests build their URLs from ``Route.BASE``. A
    shard connects to ``DiscordWebSocket.DEFAULT_GATEWAY`` when the shard count is given (else to
    the URL ``GET /gateway/bot`` answers, see :meth:`KarakBot.launch_shards`), and falls back to
    it after an invalidated session; resuming uses the ``resume_gateway_url`` the gateway itself
    sent. Both are process-wide settings.
    """
    if api_base:
        discord.http.Route.BASE = api_base.rstrip("/")
    if gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


def drop_malformed_events(parsers: dict[str, Callable[[Any], None]],
                          rescue: Callable[[Any], None] | None = None) -> None:
    """Make every one of discord.py's gateway event parsers log and drop an event it cannot read.

    discord.py reads events without checking them (a component interaction's ``custom_id``, a
    message's channel, a server's id); a missing key or a value of the wrong kind raises inside
    the gateway's reader and ends the connection, and with it the bot. Such an event is one
    warning line naming the event type and what was wrong (never the payload: it may hold an
    interaction's token or people's messages) and the bot keeps serving. An interaction
    discord.py cannot read is handed to ``rescue``, which may still answer the person.
    """
    for event, parse in list(parsers.items()):
        parsers[event] = _guarded(event, parse,
                                  rescue if event == "INTERACTION_CREATE" else None)


def _guarded(event: str, parse: Callable[[Any], None],
             rescue: Callable[[Any], None] | None) -> Callable[[Any], None]:
    """``parse``, logging and dropping an ``event`` it cannot read (then ``rescue``-ing it)."""

    def guarded(data: Any) -> None:
        try:
            parse(data)
        except Exception as exc:  # noqa: BLE001 - any unreadable event is dropped, not fatal
            log.warning("dropped a malformed %s event: %s", event, unquoted(exc))
            if rescue is None:
                return
            try:
                rescue(data)
            except Exception as again:  # noqa: BLE001 - nothing more can be done with it
                log.warning("could not answer a malformed %s event: %s", event, unquoted(again))

    return guarded


def unquoted(exc: Exception) -> str:
    """The error's type and text with every quoted value taken out (a value read from the
    event could be a token); a missing key is named (keys come from discord.py's code)."""
    if isinstance(exc, KeyError):
        return f"KeyError: missing {str(exc)[:60]}"
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'...'", str(exc))
    return f"{type(exc).__name__}: {text[:200]}"


def claimed(interaction: discord.Interaction[Any]) -> bool:
    """True when one of the bot's items answers this component click: one of its kinds'
    templates fits the custom_id and the clicked message carries it as a component of the kind
    the click names (what discord.py's dynamic items require before they call back; anything
    else goes unanswered). The message's components are searched as discord.py read them from
    the event: the view discord.py builds from them holds the same ids and kinds."""
    data = cast(dict[str, Any], interaction.data or {})
    custom_id, kind = data.get("custom_id"), data.get("component_type")
    message = interaction.message
    if not isinstance(custom_id, str) or not is_ours(custom_id) or not isinstance(kind, int):
        return False
    if message is None:
        return False
    return any(c.type.value == kind and getattr(c, "custom_id", None) == custom_id
               for c in nested(message.components))


class DevGuildRefused(Exception):
    """Discord refused to register the commands in the server ``KARAK_DEV_GUILD`` names (HTTP
    ``status``): no server the bot is in (a mistyped id, a channel's or a person's id)."""

    def __init__(self, guild: int, status: int) -> None:
        super().__init__(f"server {guild}: HTTP {status}")
        self.guild = guild
        self.status = status


def intents() -> discord.Intents:
    """The gateway intents: guilds only (no privileged intent, no message content)."""
    return discord.Intents(guilds=True)


@dataclass(frozen=True, slots=True)
class Parts:
    """The parts of the bot the client holds, all built by the composition root: its background
    work, the pictures, the messages, when game work happens (``scheduler``), what posts it
    (``poster``), the click answers (``clicks``), the command bodies and their cog."""

    tasks: Tasks
    pictures: Pictures
    messages: Messages
    scheduler: Scheduler
    poster: Poster
    clicks: Interactions
    bodies: Commands
    cog: GoblinCog
    reminders: Reminders


class KarakBot(commands.AutoShardedBot):
    """The Karak: Goblin bot, running the shards ``shard_ids`` of ``shard_count`` (both None:
    every shard of the count Discord recommends; ``shard_ids`` None: every shard).

    ``wire`` is the composition root's: given the client (what sends to Discord), it builds
    and returns every other part (:class:`Parts`); the client calls it once, at construction.
    """

    def __init__(self, service: GameService, wire: Callable[[discord.Client], Parts], *,
                 global_wait: GlobalWait, metrics: Metrics = UNCOUNTED,
                 dev_guild: int | None = None, force_sync: bool = False,
                 gateway_url: str | None = None, shard_count: int | None = None,
                 shard_ids: Sequence[int] | None = None, discord_wait: float = DISCORD_WAIT,
                 **options: Any) -> None:
        self.global_wait = global_wait  # honours global 429s discord.py would not wait for
        if shard_ids is not None:
            options["shard_ids"] = list(shard_ids)
        # the bot never joins a voice channel: discord.py's warnings that voice would need
        # PyNaCl and davey tell an admin nothing to do
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
        super().__init__(command_prefix=commands.when_mentioned, intents=intents(),
                         help_command=None, tree_cls=OptionTree,
                         http_trace=global_wait.trace, shard_count=shard_count, **options)
        self.metrics = metrics
        self.gateway_url = gateway_url
        self.service = service
        self.dev_guild = dev_guild
        self.force_sync = force_sync
        self.discord_wait = discord_wait
        self._stop: asyncio.Task[None] | None = None  # the one close, whoever asked for it
        self._connection_ends: asyncio.Timeout | None = None  # while the connection loop runs
        self._cut_short = False  # whether the stop went on without Discord
        parts = wire(self)
        self.tasks = parts.tasks
        self.pictures = parts.pictures
        self.messages = parts.messages
        self.scheduler = parts.scheduler
        self.poster = parts.poster
        self.clicks = parts.clicks
        self.bodies = parts.bodies
        self.cog = parts.cog
        self.reminders = parts.reminders
        if gateway_url:
            route_to(gateway_url=gateway_url)
        drop_malformed_events(self._connection.parsers, self.rescue_interaction)

    def connected(self) -> bool:
        """True while connected to Discord (see :func:`is_connected`)."""
        return is_connected(self)

    async def launch_shards(self) -> None:
        """Connect the shards. With a gateway URL of its own and no shard count, the bot asks
        Discord only for the count it recommends and connects to its own gateway (discord.py
        would connect to the URL Discord answers)."""
        if self.shard_count is None and self.gateway_url:
            self.shard_count, _, _ = await self.http.get_bot_gateway()
        await super().launch_shards()

    async def setup_hook(self) -> None:
        """Register dynamic items and commands, sync if needed, resume tables, start timers."""
        self.add_dynamic_items(*KINDS)
        self.tree.error(self.answer_command_error)
        await self.tree.set_translator(Translator())
        await self.add_cog(self.cog)
        await self.sync_commands(force=self.force_sync)
        await self.scheduler.resume()
        self.scheduler.start_timers()
        self.reminders.start()

    def clock_moved(self) -> None:
        """The bot's clock jumped forward (the playground's clock control): the reminders due
        by the new time go out now, not at the loop's next pass."""
        self.reminders.wake()

    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        """A thread was deleted: a match played in it ends as abandoned (in the background).
        discord.py tells this too of each thread it knew in a deleted channel, after the
        channel's deletion: the channel's line of its match is then not written (the channel
        is no longer known)."""
        assert self.user is not None
        line = self.get_channel(payload.parent_id) is not None
        self.tasks.spawn(channel_deleted(self.service, self.messages, self.scheduler,
                                         payload.thread_id, self.user.id, line),
                         f"thread-deleted-{payload.thread_id}")

    async def on_raw_thread_update(self, payload: discord.RawThreadUpdateEvent) -> None:
        """A moderator locked a thread (Discord never locks one by itself): no one but
        moderators may write there any more, so a match played in it ends as abandoned, as
        when its thread is deleted, and the channel's line says so (in the background)."""
        if not payload.data.get("thread_metadata", {}).get("locked"):
            return
        assert self.user is not None
        self.tasks.spawn(channel_deleted(self.service, self.messages, self.scheduler,
                                         payload.thread_id, self.user.id, ending="locked"),
                         f"thread-locked-{payload.thread_id}")

    async def on_shard_ready(self, shard_id: int) -> None:
        """Discord told a shard of its servers whole (at the start, or in a new session after
        one it could not resume): a thread locked while the bot heard nothing ends what it
        holds as on a lock heard (in the background)."""
        assert self.user is not None
        for guild in self.guilds:
            if guild.shard_id == shard_id:
                self.tasks.spawn(found_locked(self.service, self.messages, self.scheduler,
                                              guild, self.user.id), f"locked-in-{guild.id}")

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """The bot was removed from a server (not a server Discord cannot reach for a while):
        its tables and tournaments are closed, as those of a deleted channel (in the
        background)."""
        assert self.user is not None
        self.tasks.spawn(server_left(self.service, self.messages, self.scheduler, guild.id,
                                     self.user.id), f"server-left-{guild.id}")

    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        """A channel was deleted: every lobby and match in it or in its threads is closed
        (Discord tells nothing of its threads) and a tournament held there is cancelled (in
        the background)."""
        assert self.user is not None
        self.tasks.spawn(channel_deleted(self.service, self.messages, self.scheduler,
                                         channel.id, self.user.id, False),
                         f"channel-deleted-{channel.id}")

    def rescue_interaction(self, data: Any) -> None:
        """An interaction discord.py could not read (a component click without its custom_id
        or its component type): when it still names itself (id and token), it reaches
        :meth:`on_interaction`, which answers it privately."""
        connection = self._connection
        connection.dispatch("interaction", discord.Interaction(data=data, state=connection))

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """A click no item of the bot claims (a custom_id that is not the bot's, one in its
        format that no kind's template fits, none at all, one the clicked message does not
        carry as that kind of component) still gets a private answer instead of Discord's
        "This interaction failed": the one fallback for unknown ids."""
        if interaction.type is not discord.InteractionType.component or claimed(interaction):
            return
        data = cast(dict[str, Any], interaction.data or {})
        log.warning("click on a component no item claims: %r",
                    str(data.get("custom_id", ""))[:100])
        await answer_privately(interaction, translate(Msg("bot.error.bad_button"),
                                                      loc(interaction)))

    async def answer_command_error(self, interaction: discord.Interaction[Any],
                                   error: app_commands.AppCommandError) -> None:
        """Any command that fails still gets a private answer within Discord's 3 seconds: an
        option value the command does not accept (a modified client can send anything), a
        database out of reach or one that cannot save (nothing was saved; a warning), or an
        apology for an internal error (logged)."""
        if isinstance(error, app_commands.TransformerError | app_commands.CommandSignatureMismatch
                      | app_commands.CommandNotFound):
            log.warning("refused a command with unusable options: %s", error)
            key = "bot.error.bad_option"
        elif isinstance(error, app_commands.NoPrivateMessage):
            key = "bot.error.guild_only"
        elif (isinstance(error, app_commands.CommandInvokeError)
              and isinstance(error.original, Unreachable)):
            log.warning("command %s not answered: the database is out of reach (%s)",
                        error.command.name, error.original)
            key = "bot.error.unreachable"
        elif (isinstance(error, app_commands.CommandInvokeError)
              and isinstance(error.original, CannotSave)):
            log.warning("command %s not saved: %s", error.command.name, error.original)
            key = "bot.error.cannot_save"
        else:
            log.error("command %s failed", interaction.command and interaction.command.name,
                      exc_info=error)
            key = "bot.error.internal"
        answered(interaction, "error" if key in FAILURES else "refused")
        text = translate(Msg(key), loc(interaction))
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True)
            else:
                await interaction.response.send_message(text, ephemeral=True)
        except discord.HTTPException:
            log.warning("could not answer a failed command")

    async def command_payload(self) -> list[dict[str, Any]]:
        """The command tree exactly as a sync sends it: English texts with every shipped
        language's localisations."""
        translator = self.tree.translator
        tree = self.tree.get_commands()
        if translator is None:
            return [c.to_dict(self.tree) for c in tree]
        return [await c.get_translated_payload(self.tree, translator) for c in tree]

    async def commands_hash(self) -> str:
        """A hash of the command tree as Discord would receive it (with its translations)."""
        data = await self.command_payload()
        text = json.dumps([data, self.dev_guild], sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    async def sync_commands(self, force: bool = False) -> bool:
        """Sync the commands when they changed since the last sync (or when forced)."""
        digest = await self.commands_hash()
        key = str(self.dev_guild or "global")
        if not force and await self.service.meta.synced(key) == digest:
            log.info("commands unchanged, not syncing")
            return False
        guild = discord.Object(self.dev_guild) if self.dev_guild else None
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        try:
            synced = await self.tree.sync(guild=guild)
        except (discord.Forbidden, discord.NotFound) as exc:
            if guild is None:
                raise
            raise DevGuildRefused(guild.id, exc.status) from None
        await self.service.meta.remember_sync(key, digest)
        log.info("synced %d commands %s", len(synced),
                 f"to server {self.dev_guild}" if guild else "globally")
        return True

    async def on_ready(self) -> None:
        """Log who we are and the invite link once connected."""
        if self.user is not None:
            log.info("connected as %s (%s); invite: %s", self.user, self.user.id,
                     invite_url(self.user.id))
        self.scheduler.beat()

    async def connect(self, *, reconnect: bool = True) -> None:
        """discord.py's connection loop, cut short by :meth:`close` once Discord has had its
        wait (``discord_wait``): a loop sleeping out its backoff between two attempts to reach
        a gateway that went away would otherwise notice the stop only on waking."""
        try:
            async with asyncio.timeout(None) as ends:
                self._connection_ends = ends
                await super().connect(reconnect=reconnect)
        except TimeoutError:
            if not ends.expired():
                raise  # discord.py's own (a gateway not answering in time)
        finally:
            self._connection_ends = None
        if ends.expired():
            self._discord_unreachable()

    async def close(self) -> None:
        """Start no new AI move, timed-out turn or resumption; let moves being saved and
        messages being sent finish (a few seconds at most), stop the background work, the
        drawing and the thinking workers, then disconnect, waiting on Discord ``discord_wait``
        seconds at most. Done once: a second call waits for the first."""
        if self._stop is None:
            self._stop = asyncio.ensure_future(self._close())
        await asyncio.shield(self._stop)

    async def _close(self) -> None:
        """The bot's own work first, then Discord's part, both bounded."""
        await self.tasks.close(SHUTDOWN_GRACE if self.is_ready() else 0.0)
        await self.pictures.close()
        await self.service.thinking.close()
        deadline = asyncio.get_running_loop().time() + self.discord_wait
        if self._connection_ends is not None:
            self._connection_ends.reschedule(deadline)
        try:
            async with asyncio.timeout_at(deadline):
                await super().close()
        except TimeoutError:
            self._discord_unreachable()

    def _discord_unreachable(self) -> None:
        """Say once that the stop went on without Discord."""
        if not self._cut_short:
            self._cut_short = True
            log.warning("Discord could not be reached while stopping: stopped without it "
                        "after %g s", self.discord_wait)

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc_value: BaseException | None,
                        traceback: TracebackType | None) -> None:
        """Leaving ``async with``: :meth:`close` (discord.py's own exit would wait again on a
        goodbye to Discord the close cut short)."""
        await self.close()


__all__ = ["DevGuildRefused", "KarakBot", "Parts", "Translator", "claimed",
           "drop_malformed_events", "intents", "invite_permissions", "invite_url", "is_connected",
           "route_to"]
