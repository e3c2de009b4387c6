"""The bot's metrics, wired into its parts and served to Prometheus.

:func:`instrument` hands the bot's :class:`~bot.supervision.metrics.Metrics` to the parts that
count (the database's write transactions, the moves, the pictures, Discord's answers, the
commands and clicks) and has the worker pools read at scrape time. :func:`served` serves them at
``http://<host>:<port>/metrics`` while the bot runs (``KARAK_METRICS_PORT``; nothing is opened
without it): each scrape counts the lobbies and running tables in the database first. While the
database is out of reach the page is served without those counts (the rest is what the admin
watches then); the bot's own work tells the outage in the log.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from bot.discord_side.client import KarakBot
from bot.game.service import GameService
from bot.process.settings import ConfigProblem
from bot.storage.interface import Storage
from bot.storage.records import Status, StorageError
from bot.supervision.metrics import Metrics
from bot.workers.pictures import PillowRenderer
from i18n import msg, translate

#: The path the metrics are served at (Prometheus' default).
PATH = "/metrics"
#: The statuses of the tables counted at each scrape.
COUNTED: tuple[Status, ...] = ("lobby", "running")


def instrument(metrics: Metrics, store: Storage, service: GameService, bot: KarakBot) -> None:
    """Have the parts of one bot count in ``metrics``."""
    store.metrics = metrics
    service.play.metrics = metrics
    bot.metrics = metrics
    bot.global_wait.metrics = metrics
    bot.pictures.metrics = metrics
    if isinstance(bot.pictures.renderer, PillowRenderer):
        metrics.watch_pool("drawing", bot.pictures.renderer.pool.pool)
    metrics.watch_pool("thinking", service.thinking.pool)
    metrics.watch_pool("hints", service.thinking.hints)


class MetricsServer:
    """An HTTP server on the bot's event loop answering ``GET /metrics``."""

    def __init__(self, metrics: Metrics, store: Storage) -> None:
        self.metrics = metrics
        self.store = store
        app = web.Application()
        app.router.add_get(PATH, self.page)
        self._runner = web.AppRunner(app, access_log=None)
        self.port = 0

    async def start(self, host: str, port: int) -> int:
        """Listen on ``host``:``port`` (0: a free port); the port listened on."""
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        self.port = int(self._runner.addresses[0][1])
        return self.port

    async def page(self, request: web.Request) -> web.Response:
        """The metrics, the tables counted now (left out when the database cannot tell)."""
        try:
            counts: dict[str, int] = {status: len(await self.store.ids_with_status(status))
                                      for status in COUNTED}
        except StorageError:
            self.metrics.tables_unknown()
        else:
            self.metrics.count_tables(counts)
        return web.Response(body=self.metrics.page(),
                            headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def close(self) -> None:
        """Stop listening."""
        await self._runner.cleanup()


@asynccontextmanager
async def served(metrics: Metrics, store: Storage, host: str,
                 port: int | None) -> AsyncIterator[MetricsServer | None]:
    """Serve ``metrics`` on ``host``:``port`` for the block (None: nothing is opened); raises
    :class:`ConfigProblem` when it cannot listen there."""
    if port is None:
        yield None
        return
    server = MetricsServer(metrics, store)
    try:
        await server.start(host, port)
    except OSError as exc:  # the port taken, or an address not of this machine
        await server.close()
        raise ConfigProblem(translate(msg("bot.config.metrics_unavailable", host=host,
                                          port=port, error=exc.strerror or str(exc)))) from None
    try:
        yield server
    finally:
        await server.close()


__all__ = ["PATH", "MetricsServer", "instrument", "served"]
