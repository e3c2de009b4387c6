"""Container health check: ``python -m bot.health`` exits 0 while the bot's heartbeat is fresh.

The running bot touches the heartbeat file (``KARAK_HEARTBEAT``) every few seconds while it is
connected to Discord; a missing or stale file means the bot is down or cut off.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

MAX_AGE = 90.0


def healthy(path: Path, max_age: float = MAX_AGE, now: float | None = None) -> bool:
    """True when ``path`` was touched less than ``max_age`` seconds ago."""
    try:
        age = (time.time() if now is None else now) - path.stat().st_mtime
    except OSError:
        return False
    return age < max_age


def main() -> int:
    """Exit status 0 (healthy) or 1."""
    path = Path(os.environ.get("KARAK_HEARTBEAT", "/tmp/karak.alive"))
    return 0 if healthy(path) else 1


if __name__ == "__main__":
    sys.exit(main())
