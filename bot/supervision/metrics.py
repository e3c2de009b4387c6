"""The bot's Prometheus metrics, defined once: what an admin can scrape to watch a running bot.

One :class:`Metrics` holds every metric in a registry of its own (never the library's global
one), so several bots in one process, and the tests, each count on their own. The parts of the
bot are handed the bot's :class:`Metrics` and call its methods; a part given none counts in
:data:`UNCOUNTED`, which nothing serves. The process serves :meth:`Metrics.page` when the admin
turns metrics on (``KARAK_METRICS_PORT``); until then nothing is opened.

What is only known at scrape time (tables by status, the workers' queues and restarts) is read
then: the process sets the table counts just before it renders the page, and the worker pools
are read through :meth:`Metrics.watch_pool`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Literal, Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

#: Who made a move: a person, an AI seat, or the AI for a person whose turn timer ran out.
Mover = Literal["person", "ai", "timer"]
#: How an interaction was answered: done, refused with a reason, or failed.
Outcome = Literal["accepted", "refused", "error"]
#: Seconds: Discord's 3-second window to answer an interaction sits in the middle.
RESPONSE_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 5.0, 10.0)
#: Seconds a picture takes to draw, waiting for a worker included.
PICTURE_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
#: Seconds a write transaction takes (waiting for the write before it included).
WRITE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
#: The scopes Discord names in a 429's ``X-RateLimit-Scope`` header (``global`` also from
#: ``X-RateLimit-Global``); anything else counts as ``user``.
SCOPES = ("user", "global", "shared")
#: The statuses of the tables counted by :attr:`Metrics.tables`.
TABLE_STATUSES = ("lobby", "running")


class Pool(Protocol):
    """What the metrics read of a worker pool (:class:`bot.workers.pool.WorkerPool`)."""

    restarts: int

    def waiting(self) -> int:
        """Jobs waiting for a worker."""
        ...


class _Pools(Collector):
    """The watched worker pools' queue depths and restarts, read at scrape time."""

    def __init__(self) -> None:
        self.pools: dict[str, Pool] = {}

    def collect(self) -> Iterator[Metric]:
        """One gauge and one counter, a sample per pool."""
        depth = GaugeMetricFamily("karak_worker_queue_depth",
                                  "Jobs waiting for a worker process, by pool.", labels=["pool"])
        restarts = CounterMetricFamily(
            "karak_worker_restarts", "Worker processes that ended (died or passed a job's "
            "time limit) and were replaced, by pool.", labels=["pool"])
        for name, pool in sorted(self.pools.items()):
            depth.add_metric([name], pool.waiting())
            restarts.add_metric([name], pool.restarts)
        yield depth
        yield restarts


class Metrics:
    """Every metric of one bot, in a registry of its own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        reg = self.registry
        self.moves = Counter("karak_moves", "Moves applied to tables, by who made them "
                             "(person, ai, or timer: the AI for a person whose time ran out).",
                             ["by"], registry=reg)
        self.interactions = Counter(
            "karak_interactions", "Commands and clicks answered, by kind (command or click), "
            "name (the command, or the kind of button or menu) and outcome (accepted, refused, "
            "error).", ["kind", "name", "outcome"], registry=reg)
        self.first_response = Histogram(
            "karak_first_response_seconds", "Seconds from an interaction's creation on Discord "
            "to the bot's first answer to it (Discord allows 3).",
            buckets=RESPONSE_BUCKETS, registry=reg)
        self.picture = Histogram(
            "karak_picture_seconds", "Seconds to draw a picture (table, battle or hand), "
            "waiting for a worker included, by kind.", ["kind"], buckets=PICTURE_BUCKETS,
            registry=reg)
        self.tables = Gauge("karak_tables", "Tables in the database, by status (lobby, "
                            "running), counted when the metrics are read.", ["status"],
                            registry=reg)
        self.rate_limits = Counter(
            "karak_rate_limits", "HTTP 429 answers Discord gave the bot, by scope (user, "
            "global, shared).", ["scope"], registry=reg)
        self.db_write = Histogram(
            "karak_db_write_seconds", "Seconds a database write transaction takes, waiting "
            "for the write before it included.", buckets=WRITE_BUCKETS, registry=reg)
        self._pools = _Pools()
        reg.register(self._pools)
        for by in ("person", "ai", "timer"):  # shown at 0 before the first move
            self.moves.labels(by)
        for scope in SCOPES:
            self.rate_limits.labels(scope)

    def moved(self, by: Mover) -> None:
        """One move applied."""
        self.moves.labels(by).inc()

    def answered(self, kind: str, name: str, outcome: Outcome) -> None:
        """One command or click (``kind``) answered."""
        self.interactions.labels(kind, name, outcome).inc()

    def responded(self, seconds: float) -> None:
        """An interaction got its first answer ``seconds`` after it was created."""
        self.first_response.observe(max(0.0, seconds))

    @contextmanager
    def drawing(self, kind: str) -> Iterator[None]:
        """Time the drawing of a ``kind`` picture (the block)."""
        with self.picture.labels(kind).time():
            yield

    def rate_limited(self, scope: str) -> None:
        """Discord answered a request with a 429 of ``scope``."""
        self.rate_limits.labels(scope if scope in SCOPES else "user").inc()

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Time one database write transaction (the block)."""
        with self.db_write.time():
            yield

    def count_tables(self, counts: Mapping[str, int]) -> None:
        """Set the number of tables of each status in :data:`TABLE_STATUSES`."""
        for status in TABLE_STATUSES:
            self.tables.labels(status).set(counts.get(status, 0))

    def tables_unknown(self) -> None:
        """The tables could not be counted: none is shown until they are again."""
        self.tables.clear()

    def watch_pool(self, name: str, pool: Pool) -> None:
        """Read ``pool``'s queue depth and restarts at each scrape, labelled ``name``."""
        self._pools.pools[name] = pool

    def page(self) -> bytes:
        """The metrics in Prometheus' text format."""
        return generate_latest(self.registry)

    def names(self) -> set[str]:
        """The names of the metric families served (histograms and counters without the
        ``_bucket``, ``_sum``, ``_count`` or ``_total`` of their samples)."""
        return {m.name for m in self.registry.collect()}


#: Where the parts of a bot count when they were given no metrics: never served.
UNCOUNTED = Metrics()

__all__ = ["UNCOUNTED", "Metrics", "Mover", "Outcome", "Pool"]
