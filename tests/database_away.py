"""A database that goes away under the bot, and comes back: what the tests do to the database,
never to the store.

PostgreSQL: a TCP relay of the tests' own between the store and the server, so the server the
other tests share is never stopped. :class:`Relay` listens on 127.0.0.1 and joins every
connection it accepts to a new connection to the server (a unix socket, as the throwaway server
of ``postgres_server.py`` listens on). :meth:`Relay.cut` closes the listener and every relayed
connection at once (the server stopped, restarting or the network cut: connections reset, new
ones refused); :meth:`Relay.restore` listens again on the same port. :meth:`Relay.silence`
keeps every connection open but carries nothing more either way until :meth:`Relay.restore`
(a failover, or a cut the network tells nobody of: no reset, no answer).

SQLite: :func:`cut_file` makes the file fail under the open connection: reads and writes of it
fail, as on a disk or share that went away. (A file removed, replaced or made unreadable by
its permissions, or its folder's, is still read and written through the descriptors the
connection holds: none of that puts it out of reach on Linux.)
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from postgres_server import PORT, Server

#: Bytes read at a time from either side.
CHUNK = 65536


class Relay:
    """Relays 127.0.0.1:``port`` (chosen on :meth:`start`) to the unix socket ``target``."""

    def __init__(self, target: Path) -> None:
        self.target = target
        self.port = 0
        self._listener: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._pumps: set[asyncio.Task[None]] = set()
        self._flowing = asyncio.Event()
        self._flowing.set()

    @classmethod
    def to(cls, server: Server) -> Relay:
        """A relay to the throwaway PostgreSQL ``server``'s socket."""
        return cls(server.folder / f".s.PGSQL.{PORT}")

    def url(self, database_url: str) -> str:
        """``database_url`` (a URL of the throwaway server) reached through the relay."""
        name = database_url.split("?", 1)[0].rsplit("/", 1)[1]
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    async def start(self) -> None:
        """Listen (on a free port the first time, on the same port after a :meth:`cut`), and
        carry what comes (again, after a :meth:`silence`)."""
        self._flowing.set()
        if self._listener is None:
            self._listener = await asyncio.start_server(self._relay, "127.0.0.1", self.port)
            self.port = self._listener.sockets[0].getsockname()[1]

    restore = start

    def silence(self) -> None:
        """Carry nothing more, either way, on any connection, a new one included (each stays
        open: the other end is told nothing)."""
        self._flowing.clear()

    async def cut(self) -> None:
        """Close the listener and every relayed connection (reset, as a dead way does)."""
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
        for writer in list(self._writers):
            writer.transport.abort()
        for pump in list(self._pumps):
            pump.cancel()
        await asyncio.gather(*self._pumps, return_exceptions=True)
        self._writers.clear()
        if listener is not None:
            await listener.wait_closed()
        for _ in range(3):  # the clients' event loop hears of the resets
            await asyncio.sleep(0)

    async def close(self) -> None:
        """Stop relaying for good."""
        await self.cut()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Join an accepted connection to a new one to the server, both ways."""
        try:
            up_reader, up_writer = await asyncio.open_unix_connection(self.target)
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, up_writer}
        for source, sink in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.get_running_loop().create_task(self._pump(source, sink, writer,
                                                                     up_writer))
            self._pumps.add(task)
            task.add_done_callback(self._pumps.discard)

    async def _pump(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter,
                    *ends: asyncio.StreamWriter) -> None:
        """Copy ``source`` into ``sink`` until either side ends; then end both connections."""
        try:
            while data := await source.read(CHUNK):
                await self._flowing.wait()
                sink.write(data)
                await sink.drain()
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            for end in ends:
                self._writers.discard(end)
                with contextlib.suppress(Exception):
                    end.close()


@contextlib.contextmanager
def cut_file(path: Path) -> Iterator[None]:
    """The SQLite database ``path`` (and its write-ahead log) out of reach of this process while
    in the block: every descriptor the process holds on them stays open but no longer reads or
    writes (a path-only descriptor of the same file: reads and writes fail, its size is still
    told), and SQLite says ``disk I/O error`` for what it must read or write there. What its
    page cache holds is still read without the file; the shared-memory index (``-shm``) is
    left alone. On leaving, the descriptors are the file's again (Linux: they are found in
    ``/proc``)."""
    names = {str(path), f"{path}-wal"}
    held = []
    for entry in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError):
            if os.readlink(entry) in names:
                held.append(int(entry.name))
    assert held, f"no descriptor of {path} is open"
    saved = {fd: os.dup(fd) for fd in held}
    try:
        for fd in held:
            dead = os.open(os.readlink(f"/proc/self/fd/{fd}"), os.O_PATH)
            os.dup2(dead, fd)
            os.close(dead)
        yield
    finally:
        for fd, original in saved.items():
            os.dup2(original, fd)
            os.close(original)


__all__ = ["Relay", "cut_file"]
