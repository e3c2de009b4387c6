"""The composition root: the one place that builds the bot's parts and wires them together.

:func:`from_settings` builds what the process runs from its settings (the game service and its
thinking workers, the drawing workers, the metrics, the bot); :func:`compose` builds the bot
from a game service (tests, the playground and benchmarks build it the same way, with their own
clock, renderer or pace). Every part gets what it needs through its constructor, callbacks
included; no part builds another or changes another's lists once built.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import discord

from bot.discord_side.client import KarakBot, Parts, is_connected
from bot.discord_side.cog import GoblinCog
from bot.discord_side.commands import Commands
from bot.discord_side.feed import Feeds
from bot.discord_side.hint_answers import GivenHints
from bot.discord_side.interactions import Interactions
from bot.discord_side.lobby_clicks import LobbyClicks
from bot.discord_side.lobby_message import LobbyMessages
from bot.discord_side.messages import Messages
from bot.discord_side.pace import GLOBAL_LIMIT, ChannelPace, process_pace, process_part
from bot.discord_side.past import PastMatches, summary_of
from bot.discord_side.poster import Poster, found_deleted, found_left
from bot.discord_side.ratelimits import GlobalWait
from bot.discord_side.reminders import POLL as REMINDER_POLL
from bot.discord_side.reminders import Reminders
from bot.discord_side.sight import Sights
from bot.discord_side.threads import MatchThreads
from bot.discord_side.tournaments import TournamentDesk
from bot.game.leases import LEASE_TTL, Leases, instance_name
from bot.game.scheduler import Scheduler
from bot.game.service import GameService
from bot.process.metrics import instrument
from bot.process.settings import Settings
from bot.storage.interface import Storage
from bot.storage.records import Shards, TableRecord
from bot.supervision.metrics import UNCOUNTED, Metrics
from bot.supervision.tasks import Sleep, Tasks
from bot.workers.pictures import Pictures, PillowRenderer, Renderer
from bot.workers.thinking import Thinking


def from_settings(store: Storage, settings: Settings, force_sync: bool = False,
                  clock: Callable[[], float] = time.time) -> tuple[KarakBot, Metrics]:
    """The bot the process runs on ``store`` as ``settings`` say, on ``clock`` (the
    playground's moves on when asked), and the metrics it counts in (the store, the game
    service and the workers count there too)."""
    service = GameService(store, default_timer=settings.turn_timer, clock=clock,
                          default_threads=settings.threads,
                          match_limit=settings.match_limit,
                          thinking=Thinking(seconds=settings.ai_think))
    metrics = Metrics()
    bot = compose(service, PillowRenderer(settings.drawing_workers), metrics=metrics,
                  dev_guild=settings.dev_guild, force_sync=force_sync,
                  ai_pace=settings.ai_pace, gateway_url=settings.gateway_url,
                  heartbeat=settings.heartbeat, shard_count=settings.shard_count,
                  shard_ids=settings.shard_ids, owner=settings.owner,
                  discord_wait=settings.discord_stop_wait,
                  rate_limit=settings.discord_rate_limit)
    instrument(metrics, store, service, bot)
    return bot, metrics


def compose(service: GameService, renderer: Renderer | None = None, *,
            metrics: Metrics = UNCOUNTED, dev_guild: int | None = None,
            force_sync: bool = False, ai_pace: float = 1.5, pace: ChannelPace | None = None,
            timer_poll: float = 5.0, gateway_url: str | None = None,
            heartbeat: Path | None = None, sleep: Sleep = asyncio.sleep,
            shard_count: int | None = None, shard_ids: Sequence[int] | None = None,
            owner: str | None = None, lease_ttl: float = LEASE_TTL,
            rate_limit: int = GLOBAL_LIMIT, **options: Any) -> KarakBot:
    """The bot over ``service``: its background work (``sleep`` injectable: tests make time
    pass at once), pictures drawn by ``renderer``, messages paced by ``pace`` (default: this
    process's part of the bot's global ``rate_limit``, by its shards), AI seats playing
    every ``ai_pace`` seconds, timers checked every ``timer_poll`` seconds, the leases of
    process ``owner`` (default: named after the host and shards), the heartbeat file; other
    ``options`` go to discord.py's client."""
    tasks = Tasks(sleep, service.clock)
    part = process_part(None if shard_ids is None else len(shard_ids), shard_count, rate_limit)
    pictures = Pictures(renderer or PillowRenderer())
    mine = None if shard_ids is None or shard_count is None else Shards(shard_count,
                                                                          tuple(shard_ids))
    leases = Leases(service.store, owner or instance_name(None, shard_ids), lease_ttl,
                    service.clock, shards=mine)

    def wire(client: discord.Client) -> Parts:
        """Every part that sends to Discord, built once the client exists."""
        channel_pace = pace or process_pace(part)
        feeds = Feeds(tasks, channel_pace, service.clock)

        async def channel_gone(channel: int, parent: int | None, ending: str) -> None:
            """A request found a table's thread (of channel ``parent``) or channel deleted, or
            (``ending`` "locked") its thread locked: its tables end as when that is heard."""
            assert client.user is not None
            await found_deleted(service, messages, scheduler, channel, parent, client.user.id,
                                ending)

        async def server_gone(guild: int) -> bool:
            """A request to a table's channel in server ``guild`` answered Missing Access:
            when the bot is in the server no more, its tables end as when the removal is heard
            (True then)."""
            assert client.user is not None
            return await found_left(service, messages, scheduler, guild, client.user.id)

        threads = MatchThreads(client, service, channel_pace, feeds, gone=channel_gone,
                               left=server_gone)
        lobby = LobbyMessages(client, service, channel_pace, feeds, vanished=threads.vanished,
                              locked=threads.locked)
        messages = Messages(client, service, pictures, tasks, channel_pace, feeds, threads,
                            lobby, unsure=leases.unsure)
        hints_given = GivenHints(clock=service.clock)
        poster = Poster(service, messages, summary=partial(summary_of, service))

        async def begin(record: TableRecord) -> None:
            """Begin a tournament's match as a lobby's Start does."""
            await scheduler.begin(record)

        async def lapse_offers() -> None:
            """Close the rematch offers whose time ran out, their messages drawn as the
            clicks on them are."""
            await past.lapse_offers()

        sights = Sights(client, service)
        sights.install(client)
        reminders = Reminders(client, service, tasks, leases, max(REMINDER_POLL, timer_poll),
                              settling=threads.settling)
        reminders.install(client)
        desk = TournamentDesk(service, messages, tasks, begin,
                              forget=lambda table: scheduler.forget(table), sights=sights,
                              ours=leases.ours, direct=reminders.direct)
        scheduler = Scheduler(
            service, tasks, leases, poster, ai_pace=ai_pace, timer_poll=timer_poll,
            heartbeat=heartbeat, connected=partial(is_connected, client),
            sweeps=(lapse_offers, desk.sweep, feeds.retry_due, messages.ping_owed_turns),
            forgetters=(messages.forget, hints_given.forget, desk.ended),
            made_for=(hints_given.decided,), began=(reminders.reminding.began,),
            resumes=(desk.resume,))
        past = PastMatches(service, messages, scheduler.begin, sights)
        lobby_clicks = LobbyClicks(service, messages, scheduler)
        clicks = Interactions(service, messages, scheduler, past, hints_given, lobby_clicks,
                              desk)
        bodies = Commands(service, messages, clicks)
        return Parts(tasks=tasks, pictures=pictures, messages=messages, scheduler=scheduler,
                     poster=poster, clicks=clicks, bodies=bodies, cog=GoblinCog(bodies),
                     reminders=reminders)

    return KarakBot(service, wire, global_wait=GlobalWait(limit=part), metrics=metrics,
                    dev_guild=dev_guild, force_sync=force_sync, gateway_url=gateway_url,
                    shard_count=shard_count, shard_ids=shard_ids, **options)


__all__ = ["compose", "from_settings"]
