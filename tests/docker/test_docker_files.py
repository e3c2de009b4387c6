"""The files the image is made from and documented by: requirements.lock, what the image
installs, pins every dependency of pyproject.toml to one version inside its range (``python3
scripts/lock.py`` writes it), and README.md shows the commands the Docker tests run (no Docker
needed here)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import lock  # noqa: E402


def test_the_lock_file_pins_what_pyproject_asks_for() -> None:
    text = lock.LOCK.read_text(encoding="utf-8")
    assert lock.unsatisfied(text) == [], "run: python3 scripts/lock.py"
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert lines and all(re.fullmatch(r"[A-Za-z0-9._-]+==[0-9][A-Za-z0-9.+!-]*", line)
                         for line in lines), lines
    assert lines == sorted(lines, key=str.lower)


def test_a_version_outside_the_range_is_named() -> None:
    text = lock.LOCK.read_text(encoding="utf-8")
    older = re.sub(r"^aiosqlite==.*$", "aiosqlite==0.1.0", text, flags=re.MULTILINE)
    assert [p.split()[0] for p in lock.unsatisfied(older)] == ["aiosqlite>=0.20,<1"]
    missing = re.sub(r"^msgspec==.*\n", "", text, flags=re.MULTILINE)
    assert lock.unsatisfied(missing) == ["msgspec>=0.18,<1 (locked: None)"]


def test_the_dockerfile_installs_the_lock_file_alone() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "COPY requirements.lock ./" in dockerfile
    assert "--no-deps -r requirements.lock" in dockerfile and "pip check" in dockerfile
    assert lock.image_python() == "3.11"


def test_the_readme_shows_the_commands_the_test_runs() -> None:
    from docker_container import TEST_LABEL, Container

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Self-hosting"):]
    joined = re.sub(r" *\\\n *", " ", section)
    args = Container("karak-test", "karak-test-data", Path(".env")).run_args()
    label = args.index(f"{TEST_LABEL}=1")
    shown = args[:label - 1] + args[label + 1:]  # the tests' label aside
    assert f"docker run {' '.join(shown)}\n" in joined
    assert "docker build --network host -t karak-goblin-bot:test ." in section
    assert "python3 scripts/lock.py" in section
