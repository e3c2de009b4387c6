"""Threads as Discord runs them, driven by the real discord.py client: a public thread started
from a message (the message shows it, THREAD_CREATE puts it in ``guild.threads``), a thread
without a message (private by default), posts, edits and deletions in a thread, archive and
unarchive (a post unarchives; a locked thread refuses the bot without Manage Threads), the
auto-archive after the idle time on the stand-in's clock, deletion (THREAD_DELETE, then Unknown
Channel), the permissions each act needs in the parent (``discord.Forbidden``), interactions
from a thread (``interaction.channel`` a Thread), and GUILD_CREATE's active threads."""
from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
from discordpy_client import discordpy_client
from minibot import MiniBot
from shared_files import require_discord_api

from loopback import Loopback, ManualClock
from loopback.model import PRIVATE_THREAD, Channel
from loopback.permissions import (
    ALL_PERMISSIONS,
    CREATE_PUBLIC_THREADS,
    MANAGE_THREADS,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
)

BUTTON = [{"type": 1, "components": [{"type": 2, "style": 1, "label": "x", "custom_id": "x"}]}]


class Listener(discord.Client):
    """A discord.py client that answers every interaction and keeps what it saw of it."""

    def __init__(self) -> None:
        super().__init__(intents=discord.Intents(guilds=True))
        self.seen: asyncio.Queue[discord.Interaction[Any]] = asyncio.Queue()

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        self.seen.put_nowait(interaction)
        await interaction.response.send_message("seen in the thread")


@pytest.fixture
async def client(lb: Loopback) -> AsyncIterator[Listener]:
    """A discord.py client connected to the stand-in."""
    async with discordpy_client(lb, Listener()) as bot:
        assert isinstance(bot, Listener)
        yield bot


async def text_channel(lb: Loopback, client: discord.Client, name: str = "goblin"
                       ) -> tuple[Channel, discord.TextChannel]:
    """A new text channel of a new guild, as the stand-in and as discord.py know it."""
    waiting = event(client, "guild_available")
    guild = lb.create_guild()
    await waiting
    waiting = event(client, "guild_channel_create")
    channel = lb.create_channel(guild, name)
    found = await waiting
    assert isinstance(found, discord.TextChannel)
    return channel, found


def event(client: discord.Client, name: str) -> asyncio.Future[Any]:
    """A future of discord.py's next ``name`` event (set up before the act that sends it)."""
    return asyncio.ensure_future(client.wait_for(name, timeout=10))


async def test_a_thread_started_from_a_message(lb: Loopback, client: Listener) -> None:
    parent, channel = await text_channel(lb, client)
    lobby = await channel.send("Lobby of Table 1")
    created = event(client, "thread_create")
    thread = await lobby.create_thread(name="Table 1", auto_archive_duration=60)
    assert isinstance(thread, discord.Thread) and thread.id == lobby.id
    assert thread.parent_id == parent.id and thread.owner_id == client.user.id  # type: ignore[union-attr]
    assert thread.type == discord.ChannelType.public_thread and not thread.archived
    assert thread.auto_archive_duration == 60
    heard = await created
    assert heard.id == thread.id and channel.guild.get_thread(thread.id) is not None
    assert [t.name for t in channel.threads] == ["Table 1"]
    # the starter message shows its thread
    again = await channel.fetch_message(lobby.id)
    assert again.thread is not None and again.thread.name == "Table 1"
    assert again.flags.has_thread
    # posts, edits and deletions in the thread
    first = await thread.send("Ann's turn")
    assert isinstance(first.channel, discord.Thread) and first.channel.id == thread.id
    second = await thread.send("Bob's turn")
    await first.edit(content="Ann played")
    await second.delete()
    stored = lb.channel(thread.id)
    assert stored.message_count == 1 and stored.total_sent == 2
    ann = lb.create_user("Ann")
    assert [m.content for m in lb.messages_for(stored, ann)] == ["Ann played"]
    assert lb.starter(stored) is lb.message(lobby.id)
    assert lb.threads_of(parent) == [stored]
    # one thread per message
    with pytest.raises(discord.HTTPException) as twice:
        await lobby.create_thread(name="Table 1 again")
    assert (twice.value.status, twice.value.code) == (400, 160004)
    assert lb.breaches == []


async def test_a_thread_without_a_message(lb: Loopback, client: Listener) -> None:
    parent, channel = await text_channel(lb, client)
    public = await channel.create_thread(name="Table 2", type=discord.ChannelType.public_thread)
    assert public.type == discord.ChannelType.public_thread
    private = await channel.create_thread(name="Table 3")  # discord.py's default: private
    assert private.type == discord.ChannelType.private_thread
    assert [t.type for t in lb.threads_of(parent)] == [11, 12]
    assert lb.starter(lb.channel(public.id)) is None
    assert (await public.send("hello")).channel.id == public.id
    await public.join()  # the bot joins and leaves (membership itself is not modelled)
    await public.leave()
    locked = await public.edit(locked=True, slowmode_delay=5, name="Table 2 (locked)")
    assert locked.locked and locked.slowmode_delay == 5 and locked.name == "Table 2 (locked)"
    assert lb.channel(public.id).locked and lb.breaches == []


async def test_archive_unarchive_and_lock(lb: Loopback, client: Listener) -> None:
    parent, channel = await text_channel(lb, client)
    thread = await (await channel.send("lobby")).create_thread(name="Table 1")
    updated = event(client, "thread_update")
    thread = await thread.edit(archived=True)
    assert thread.archived
    _, after = await updated
    assert after.archived
    stored = lb.channel(thread.id)
    assert stored.archived
    assert channel.guild.get_thread(thread.id) is None  # discord.py forgets archived threads
    # a post unarchives it (discord.py hears the thread again); an edit in an archived thread
    # is refused
    joined = event(client, "thread_join")
    message = await thread.send("back again")
    assert not (await joined).archived and not stored.archived
    assert channel.guild.get_thread(thread.id) is not None
    lb.archive_thread(stored)
    with pytest.raises(discord.HTTPException) as archived:
        await message.edit(content="edited")
    assert (archived.value.status, archived.value.code) == (400, 50083)
    # a locked archived thread takes no post without Manage Threads
    lb.archive_thread(stored, locked=True)
    parent.bot_permissions = ALL_PERMISSIONS & ~MANAGE_THREADS
    with pytest.raises(discord.HTTPException) as locked:
        await thread.send("let me in")
    assert (locked.value.status, locked.value.code) == (400, 50083)
    with pytest.raises(discord.Forbidden):
        await thread.edit(archived=False)
    assert stored.archived and stored.locked
    parent.bot_permissions = ALL_PERMISSIONS  # a moderator bot unarchives it by posting
    await thread.send("unlocked by a moderator")
    assert not stored.archived
    assert lb.breaches == []


async def test_an_idle_thread_is_archived(lb: Loopback, clock: ManualClock,
                                          client: Listener) -> None:
    _, channel = await text_channel(lb, client)
    thread = await (await channel.send("lobby")).create_thread(name="Table 1",
                                                               auto_archive_duration=60)
    await thread.send("a move")
    clock.advance(59 * 60)
    lb.check_deadlines()
    assert not lb.channel(thread.id).archived
    updated = event(client, "thread_update")
    clock.advance(60)
    lb.check_deadlines()
    _, after = await updated
    assert after.archived and lb.channel(thread.id).archived
    joined = event(client, "thread_join")
    await thread.send("next move")  # unarchives it
    assert not (await joined).archived and not lb.channel(thread.id).archived


async def test_deleting_a_thread(lb: Loopback, client: Listener) -> None:
    parent, channel = await text_channel(lb, client)
    lobby = await channel.send("lobby")
    thread = await lobby.create_thread(name="Table 1")
    await thread.send("a move")
    parent.bot_permissions = ALL_PERMISSIONS & ~MANAGE_THREADS
    with pytest.raises(discord.Forbidden) as refused:
        await thread.delete()  # even its owner needs Manage Threads
    assert refused.value.code == 50013
    parent.bot_permissions = ALL_PERMISSIONS
    deleted = event(client, "raw_thread_delete")
    await thread.delete()
    assert (await deleted).thread_id == thread.id
    assert channel.guild.get_thread(thread.id) is None
    with pytest.raises(discord.NotFound) as gone:
        await thread.send("anyone?")
    assert gone.value.code == 10003
    assert (await channel.fetch_message(lobby.id)).thread is None
    assert lb.threads_of(parent) == []
    # a moderator deletes another thread: discord.py hears it
    other = await (await channel.send("lobby 2")).create_thread(name="Table 2")
    deleted = event(client, "raw_thread_delete")
    lb.delete_thread(lb.channel(other.id))
    assert (await deleted).thread_id == other.id
    with pytest.raises(discord.NotFound):
        await other.edit(archived=True)
    assert lb.breaches == []  # a deleted thread is no mistake of the bot's


async def test_a_deleted_channel_takes_its_threads_with_it(lb: Loopback,
                                                           client: Listener) -> None:
    parent, channel = await text_channel(lb, client)
    lobby = await channel.send("lobby")
    thread = await lobby.create_thread(name="Table 1")
    other = lb.create_channel(lb.guilds[parent.guild_id or 0], "elsewhere")
    sent: list[str] = []  # the events the stand-in sends
    broadcast = lb.world.state.announce

    def announce(name: str, data: dict[str, Any]) -> None:
        sent.append(name)
        broadcast(name, data)
    lb.world.state.announce = announce
    deleted = event(client, "guild_channel_delete")
    its_thread = event(client, "raw_thread_delete")
    lb.delete_channel(parent)  # a moderator deletes the channel
    assert sent == ["CHANNEL_DELETE"]  # as Discord: nothing of its threads
    assert (await deleted).id == parent.id
    assert channel.guild.get_channel(parent.id) is None
    assert channel.guild.get_thread(thread.id) is None
    # discord.py tells of each thread it knew as deleted too (Discord sent CHANNEL_DELETE only)
    assert (await its_thread).thread_id == thread.id
    for gone in (channel, thread):
        with pytest.raises(discord.NotFound) as refused:
            await gone.send("anyone?")
        assert refused.value.code == 10003
    with pytest.raises(discord.NotFound):
        await lobby.edit(content="still here?")
    assert lb.threads_of(parent) == [] and lb.channel(other.id) is other
    assert lb.message(lobby.id).deleted
    assert lb.breaches == []  # a deleted channel is no mistake of the bot's


async def test_permissions_to_start_and_post(lb: Loopback, client: Listener) -> None:
    parent, channel = await text_channel(lb, client)
    lobby = await channel.send("lobby")
    parent.bot_permissions = ALL_PERMISSIONS & ~CREATE_PUBLIC_THREADS
    with pytest.raises(discord.Forbidden) as refused:
        await lobby.create_thread(name="Table 1")
    assert (refused.value.status, refused.value.code) == (403, 50013)
    with pytest.raises(discord.Forbidden):
        await channel.create_thread(name="Table 1", type=discord.ChannelType.public_thread)
    parent.bot_permissions = ALL_PERMISSIONS
    thread = await lobby.create_thread(name="Table 1")
    # the thread has its parent's permissions
    parent.bot_permissions = ALL_PERMISSIONS & ~SEND_MESSAGES_IN_THREADS
    with pytest.raises(discord.Forbidden):
        await thread.send("hello")
    assert lb.breaches == []


async def test_interactions_in_a_thread(lb: Loopback, client: Listener) -> None:
    parent, channel = await text_channel(lb, client)
    assert client.application_id is not None
    await client.http.bulk_upsert_global_commands(client.application_id, [
        {"name": "goblin", "description": "Karak Goblin", "type": 1}])
    thread = await (await channel.send("lobby")).create_thread(name="Table 1")
    stored = lb.channel(thread.id)
    ann = lb.create_user("Ann")
    ix = await lb.command(ann, stored, "goblin")
    seen = await asyncio.wait_for(client.seen.get(), 10)
    assert isinstance(seen.channel, discord.Thread)
    assert seen.channel.id == thread.id and seen.channel.parent_id == parent.id
    await ix.done()
    table = lb.plant_message(stored, BUTTON)
    ix = await lb.click(ann, table, "x")
    seen = await asyncio.wait_for(client.seen.get(), 10)
    assert isinstance(seen.channel, discord.Thread) and seen.channel.id == thread.id
    await ix.done()
    assert [m.content for m in lb.messages_for(stored, ann)][-1] == "seen in the thread"
    assert lb.breaches == []


async def test_guild_create_lists_the_active_threads(lb: Loopback) -> None:
    guild = lb.create_guild()
    parent = lb.create_channel(guild)
    active = lb.create_thread(parent, "Table 1")
    asleep = lb.create_thread(parent, "Table 2")
    lb.archive_thread(asleep)
    async with discordpy_client(lb) as client:
        known = client.get_guild(guild.id)
        assert known is not None
        assert [t.id for t in known.threads] == [active.id]
        thread = known.get_thread(active.id)
        assert thread is not None and thread.parent_id == parent.id
        listed = await known.active_threads()
        assert [t.id for t in listed] == [active.id]
        text = known.get_channel(parent.id)
        assert isinstance(text, discord.TextChannel)
        archived = [t async for t in text.archived_threads()]
        assert [t.id for t in archived] == [asleep.id]
    assert lb.breaches == []


async def test_an_archived_thread_is_fetched_with_its_parent(lb: Loopback) -> None:
    """discord.py's cache forgets an archived thread, but ``fetch_channel`` still gets it from
    the API (its parent and type); a deleted one is Unknown Channel, and a thread whose parent
    the bot may not view is Missing Access, as on Discord."""
    guild = lb.create_guild()
    parent = lb.create_channel(guild)
    chat = lb.create_thread(parent, "chat")
    crew = lb.create_thread(parent, "crew", kind=PRIVATE_THREAD)
    gone = lb.create_thread(parent, "gone")
    for thread in (chat, crew):
        lb.archive_thread(thread)
    lb.delete_thread(gone)
    async with discordpy_client(lb) as client:
        known = client.get_guild(guild.id)
        assert known is not None and list(known.threads) == []
        for thread, private in ((chat, False), (crew, True)):
            fetched = await client.fetch_channel(thread.id)
            assert isinstance(fetched, discord.Thread)
            assert (fetched.parent_id, fetched.is_private(), fetched.archived,
                    fetched.guild.id) == (parent.id, private, True, guild.id)
        with pytest.raises(discord.NotFound) as deleted:
            await client.fetch_channel(gone.id)
        assert deleted.value.code == 10003
        parent.bot_permissions = ALL_PERMISSIONS & ~VIEW_CHANNEL
        with pytest.raises(discord.Forbidden) as hidden:
            await client.fetch_channel(chat.id)
        assert hidden.value.code == 50001
    assert lb.breaches == []


async def test_the_control_api_starts_lists_archives_and_deletes_threads(lb: Loopback) -> None:
    guild = lb.create_guild()
    parent = lb.create_channel(guild)
    ann = lb.create_user("Ann")
    lobby = lb.plant_message(parent, BUTTON, "Lobby of Table 1")
    base = lb.base_url + "/_loopback"
    async with aiohttp.ClientSession() as http:
        async def post(path: str, body: dict[str, Any]) -> tuple[int, Any]:
            async with http.post(base + path, json=body) as resp:
                return resp.status, await resp.json()

        status, made = await post("/threads", {"channel": str(parent.id), "name": "Table 1",
                                               "message": str(lobby.id), "user": str(ann.id)})
        assert status == 200 and made["id"] == str(lobby.id) and made["owner_id"] == str(ann.id)
        status, _ = await post("/threads", {"channel": str(parent.id), "name": "again",
                                            "message": str(lobby.id)})
        assert status == 400  # one thread per message
        status, other = await post("/threads", {"channel": str(parent.id), "name": "Table 2"})
        assert status == 200 and other["type"] == 11
        async with http.get(f"{base}/channels/{parent.id}/messages?user={ann.id}") as resp:
            shown = (await resp.json())["messages"]
        assert shown[0]["thread"]["name"] == "Table 1"
        status, archived = await post(f"/threads/{other['id']}/archive", {"locked": True})
        assert status == 200 and archived["archived"] and archived["locked"]
        async with http.get(f"{base}/channels/{parent.id}/threads") as resp:
            listed = (await resp.json())["threads"]
        assert [(t["name"], t["archived"]) for t in listed] == [("Table 1", False),
                                                                ("Table 2", True)]
        status, _ = await post(f"/threads/{other['id']}/unarchive", {})
        assert status == 200 and not lb.channel(other["id"]).archived
        status, _ = await post(f"/threads/{made['id']}/delete", {})
        assert status == 200 and lb.threads_of(parent) == [lb.channel(other["id"])]
        assert "thread" not in lb.view(lobby)


async def test_thread_request_bodies_are_validated(lb: Loopback, mini: MiniBot) -> None:
    """Every thread route's body is checked against Discord's API description like the other
    routes: a body Discord would refuse is a schema breach (400, code 50035)."""
    require_discord_api("that the stand-in refuses a thread request body breaking Discord's "
                        "API schema")
    guild = lb.create_guild()
    parent = lb.create_channel(guild)
    lobby = lb.plant_message(parent, BUTTON, "lobby")
    thread = lb.create_thread(parent, "Table 1")
    wrong = [("POST", f"/channels/{parent.id}/messages/{lobby.id}/threads", {"name": 5}),
             ("POST", f"/channels/{parent.id}/messages/{lobby.id}/threads",
              {"name": "x", "auto_archive_duration": 45}),
             ("POST", f"/channels/{parent.id}/threads", {"name": "x" * 101, "type": 11}),
             ("PATCH", f"/channels/{thread.id}", {"archived": "yes"}),
             ("PUT", f"/channels/{thread.id}/thread-members/@me", {"x": 1})]
    for method, path, body in wrong:
        status, answer, _ = await mini.rest(method, path, body)
        assert (status, answer["code"]) == (400, 50035), (method, path, answer)
    assert [b.rule for b in lb.breaches] == ["schema"] * len(wrong)
    lb.breaches.clear()
    status, answer, _ = await mini.rest("POST", f"/channels/{parent.id}/messages/{lobby.id}"
                                        "/threads", {"name": "Table 2",
                                                     "auto_archive_duration": 4320})
    assert status == 201 and answer["thread_metadata"]["auto_archive_duration"] == 4320
