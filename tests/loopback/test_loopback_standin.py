"""The stand-in's gateway and interactions, driven by a hand-written minimal client (no
discord.py, no bot): logging in, resuming, answering commands, clicks and autocomplete, and the
deadlines and tokens of an interaction."""
from __future__ import annotations

import asyncio

import pytest
from minibot import MiniBot, connected, consumed, rules

from loopback import Loopback, LoopbackError, ManualClock


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
