"""How the bot's log lines look: readable text (the default) or, with ``KARAK_LOG_FORMAT=json``,
one JSON object a line for a log collector.

A JSON line holds ``time`` (UTC, ISO 8601), ``level``, ``logger`` and ``message``, then
``table`` and ``guild`` when the line is about one (see :mod:`bot.supervision.log_context`),
and ``exception`` (the traceback) when one was logged.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Literal

from bot.supervision.log_context import FIELDS, AboutFilter

LogFormat = Literal["text", "json"]
#: The text format: time, level, logger, message.
TEXT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, table, guild, message (and exception)."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as one line of JSON."""
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(
                timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
        }
        for name in FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                line[name] = value
        line["message"] = record.getMessage()
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["exception"] = record.exc_text
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def log_handler(log_format: LogFormat) -> logging.Handler:
    """A handler writing to stderr in ``log_format``, each record told what it is about."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if log_format == "json" else logging.Formatter(TEXT))
    handler.addFilter(AboutFilter())
    return handler
