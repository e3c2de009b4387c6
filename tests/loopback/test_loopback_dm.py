"""Direct messages in the stand-in, driven by a minimal client: ``POST /users/@me/channels`` (its
body validated against Discord's OpenAPI description), interactions from the bot's direct
messages (no guild, ``user`` instead of ``member``, context 1) and from a group direct message
(context 2, where the bot may answer but not post), and where a command is offered."""
from __future__ import annotations

import pytest
from minibot import GOBLIN, MiniBot
from shared_files import require_discord_api

from loopback import Loopback, LoopbackError

#: /goblin as a bot offers it everywhere, for a server install and a user install.
EVERYWHERE = dict(GOBLIN, contexts=[0, 1, 2], integration_types=[0, 1])


async def test_the_bot_opens_a_dm_channel(lb: Loopback, client: MiniBot) -> None:
    ann = lb.create_user("Ann")
    status, channel, _ = await client.rest("POST", "/users/@me/channels",
                                         {"recipient_id": str(ann.id)})
    assert status == 200 and channel["type"] == 1 and "guild_id" not in channel
    assert [u["id"] for u in channel["recipients"]] == [str(ann.id)]
    again = await client.rest("POST", "/users/@me/channels", {"recipient_id": str(ann.id)})
    assert again[1]["id"] == channel["id"]  # one DM channel per person
    status, posted, _ = await client.rest("POST", f"/channels/{channel['id']}/messages",
                                        {"content": "hello"})
    assert status == 200 and "guild_id" not in posted
    assert [m.text() for m in lb.messages_for(lb.dm(ann), ann)] == ["hello"]
    assert lb.breaches == []


async def test_a_dm_request_against_the_schema_is_refused(lb: Loopback, client: MiniBot) -> None:
    require_discord_api("that the stand-in refuses a DM request breaking Discord's API schema")
    status, out, _ = await client.rest("POST", "/users/@me/channels", {"recipient_id": []})
    assert status == 400 and out["code"] == 50035
    assert [b.rule for b in lb.breaches] == ["schema"]
    lb.breaches.clear()


async def test_an_interaction_from_a_dm_has_a_user_and_no_guild(
        lb: Loopback, client: MiniBot) -> None:
    await client.register([EVERYWHERE])
    ann = lb.create_user("Ann", locale="fr")
    dm = lb.dm(ann)
    ix = await lb.command(ann, dm, "goblin settings")
    got = await client.interaction()
    assert got["context"] == 1 and got["channel"]["type"] == 1
    assert "guild_id" not in got and "member" not in got and got["user"]["id"] == str(ann.id)
    assert got["locale"] == "fr"
    await client.respond(got, {"type": 4, "data": {"content": "only in a server", "flags": 64}})
    await ix.done()
    assert [m.text() for m in lb.messages_for(dm, ann)] == ["only in a server"]
    bob = lb.create_user("Bob")
    with pytest.raises(LoopbackError) as refused:  # nobody else is in Ann's DM
        await lb.command(bob, dm, "goblin settings")
    assert refused.value.code == "not_a_recipient"


async def test_a_group_dm_takes_answers_but_no_posts(lb: Loopback, client: MiniBot) -> None:
    ann, bob = lb.create_user("Ann"), lb.create_user("Bob")
    group = lb.create_group_dm([ann, bob])
    with pytest.raises(LoopbackError) as refused:  # a guild install's command is not there
        await lb.command(ann, group, "goblin settings")
    assert refused.value.code == "command_context"
    await client.register([EVERYWHERE])
    ix = await lb.command(bob, group, "goblin settings")
    got = await client.interaction()
    assert got["context"] == 2 and got["authorizing_integration_owners"] == {"1": str(bob.id)}
    await client.respond(got, {"type": 4, "data": {"content": "answered"}})
    await ix.done()
    status, out, _ = await client.rest("POST", f"/channels/{group.id}/messages", {"content": "x"})
    assert (status, out["code"]) == (403, 50001)
    assert [m.text() for m in lb.messages_for(group, ann)] == ["answered"]
    assert lb.breaches == []
