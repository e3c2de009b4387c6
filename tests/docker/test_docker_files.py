"""The self-hosting guide shows the commands the Docker tests run (no Docker needed here); the
lock file the image installs is checked in ``tests/test_locks.py``."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "self-hosting.md"


def test_the_guide_shows_the_commands_the_test_runs() -> None:
    from docker_container import TEST_LABEL, Container

    section = GUIDE.read_text(encoding="utf-8")
    joined = re.sub(r" *\\\n *", " ", section)
    args = Container("karak-test", "karak-test-data", Path(".env")).run_args()
    label = args.index(f"{TEST_LABEL}=1")
    shown = args[:label - 1] + args[label + 1:]  # the tests' label aside
    assert f"docker run {' '.join(shown)}\n" in joined
    assert "docker build --network host -t karak-goblin-bot:test ." in section
    assert "python3 scripts/dev.py lock" in section
