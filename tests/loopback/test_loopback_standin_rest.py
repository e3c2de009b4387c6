"""The stand-in's REST side, driven by a hand-written minimal client (no discord.py, no bot):
Discord's message limits and API schema, attachments, injected rate limits, the control API
that drives users, guild commands; and the autouse check that fails a test leaving a breach."""
from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from minibot import GOBLIN, MiniBot, connected, consumed, rules
from shared_files import require_discord_api

from loopback import Loopback, LoopbackError, ManualClock
from loopback.limits import message_errors
from loopback.messages import NONCE_WINDOW
from loopback.slash import name_errors, name_ok
from loopback.state import REPLACED_FILE_SECONDS

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n" + b"\x01" * 40


@pytest.mark.parametrize("body, problem", [
    ({"content": "x" * 2001}, "content of 2001"),
    ({"components": [{"type": 1, "components": [
        {"type": 2, "style": 1, "label": "b", "custom_id": f"c{i}"}]} for i in range(6)]},
     "6 action rows"),
    ({"components": [{"type": 1, "components": [
        {"type": 2, "style": 1, "label": "b", "custom_id": f"c{i}"} for i in range(6)]}]},
     "6 buttons"),
    ({"components": [{"type": 1, "components": [
        {"type": 2, "style": 1, "label": "b" * 81, "custom_id": "c"}]}]}, "label of 81"),
    ({"components": [{"type": 1, "components": [
        {"type": 2, "style": 1, "label": "b", "custom_id": "c" * 101}]}]}, "custom_id of 101"),
    ({"components": [{"type": 1, "components": [{"type": 3, "custom_id": "s", "options": [
        {"label": str(i), "value": str(i)} for i in range(26)]}]}]}, "26 options"),
    ({"components": [{"type": 1, "components": [
        {"type": 2, "style": 1, "label": "b", "custom_id": "same"},
        {"type": 2, "style": 1, "label": "c", "custom_id": "same"}]}]}, "used twice"),
    ({"embeds": [{"description": "d" * 4097}]}, "description of 4097"),
])
def test_limits_catch_what_discord_refuses(body: dict[str, Any], problem: str) -> None:
    problems = [text for _, text in message_errors(body)]
    assert any(problem in p for p in problems), problems


async def test_limits_and_unsupported_routes_are_breaches(lb: Loopback, mini: MiniBot) -> None:
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    await connected(lb, mini)
    twice = {"components": [{"type": 1, "components": [
        {"type": 2, "style": 1, "label": "b", "custom_id": "same"} for i in range(2)]}]}
    status, out, _ = await mini.rest("POST", f"/channels/{channel.id}/messages", twice)
    assert status == 400 and out["code"] == 50035
    assert (await mini.rest("POST", f"/channels/{channel.id}/messages", {}))[0] == 400
    status, _, _ = await mini.rest("POST", f"/channels/{channel.id}/messages",
                                   {"embeds": [{"image": {"url": "attachment://gone.png"}}]})
    assert (await mini.rest("GET", "/guilds/1/bans"))[0] == 404
    assert consumed(lb) == ["limits", "empty", "attachment", "unsupported"]


async def test_a_body_breaking_the_api_schema_is_a_breach(lb: Loopback, mini: MiniBot) -> None:
    require_discord_api("that the stand-in refuses a body breaking Discord's API schema")
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    await connected(lb, mini)
    status, out, _ = await mini.rest("POST", f"/channels/{channel.id}/messages",
                                     {"content": 12})
    assert status == 400 and out["code"] == 50035
    assert consumed(lb) == ["schema"]


async def test_attachments_are_stored_served_and_replaced(lb: Loopback, mini: MiniBot,
                                                            clock: ManualClock) -> None:
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    ann = lb.create_user("Ann")
    await connected(lb, mini)
    body = {"content": "table", "attachments": [{"id": "0", "filename": "table.png"}],
            "embeds": [{"image": {"url": "attachment://table.png"}}]}
    status, msg, _ = await mini.rest("POST", f"/channels/{channel.id}/messages", body,
                                     files={"table.png": PNG})
    assert status == 200
    url = msg["attachments"][0]["url"]
    assert msg["embeds"][0]["image"]["url"] == url
    async with aiohttp.ClientSession() as http, http.get(url) as resp:
        assert resp.status == 200 and await resp.read() == PNG
    new = PNG + b"2"
    status, msg2, _ = await mini.rest(
        "PATCH", f"/channels/{channel.id}/messages/{msg['id']}",
        {"attachments": [{"id": "0", "filename": "table.png"}]}, files={"table.png": new})
    assert status == 200 and len(msg2["attachments"]) == 1
    async with aiohttp.ClientSession() as http:
        async with http.get(url) as resp:
            assert resp.status == 200  # a client still loading the old picture gets it
        clock.advance(REPLACED_FILE_SECONDS)
        async with http.get(url) as resp:
            assert resp.status == 404  # then the replaced file is gone
        async with http.get(msg2["attachments"][0]["url"]) as resp:
            assert await resp.read() == new
        aid = msg2["attachments"][0]["id"]
        async with http.get(f"{lb.base_url}/_loopback/attachments/{aid}",
                            params={"user": str(ann.id)}) as resp:
            assert await resp.read() == new
    assert lb.breaches == []


async def test_injected_429_and_early_retry(lb: Loopback, mini: MiniBot,
                                            clock: ManualClock) -> None:
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    await connected(lb, mini)
    rule = lb.inject_429(r"/channels/\d+/messages$", method="POST", retry_after=0.2)
    path = f"/channels/{channel.id}/messages"
    status, out, headers = await mini.rest("POST", path, {"content": "a"})
    assert status == 429 and out["retry_after"] == 0.2 and out["global"] is False
    assert headers["X-RateLimit-Remaining"] == "0" and headers["Via"]
    assert float(headers["X-RateLimit-Reset-After"]) == 0.2 and rule.hits == [f"POST {path}"]
    assert (await mini.rest("POST", path, {"content": "b"}))[0] == 200  # too soon
    assert rules(lb) == ["retry"]
    lb.inject_429(r"/channels/\d+/messages$", retry_after=0.05)
    assert (await mini.rest("POST", path, {"content": "c"}))[0] == 429
    clock.advance(0.1)  # past the 429's retry_after
    assert (await mini.rest("POST", path, {"content": "d"}))[0] == 200
    assert consumed(lb) == ["retry"]


async def test_a_post_with_a_nonce_enforced_is_made_once_in_a_few_minutes(
        lb: Loopback, mini: MiniBot, clock: ManualClock) -> None:
    """As on Discord, a post carrying a nonce with ``enforce_nonce`` is not made again within
    a few minutes: the message made the first time is returned (a post tried again after its
    answer was lost); without ``enforce_nonce``, or once the window passed, it is made."""
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    await connected(lb, mini)
    path = f"/channels/{channel.id}/messages"
    once = {"content": "a", "nonce": "t1v2", "enforce_nonce": True}
    status, first, _ = await mini.rest("POST", path, once)
    assert status == 200
    clock.advance(NONCE_WINDOW - 1)
    status, again, _ = await mini.rest("POST", path, once)
    assert status == 200 and again["id"] == first["id"]
    assert [m.id for m in lb.messages_for(channel, 0)] == [int(first["id"])]
    status, loose, _ = await mini.rest("POST", path, {"content": "a", "nonce": "t1v2"})
    assert status == 200 and loose["id"] != first["id"]
    clock.advance(1)
    status, late, _ = await mini.rest("POST", path, once)
    assert status == 200 and late["id"] not in (first["id"], loose["id"])
    assert lb.breaches == []


async def test_control_api_drives_users(lb: Loopback, mini: MiniBot) -> None:
    await connected(lb, mini)
    base = lb.base_url + "/_loopback"
    async with aiohttp.ClientSession() as http:
        async def call(method: str, path: str, body: Any = None,
                       params: dict[str, str] | None = None) -> tuple[int, Any]:
            async with http.request(method, base + path, json=body, params=params) as resp:
                return resp.status, await resp.json()

        _, guild = await call("POST", "/guilds", {"name": "Club"})
        _, channel = await call("POST", "/channels", {"guild_id": guild["id"], "name": "g"})
        _, ann = await call("POST", "/users", {"name": "Ann", "locale": "fr"})
        _, bob = await call("POST", "/users", {"name": "Bob"})
        _, commands = await call("GET", "/commands", params={"guild_id": guild["id"]})
        assert commands["commands"][0]["name"] == "goblin"

        async def bot_side() -> None:
            data = await mini.interaction()
            await mini.respond(data, {"type": 4, "data": {"content": "secret", "flags": 64,
                                                          "components": [{"type": 1, "components": [
                                                              {"type": 2, "style": 1, "label": "Go",
                                                               "custom_id": "go"}]}]}})

        task = asyncio.get_running_loop().create_task(bot_side())
        status, ix = await call("POST", "/command", {"user": ann["id"], "channel": channel["id"],
                                                     "command": "goblin new", "wait": "done"})
        await task
        assert status == 200 and ix["status"] == "done" and ix["first_response_ms"] is not None
        _, seen = await call("GET", f"/channels/{channel['id']}/messages",
                             params={"user": ann["id"]})
        assert [m["content"] for m in seen["messages"]] == ["secret"]
        assert seen["messages"][0]["loopback"]["ephemeral_for"] == ann["id"]
        _, unseen = await call("GET", f"/channels/{channel['id']}/messages",
                               params={"user": bob["id"]})
        assert unseen["messages"] == []
        status, err = await call("POST", "/click", {"user": bob["id"],
                                                    "message": seen["messages"][0]["id"],
                                                    "custom_id": "go"})
        assert status == 400 and "cannot see" in err["error"]
        _, waited = await call("GET", "/wait", params={"after": "0", "timeout": "1"})
        assert waited["version"] > 0
        _, report = await call("GET", "/breaches")
        assert report == {"breaches": [], "orphaned": []}


async def test_guild_commands_come_first(lb: Loopback, mini: MiniBot) -> None:
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    ann = lb.create_user("Ann")
    await connected(lb, mini)
    local = dict(GOBLIN, description="guild copy")
    path = f"/applications/{lb.application_id}/guilds/{guild.id}/commands"
    status, stored, _ = await mini.rest("PUT", path, [local])
    assert status == 200 and stored[0]["guild_id"] == str(guild.id)
    assert (await mini.rest("PUT", f"/applications/{lb.application_id}/guilds/1/commands",
                            [local]))[0] == 404
    again = (await mini.rest("PUT", path, [local]))[1]
    assert again[0]["id"] == stored[0]["id"]  # same name: the id is kept
    ix = await lb.command(ann, channel, "goblin new")
    data = await mini.interaction()
    assert data["data"]["id"] == stored[0]["id"] and data["data"]["guild_id"] == str(guild.id)
    await mini.respond(data, {"type": 4, "data": {"content": "ok"}})
    await ix.done()
    # /goblin settings is hidden from members when it asks for Manage Server
    admin_only = dict(GOBLIN, default_member_permissions=1 << 5)
    await mini.rest("PUT", path, [admin_only])
    with pytest.raises(LoopbackError, match="hidden"):
        await lb.command(ann, channel, "goblin settings")
    boss = lb.create_user("Boss", admin=True)
    ix = await lb.command(boss, channel, "goblin settings")
    await mini.interaction()
    assert lb.breaches == []


def test_a_leftover_breach_fails_the_test(tmp_path: Path) -> None:
    """The autouse check of conftest.py really fails a test that forgets a breach (and only
    that test), run in a pytest of its own."""
    (tmp_path / "conftest.py").write_text(
        (Path(__file__).with_name("conftest.py")).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "test_forgetful.py").write_text(
        "from loopback import Loopback\n\n"
        "async def test_forgets(lb: Loopback) -> None:\n"
        "    lb.breach('late', 'answered after 3 s')\n\n"
        "async def test_clears(lb: Loopback) -> None:\n"
        "    lb.breach('late', 'answered after 3 s')\n"
        "    lb.breaches.clear()\n\n"
        "def test_without_a_stand_in() -> None:\n"
        "    pass\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o", "asyncio_mode=auto",
         "-o", "asyncio_default_fixture_loop_scope=function", "-rA", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(ROOT), str(ROOT / "tests"), str(Path(__file__).parent)])))
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "ERROR test_forgetful.py::test_forgets" in out, out
    assert "Discord rules broken" in out and "answered after 3 s" in out, out
    assert "PASSED test_forgetful.py::test_clears" in out, out
    assert "PASSED test_forgetful.py::test_without_a_stand_in" in out, out


@pytest.mark.parametrize(("name", "ok"), [
    ("numéro", True), ("vzít_zpět", True), ("přehrát", True), ("niveau_ia", True),
    ("ok-1", True), ("नमस्ते", True), ("สวัสดี", True), ("Numéro", False), ("two words", False),
    ("x" * 33, False), ("", False), ("🎲", False), ("a.b", False)])
def test_command_names_follow_discord_s_rule(name: str, ok: bool) -> None:
    assert name_ok(name) is ok


async def test_a_command_with_a_name_discord_refuses_is_not_registered(
        lb: Loopback, mini: MiniBot) -> None:
    """Names with accents register as Discord takes them; a capital or a space is refused (400
    50035) in a localised name or an option's, and the commands stay as they were."""
    await connected(lb, mini)
    path = f"/applications/{lb.application_id}/commands"
    def replay(table_option: dict[str, Any]) -> dict[str, Any]:
        return dict(GOBLIN, name_localizations={"cs": "goblin"}, options=[
            {"name": "replay", "description": "Replay", "type": 1,
             "name_localizations": {"fr": "revoir", "cs": "přehrát"},
             "options": [table_option]}])

    table = {"name": "id", "description": "Table", "type": 4}
    accented = replay(dict(table, name_localizations={"fr": "numéro", "cs": "číslo"}))
    status, stored, _ = await mini.rest("PUT", path, [accented])
    assert status == 200 and stored[0]["options"][0]["name_localizations"]["cs"] == "přehrát"
    capital = replay(dict(table, name_localizations={"fr": "Numéro"}))
    for bad in (capital, dict(GOBLIN, name_localizations={"fr": "un gobelin"})):
        status, out, _ = await mini.rest("PUT", path, [bad])
        assert status == 400 and out["code"] == 50035, out
    assert "options.0.options.0.name_localizations.fr" in name_errors(capital)
    assert (await mini.rest("GET", path))[1] == stored
    lb.breaches.clear()
