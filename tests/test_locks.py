"""The lock files are current with pyproject.toml: ``requirements.lock`` (what the Docker image
installs) and ``requirements-dev.lock`` (what ``scripts/dev.py`` installs, so a CI run is
reproducible) pin every dependency pyproject.toml asks for to one version inside its range, each
with the hashes pip checks (``--require-hashes``). No network: only the files are read. When
this fails, run ``python3 scripts/dev.py lock`` and commit both files."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
#: Each lock file and the extra of pyproject.toml it pins (besides the plain dependencies).
LOCKS = {"requirements.lock": "postgres", "requirements-dev.lock": "dev"}
HASH = re.compile(r"--hash=sha256:[0-9a-f]{64}")


@dataclass(frozen=True)
class Pin:
    """One requirement of a lock file: its name, version and hashes."""

    name: str
    version: str
    hashes: tuple[str, ...]


def pins(text: str) -> dict[str, Pin]:
    """Normalised name -> pin of every requirement of a lock file written by ``uv pip compile
    --generate-hashes`` (a requirement and its hashes run over backslash-continued lines)."""
    joined = re.sub(r"\s*\\\n\s*", " ", text)
    out = {}
    for line in joined.splitlines():
        line = line.split("#", 1)[0].strip() if not line.lstrip().startswith("--") else line
        if not line or line.startswith("#"):
            continue
        spec, *hashes = re.split(r"\s+(?=--hash=)", line)
        found = re.fullmatch(r"([A-Za-z0-9._-]+)==([^\s;]+)\s*(;.*)?", spec.strip())
        assert found, f"not a pinned requirement: {line[:80]}"
        name = canonicalize_name(found.group(1))
        out[name] = Pin(name, found.group(2), tuple(h for h in hashes if HASH.fullmatch(h)))
    return out


def wanted(extra: str) -> list[Requirement]:
    """The requirements of pyproject.toml with ``extra``: the plain dependencies and the
    extra's, the project's own extras (``karak-goblin-bot[postgres]``) opened up."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    out = [Requirement(spec) for spec in project["dependencies"]]
    extras, seen = [extra], set()
    while extras:
        name = extras.pop()
        if name in seen:
            continue
        seen.add(name)
        for spec in project["optional-dependencies"][name]:
            req = Requirement(spec)
            if canonicalize_name(req.name) == canonicalize_name(project["name"]):
                extras.extend(req.extras)
            else:
                out.append(req)
    return out


def unsatisfied(text: str, extra: str) -> list[str]:
    """The requirements of pyproject.toml (with ``extra``) that the lock file ``text`` lacks,
    pins outside their range or pins without a hash."""
    locked = pins(text)
    out = []
    for req in wanted(extra):
        pin = locked.get(canonicalize_name(req.name))
        if pin is None or not req.specifier.contains(pin.version, prereleases=True):
            out.append(f"{req} (locked: {pin and pin.version})")
        elif not pin.hashes:
            out.append(f"{req} (locked without a hash)")
    return out


@pytest.mark.parametrize("name", LOCKS)
def test_the_lock_pins_what_pyproject_asks_for_with_hashes(name: str) -> None:
    text = (ROOT / name).read_text(encoding="utf-8")
    assert unsatisfied(text, LOCKS[name]) == [], f"{name} is stale: python3 scripts/dev.py lock"
    unhashed = [pin.name for pin in pins(text).values() if not pin.hashes]
    assert unhashed == [], f"pinned without a hash in {name}: {unhashed}"
    assert "python3 scripts/dev.py lock" in text.splitlines()[1]


def test_a_stale_lock_is_named() -> None:
    text = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    older = re.sub(r"^aiosqlite==\S+", "aiosqlite==0.1.0", text, flags=re.MULTILINE)
    assert [p.split()[0] for p in unsatisfied(older, "postgres")] == ["aiosqlite<1,>=0.20"]
    missing = re.sub(r"^msgspec==.*?(?=^\S)", "", text, flags=re.MULTILINE | re.DOTALL)
    assert unsatisfied(missing, "postgres") == ["msgspec<1,>=0.18 (locked: None)"]
    bare = re.sub(r"^(openskill==\S+) \\\n(\s+--hash=\S+ \\\n)*\s+--hash=\S+\n", r"\1\n", text,
                  flags=re.MULTILINE)
    assert unsatisfied(bare, "postgres") == ["openskill<7,>=6.2 (locked without a hash)"]


def test_the_development_tools_run_what_the_image_runs() -> None:
    image = pins((ROOT / "requirements.lock").read_text(encoding="utf-8"))
    dev = pins((ROOT / "requirements-dev.lock").read_text(encoding="utf-8"))
    differ = {name: (pin.version, dev[name].version if name in dev else None)
              for name, pin in image.items() if name not in dev or dev[name] != pin}
    assert differ == {}, f"the image's and the tests' versions differ: {differ}"


def test_the_dockerfile_installs_the_lock_checking_hashes() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    install = re.sub(r"\s*\\\n\s*", " ", dockerfile)
    assert "COPY requirements.lock ./" in dockerfile
    assert "--require-hashes --no-deps -r requirements.lock" in install
    assert "pip check" in install


def test_the_development_setup_installs_the_dev_lock_checking_hashes() -> None:
    dev = (ROOT / "scripts" / "dev.py").read_text(encoding="utf-8")
    assert '"--require-hashes", "-r", "requirements-dev.lock"' in dev
    assert not (ROOT / "scripts" / "lock.py").exists()
