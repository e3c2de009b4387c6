"""Container health check: ``python -m bot.supervision.health`` exits 0 while the bot's heartbeat
is fresh and names no failing work.

The running bot writes the heartbeat file (``KARAK_HEARTBEAT``) every few seconds while it is
connected to Discord; a missing or stale file means the bot is down or cut off. The file holds
one line for each background loop that keeps failing (``ai-12 failing: 7 failures in 64 s,
last: CannotSave: database or disk is full``); any such line makes the bot unhealthy, and
the check prints it (``docker inspect`` shows what the check printed). An unset or empty
``KARAK_HEARTBEAT`` means the image's default file, :data:`DEFAULT_HEARTBEAT` (an ``.env`` line
``KARAK_HEARTBEAT=`` must not send the check to look at the current folder).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping
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


def heartbeat_path(environ: Mapping[str, str] | None = None) -> Path:
    """The heartbeat file the check reads: ``KARAK_HEARTBEAT``, or the default when unset or
    empty."""
    value = (os.environ if environ is None else environ).get("KARAK_HEARTBEAT", "").strip()
    return Path(value) if value else DEFAULT_HEARTBEAT


def main() -> int:
    """Exit status 0 (healthy) or 1, printing what is wrong."""
    found = problems(heartbeat_path())
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
