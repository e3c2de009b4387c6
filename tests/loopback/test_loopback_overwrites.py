"""Who may view a channel, as Discord decides it: the stand-in keeps a guild's roles, its members'
roles and each channel's permission overwrites, computes a member's permissions in a channel as
Discord does (@everyone, then the roles' overwrites together, then the member's; the owner and
administrators see everything; a thread as its parent), keeps a hidden channel from a member,
and tells a real discord.py client all it needs to compute the same answer without privileged
intents (roles and overwrites in GUILD_CREATE, GUILD_ROLE_CREATE, CHANNEL_UPDATE; the member's
roles and permissions in each interaction)."""
from __future__ import annotations

import asyncio
from typing import Any

import discord
import pytest
from discordpy_client import discordpy_client

from bot.discord_side.sight import visible_channels
from loopback import VIEW_CHANNEL, Loopback, LoopbackError
from loopback.permissions import ADMINISTRATOR, MEMBER_PERMISSIONS, SEND_MESSAGES

BUTTON = [{"type": 1, "components": [{"type": 2, "style": 1, "label": "x", "custom_id": "x"}]}]


def sees(lb: Loopback, guild_id: int, user_id: int, channel_id: int) -> bool:
    guild, user = lb.guilds[guild_id], lb.user(user_id)
    return bool(guild.permissions_in(user, lb.channel(channel_id)) & VIEW_CHANNEL)


def test_permissions_follow_discords_order(lb: Loopback) -> None:
    owner = lb.create_user("Olga")
    guild = lb.create_guild(owner=owner)
    general, secret = lb.create_channel(guild, "general"), lb.create_channel(guild, "secret")
    thread = lb.create_thread(secret, "plans")
    ann, bob, eve, mod = (lb.create_user(n) for n in ("Ann", "Bob", "Eve", "Mod"))
    crew, muted = lb.create_role(guild, "Crew"), lb.create_role(guild, "Muted")
    admins = lb.create_role(guild, "Admins", MEMBER_PERMISSIONS | ADMINISTRATOR)
    lb.give_role(guild, ann, crew)
    lb.give_role(guild, bob, crew)
    lb.give_role(guild, bob, muted)
    lb.give_role(guild, mod, admins)
    lb.set_overwrite(secret, guild.everyone, deny=VIEW_CHANNEL)
    lb.set_overwrite(secret, crew, allow=VIEW_CHANNEL)
    lb.set_overwrite(secret, muted, deny=VIEW_CHANNEL | SEND_MESSAGES)  # roles add up: allow wins
    lb.set_overwrite(secret, eve, allow=VIEW_CHANNEL)
    lb.set_overwrite(general, ann, deny=SEND_MESSAGES)
    who = {u.name: sees(lb, guild.id, u.id, secret.id) for u in (owner, ann, bob, eve, mod)}
    assert who == {"Olga": True, "Ann": True, "Bob": True, "Eve": True, "Mod": True}
    zed = lb.create_user("Zed")
    assert not sees(lb, guild.id, zed.id, secret.id) and sees(lb, guild.id, zed.id, general.id)
    assert not guild.permissions_in(bob, secret) & SEND_MESSAGES  # both denied and not allowed
    assert sees(lb, guild.id, ann.id, thread.id)  # a thread as its parent
    assert not sees(lb, guild.id, zed.id, thread.id)
    assert not guild.permissions_in(ann, general) & SEND_MESSAGES  # the member's own overwrite
    lb.set_overwrite(secret, eve, deny=VIEW_CHANNEL)  # replaced, not added
    assert not sees(lb, guild.id, eve.id, secret.id)
    assert [o.payload() for o in secret.overwrites][-1] == {
        "id": str(eve.id), "type": 1, "allow": "0", "deny": str(VIEW_CHANNEL)}
    payload = lb.guild_payload(guild)
    assert {r["name"] for r in payload["roles"]} == {"@everyone", "Crew", "Muted", "Admins"}
    shown = next(c for c in payload["channels"] if c["id"] == str(secret.id))
    assert {(o["id"], o["type"]) for o in shown["permission_overwrites"]} == {
        (str(guild.id), 0), (str(crew.id), 0), (str(muted.id), 0), (str(eve.id), 1)}


async def test_a_member_cannot_act_in_a_channel_hidden_from_them(lb: Loopback) -> None:
    guild = lb.create_guild()
    secret = lb.create_channel(guild, "secret")
    ann = lb.create_user("Ann")
    lb.set_overwrite(secret, guild.everyone, deny=VIEW_CHANNEL)
    message = lb.plant_message(secret, BUTTON)
    with pytest.raises(LoopbackError, match="cannot view"):
        await lb.command(ann, secret, "goblin settings")
    with pytest.raises(LoopbackError, match="cannot view"):
        await lb.click(ann, message, "x")


class Watcher(discord.Client):
    """A discord.py client that tells, for each interaction, the channels its member may view
    (worked out by the bot's own :func:`visible_channels`) and their roles."""

    def __init__(self) -> None:
        super().__init__(intents=discord.Intents(guilds=True))
        self.seen: asyncio.Queue[tuple[set[int], list[int]]] = asyncio.Queue()

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        member, guild = interaction.user, interaction.guild
        assert isinstance(member, discord.Member) and isinstance(guild, discord.Guild)
        assert interaction.permissions.view_channel
        self.seen.put_nowait((visible_channels(guild, member), [r.id for r in member.roles
                                                                 if not r.is_default()]))
        await interaction.response.defer()


async def test_discordpy_sees_the_same_channels_as_the_stand_in(lb: Loopback) -> None:
    guild = lb.create_guild()
    general, secret = lb.create_channel(guild, "general"), lb.create_channel(guild, "secret")
    ann, bob, eve = (lb.create_user(n) for n in ("Ann", "Bob", "Eve"))
    crew = lb.create_role(guild, "Crew")
    lb.give_role(guild, ann, crew)
    lb.set_overwrite(secret, guild.everyone, deny=VIEW_CHANNEL)  # known from GUILD_CREATE
    lb.set_overwrite(secret, crew, allow=VIEW_CHANNEL)
    async with discordpy_client(lb, Watcher()) as client:
        assert isinstance(client, Watcher)
        late = lb.create_channel(guild, "late")  # told after connecting
        mods = lb.create_role(guild, "Mods")
        lb.set_overwrite(late, guild.everyone, deny=VIEW_CHANNEL)
        lb.set_overwrite(late, mods, allow=VIEW_CHANNEL)
        lb.set_overwrite(secret, eve, allow=VIEW_CHANNEL)
        lb.give_role(guild, bob, mods)
        expected = [(ann, {general.id, secret.id}, [crew.id]),
                    (bob, {general.id, late.id}, [mods.id]),
                    (eve, {general.id, secret.id}, [])]
        for user, channels, roles in expected:
            ix = await lb.click(user, lb.plant_message(general, BUTTON), "x")
            seen, has = await asyncio.wait_for(client.seen.get(), 10)
            assert (seen, has) == (channels, roles), user.name
            assert seen == {c.id for c in guild.channels
                            if guild.permissions_in(user, c) & VIEW_CHANNEL}
            await ix.answered(10)
    assert lb.breaches == []
