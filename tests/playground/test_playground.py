"""Starting the playground, without a browser: ``python -m bot`` and ``scripts/dev.py run``
without a token, the playground's settings, a match that outlives a restart of the playground,
and installing headless Chromium when it is missing. The page and its server are in
``test_playground_page.py``."""

from __future__ import annotations

import importlib.util
import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

import playground.app
from bot.process.settings import ConfigProblem
from loopback.components import interactive
from playground.app import CHANNEL_ID, DEFAULT_DB, GUILD_ID, PEOPLE, prepare
from playground.drive import PlaygroundProcess

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz012345"
_DEV = importlib.util.spec_from_file_location(
    "dev", Path(__file__).resolve().parents[2] / "scripts" / "dev.py")
assert _DEV is not None and _DEV.loader is not None
dev = importlib.util.module_from_spec(_DEV)
_DEV.loader.exec_module(dev)  # the launcher of ``scripts/dev.py run``


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No bot setting from the machine running the tests; an empty .env; work in tmp_path."""
    import os

    for name in list(os.environ):
        if name.startswith("KARAK_") or name == "DISCORD_TOKEN":
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    env = tmp_path / ".env"
    env.write_text("# nothing\n")
    return env


# ---------------------------------------------------------------------- scripts/dev.py run


def test_no_token_opens_the_playground(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Path | None] = []

    def fake(env_file: Path | None = None) -> int:
        seen.append(env_file)
        return 0

    monkeypatch.setattr(playground.app, "main", fake)
    assert dev.launch(["--env-file", str(clean_env)]) == 0
    assert seen == [clean_env]
    # an empty value (a .env copied from the example) is no token either
    clean_env.write_text("DISCORD_TOKEN=\n")
    assert dev.launch(["--env-file", str(clean_env)]) == 0
    assert len(seen) == 2


@pytest.mark.parametrize(("args", "env", "needle"), [
    ([], {"DISCORD_TOKEN": "not-a-token"}, "malformed"),
    (["--check"], {}, "DISCORD_TOKEN"),
    ([], {"DISCORD_TOKEN": TOKEN, "KARAK_TURN_TIMER": "soon"}, "KARAK_TURN_TIMER"),
])
def test_other_problems_still_stop_with_one_line(
        clean_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        args: list[str], env: dict[str, str], needle: str) -> None:
    def never(env_file: Path | None = None) -> int:
        raise AssertionError("the playground must not start")

    monkeypatch.setattr(playground.app, "main", never)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert dev.launch([*args, "--env-file", str(clean_env)]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and "\n" not in err and TOKEN not in err


def test_python_m_bot_never_opens_the_playground(
        clean_env: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The Docker image runs ``python -m bot`` and ships without playground/ and loopback/:
    without a token it stops with one line; only the launcher picks the playground."""
    from bot.process.app import main

    def never(env_file: Path | None = None) -> int:
        raise AssertionError("the playground must not start")

    monkeypatch.setattr(playground.app, "main", never)
    assert main(["--env-file", str(clean_env)]) == 2
    assert "No DISCORD_TOKEN" in capsys.readouterr().err


# ---------------------------------------------------------------------- settings


def test_settings_defaults_and_overrides(tmp_path: Path) -> None:
    options, settings = prepare({"LANG": "fr_FR.UTF-8"}, env_file=None)
    assert options.port == 8080 and options.host == "127.0.0.1" and options.db == DEFAULT_DB
    assert options.locale == "fr"
    assert settings.db == str(DEFAULT_DB) and settings.log_level == "WARNING"
    assert settings.dev_guild is None
    db = tmp_path / "p.sqlite3"
    options, settings = prepare({
        "KARAK_PLAYGROUND_DB": str(db), "KARAK_PLAYGROUND_PORT": "0",
        "KARAK_PLAYGROUND_LOCALE": "cs", "LANG": "fr_FR.UTF-8",
        # the Discord bot's own database, server and address never leak into the playground
        "KARAK_DB": str(tmp_path / "real.sqlite3"), "KARAK_DEV_GUILD": "123",
        "KARAK_API_BASE": "https://discord.com/api/v10", "DISCORD_TOKEN": "",
        "KARAK_TURN_TIMER": "300", "KARAK_AI_PACE": "0.5", "KARAK_LOG_LEVEL": "debug"},
        env_file=None)
    assert options.port == 0 and options.locale == "cs" and options.db == db
    assert settings.db == str(db) and settings.dev_guild is None
    assert settings.turn_timer == 300 and settings.ai_pace == 0.5 and settings.log_level == "DEBUG"
    assert settings.api_base != "https://discord.com/api/v10"


def test_an_empty_log_level_is_the_playgrounds_default(tmp_path: Path) -> None:
    """An empty value counts as unset, as everywhere in the settings: ``KARAK_LOG_LEVEL=`` in
    ``.env`` (or the environment) leaves the playground at its quieter ``WARNING``."""
    env = tmp_path / ".env"
    env.write_text("KARAK_LOG_LEVEL=\n", encoding="utf-8")
    assert prepare({}, env_file=env)[1].log_level == "WARNING"
    assert prepare({"KARAK_LOG_LEVEL": " "}, env_file=None)[1].log_level == "WARNING"


@pytest.mark.parametrize(("env", "needle"), [
    ({"KARAK_PLAYGROUND_PORT": "eighty"}, "KARAK_PLAYGROUND_PORT"),
    ({"KARAK_PLAYGROUND_PORT": "70000"}, "KARAK_PLAYGROUND_PORT"),
    ({"KARAK_PLAYGROUND_LOCALE": "de"}, "KARAK_PLAYGROUND_LOCALE"),
    ({"KARAK_PLAYGROUND_DB": "/nonexistent-dir/p.sqlite3"}, "KARAK_PLAYGROUND_DB"),
    ({"KARAK_AI_PACE": "fast"}, "KARAK_AI_PACE"),
])
def test_bad_settings_are_one_line(env: dict[str, str], needle: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ConfigProblem) as info:
        prepare(env, env_file=None)
    assert needle in str(info.value) and "\n" not in str(info.value)
    assert playground.app.main(env_file=None, environ=env) == 2
    assert needle in capsys.readouterr().err


# ---------------------------------------------------------------------- the real thing


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def _post(url: str, body: dict[str, Any]) -> Any:
    req = urllib.request.Request(url, json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def _messages(url: str, user: str, channel: int | str = CHANNEL_ID) -> list[dict[str, Any]]:
    data = _get(f"{url}_loopback/channels/{channel}/messages?user={user}")
    return list(data["messages"])


def _everywhere(url: str, user: str) -> list[dict[str, Any]]:
    """The messages of the channel and of its threads (a match is played in one of its own)."""
    threads = _get(f"{url}_loopback/channels/{CHANNEL_ID}/threads")["threads"]
    return [m for place in (CHANNEL_ID, *(t["id"] for t in threads))
            for m in _messages(url, user, place)]


class _Logged(PlaygroundProcess):
    """The playground with the bot's log at INFO, which says when the bot is ready."""

    def env(self) -> dict[str, str]:
        """The playground's environment, and the log level."""
        return {**super().env(), "KARAK_LOG_LEVEL": "INFO"}


def test_python_m_bot_without_token_serves_a_table_that_outlives_a_restart(
        tmp_path: Path) -> None:
    """What a newcomer runs: the line with the address, the bot's commands on the stand-in, a
    table, Ctrl-C, and the same table again after a restart (fixed ids, same database; the
    match's thread made again with its id)."""
    db = tmp_path / "pg.sqlite3"
    ann = str(PEOPLE[0][0])
    with _Logged(db, ai_pace=0.05) as proc:
        assert len([line for line in proc.lines if proc.url in line]) == 1
        # the address is given once the bot is ready, not only connected: a Start clicked at
        # once opens its thread at once
        assert any("connected as" in line for line in proc.lines), proc.lines
        names = [c["name"] for c in _get(proc.url + "_loopback/commands?guild_id="
                                         + str(GUILD_ID))["commands"]]
        assert names == ["goblin"]
        ix = _post(proc.url + "_loopback/command", {
            "user": ann, "channel": str(CHANNEL_ID), "command": "goblin new", "wait": "done"})
        assert ix["status"] == "done"
        lobby = _messages(proc.url, ann)[-1]
        for op in ("ai", "start"):
            buttons = [c["custom_id"] for c in interactive(lobby["components"])]
            cid = next(b for b in buttons if b.split(":")[3:4] == [op])
            done = _post(proc.url + "_loopback/click", {
                "user": ann, "message": lobby["id"], "custom_id": cid, "wait": "done"})
            assert done["status"] == "done", (done, proc.lines[-20:],
                                              _get(proc.url + "_loopback/breaches"))
            lobby = _messages(proc.url, ann)[-1] if op == "ai" else lobby
        assert _get(proc.url + "_loopback/breaches") == {"breaches": [], "orphaned": []}
    assert proc.proc is not None and proc.proc.returncode == 0
    with PlaygroundProcess(db, ai_pace=0.05) as again:
        # wait on the stand-in's change feed (no fixed sleep): a busy machine resumes later
        version, found = 0, False
        deadline = time.monotonic() + again.timeout
        while not found and time.monotonic() < deadline:
            msgs = _everywhere(again.url, ann)
            found = any(c.get("custom_id") == "kg:hand:1" for m in msgs
                        for c in interactive(m["components"]))
            if not found:
                version = _get(f"{again.url}_loopback/wait?after={version}&timeout=5")["version"]
        assert found, "the running table was not shown again after the restart"


# ---------------------------------------------------------------------- installing the browser


def test_missing_browser_is_installed_or_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import shutil

    from playground import browser

    calls: list[list[str]] = []
    sudo_works = False

    def fake_run(cmd: list[str], timeout: float) -> tuple[bool, str]:
        calls.append(cmd)
        if cmd[-2:] == ["-n", "true"]:
            return sudo_works, "" if sudo_works else "sudo: a password is required"
        return False, "E: Unable to locate package chromium"

    monkeypatch.setattr(browser, "_run", fake_run)
    monkeypatch.setattr(browser, "chromium_path", lambda: None)
    # not root, no sudo
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setattr(shutil, "which",
                        lambda name: None if name == "sudo" else "/usr/bin/" + name)
    with pytest.raises(browser.BrowserUnavailable, match="apt-get cannot be run as root"):
        browser.install_chromium()
    assert calls == []
    # not root, sudo asks for a password: given up after one try of ``sudo -n``
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/" + name)
    with pytest.raises(browser.BrowserUnavailable, match="neither directly nor with sudo -n"):
        browser.install_chromium()
    assert calls == [["/usr/bin/sudo", "-n", "true"]]
    # not root, sudo without a password: apt-get through ``sudo -n``
    calls.clear()
    sudo_works = True
    with pytest.raises(browser.BrowserUnavailable, match="Unable to locate package"):
        browser.install_chromium()
    assert [c[:4] for c in calls[1:]] == [["/usr/bin/sudo", "-n", "apt-get", "install"],
                                          ["/usr/bin/sudo", "-n", "apt-get", "update"],
                                          ["/usr/bin/sudo", "-n", "apt-get", "install"]]
    # root: apt-get itself
    calls.clear()
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    with pytest.raises(browser.BrowserUnavailable, match="Unable to locate package"):
        browser.install_chromium()
    assert [c[:2] for c in calls] == [["apt-get", "install"], ["apt-get", "update"],
                                      ["apt-get", "install"]]
    calls.clear()
    monkeypatch.setattr(browser, "playwright_installed", lambda: False)
    with pytest.raises(browser.BrowserUnavailable, match="pip install playwright failed"):
        browser.install_playwright()
    assert calls and calls[0][-1] == browser.playwright_requirement()
    assert browser.playwright_requirement().startswith("playwright>=")


@pytest.mark.parametrize(("value", "ci"), [(None, False), ("", False), ("0", False),
                                           ("false", False), ("No", False), ("true", True),
                                           ("1", True), ("yes", True)])
def test_ci_is_told_by_the_environment(monkeypatch: pytest.MonkeyPatch, value: str | None,
                                       ci: bool) -> None:
    from playground import browser

    if value is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", value)
    assert browser.in_ci() is ci
