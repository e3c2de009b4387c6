"""Shards on the stand-in as on Discord: IDENTIFY's ``shard: [i, n]``, a guild's events only on
its shard ``(guild_id >> 22) % n``, direct messages on shard 0, an invalid shard closed with 4010,
too few shards with 4011, and ``GET /gateway/bot`` recommending the configured count. Driven by
the minimal client, then by the real discord.py client: one process running both shards of two,
and two clients running one shard each."""
from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
from discordpy_client import discordpy_client
from minibot import GOBLIN, MiniBot
from shared_files import discord_api_checked

from bot.discord_side.client import route_to
from bot.storage.records import shard_of
from loopback import FAKE_TOKEN, Channel, Loopback, ManualClock, User
from loopback.sharding import guild_of, identified_shard, snowflake_on

#: /goblin offered in servers and in the bot's direct messages.
EVERYWHERE = dict(GOBLIN, contexts=[0, 1])


async def next_event(mini: MiniBot, event: str) -> dict[str, Any]:
    """The next payload ``mini`` received, which must be the dispatch ``event``: nothing else
    may come first."""
    got = await asyncio.wait_for(mini.events.get(), 5)
    assert (got["op"], got.get("t")) == (0, event), got
    return got["d"]  # type: ignore[no-any-return]


async def register(lb: Loopback) -> None:
    """/goblin registered, everywhere (through the REST API only)."""
    mini = MiniBot(lb)
    try:
        await mini.register([EVERYWHERE])
    finally:
        await mini.close()


async def identify(lb: Loopback, shard: Any, token: str | None = None) -> MiniBot:
    """A minimal client that identified with ``shard`` (left out when None)."""
    mini = MiniBot(lb, token)
    await mini.connect(identify=False)
    data: dict[str, Any] = {"token": mini.token, "intents": 1, "properties": {}}
    if shard is not None:
        data["shard"] = shard
    await mini.send({"op": 2, "d": data})
    return mini


def test_shard_arithmetic() -> None:
    assert [shard_of(g << 22, 4) for g in range(6)] == [0, 1, 2, 3, 0, 1]
    assert shard_of(None, 4) == 0 and shard_of(12345 << 22, 1) == 0
    for count in (1, 2, 5):
        for shard in range(count):
            made = {snowflake_on(shard, count) for _ in range(20)}
            assert len(made) == 20 and {shard_of(g, count) for g in made} == {shard}
    with pytest.raises(ValueError):
        snowflake_on(2, 2)
    assert identified_shard(None) == (0, 1) and identified_shard([1, 2]) == (1, 2)
    assert [identified_shard(v) for v in ([2, 2], [-1, 2], [0, 0], [0], "0,1", [True, 2],
                                          [0.0, 1])] == [None] * 7
    assert guild_of("GUILD_CREATE", {"id": "42"}) == 42
    assert guild_of("CHANNEL_CREATE", {"id": "7", "guild_id": "42"}) == 42
    assert guild_of("INTERACTION_CREATE", {"channel_id": "7"}) is None
    assert guild_of("GUILD_CREATE", {"id": "not a number"}) is None


async def test_gateway_bot_recommends_the_configured_count(clock: ManualClock) -> None:
    async with Loopback(clock=clock, shards=3, validate=discord_api_checked()) as lb:
        mini = MiniBot(lb)
        try:
            status, gateway, _ = await mini.rest("GET", "/gateway/bot")
            assert status == 200 and gateway["shards"] == 3
            assert gateway["url"] == lb.gateway_url
            # the control API makes a guild on a chosen shard of that count
            async with mini.http.post(lb.base_url + "/_loopback/guilds",
                                      json={"name": "Far", "shard": 2}) as made:
                assert made.status == 200
                assert shard_of(int((await made.json())["id"]), 3) == 2
            assert shard_of(lb.create_guild("Near", shard=1).id, 3) == 1
        finally:
            await mini.close()


@pytest.mark.parametrize("shard", [[2, 2], [-1, 2], [0, 0], [0], "0", [0, "2"]])
async def test_an_invalid_shard_is_refused(lb: Loopback, shard: Any) -> None:
    mini = await identify(lb, shard)
    try:
        assert (await mini.next_op(-1))["closed"] == 4010
        assert lb.gateway.identifies == 0 and not lb.gateway.connected()
    finally:
        await mini.close()


async def test_a_bot_that_must_shard_and_does_not_is_refused(clock: ManualClock) -> None:
    async with Loopback(clock=clock, shards=2, required_shards=2,
                        validate=discord_api_checked()) as lb:
        for shard in (None, [0, 1]):
            mini = await identify(lb, shard)
            try:
                assert (await mini.next_op(-1))["closed"] == 4011
            finally:
                await mini.close()
        mini = await identify(lb, [1, 2])
        try:
            assert (await mini.next_op(0, "READY"))["d"]["shard"] == [1, 2]
        finally:
            await mini.close()


async def test_each_shard_hears_only_its_guilds(lb: Loopback) -> None:
    guilds = [lb.create_guild(f"Club {i}", guild_id=snowflake_on(i, 2)) for i in (0, 1)]
    channels = [lb.create_channel(g) for g in guilds]
    await register(lb)
    ann = lb.create_user("Ann")
    shards = [await identify(lb, [i, 2]) for i in (0, 1)]
    try:
        for i, mini in enumerate(shards):
            ready = await next_event(mini, "READY")
            assert ready["shard"] == [i, 2]
            assert ready["guilds"] == [{"id": str(guilds[i].id), "unavailable": True}]
            assert (await next_event(mini, "GUILD_CREATE"))["id"] == str(guilds[i].id)
        await lb.gateway.wait_connected(5)
        assert lb.gateway.connected() and lb.summary()["shards"] == {"0": True, "1": True}
        late = lb.create_guild("Late club", guild_id=snowflake_on(1, 2))  # joined meanwhile
        assert (await next_event(shards[1], "GUILD_CREATE"))["id"] == str(late.id)
        for i in (1, 0):  # each guild's command reaches its shard
            ix = await lb.command(ann, channels[i], "goblin settings")
            got = await next_event(shards[i], "INTERACTION_CREATE")
            assert got["guild_id"] == str(guilds[i].id)
            assert lb.gateway.sessions[ix.session or ""].shard == i
            await shards[i].respond(got, {"type": 4, "data": {"content": f"shard {i}"}})
            await ix.done()
        ix = await lb.command(ann, lb.dm(ann), "goblin settings")  # a DM: shard 0
        got = await next_event(shards[0], "INTERACTION_CREATE")
        assert "guild_id" not in got
        await shards[0].respond(got, {"type": 4, "data": {"content": "in a DM"}})
        await ix.done()
        for mini in shards:  # nothing else came
            assert mini.events.empty()
        await shards[1].drop()  # shard 1 is gone: its guild's people are not answered
        await lb.changed(lb.version, 0.5)
        assert not lb.gateway.connected() and lb.gateway.connected([0])
    finally:
        for mini in shards:
            await mini.close()
    assert lb.breaches == []


# ---------------------------------------------------------------------------- discord.py


class ShardedClient(discord.AutoShardedClient):
    """The real discord.py auto-sharded client answering every interaction with the guild it
    came from; it identifies its shards one after the other without discord.py's 5 s pause
    (the stand-in does not limit how fast sessions start)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(intents=discord.Intents(guilds=True), **options)
        self.heard: list[int | None] = []

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """No pause between two shards' IDENTIFY."""

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """Record the interaction's guild and answer it."""
        self.heard.append(interaction.guild_id)
        await interaction.response.send_message(f"heard in {interaction.guild_id}")


@contextlib.asynccontextmanager
async def two_guilds(lb: Loopback) -> AsyncIterator[tuple[list[Channel], User]]:
    """A guild on each shard of two (a channel each), /goblin registered, and Ann."""
    channels = [lb.create_channel(lb.create_guild(f"Club {i}", guild_id=snowflake_on(i, 2)))
                for i in (0, 1)]
    await register(lb)
    yield channels, lb.create_user("Ann")


async def ask(lb: Loopback, ann: User, channel: Channel) -> int:
    """Ann runs /goblin settings in ``channel``; the shard whose session it reached (answered)."""
    ix = await lb.command(ann, channel, "goblin settings")
    await ix.done()
    return int(lb.gateway.sessions[ix.session or ""].shard)


async def test_discordpy_runs_two_shards_in_one_process(lb: Loopback) -> None:
    async with two_guilds(lb) as (channels, ann), \
            discordpy_client(lb, ShardedClient(shard_count=2)) as client:
        assert isinstance(client, ShardedClient)
        assert sorted(client.shards) == [0, 1] and lb.gateway.connected()
        assert {g.id: g.shard_id for g in client.guilds} == {
            c.guild_id: i for i, c in enumerate(channels)}
        assert [await ask(lb, ann, c) for c in channels] == [0, 1]
        assert await ask(lb, ann, lb.dm(ann)) == 0
        assert client.heard == [channels[0].guild_id, channels[1].guild_id, None]
    assert lb.breaches == []


async def test_two_discordpy_clients_each_hear_their_shard_only(lb: Loopback) -> None:
    async with two_guilds(lb) as (channels, ann), \
            discordpy_client(lb, ShardedClient(shard_count=2, shard_ids=[0])) as first, \
            discordpy_client(lb, ShardedClient(shard_count=2, shard_ids=[1])) as second:
        clients = [first, second]
        assert lb.gateway.connected()
        for i, client in enumerate(clients):
            assert isinstance(client, ShardedClient)
            assert [g.id for g in client.guilds] == [channels[i].guild_id]
        assert [await ask(lb, ann, c) for c in (channels[1], channels[0], lb.dm(ann))] == [
            1, 0, 0]
        assert [c.heard for c in clients if isinstance(c, ShardedClient)] == [
            [channels[0].guild_id, None], [channels[1].guild_id]]
    assert lb.breaches == []


async def test_discordpy_stops_on_an_invalid_shard(lb: Loopback) -> None:
    """A shard id the gateway refuses (4010) ends discord.py's connection with that code (the
    bot then stops with one line, see ``bot.process.app.explain_fatal``)."""
    client = ShardedClient(shard_count=2, shard_ids=[1])
    client.shard_count = 1  # as if the ids were not checked against the count: IDENTIFY [1, 1]
    base, gateway = discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    route_to(lb.api_base, lb.gateway_url)
    try:
        await client.login(FAKE_TOKEN)
        with pytest.raises(discord.ConnectionClosed) as closed:
            await asyncio.wait_for(client.connect(), 20)
        assert closed.value.code == 4010 and lb.gateway.identifies == 0
    finally:
        await client.close()
        discord.http.Route.BASE = base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = gateway
