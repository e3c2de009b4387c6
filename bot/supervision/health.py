"""The bot's heartbeat file, and what it tells of the bot's health (the check itself, which reads
the bot's settings, is :mod:`bot.process.health`).

The running bot writes the heartbeat file (``KARAK_HEARTBEAT``) every few seconds while it is
connected to Discord; a missing or stale file means the bot is down or cut off. The file holds
one line for each background loop that keeps failing (``ai-12 failing: 7 failures in 64 s,
last: CannotSave: database or disk is full``); any such line makes the bot unhealthy, and
the check prints it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

MAX_AGE = 90.0
#: The heartbeat file of the Docker image (its ``ENV KARAK_HEARTBEAT``).
DEFAULT_HEARTBEAT = Path("/tmp/karak.alive")


def problems(path: Path, max_age: float = MAX_AGE, now: float | None = None) -> list[str]:
    """What is wrong with the bot according to its heartbeat file: nothing (healthy), the file
    missing or older than ``max_age`` seconds, or the lines naming work that keeps failing."""
    try:
        age = (time.time() if now is None else now) - path.stat().st_mtime
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return [f"no heartbeat file {path}"]
    if age >= max_age:
        return [f"heartbeat {age:.0f} s old"]
    return [line for line in text.splitlines() if line.strip()]


def healthy(path: Path, max_age: float = MAX_AGE, now: float | None = None) -> bool:
    """True when ``path`` was written less than ``max_age`` seconds ago and names no failing
    work."""
    return not problems(path, max_age, now)


def write_heartbeat(path: Path, failing: list[str]) -> None:
    """Write the heartbeat file: one line for each piece of work that keeps failing (none:
    healthy). The file is replaced whole, so the check never reads half of it."""
    fresh = path.with_name(path.name + ".new")
    fresh.write_text("".join(f"{line}\n" for line in failing), encoding="utf-8")
    os.replace(fresh, path)

