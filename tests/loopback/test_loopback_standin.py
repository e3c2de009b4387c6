"""The stand-in itself, driven by a hand-written minimal client (no discord.py, no bot)."""
from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from minibot import GOBLIN, MiniBot
from shared_files import require_discord_api

from loopback import Loopback, LoopbackError, ManualClock
from loopback.limits import message_problems
from loopback.state import REPLACED_FILE_SECONDS

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n" + b"\x01" * 40


@pytest.fixture
async def mini(lb: Loopback) -> AsyncIterator[MiniBot]:
    bot = MiniBot(lb)
    yield bot
    await bot.close()


async def connected(lb: Loopback, mini: MiniBot, compress: str | None = "zlib-stream") -> None:
    await mini.connect(compress)
    await mini.next_op(0, "READY")
    await mini.register([GOBLIN])


def rules(lb: Loopback) -> list[str]:
    return [b.rule for b in lb.breaches]


def consumed(lb: Loopback) -> list[str]:
    """The rules broken so far, cleared: breaches a test provoked on purpose and checked (the
    autouse ``no_leftover_breaches`` fails a test that leaves any)."""
    found = rules(lb)
    lb.breaches.clear()
    return found


@pytest.mark.parametrize("compress", ["zlib-stream", None])
async def test_login_ready_guilds_heartbeat(lb: Loopback, mini: MiniBot,
                                            compress: str | None) -> None:
    guild = lb.create_guild("Club", locale="fr")
    lb.create_channel(guild, "goblin")
    status, me, _ = await mini.rest("GET", "/users/@me")
    assert status == 200 and me["id"] == str(lb.application_id) and me["bot"] is True
    assert (await mini.rest("GET", "/users/@me", auth=False))[0] == 401
    status, app, _ = await mini.rest("GET", "/oauth2/applications/@me")
    assert status == 200 and app["id"] == str(lb.application_id)
    status, gw, _ = await mini.rest("GET", "/gateway/bot")
    assert gw["url"] == lb.gateway_url
    hello = await mini.connect(compress)
    assert hello["d"]["heartbeat_interval"] > 0
    ready = await mini.next_op(0, "READY")
    assert ready["d"]["guilds"] == [{"id": str(guild.id), "unavailable": True}]
    assert ready["d"]["resume_gateway_url"] == lb.gateway_url
    created = await mini.next_op(0, "GUILD_CREATE")
    assert created["d"]["preferred_locale"] == "fr"
    assert created["d"]["channels"][0]["name"] == "goblin"
    await mini.send({"op": 1, "d": mini.seq})
    await mini.next_op(11)
    assert lb.gateway.connected()


async def test_wrong_token_is_refused(lb: Loopback) -> None:
    bad = MiniBot(lb, token="AAAAAAAAAAAAAAAAAAAAAAAA.BBBBBB.CCCCCCCCCCCCCCCCCCCCCCCCC")
    try:
        assert (await bad.rest("GET", "/users/@me"))[0] == 401
        await bad.connect()
        closed = await bad.next_op(-1)
        assert closed["closed"] == 4004
    finally:
        await bad.close()


async def test_resume_replays_missed_events(lb: Loopback, mini: MiniBot) -> None:
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    ann = lb.create_user("Ann")
    await connected(lb, mini)
    session, seq = mini.session_id, mini.seq
    await mini.drop()
    await lb.changed(lb.version, 0.5)
    assert not lb.gateway.connected()
    ix = await lb.command(ann, channel, "goblin new")  # sent while the bot is away
    assert ix.failed is None
    await mini.connect(identify=False)
    await mini.send({"op": 6, "d": {"token": mini.token, "session_id": session, "seq": seq}})
    data = await mini.interaction()
    assert data["id"] == str(ix.id)
    await mini.next_op(0, "RESUMED")
    status, _ = await mini.respond(data, {"type": 4, "data": {"content": "hello"}})
    assert status == 200 and ix.status() == "done"
    # an unknown session cannot resume: op 9, not resumable
    other = MiniBot(lb)
    try:
        await other.connect(identify=False)
        await other.send({"op": 6, "d": {"token": mini.token, "session_id": "nope", "seq": 1}})
        assert (await other.next_op(9))["d"] is False
    finally:
        await other.close()
    assert lb.breaches == []


async def test_command_ephemeral_followup_edit_delete(lb: Loopback, mini: MiniBot) -> None:
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    ann, bob = lb.create_user("Ann", locale="cs"), lb.create_user("Bob")
    await connected(lb, mini)
    ix = await lb.command(ann, channel, "goblin new", abilities=True, timer=60)
    assert lb.unfinished() == 1
    data = await mini.interaction()
    assert data["locale"] == "cs" and data["member"]["user"]["id"] == str(ann.id)
    sub = data["data"]["options"][0]
    assert sub["name"] == "new" and {o["name"]: o["value"] for o in sub["options"]} == {
        "abilities": True, "timer": 60}
    status, out = await mini.respond(data, {"type": 5, "data": {"flags": 64}})
    assert status == 200 and out["interaction"]["response_message_loading"] is True
    await ix.answered()
    assert ix.status() == "deferred" and lb.unfinished() == 1
    placeholder = lb.messages_for(channel, ann)[-1]
    assert placeholder.loading and lb.messages_for(channel, bob) == []
    status, msg, _ = await mini.rest("PATCH", mini.hook(data, "/messages/@original"),
                                     {"content": "only for Ann"}, auth=False)
    assert status == 200 and msg["content"] == "only for Ann"
    await ix.done()
    assert lb.unfinished() == 0
    status, follow, _ = await mini.rest("POST", mini.hook(data), {"content": "public"},
                                        auth=False, params={"wait": "true"})
    assert status == 200
    assert [m.content for m in lb.messages_for(channel, bob)] == ["public"]
    assert [m.content for m in lb.messages_for(channel, ann)] == ["only for Ann", "public"]
    status, _, _ = await mini.rest("DELETE", mini.hook(data, f"/messages/{follow['id']}"),
                                   auth=False)
    assert status == 204 and lb.messages_for(channel, bob) == []
    assert lb.breaches == []


async def test_components_clicks_and_what_users_may_do(lb: Loopback, mini: MiniBot) -> None:
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    ann, bob = lb.create_user("Ann"), lb.create_user("Bob")
    await connected(lb, mini)
    ix = await lb.command(ann, channel, "goblin new")
    data = await mini.interaction()
    rows = [{"type": 1, "components": [{"type": 3, "custom_id": "kg:hero:1", "options": [
        {"label": "Horan", "value": "horan"}, {"label": "Taia", "value": "taia"}]}]},
        {"type": 1, "components": [
            {"type": 2, "style": 1, "label": "Join", "custom_id": "kg:lobby:1:join"},
            {"type": 2, "style": 2, "label": "Off", "custom_id": "kg:off", "disabled": True}]}]
    await mini.respond(data, {"type": 4, "data": {"content": "lobby", "components": rows}})
    lobby = lb.messages_for(channel, bob)[-1]
    click = await lb.click(bob, lobby, "kg:lobby:1:join")
    cdata = await mini.interaction()
    assert cdata["data"] == {"custom_id": "kg:lobby:1:join", "component_type": 2}
    assert cdata["message"]["id"] == str(lobby.id)
    await mini.respond(cdata, {"type": 6})
    await click.answered()
    await mini.rest("PATCH", mini.hook(cdata, "/messages/@original"), {"content": "lobby 2"},
                    auth=False)
    await click.done()
    assert lb.message(lobby.id).content == "lobby 2"
    pick = await lb.select(ann, lobby, "kg:hero:1", ["taia"])
    pdata = await mini.interaction()
    assert pdata["data"]["values"] == ["taia"]
    await mini.respond(pdata, {"type": 7, "data": {"content": "Taia"}})
    await pick.done()
    with pytest.raises(LoopbackError):
        await lb.select(ann, lobby, "kg:hero:1", ["argentus"])  # not an option
    with pytest.raises(LoopbackError):
        await lb.click(ann, lobby, "kg:off")  # disabled
    with pytest.raises(LoopbackError):
        await lb.click(ann, lobby, "kg:nothing")  # no such button
    with pytest.raises(LoopbackError):
        await lb.command(ann, channel, "goblin new", timer=7)  # not a choice
    with pytest.raises(LoopbackError):
        await lb.command(ann, channel, "goblin card")  # required option missing
    with pytest.raises(LoopbackError):
        await lb.command(ann, channel, "chess")
    with pytest.raises(LoopbackError):  # Discord's servers refuse it, even from a bad client
        await lb.click(ann, lobby, "kg:nothing", forge=True)
    forged = await lb.click(ann, lobby, "kg:off", forge=True)  # a modified client
    fdata = await mini.interaction()
    assert fdata["data"]["custom_id"] == "kg:off"
    await mini.respond(fdata, {"type": 4, "data": {"content": "no", "flags": 64}})
    await forged.done()
    old = lb.plant_message(channel, [{"type": 1, "components": [
        {"type": 2, "style": 1, "label": "?", "custom_id": "kg:zzz"}]}])
    planted = await lb.click(bob, old, "kg:zzz")
    pdata = await mini.interaction()
    assert pdata["message"]["author"]["id"] == str(lb.application_id)
    await mini.respond(pdata, {"type": 4, "data": {"content": "damaged", "flags": 64}})
    await planted.done()
    # an ephemeral message cannot be clicked by someone who cannot see it
    secret = lb.message(forged.original_id or 0)
    assert secret.owner == ann.id and lb.view(secret)["flags"] & 64
    with pytest.raises(LoopbackError):
        await lb.click(bob, secret, "x")
    assert ix.status() == "done" and lb.breaches == []


async def test_autocomplete_choices(lb: Loopback, mini: MiniBot) -> None:
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    ann = lb.create_user("Ann")
    await connected(lb, mini)

    async def answer() -> None:
        data = await mini.interaction()
        opt = data["data"]["options"][0]["options"][0]
        assert opt == {"name": "name", "type": 3, "value": "gob", "focused": True}
        await mini.respond(data, {"type": 8, "data": {"choices": [
            {"name": "Goblin", "value": "m1-01"}]}})

    task = asyncio.get_running_loop().create_task(answer())
    choices = await lb.autocomplete(ann, channel, "goblin card", "name", "gob")
    await task
    assert choices == [{"name": "Goblin", "value": "m1-01"}]


async def test_deadlines_double_responses_and_expired_tokens(
        lb: Loopback, mini: MiniBot, clock: ManualClock) -> None:
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    ann = lb.create_user("Ann")
    await connected(lb, mini)
    # too late: 404 Unknown interaction, and a breach
    ix = await lb.command(ann, channel, "goblin new")
    data = await mini.interaction()
    clock.advance(3.5)
    status, out = await mini.respond(data, {"type": 4, "data": {"content": "late"}})
    assert status == 404 and out["code"] == 10062 and rules(lb) == ["late"]
    assert ix.status() == "failed"
    # never answered: a breach once the deadline passes
    ix = await lb.command(ann, channel, "goblin new")
    await mini.interaction()
    clock.advance(3.5)
    lb.check_deadlines()
    assert rules(lb) == ["late", "late"] and ix.failed
    # answered twice
    ix = await lb.command(ann, channel, "goblin new")
    data = await mini.interaction()
    assert (await mini.respond(data, {"type": 5}))[0] == 200
    status, out = await mini.respond(data, {"type": 4, "data": {"content": "again"}})
    assert status == 400 and out["code"] == 40060 and rules(lb)[-1] == "double"
    # the token lasts 15 minutes
    assert (await mini.rest("PATCH", mini.hook(data, "/messages/@original"),
                            {"content": "fine"}, auth=False))[0] == 200
    clock.advance(15 * 60 + 1)
    status, out, _ = await mini.rest("PATCH", mini.hook(data, "/messages/@original"),
                                     {"content": "too late"}, auth=False)
    assert status == 401 and out["code"] == 50027 and rules(lb)[-1] == "expired"
    # an autocomplete answer to a button is the wrong kind of response
    ix = await lb.command(ann, channel, "goblin new")
    data = await mini.interaction()
    assert (await mini.respond(data, {"type": 8, "data": {"choices": []}}))[0] == 400
    assert consumed(lb) == ["late", "late", "double", "expired", "response-type"]


async def test_lost_connection_orphans_instead_of_breaching(
        lb: Loopback, mini: MiniBot, clock: ManualClock) -> None:
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    ann = lb.create_user("Ann")
    await connected(lb, mini)
    ix = await lb.command(ann, channel, "goblin new")
    await mini.interaction()
    await mini.drop()  # the bot died holding the interaction
    await lb.changed(lb.version, 0.5)
    clock.advance(4)
    lb.check_deadlines()
    assert lb.breaches == [] and lb.orphaned == [ix]
    with pytest.raises(Exception, match="connection"):
        await ix.answered(1)
    # with nobody connected for long, a click fails at once
    clock.advance(10)
    ix = await lb.command(ann, channel, "goblin new")
    assert ix.failed == "the bot is offline"


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
    assert any(problem in p for p in message_problems(body)), message_problems(body)


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


async def test_injected_429_and_early_retry(lb: Loopback, mini: MiniBot) -> None:
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
    await asyncio.sleep(0.1)
    assert (await mini.rest("POST", path, {"content": "d"}))[0] == 200
    assert consumed(lb) == ["retry"]


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
