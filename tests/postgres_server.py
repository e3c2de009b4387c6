"""A throwaway PostgreSQL server for the tests: Debian's ``postgresql`` package (installed with
apt-get when missing and the tests run as root), a new cluster in a temporary folder listening
on a unix socket only, started as the ``postgres`` user (the server refuses to run as root),
stopped and removed at the end.

Without PostgreSQL the tests that need it skip saying what they did not check; under ``CI=true``
they fail instead.
"""

from __future__ import annotations

import fcntl
import itertools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import asyncpg

from playground.browser import in_ci

#: The port number in the socket's name (no TCP port is opened).
PORT = 5432
_names = itertools.count(1)


class Unavailable(Exception):
    """No PostgreSQL server can be started here; ``str()`` says why."""


def binaries() -> Path | None:
    """The folder of the newest installed server's programs (initdb, pg_ctl), if any."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                   key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit()
                   else 0)
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def install() -> Path:
    """The server's programs, installed with apt-get when missing (as root only)."""
    if (folder := binaries()) is not None:
        return folder
    with open(Path(tempfile.gettempdir()) / "karak-tests-apt.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel workers: one installs, the others wait
        return binaries() or _apt_install()


def _apt_install() -> Path:
    """Install Debian's postgresql package; the folder of its programs."""
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise Unavailable("PostgreSQL is not installed (apt-get install postgresql)")
    for command in (["apt-get", "update"], ["apt-get", "install", "-y", "postgresql"]):
        done = subprocess.run(command, capture_output=True, text=True, check=False,
                              env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
        if done.returncode != 0:
            raise Unavailable(f"{' '.join(command)} failed: {done.stderr.strip()[-200:]}")
    if (folder := binaries()) is None:
        raise Unavailable("apt-get installed postgresql but no initdb was found")
    return folder


class Server:
    """A running throwaway cluster in ``folder``: :meth:`new_database` gives each test its own
    database."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def url(self, database: str = "postgres") -> str:
        """The URL of ``database`` on this server (through its socket)."""
        return f"postgresql://postgres@/{database}?host={self.folder}&port={PORT}"

    def cpu_seconds(self) -> float:
        """CPU seconds used so far by the server and its processes alive now (Linux)."""
        lines = (self.folder / "data" / "postmaster.pid").read_text().split()
        main = int(lines[0])
        total = 0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:  # the process has just ended
                continue
            if int(stat.parent.name) == main or int(fields[1]) == main:
                total += int(fields[11]) + int(fields[12])  # utime + stime, in ticks
        return total / os.sysconf("SC_CLK_TCK")

    async def new_database(self) -> str:
        """The URL of a new, empty database."""
        name = f"test_{os.getpid()}_{next(_names)}"
        db = await asyncpg.connect(self.url())
        try:
            await db.execute(f'CREATE DATABASE "{name}"')
        finally:
            await db.close()
        return self.url(name)


def _as_postgres(command: list[str]) -> list[str]:
    """``command`` run as the ``postgres`` user when the tests run as root."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


def _run(command: list[str]) -> None:
    done = subprocess.run(_as_postgres(command), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise Unavailable(f"{Path(command[0]).name} failed: {done.stderr.strip()[-300:]}")


@contextmanager
def running_server(durable: bool = False) -> Iterator[Server]:
    """A new cluster, started, yielded, stopped and removed; raises :class:`Unavailable`.
    Writes are not flushed to disk unless ``durable`` (as a production server flushes them)."""
    programs = install()
    folder = Path(tempfile.mkdtemp(prefix="karak-pg-"))
    try:
        if os.geteuid() == 0:
            shutil.chown(folder, "postgres", "postgres")
        data = folder / "data"
        _run([str(programs / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres",
              "-E", "UTF8", "--locale=C", "--no-sync"])
        options = f"-k {folder} -p {PORT} -c listen_addresses=''"
        if not durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        _run([str(programs / "pg_ctl"), "-D", str(data), "-o", options,
              "-l", str(folder / "server.log"), "-w", "start"])
        try:
            yield Server(folder)
        finally:
            subprocess.run(_as_postgres([str(programs / "pg_ctl"), "-D", str(data), "-m",
                                         "immediate", "-w", "stop"]),
                           capture_output=True, check=False)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


__all__ = ["Server", "Unavailable", "in_ci", "running_server"]
