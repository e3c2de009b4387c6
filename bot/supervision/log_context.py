"""What a log line is about: the table and the server (guild) being handled.

Code handling one table wraps the work in ``with about(table=..., guild=...)``; every record
logged inside it (in this task, and in tasks it starts) carries ``table`` and ``guild``
attributes, which the JSON log format writes as fields. A record logged with
``extra={"table": ..., "guild": ...}`` keeps its own values.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_TABLE: ContextVar[int | None] = ContextVar("karak_log_table", default=None)
_GUILD: ContextVar[int | None] = ContextVar("karak_log_guild", default=None)
#: The record attributes this module fills in.
FIELDS = ("table", "guild")


@contextmanager
def about(*, table: int | None = None, guild: int | None = None) -> Iterator[None]:
    """Log every record inside the block as being about ``table`` and ``guild`` (a value left
    out keeps the one of an enclosing block)."""
    tokens = [(var, var.set(value)) for var, value in ((_TABLE, table), (_GUILD, guild))
              if value is not None]
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)


class AboutFilter(logging.Filter):
    """Gives each record the ``table`` and ``guild`` of the block it is logged in, unless it
    brought its own (``extra=``); it lets every record through."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Fill in ``table`` and ``guild``; always True."""
        for name, var in (("table", _TABLE), ("guild", _GUILD)):
            if getattr(record, name, None) is None:
                setattr(record, name, var.get())
        return True
