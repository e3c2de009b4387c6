"""What every part of the core store stands on: the backend's :class:`~bot.storage.core.db.Db`
for reads, its write transactions, its dialect and the store's clock."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

from bot.storage.core.db import Db, Dialect
from bot.supervision.metrics import UNCOUNTED, Metrics


class Base:
    """The parts a backend gives the core store."""

    dialect: Dialect
    clock: Callable[[], float]
    #: Reads outside a transaction (a connection, or a pool lending one per query).
    _read: Db
    #: Where the write transactions are timed (the bot's metrics, once it is built).
    metrics: Metrics = UNCOUNTED

    def _tx(self) -> AbstractAsyncContextManager[Db]:
        """One write transaction: committed when the block ends, rolled back when it raises;
        the database's refusals become storage errors."""
        raise NotImplementedError  # the backend's own

    def _table_tx(self, table_id: int) -> AbstractAsyncContextManager[Db]:
        """One write transaction of table ``table_id`` (see :class:`~bot.storage.core.tables.
        TableQueries`)."""
        raise NotImplementedError  # the core store's own


__all__ = ["Base"]
