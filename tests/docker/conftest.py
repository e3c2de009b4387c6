"""Fixtures of the Docker image tests: Docker ready (installed and started when missing, see
:mod:`docker_host`), the image built once per run (on the base of :mod:`docker_base`), a Discord
stand-in on 127.0.0.1 and a volume for the database. The simulated people of the end-to-end
tests (``tests/loopback/e2e``) play through the container.

Without Docker the tests skip with one line saying what they did not check; under CI they fail.
At the end of the run no container or volume of the tests is left, and a daemon the tests
started is stopped. The stand-in base and the built image stay, so the next run builds from
Docker's cache; the end of the run prints the image's size and what it cost.
"""

from __future__ import annotations

import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "loopback"))  # the e2e helpers

from docker_base import ensure_base  # noqa: E402
from docker_container import (  # noqa: E402
    FIGURES,
    ROOT,
    Built,
    build,
    create_volume,
    new_name,
    remove_leftovers,
)
from docker_host import Daemon, DockerFailed, DockerUnavailable, docker  # noqa: E402
from shared_files import discord_api_checked, missing  # noqa: E402

from loopback import Loopback, ManualClock  # noqa: E402

#: What the tests here check, for the line that says it was not checked.
UNCHECKED = "the Docker image and docker-compose.yml, run against the stand-in"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the image's size and what building and testing it cost."""
    for line in FIGURES:
        terminalreporter.write_line(f"docker: {line}")


def pytest_sessionfinish(session: pytest.Session) -> None:
    """In a parallel run, hand the figures to the main process, which prints them."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["docker_figures"] = list(FIGURES)


@pytest.fixture(scope="session")
def docker_ready() -> Iterator[None]:
    """A Docker daemon that answers (skip, or fail under CI, when there can be none)."""
    daemon = Daemon()
    try:
        daemon.ensure()
    except (DockerUnavailable, DockerFailed) as exc:
        daemon.stop()
        missing(str(exc), UNCHECKED)
    started = time.monotonic()
    try:
        yield
    finally:
        left = remove_leftovers()
        if daemon.started_here:
            FIGURES.append("stopping the Docker daemon the tests started")
        daemon.stop()
        FIGURES.append(f"tests took {time.monotonic() - started:.0f} s with Docker ready"
                       + (f"; removed leftovers {left}" if left else ""))


@pytest.fixture(scope="session")
def image(docker_ready: None) -> Built:
    """The image built from the repository's Dockerfile (its base made when missing)."""
    try:
        base, how = ensure_base(ROOT / "Dockerfile")
        built = build(base)
    except DockerFailed as exc:
        missing(str(exc), UNCHECKED)
    FIGURES.append(f"base {base} ({how})")
    FIGURES.append(f"image {built.size / 1e6:.0f} MB, {built.added / 1e6:.0f} MB over its base; "
                   f"built in {built.seconds:.0f} s")
    return built


@pytest.fixture
async def standin() -> AsyncIterator[Loopback]:
    """A Discord stand-in on 127.0.0.1 (the containers share the host's network)."""
    async with Loopback(clock=ManualClock(), validate=discord_api_checked()) as lb:
        yield lb


@pytest.fixture
def volume(image: Built) -> Iterator[tuple[str, Path]]:
    """A fresh named volume for the database: its name and its folder on this machine."""
    name = new_name("data")
    folder = create_volume(name)
    try:
        yield name, folder
    finally:
        docker("volume", "rm", "--force", name)
