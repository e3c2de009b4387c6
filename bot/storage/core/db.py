"""What the core asks of a backend: a connection of the :class:`Db` shape (queries written with
``?`` placeholders, rows as tuples of plain Python values: ints, floats for times, bools or ints
for flags, text for JSON) and a :class:`Dialect` for the few pieces of SQL that differ; the reads
outside a transaction fail as the writes do when the database is out of reach
(:class:`Reads`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from bot.storage.records import Unreachable

#: A row read: its values in the order of the query's columns.
Row = tuple[object, ...]


class Db(Protocol):
    """A connection (or a pool lending one per query) running the core's SQL."""

    async def fetch(self, sql: str, *args: object) -> list[Row]:
        """Every row of a query."""
        ...

    async def fetchrow(self, sql: str, *args: object) -> Row | None:
        """The first row of a query, or None."""
        ...

    async def execute(self, sql: str, *args: object) -> int:
        """Run one statement; the number of rows it wrote."""
        ...

    async def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        """Run one statement once per row of arguments."""
        ...


class Reads:
    """A backend's reads outside a transaction on ``db``: an exception that ``out_of_reach``
    says means the database cannot be reached (its server stopped or cut off, its file
    unreadable) is raised as :class:`~bot.storage.records.Unreachable`, as a write's is; any
    other one as it is."""

    def __init__(self, db: Db, out_of_reach: Callable[[BaseException], bool]) -> None:
        self.db = db
        self.out_of_reach = out_of_reach

    @contextmanager
    def _sorted(self) -> Iterator[None]:
        try:
            yield
        except Unreachable:
            raise
        except Exception as exc:
            if self.out_of_reach(exc):
                raise Unreachable(str(exc) or type(exc).__name__) from exc
            raise

    async def fetch(self, sql: str, *args: object) -> list[Row]:
        """Every row of a query."""
        with self._sorted():
            return await self.db.fetch(sql, *args)

    async def fetchrow(self, sql: str, *args: object) -> Row | None:
        """The first row of a query, or None."""
        with self._sorted():
            return await self.db.fetchrow(sql, *args)

    async def execute(self, sql: str, *args: object) -> int:
        """Run one statement; the number of rows it wrote."""
        with self._sorted():
            return await self.db.execute(sql, *args)

    async def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        """Run one statement once per row of arguments."""
        with self._sorted():
            await self.db.executemany(sql, rows)


@dataclass(frozen=True)
class Dialect:
    """The SQL that differs between the backends.

    ``owned``: one process owns the database, so a table it read is served again until it
    writes it; else every read checks the row's ``stamp`` (an SQL expression that changes with
    each write of the row, by any process; ``NULL`` where there is none).
    ``next_result_seq``: the ``seq`` of the next result stored.
    ``for_update``: what locks the rows a read inside a write transaction returns.
    ``lock_place``: a statement (two arguments: a key space and a name) holding a lock until
    the transaction ends, or None where transactions already run one at a time.
    ``lock_ratings``: a statement locking every rating table (None: not needed).
    """

    name: str
    owned: bool
    stamp: str
    next_result_seq: str
    for_update: str
    lock_place: str | None
    lock_ratings: str | None
    #: SQL true when ``{column}`` is one of a list of values given as ONE argument, made by
    #: :attr:`many` from the values.
    one_of: str
    many: Callable[[Sequence[object]], object]
    #: SQL true when ``{column}``, a time, holds none (damaged: a word, or no finite number;
    #: a NULL is not), made by :meth:`no_time`.
    not_a_time: str

    def no_time(self, column: str) -> str:
        """SQL true when the time ``column`` holds is damaged (no finite number of seconds)."""
        return self.not_a_time.format(column=column)

    def any_of(self, column: str) -> str:
        """SQL true when ``column`` is one of the values of one argument made by :attr:`many`."""
        return self.one_of.format(column=column)


#: The key space of the locks on one person's rows (their id, as text, the other half of the
#: key): forgetting a person holds it, and so does each write of a row keyed by their id, so
#: such a write comes wholly before the forgetting (its row deleted or renamed) or after it.
PERSON_LOCK = 0x5045


async def lock_person(db: Db, dialect: Dialect, user_id: int) -> None:
    """Take the lock of person ``user_id``'s rows until the caller's transaction ends (where
    the dialect has such locks: SQLite runs one write transaction at a time)."""
    if dialect.lock_place is not None:
        await db.execute(dialect.lock_place, PERSON_LOCK, str(user_id))


__all__ = ["PERSON_LOCK", "Db", "Dialect", "Reads", "Row", "lock_person"]
