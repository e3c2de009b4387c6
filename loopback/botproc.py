"""Run the real bot (``python -m bot``) as a separate process against a stand-in.

Tests kill it with SIGKILL and start it again on the same database; the load benchmark reads
its memory. The bot gets its settings from the environment only (``--env-file /dev/null``: a
developer's ``.env`` with a real token is never read), pointing it at the stand-in.

The bot runs in a process group of its own (with its drawing workers and multiprocessing's
resource tracker); waiting for the bot waits until that whole group is gone, so a test leaves no
process behind, even after a SIGKILL.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Collection
from pathlib import Path

from loopback.server import Loopback

ROOT = Path(__file__).resolve().parents[1]
#: What starts the bot tied to the process that starts it.
TIED = Path(__file__).resolve().with_name("tied.py")
#: Seconds a stopped bot's workers get to end after the bot itself.
GROUP_GRACE = 15.0


def group_members(group: int) -> list[int]:
    """Live processes (zombies aside) of process group ``group`` (Linux)."""
    out = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == group and fields[0] != "Z":
                out.append(int(entry.name))
    return out


def process_tree(pid: int) -> list[int]:
    """Process ``pid`` and its descendants, ``pid`` first (Linux: read from /proc)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        with contextlib.suppress(OSError, ValueError):
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
    return out


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds process ``pid`` used so far (0 when it is gone; Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


class BotExited(RuntimeError):
    """The bot process ended while it was expected to connect."""


class BotProcess:
    """One bot process at a time for a stand-in and a database file."""

    def __init__(self, lb: Loopback, db: Path, *, log: Path | None = None,
                 ai_pace: float = 0.0, extra_env: dict[str, str] | None = None,
                 root: Path = ROOT) -> None:
        self.lb = lb
        self.root = root  # the project whose bot runs (another version's, to compare)
        self.db = db
        self.log = log or db.with_suffix(".log")
        self.ai_pace = ai_pace
        self.extra_env = dict(extra_env or {})
        self.proc: subprocess.Popen[bytes] | None = None
        self.group: int | None = None  # the last bot's process group
        self.starts = 0

    def env(self) -> dict[str, str]:
        """The bot's environment: this machine's, minus any bot setting, plus the stand-in's."""
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("KARAK_") and k != "DISCORD_TOKEN"}
        env.update(self.lb.env())
        env.update({"KARAK_DB": str(self.db), "KARAK_AI_PACE": f"{self.ai_pace:g}",
                    "KARAK_LOG_LEVEL": "INFO", "PYTHONUNBUFFERED": "1",
                    "KARAK_THREADS": "false"})  # a table message in the channel (extra_env: on)
        if self.root != ROOT:
            env["PYTHONPATH"] = str(self.root)
        env.update(self.extra_env)
        return env

    @property
    def pid(self) -> int | None:
        """The running process's id."""
        return self.proc.pid if self.proc is not None and self.proc.poll() is None else None

    async def start(self, *, sync: bool = False, timeout: float = 60.0,
                    shards: Collection[int] | None = None) -> None:
        """Start the bot and wait until it is connected (IDENTIFY answered with READY) on each
        of ``shards`` (None: every shard of the bot's count)."""
        if self.pid is not None:
            raise RuntimeError("the bot is already running")
        before = self.lb.gateway.identifies
        # tied to this process: SIGTERM when it ends, even killed outright (see tied.py)
        args = [sys.executable, str(TIED), str(os.getpid()), sys.executable, "-m", "bot",
                "--env-file", os.devnull]
        if sync:
            args.append("--sync")
        with self.log.open("ab") as out:
            out.write(f"\n===== start {self.starts + 1}\n".encode())
            out.flush()
            self.proc = subprocess.Popen(args, cwd=str(self.root), env=self.env(),
                                         stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                         start_new_session=True)
        self.group = self.proc.pid
        self.starts += 1
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.lb.gateway.identifies == before or not self.lb.gateway.connected(shards):
            if self.proc.poll() is not None:
                raise BotExited(f"the bot exited with {self.proc.returncode}: "
                                f"{self.log_tail()}")
            if loop.time() > deadline:
                self.kill()  # never left running: the caller has no bot to stop
                await self.wait()
                raise TimeoutError(f"the bot did not connect in {timeout} s: {self.log_tail()}")
            await self.lb.changed(self.lb.version, 0.2)

    def kill(self) -> None:
        """SIGKILL: no clean-up, no goodbye (a crash, a power cut, an OOM kill)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)

    async def wait(self) -> int:
        """Wait for the process to end, then for the rest of its group (its workers); the
        bot's exit status."""
        if self.proc is None:
            return 0
        status = await asyncio.to_thread(self.proc.wait)
        await self.group_gone()
        return status

    def group_pids(self) -> list[int]:
        """Live processes (zombies aside) of the last bot's process group (Linux)."""
        return [] if self.group is None else group_members(self.group)

    async def group_gone(self, timeout: float = GROUP_GRACE) -> None:
        """Wait until no process of the last bot's group lives (polled); TimeoutError naming
        the survivors otherwise."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while survivors := self.group_pids():
            if loop.time() > deadline:
                with contextlib.suppress(OSError):
                    os.killpg(self.group or 0, signal.SIGKILL)  # leave nothing behind
                raise TimeoutError(f"processes of the bot outlived it: {survivors}")
            await asyncio.sleep(0.05)

    async def stop(self) -> None:
        """End the bot politely (SIGINT), then SIGKILL if it lingers; either way wait until its
        workers are gone too."""
        if self.proc is None:
            return
        if self.proc.poll() is not None:
            await self.group_gone()
            return
        # a second SIGINT is needed now and then: Python 3.11's asyncio.wait_for can swallow
        # the cancellation the first one causes when it lands as a wait finishes
        for _ in range(2):
            self.proc.send_signal(signal.SIGINT)
            try:
                await asyncio.to_thread(self.proc.wait, 3)
                await self.group_gone()
                return
            except subprocess.TimeoutExpired:
                continue
        self.kill()
        await self.wait()

    def pids(self) -> list[int]:
        """The bot's process and its descendants (drawing workers), Linux only."""
        pid = self.pid
        return [] if pid is None else process_tree(pid)

    def rss(self, children: bool = True) -> int:
        """Resident memory in bytes of the bot (and its workers), 0 when unknown (Linux)."""
        total = 0
        for pid in self.pids() if children else self.pids()[:1]:
            with contextlib.suppress(OSError):
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
        return total

    def cpu_seconds(self, children: bool = True) -> float:
        """User + system CPU seconds used so far by the bot (and its live workers) (Linux)."""
        return sum(cpu_seconds(pid) for pid in (self.pids() if children else self.pids()[:1]))

    def log_text(self) -> str:
        """Everything the bot printed so far."""
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""

    def log_tail(self, lines: int = 30) -> str:
        """The last lines the bot printed."""
        return "\n".join(self.log_text().splitlines()[-lines:])
