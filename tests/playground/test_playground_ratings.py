"""The playground offers ``/goblin stats`` (another player named as one types them) and
``/goblin leaderboard``, answered privately without a breach of Discord's rules."""
from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from playground.app import CHANNEL_ID, PEOPLE
from playground.drive import PlaygroundProcess


def _post(url: str, body: dict[str, Any]) -> Any:
    req = urllib.request.Request(url, json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.loads(r.read())


def test_stats_and_the_leaderboard_in_the_playground(tmp_path: Path) -> None:
    ann, other = str(PEOPLE[0][0]), PEOPLE[1][1]
    with PlaygroundProcess(tmp_path / "pg.sqlite3", ai_pace=0.05) as proc:
        for command, options in (("goblin stats", {}), ("goblin stats", {"player": other}),
                                 ("goblin leaderboard", {})):
            ix = _post(proc.url + "_loopback/command", {
                "user": ann, "channel": str(CHANNEL_ID), "command": command,
                "options": options, "wait": "done"})
            assert ix["status"] == "done", (ix, proc.lines[-20:])
        texts = json.dumps(_get(f"{proc.url}_loopback/channels/{CHANNEL_ID}/messages"
                                f"?user={ann}")["messages"])
        assert f"{other}'s record" in texts and "Leaderboard of this server" in texts
        assert _get(proc.url + "_loopback/breaches") == {"breaches": [], "orphaned": []}
