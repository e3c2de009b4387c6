"""What every test folder shares: the one line at the end of a run that says which requests were
not validated because Discord's OpenAPI description is missing (see ``shared_files.py``), and the
throwaway PostgreSQL server of the tests that need one (``postgres_server.py``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from postgres_server import Server, Unavailable, in_ci, running_server
from shared_files import unchecked_lines


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


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say, in one line per reason, which tests ran without request validation."""
    for line in unchecked_lines():
        terminalreporter.write_line(line)
