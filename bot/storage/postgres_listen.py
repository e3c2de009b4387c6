"""Hearing of other processes' writes in PostgreSQL: a write of a table whose lease another process
holds sends ``pg_notify('karak_tables', '<table id>')`` in its transaction (:func:`notify`;
PostgreSQL delivers it once committed, and never when rolled back), and a :class:`Listener` on a
connection of its own LISTENs and tells its subscribers. A notification sent by one of the
store's own pool connections (:class:`OwnConnections`) is this process's own write and is not
told. When the listening connection drops it is made again (after :data:`RETRY` seconds while
the server cannot be reached), and the subscribers are told None: changes may have been missed.
A connection that stays quiet is asked a question every :data:`PING` seconds: one whose answer
does not come (the way to the server silently broken) is dropped, and made again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

import asyncpg

from bot.storage.core.db import Db as CoreDb
from bot.storage.interface import TableListener
from bot.storage.postgres_dialect import Connection as Db

log = logging.getLogger("karak.storage")
#: The channel of the notifications of table writes.
CHANNEL = "karak_tables"
#: Seconds between attempts to listen again while the server cannot be reached.
RETRY = 1.0
#: Seconds between two checks that the listening connection still answers, and how long an
#: answer may take.
PING = 30.0
#: What failing to reach the server raises.
UNREACHABLE = (OSError, asyncpg.PostgresError, asyncpg.InterfaceError)


async def notify(db: CoreDb, table_id: int, writer: str | None) -> bool:
    """Tell the listening processes that table ``table_id`` changed, once the caller's
    transaction commits, when another owner than ``writer`` holds its lease: only a lease
    holder acts on a change, and a write by the holder itself (the usual case, a server's
    clicks and its tables' AI in one process) sends nothing. PostgreSQL commits notifying
    transactions one at a time, each waiting for the disk, so every notification sent
    limits the moves a whole deployment can save per second. True when another owner holds
    the lease (it was told)."""
    return 0 < await db.execute("SELECT pg_notify(?, ?) FROM leases WHERE table_id = ? "
                     "AND owner IS DISTINCT FROM ?", CHANNEL, str(table_id), table_id, writer)


async def tell(db: CoreDb, tables: list[int]) -> None:
    """Tell the listening processes that each of ``tables`` changed, once the caller's
    transaction commits: their leases moved to the caller's owner, and the process that held
    one learns at once that it holds it no longer."""
    for table in tables:
        await db.execute("SELECT pg_notify(?, ?)", CHANNEL, str(table))


class OwnConnections:
    """The server process ids of the store's own pool connections: a notification one of them
    sent is this process's own write. Given to the pool as its ``init``: every new connection
    adds its id, and takes it away when it closes (the id may then be another's)."""

    def __init__(self) -> None:
        self.pids: set[int] = set()

    async def __call__(self, connection: asyncpg.Connection) -> None:
        """Note a new pool connection (until it closes)."""
        pid = connection.get_server_pid()
        self.pids.add(pid)
        connection.add_termination_listener(lambda _: self.pids.discard(pid))


class Listener:
    """The LISTEN connection to the database at ``url``, made on the first :meth:`add` and
    kept up until :meth:`close` (``sleep``: injectable for tests)."""

    def __init__(self, url: str, own: OwnConnections,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                 ping: float = PING) -> None:
        self.url = url
        self.own = own
        self.sleep = sleep
        self.ping = ping
        self._listeners: list[TableListener] = []
        self._connection: asyncpg.Connection | None = None
        self._lost = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def add(self, listener: TableListener) -> None:
        """Tell ``listener`` of other processes' table writes from now on (the first one waits
        until the server listens; raises when it cannot be reached)."""
        self._listeners.append(listener)
        if self._task is None:
            await self._listen()
            self._task = asyncio.get_running_loop().create_task(self._keep(), name="listener")

    def server_pid(self) -> int | None:
        """The server process of the listening connection (None while there is none)."""
        return None if self._connection is None else self._connection.get_server_pid()

    async def _listen(self) -> None:
        """Connect and LISTEN; :attr:`_lost` is set when that connection ends."""
        self._lost.clear()
        connection = await asyncpg.connect(self.url)
        try:
            connection.add_termination_listener(lambda _: self._lost.set())
            await connection.add_listener(CHANNEL, self._heard)
        except BaseException:
            await connection.close()
            raise
        self._connection = connection

    async def _keep(self) -> None:
        """Listen again whenever the connection drops; then tell the subscribers that changes
        may have been missed."""
        while True:
            try:
                async with asyncio.timeout(self.ping):  # no task of its own, unlike wait_for
                    await self._lost.wait()
            except TimeoutError:
                await self.check()
                continue
            self._connection = None
            log.warning("the connection listening for table changes dropped; listening again")
            while True:
                try:
                    await self._listen()
                    break
                except UNREACHABLE as exc:
                    log.debug("cannot listen yet: %s", exc)
                    await self.sleep(RETRY)
            self._tell(None)

    async def check(self) -> None:
        """Ask the listening connection a question; drop it (it is then made again) when no
        answer comes within :attr:`ping` seconds."""
        connection = self._connection
        if connection is None:
            return
        try:
            await connection.fetchval("SELECT 1", timeout=self.ping)
        except (*UNREACHABLE, TimeoutError):
            connection.terminate()

    def _heard(self, connection: Db, pid: int, channel: str, payload: object) -> None:
        """A notification: another process wrote the table it names."""
        if pid in self.own.pids:
            return
        try:
            table = int(str(payload))
        except ValueError:
            log.warning("a table change names no table: %r", str(payload)[:40])
            return
        self._tell(table)

    def _tell(self, table: int | None) -> None:
        for listener in list(self._listeners):
            try:
                listener(table)
            except Exception:  # one subscriber's trouble never silences the others
                log.exception("a listener of table changes failed")

    async def close(self) -> None:
        """Stop listening."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._connection is not None:
            with contextlib.suppress(*UNREACHABLE):
                await self._connection.close()
            self._connection = None


__all__ = ["CHANNEL", "Listener", "OwnConnections", "notify", "tell"]
