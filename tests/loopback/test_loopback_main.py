"""``python -m loopback`` run as a person runs it: without Discord's OpenAPI description beside
the project it says so in one line and serves anyway, without validating request bodies (here
recommending two shards to the bot)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_missing_api_description_is_said_in_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "openapi.json"
    env = {**os.environ, "KARAK_DISCORD_OPENAPI": str(missing), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "loopback", "--port", "0", "--users", "Ann",
                             "--shards", "2"],
                            cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        shown = []
        for line in proc.stdout:  # the bot's environment, then the stand-in's JSON line
            shown.append(line)
            if line.startswith("{"):
                break
        assert shown and json.loads(shown[-1])["users"].keys() == {"Ann"}, shown
        assert json.loads(shown[-1])["shards"] == 2
        assert any(line.startswith("KARAK_API_BASE=http://") for line in shown), shown
        assert proc.poll() is None  # serving
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "request validation is off" in lines[0] and str(missing) in lines[0]
