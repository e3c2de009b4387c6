"""The "oracle": a read-only look at the bot's SQLite database while the bot runs in another
process, to choose sensibly and to check the outcome (never to act); rows are read as the SQLite
backend reads them."""
from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from bot.storage.core.rows import LOG_COLUMNS, TABLE_COLUMNS, read_log_row, read_record
from bot.storage.records import LogRow, TableRecord
from engine import GameConfig


class Oracle:
    """Reads the bot's SQLite database (read-only) while the bot runs."""

    def __init__(self, db: Path) -> None:
        self.db = db

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A read-only connection of its own, closed on leaving."""
        with closing(sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=10)) as con:
            yield con

    def table(self, tid: int) -> TableRecord:
        with self._connect() as con:
            row = con.execute(f"SELECT {TABLE_COLUMNS} FROM tables WHERE id = ?",
                              (tid,)).fetchone()
        assert row is not None, f"no table {tid}"
        return read_record(row)

    def log(self, tid: int) -> list[LogRow]:
        with self._connect() as con:
            rows = con.execute(f"SELECT {LOG_COLUMNS} FROM actions WHERE table_id = ? "
                               "ORDER BY seq", (tid,)).fetchall()
        return [read_log_row(r) for r in rows]

    def table_and_log(self, tid: int) -> tuple[TableRecord, list[LogRow]]:
        """The table and its action log as one moment left them (one read transaction: a
        move the bot stores meanwhile is in neither)."""
        with self._connect() as con:
            con.execute("BEGIN")
            row = con.execute(f"SELECT {TABLE_COLUMNS} FROM tables WHERE id = ?",
                              (tid,)).fetchone()
            rows = con.execute(f"SELECT {LOG_COLUMNS} FROM actions WHERE table_id = ? "
                               "ORDER BY seq", (tid,)).fetchall()
            con.execute("COMMIT")
        assert row is not None, f"no table {tid}"
        return read_record(row), [read_log_row(r) for r in rows]

    def active_in(self, channel: int) -> int | None:
        """The table in a lobby or running in ``channel``, if any."""
        with self._connect() as con:
            row = con.execute("SELECT id FROM tables WHERE channel_id = ? AND status IN "
                              "('lobby', 'running')", (channel,)).fetchone()
        return int(row[0]) if row else None

    def heroes(self, tid: int) -> dict[int, str]:
        """user id -> hero of every person seated at a table (once heroes are dealt)."""
        return {s.user: s.hero for s in self.table(tid).seats if s.user is not None and s.hero}

    def history(self, tid: int) -> tuple[GameConfig, list[str]]:
        """A table's game configuration and its action log (the moves, in order)."""
        return self.table(tid).game.config, [r.action for r in self.log(tid)]
