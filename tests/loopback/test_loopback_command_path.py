"""A message answering a slash command names the whole command path, sub-command included, as
Discord shows it to everyone in the channel ("Ann used /goblin new")."""
from __future__ import annotations

from minibot import MiniBot

from loopback import Loopback
from loopback.model import command_path


async def test_answer_names_the_sub_command(lb: Loopback, client: MiniBot) -> None:
    """The answer's ``interaction`` carries ``goblin new``; a button's answer has no name."""
    channel = lb.create_channel(lb.create_guild())
    ann, bob = lb.create_user("Ann"), lb.create_user("Bob")
    ix = await lb.command(ann, channel, "goblin new", timer=60)
    data = await client.interaction()
    button = {"type": 1, "components": [
        {"type": 2, "style": 1, "label": "Join", "custom_id": "kg:lobby:1:join"}]}
    await client.respond(data, {"type": 4, "data": {"content": "lobby",
                                                     "components": [button]}})
    await ix.done()
    lobby = lb.messages_for(channel, bob)[-1]
    status, shown, _ = await client.rest("GET", f"/channels/{channel.id}/messages/{lobby.id}")
    assert status == 200, shown
    assert shown["interaction"]["name"] == "goblin new"
    assert shown["interaction"]["user"]["id"] == str(ann.id)
    assert shown["interaction_metadata"]["type"] == 2

    click = await lb.click(bob, lobby, "kg:lobby:1:join")
    cdata = await client.interaction()
    await client.respond(cdata, {"type": 4, "data": {"content": "joined"}})
    await click.done()
    joined = lb.messages_for(channel, bob)[-1]
    status, shown, _ = await client.rest("GET", f"/channels/{channel.id}/messages/{joined.id}")
    assert status == 200 and "interaction" not in shown
    assert shown["interaction_metadata"]["type"] == 3


def test_command_path_walks_groups_and_sub_commands() -> None:
    """Group and sub-command names follow the command's; options are not part of the path."""
    assert command_path({"name": "goblin"}) == "goblin"
    assert command_path({"name": "goblin", "options": [
        {"name": "new", "type": 1, "options": [{"name": "timer", "type": 4, "value": 60}]}]}
    ) == "goblin new"
    assert command_path({"name": "goblin", "options": [{"name": "admin", "type": 2, "options": [
        {"name": "language", "type": 1, "options": []}]}]}) == "goblin admin language"
