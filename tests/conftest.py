"""What every test folder shares: the one line at the end of a run that says which requests were
not validated because Discord's OpenAPI description is missing (see ``shared_files.py``), and the
throwaway PostgreSQL server of the tests that need one (``postgres_server.py``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator, Iterator

import pytest
from database_away import Relay
from postgres_server import Server, Unavailable, in_ci, running_server
from shared_files import unchecked_counts, unchecked_lines


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Server]:
    """A throwaway PostgreSQL server for the whole run (skips without one; fails under CI)."""
    try:
        with running_server() as server:
            yield server
    except Unavailable as exc:
        if in_ci():
            pytest.fail(f"no PostgreSQL server under CI: {exc}")
        pytest.skip(f"the PostgreSQL backend is not checked: {exc}")


@pytest.fixture
async def relay(postgres_server: Server) -> AsyncIterator[Relay]:
    """A relay of the test's own to the shared PostgreSQL server."""
    way = Relay.to(postgres_server)
    await way.start()
    yield way
    await way.close()


#: fixture -> the group of tests one worker runs together when the suite runs in parallel
#: (``pytest -n N --dist loadgroup``): one Docker daemon and image, one browser install.
GROUPS = {"docker_ready": "docker", "chromium_ready": "browser"}


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Keep the tests that share a machine-wide resource on one worker."""
    for item in items:
        for fixture, group in GROUPS.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(pytest.mark.xdist_group(group))
                break


#: What parallel workers handed over when they ended: the tests run without request validation
#: (reason -> count) and the Docker tests' figures (``tests/docker/conftest.py``).
UNCHECKED: Counter[str] = Counter()
DOCKER_FIGURES: list[str] = []


def pytest_sessionfinish(session: pytest.Session) -> None:
    """In a parallel worker, hand what the end of the run prints to the main process."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["unchecked"] = unchecked_counts()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: object, error: object) -> None:
    """A parallel worker ended: keep what it handed over."""
    output = getattr(node, "workeroutput", {})
    UNCHECKED.update(output.get("unchecked", {}))
    DOCKER_FIGURES.extend(output.get("docker_figures", []))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say, in one line per reason, which tests ran without request validation; print the
    figures of the Docker tests that parallel workers ran."""
    for line in unchecked_lines(UNCHECKED + Counter(unchecked_counts())):
        terminalreporter.write_line(line)
    for line in DOCKER_FIGURES:
        terminalreporter.write_line(f"docker: {line}")
