"""Container health check: ``python -m bot.health`` exits 0 while the bot's heartbeat is fresh.

The running bot touches the heartbeat file (``KARAK_HEARTBEAT``) every few seconds while it is
connected to Discord; a missing or stale file means the bot is down or cut off. An unset or empty
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


def healthy(path: Path, max_age: float = MAX_AGE, now: float | None = None) -> bool:
    """True when ``path`` was touched less than ``max_age`` seconds ago."""
    try:
        age = (time.time() if now is None else now) - path.stat().st_mtime
    except OSError:
        return False
    return age < max_age


def heartbeat_path(environ: Mapping[str, str] | None = None) -> Path:
    """The heartbeat file the check reads: ``KARAK_HEARTBEAT``, or the default when unset or
    empty."""
    value = (os.environ if environ is None else environ).get("KARAK_HEARTBEAT", "").strip()
    return Path(value) if value else DEFAULT_HEARTBEAT


def main() -> int:
    """Exit status 0 (healthy) or 1."""
    return 0 if healthy(heartbeat_path()) else 1


if __name__ == "__main__":
    sys.exit(main())
