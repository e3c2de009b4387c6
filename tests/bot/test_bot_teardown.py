"""The bot tests' own hygiene: a test that fails with a bot running (a step's assertion before
its ``stop``) leaves nothing of that bot to the tests after it (``left_bots_stopped``)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from left_running import MESSAGE

HERE = Path(__file__).resolve().parent


def test_a_failing_test_leaves_no_bot_running() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}  # no -n, no -x
    try:
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:warnings",
             str(HERE / "left_running.py")],
            cwd=HERE.parent.parent, env=env, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired as exc:  # a thread of the bot's kept the run from ending
        pytest.fail(f"the run never ended:\n{exc.output!r}")
    out = run.stdout + run.stderr
    assert re.search(r"\b1 failed, 1 passed in ", out), out  # no error in a teardown either
    assert f"AssertionError: {MESSAGE}" in out, out  # it failed where it meant to
