"""Refusals the stand-in answers as Discord documents them, where being lenient would hide a
mistake of the bot: any request about a channel the bot may not view (403, code 50001 Missing
Access: posts, edits, deletions and reading its messages), an edit of a message in a locked
thread without Manage Threads (Thread is locked, 160005; a moderator's bot still edits there),
a file over Discord's upload size (413, code 40005, a breach: interactions tell the bot the
limit), the few permissions interactions from a group direct message grant the app, and a
server that removed the bot (GUILD_DELETE, then Missing Access for its channels)."""
from __future__ import annotations

import pytest
from minibot import GOBLIN, MiniBot, consumed

from loopback import Loopback, LoopbackError
from loopback.limits import FILE_SIZE
from loopback.permissions import (
    ALL_PERMISSIONS,
    ATTACH_FILES,
    EMBED_LINKS,
    MANAGE_THREADS,
    MENTION_EVERYONE,
    SEND_MESSAGES,
    USE_EXTERNAL_EMOJIS,
    VIEW_CHANNEL,
)

#: /goblin for every place: servers, the bot's DMs and group DMs (a user install).
EVERYWHERE = dict(GOBLIN, contexts=[0, 1, 2], integration_types=[0, 1])
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16


async def test_a_channel_the_bot_may_not_view_answers_missing_access(
        lb: Loopback, client: MiniBot) -> None:
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    where = f"/channels/{channel.id}/messages"
    status, body, _ = await client.rest("POST", where, {"content": "the table"})
    assert status == 200, body
    mine = f"{where}/{body['id']}"
    channel.bot_permissions = ALL_PERMISSIONS & ~VIEW_CHANNEL  # a moderator hides the channel
    for method, path, sent in (("PATCH", mine, {"content": "edited"}), ("DELETE", mine, None),
                               ("GET", mine, None), ("GET", where, None),
                               ("POST", where, {"content": "again"})):
        status, body, _ = await client.rest(method, path, sent)
        assert (status, body["code"]) == (403, 50001), (method, path)
    assert [m.content for m in lb.messages_for(channel, lb.create_user("Ann"))] == ["the table"]
    assert lb.breaches == []


async def test_an_edit_in_a_locked_thread_needs_manage_threads(
        lb: Loopback, client: MiniBot) -> None:
    guild = lb.create_guild()
    parent = lb.create_channel(guild)
    thread = lb.create_thread(parent, "a match")
    status, body, _ = await client.rest("POST", f"/channels/{thread.id}/messages",
                                        {"content": "the table"})
    assert status == 200, body
    mine = f"/channels/{thread.id}/messages/{body['id']}"
    thread.locked = True  # a moderator locks it, leaving it active
    parent.bot_permissions = ALL_PERMISSIONS & ~MANAGE_THREADS
    status, body, _ = await client.rest("PATCH", mine, {"content": "edited"})
    assert (status, body["code"]) == (403, 160005)
    assert lb.message(mine.rsplit("/", 1)[1]).content == "the table"
    parent.bot_permissions = ALL_PERMISSIONS  # a moderator's bot edits there
    status, body, _ = await client.rest("PATCH", mine, {"content": "edited"})
    assert status == 200 and body["content"] == "edited"
    parent.bot_permissions = ALL_PERMISSIONS & ~MANAGE_THREADS
    assert (await client.rest("DELETE", mine))[0] == 204  # deleting in an active one is allowed
    assert lb.breaches == []


async def test_a_file_over_discords_upload_size_is_refused(lb: Loopback, client: MiniBot) -> None:
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    where = f"/channels/{channel.id}/messages"
    big = PNG + b"\0" * (FILE_SIZE - len(PNG) + 1)
    status, body, _ = await client.rest("POST", where, {"content": "x"}, files={"big.png": big})
    assert (status, body["code"]) == (413, 40005)
    assert consumed(lb) == ["limits"]
    status, body, _ = await client.rest("POST", where, {"content": "x"},
                                        files={"fits.png": big[:FILE_SIZE]})
    assert status == 200, body
    ann = lb.create_user("Ann")
    ix = await lb.command(ann, channel, "goblin settings")
    payload = await client.interaction()
    assert payload["attachment_size_limit"] == FILE_SIZE
    status, _ = await client.respond(payload, {"type": 4, "data": {"content": "a picture"}},
                                     files={"big.png": big})
    assert status == 413 and consumed(lb) == ["limits"]
    assert ix.responded is None


async def test_a_group_dm_grants_the_app_only_what_discord_says(
        lb: Loopback, client: MiniBot) -> None:
    await client.register([EVERYWHERE])
    ann, bob = lb.create_user("Ann"), lb.create_user("Bob")
    group = lb.create_group_dm([ann, bob])
    ix = await lb.command(ann, group, "goblin settings")
    got = await client.interaction()
    rights = int(got["app_permissions"])
    assert rights == ATTACH_FILES | EMBED_LINKS | MENTION_EVERYONE
    assert not rights & SEND_MESSAGES
    await client.respond(got, {"type": 4, "data": {"content": "answered"}})
    await ix.done()
    assert lb.breaches == []


async def test_the_bots_own_dm_grants_the_app_only_what_discord_says(
        lb: Loopback, client: MiniBot) -> None:
    """In the bot's direct messages with a person, Discord's interactions list the group
    direct message's few permissions and Use External Emojis: neither View Channel nor Send
    Messages, though the bot may post there."""
    await client.register([EVERYWHERE])
    ann = lb.create_user("Ann")
    ix = await lb.command(ann, lb.dm(ann), "goblin settings")
    got = await client.interaction()
    rights = int(got["app_permissions"])
    assert rights == ATTACH_FILES | EMBED_LINKS | MENTION_EVERYONE | USE_EXTERNAL_EMOJIS
    assert not rights & (SEND_MESSAGES | VIEW_CHANNEL)
    await client.respond(got, {"type": 4, "data": {"content": "answered"}})
    await ix.done()
    assert lb.breaches == []


async def test_a_server_that_removed_the_bot(lb: Loopback, client: MiniBot) -> None:
    """GUILD_DELETE without ``unavailable`` (the bot was removed, not an outage), then every
    request about its channels and threads answers Missing Access; no one there reaches the
    bot any more."""
    guild = lb.create_guild()
    await client.next_op(0, "GUILD_CREATE")
    channel = lb.create_channel(guild)
    thread = lb.create_thread(channel, "a match")
    status, body, _ = await client.rest("POST", f"/channels/{thread.id}/messages",
                                        {"content": "the table"})
    assert status == 200, body
    lb.remove_guild(guild)
    gone = (await client.next_op(0, "GUILD_DELETE"))["d"]
    assert gone == {"id": str(guild.id)}
    for method, path, sent in (
            ("POST", f"/channels/{channel.id}/messages", {"content": "x"}),
            ("PATCH", f"/channels/{thread.id}/messages/{body['id']}", {"content": "x"}),
            ("GET", f"/channels/{thread.id}", None),
            ("PATCH", f"/channels/{thread.id}", {"archived": False})):
        status, out, _ = await client.rest(method, path, sent)
        assert (status, out["code"]) == (403, 50001), (method, path)
    with pytest.raises(LoopbackError) as refused:
        await lb.command(lb.create_user("Ann"), channel, "goblin settings")
    assert refused.value.code == "bot_removed"
    assert lb.breaches == []
