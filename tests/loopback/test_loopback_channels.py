"""The bot's rights in a channel and what moderators do there: interactions carry the bot's
permissions in the channel, a post lacking the ones it needs is refused as Discord refuses it
(403, code 50013; no breach: the bot did nothing wrong by trying), threads come as threads, and a
message a moderator deleted is gone for every route; interactions carry the member's permissions
in the channel and the channel's slowmode."""
from __future__ import annotations

import pytest
from minibot import MiniBot

from loopback import Loopback, LoopbackError
from loopback.model import (
    ALL_PERMISSIONS,
    ATTACH_FILES,
    MEMBER_PERMISSIONS,
    SEND_MESSAGES,
    VIEW_CHANNEL,
)

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16


async def test_posts_need_the_bots_permissions(lb: Loopback, client: MiniBot) -> None:
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    ann = lb.create_user("Ann")
    channel.bot_permissions = VIEW_CHANNEL | SEND_MESSAGES  # no Attach Files
    ix = await lb.command(ann, channel, "goblin settings")
    payload = await client.interaction()
    assert payload["app_permissions"] == str(VIEW_CHANNEL | SEND_MESSAGES)
    # answering an interaction needs no permission in the channel
    status, _ = await client.respond(payload, {"type": 4, "data": {"content": "ok",
                                                                   "flags": 64}})
    assert status == 200 and ix.status() == "done"
    where = f"/channels/{channel.id}/messages"
    status, body, _ = await client.rest("POST", where, {"content": "hello"})
    assert status == 200, body
    status, body, _ = await client.rest("POST", where, {"content": "a picture"},
                                        files={"table.png": PNG})
    assert (status, body["code"]) == (403, 50013)
    channel.bot_permissions = ATTACH_FILES | VIEW_CHANNEL  # no Send Messages
    status, body, _ = await client.rest("POST", where, {"content": "hello"})
    assert (status, body["code"]) == (403, 50013)
    channel.bot_permissions = ALL_PERMISSIONS
    assert (await client.rest("POST", where, {"content": "back"}))[0] == 200
    assert [m.content for m in lb.messages_for(channel, ann)] == ["ok", "hello", "back"]
    assert lb.breaches == []


async def test_a_thread_needs_send_messages_in_threads(lb: Loopback, client: MiniBot) -> None:
    guild = lb.create_guild()
    parent = lb.create_channel(guild)
    await client.next_op(0, "CHANNEL_CREATE")
    thread = lb.create_thread(parent, "a game")
    created = (await client.next_op(0, "THREAD_CREATE"))["d"]
    assert created["type"] == 11 and created["parent_id"] == str(parent.id)
    assert created["thread_metadata"]["archived"] is False
    thread.bot_permissions = VIEW_CHANNEL | SEND_MESSAGES  # not Send Messages in Threads
    status, body, _ = await client.rest("POST", f"/channels/{thread.id}/messages",
                                        {"content": "hello"})
    assert (status, body["code"]) == (403, 50013)


async def test_a_channel_s_messages_are_listed_only_with_read_message_history(
        lb: Loopback, client: MiniBot) -> None:
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    where = f"/channels/{channel.id}/messages"
    status, posted, _ = await client.rest("POST", where, {"content": "hello"})
    assert status == 200, posted
    status, listed, _ = await client.rest("GET", where + "?limit=50")
    assert status == 200 and [m["id"] for m in listed] == [posted["id"]]
    channel.bot_permissions = VIEW_CHANNEL | SEND_MESSAGES  # no Read Message History
    status, listed, _ = await client.rest("GET", where + "?limit=50")
    assert (status, listed) == (200, [])  # as Discord answers: no messages, no error
    channel.bot_permissions = ALL_PERMISSIONS
    assert len((await client.rest("GET", where))[1]) == 1


async def test_a_deleted_message_is_gone(lb: Loopback, client: MiniBot) -> None:
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    ann = lb.create_user("Ann")
    status, body, _ = await client.rest("POST", f"/channels/{channel.id}/messages",
                                        {"content": "hello"})
    message = lb.message(body["id"])
    lb.delete_message(message)
    assert lb.messages_for(channel, ann) == []
    status, body, _ = await client.rest("PATCH", f"/channels/{channel.id}/messages/{message.id}",
                                        {"content": "edited"})
    assert (status, body["code"]) == (404, 10008)


async def test_a_persons_permissions_and_the_slowmode_of_a_channel(lb: Loopback,
                                                                   client: MiniBot) -> None:
    """Interactions carry the member's permissions in their channel (what the channel's
    overwrites deny them taken away; an administrator keeps everything) and the channel's
    slowmode, which a moderator's change also sends to the bot."""
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    await client.next_op(0, "CHANNEL_CREATE")
    ann, mod = lb.create_user("Ann"), lb.create_user("Mod", admin=True)
    for user in (ann, mod):
        lb.set_overwrite(channel, user, deny=ATTACH_FILES)
        await client.next_op(0, "CHANNEL_UPDATE")
    lb.set_slowmode(channel, 30)
    assert (await client.next_op(0, "CHANNEL_UPDATE"))["d"]["rate_limit_per_user"] == 30
    with pytest.raises(LoopbackError):
        lb.set_slowmode(channel, 21601)  # six hours at most
    for user, permissions in ((ann, MEMBER_PERMISSIONS & ~ATTACH_FILES), (mod, ALL_PERMISSIONS)):
        await lb.command(user, channel, "goblin settings")
        payload = await client.interaction()
        assert int(payload["member"]["permissions"]) == permissions
        assert payload["channel"]["rate_limit_per_user"] == 30
        status, _ = await client.respond(payload, {"type": 4, "data": {"content": "ok",
                                                                       "flags": 64}})
        assert status == 200
    assert lb.breaches == []
