"""What every test folder shares: the one line at the end of a run that says which requests were
not validated because Discord's OpenAPI description is missing (see ``shared_files.py``)."""

from __future__ import annotations

import pytest
from shared_files import unchecked_lines


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say, in one line per reason, which tests ran without request validation."""
    for line in unchecked_lines():
        terminalreporter.write_line(line)
