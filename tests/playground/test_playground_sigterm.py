"""``scripts/dev.py run`` stopped with SIGTERM (a service manager, ``kill``): the launcher, the
playground with its bot, and every worker process they started all stop."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from playground.drive import ROOT, PlaygroundProcess


def descendants(pid: int) -> set[int]:
    """Every living process below ``pid`` (read from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    out: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        kids = {p for p, pp in parents.items() if pp == parent}
        todo += list(kids - out)
        out |= kids
    return out


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_sigterm_stops_the_launcher_the_bot_and_its_workers(tmp_path: Path) -> None:
    env = PlaygroundProcess(tmp_path / "pg.sqlite3", ai_pace=0.05).env()
    proc = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "dev.py"), "run",
                             "--env-file", os.devnull], cwd=ROOT, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    started = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if re.search(r"https?://\S+/", line):
                started.set()

    threading.Thread(target=read, daemon=True).start()
    below: set[int] = set()
    try:
        assert started.wait(120), "".join(lines)
        below = descendants(proc.pid)
        assert below, "the launcher runs the playground in a child process"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0, "".join(lines[-20:])
        for _ in range(600):  # the children end after the launcher has seen its child end
            if not any(alive(p) for p in below):
                break
            time.sleep(0.1)
        assert [p for p in below if alive(p)] == [], "".join(lines[-20:])
    finally:  # those below the launcher too: once it has ended, they are no longer its own
        for pid in {proc.pid, *descendants(proc.pid), *below,
                    *(p for b in below for p in descendants(b))}:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        proc.wait()
    assert "Traceback" not in "".join(lines)
