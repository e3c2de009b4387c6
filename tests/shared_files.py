"""Reference files that some checks read from beside the project, never from inside it.

A fresh clone has none of them: a check that needs one skips with one line saying what it did
not check, and fails instead under continuous integration (``CI=true``), where they must be
present. The files:

- Discord's OpenAPI description, ``../shared/discord-api/openapi.json`` or the path in
  ``KARAK_DISCORD_OPENAPI`` (see :mod:`loopback.spec`): request bodies are validated against it.
  Tests whose point is not the validation run without it, unchecked, and the end of the run
  says so in one line (:func:`discord_api_checked`).
- The shared rules reference, ``../shared/rules/RULES.md``, which ``docs/rules.md`` restates,
  and the printed rulebooks as text, whose words the French and Czech catalogues use.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import NoReturn

import pytest

from loopback.spec import unavailable_reason
from playground.browser import in_ci

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
RULES_REFERENCE = SHARED / "rules" / "RULES.md"

#: Why requests went unchecked, with how many tests ran so; reported by :func:`unchecked_lines`.
_UNCHECKED: Counter[str] = Counter()


def rulebook(lc: str) -> Path:
    """The printed rulebook in language ``lc`` (``en``, ``fr``, ``cs``), as text."""
    return SHARED / "rules" / f"karak-goblin-rulebook.{lc}.txt"


def missing(reason: str, unchecked: str) -> NoReturn:
    """Skip the running test, saying what it did not check and why; fail it under CI."""
    __tracebackhide__ = True  # a skip or failure names the test that asked
    line = f"not checked: {unchecked} ({reason})"
    if in_ci():
        pytest.fail(f"{line}; under CI it must be checked", pytrace=False)
    pytest.skip(line)


def require_file(path: Path, unchecked: str) -> Path:
    """``path`` when it is a file, else :func:`missing` (skip, or fail under CI)."""
    __tracebackhide__ = True  # a skip or failure names the test that asked
    if not path.is_file():
        missing(f"{path} is missing", unchecked)
    return path


def require_discord_api(unchecked: str) -> None:
    """Return when request bodies can be validated against Discord's OpenAPI description,
    else :func:`missing` (skip, or fail under CI)."""
    __tracebackhide__ = True  # a skip or failure names the test that asked
    reason = unavailable_reason()
    if reason is not None:
        missing(reason, unchecked)


def discord_api_checked() -> bool:
    """Whether this test's requests are validated against Discord's OpenAPI description.

    True when it can be; otherwise the test runs unchecked (counted for the one line at the end
    of the run) and False, or, under CI, fails."""
    __tracebackhide__ = True  # a skip or failure names the test that asked
    reason = unavailable_reason()
    if reason is None:
        return True
    if in_ci():
        pytest.fail(f"Discord's OpenAPI description is needed under CI: {reason}", pytrace=False)
    _UNCHECKED[reason] += 1
    return False


def unchecked_counts() -> dict[str, int]:
    """Reason -> how many tests of this process ran with their requests not validated."""
    return dict(_UNCHECKED)


def unchecked_lines(counts: dict[str, int]) -> list[str]:
    """One line per reason some tests' requests were not validated (none when all were)."""
    return [f"not checked: the requests of {count} tests against Discord's OpenAPI description "
            f"({reason})" for reason, count in sorted(counts.items())]
