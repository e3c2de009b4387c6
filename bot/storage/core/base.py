"""What every part of the core store stands on: the backend's :class:`~bot.storage.core.db.Db`
for reads, its write transactions, its dialect and the store's clock."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from contextlib import AbstractAsyncContextManager
from typing import TypeVar

from bot.storage.core.db import Db, Dialect
from bot.supervision.metrics import UNCOUNTED, Metrics

log = logging.getLogger("karak.storage")
#: How many damaged rows a store remembers having named (each is named once, not at every
#: read of it: a background pass reads it again and again).
NAMED = 1024
V = TypeVar("V")
R = TypeVar("R")


class Base:
    """The parts a backend gives the core store."""

    dialect: Dialect
    clock: Callable[[], float]
    #: Reads outside a transaction (a connection, or a pool lending one per query).
    _read: Db
    #: Where the write transactions are timed (the bot's metrics, once it is built).
    metrics: Metrics = UNCOUNTED
    #: The damaged rows named in a warning already (at most :data:`NAMED`).
    _named: dict[str, None]

    def _damaged(self, row: str, exc: Exception) -> None:
        """Name the damaged row ``row`` (its table and key) in a warning, once: it is left out
        of what is read, and nothing else is."""
        if row in self._named:
            return
        if len(self._named) >= NAMED:
            self._named.pop(next(iter(self._named)))
        self._named[row] = None
        log.warning("%s is damaged (%s), so left out", row, exc)

    def _readable(self, rows: Iterable[R], read: Callable[[R], V],
                  name: Callable[[R], str]) -> list[V]:
        """``rows`` read by ``read``, each damaged one (a value its column cannot hold) left
        out and named once (:meth:`_damaged`) by ``name``: it never stops the reading of the
        others."""
        out = []
        for row in rows:
            try:
                out.append(read(row))
            except (ValueError, TypeError, OverflowError) as exc:
                self._damaged(name(row), exc)
        return out

    def _tx(self) -> AbstractAsyncContextManager[Db]:
        """One write transaction: committed when the block ends, rolled back when it raises;
        the database's refusals become storage errors."""
        raise NotImplementedError  # the backend's own

    def _table_tx(self, table_id: int) -> AbstractAsyncContextManager[Db]:
        """One write transaction of table ``table_id`` (see :class:`~bot.storage.core.tables.
        TableQueries`)."""
        raise NotImplementedError  # the core store's own


__all__ = ["Base"]
