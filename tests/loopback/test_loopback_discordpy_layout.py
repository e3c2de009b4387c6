"""discord.py's own Components V2 messages (LayoutView: containers, sections, text displays, a
media gallery of an uploaded picture, separators, rows) pass the stand-in's checks (the OpenAPI
schema and Discord's layout rules), and a person clicks a button nested in a section: the real
client library against the stand-in, in one process."""
from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
from discord import ui
from discordpy_client import discordpy_client
from PIL import Image

from loopback import Loopback


@pytest.fixture
async def client(lb: Loopback) -> AsyncIterator[discord.Client]:
    """A discord.py client connected to the stand-in (its URLs restored afterwards)."""
    async with discordpy_client(lb) as bot:
        yield bot


class Picture(discord.File):
    """A PNG upload whose attachment id is a snowflake string, as the API specifies (discord.py
    sends the bare index as a number; the bot sends the same way)."""

    def __init__(self, filename: str) -> None:
        out = io.BytesIO()
        Image.new("RGB", (64, 40), (200, 120, 40)).save(out, "PNG")
        out.seek(0)
        super().__init__(out, filename=filename)

    def to_dict(self, index: int) -> dict[str, Any]:
        """The attachment entry of the request's payload_json."""
        payload = super().to_dict(index)
        payload["id"] = str(index)
        return payload


class Table(ui.LayoutView):
    """A table message the way a bot draws it with discord.py's layout classes."""

    def __init__(self, turn: str, clicked: asyncio.Event) -> None:
        super().__init__(timeout=None)
        hand = ui.Button(label="My hand", custom_id="kg:hand:1",
                         style=discord.ButtonStyle.primary)

        async def show(interaction: discord.Interaction) -> None:
            clicked.set()
            await interaction.response.edit_message(view=Table(f"{turn}, again", clicked))

        hand.callback = show  # type: ignore[method-assign]
        end = ui.Button(label="End", custom_id="kg:do:1:3:end")
        self.add_item(ui.Container(
            ui.Section(ui.TextDisplay("## Table 1"), ui.TextDisplay(turn), accessory=hand),
            ui.Separator(),
            ui.MediaGallery(discord.MediaGalleryItem("attachment://table.png",
                                                     description="the table")),
            ui.ActionRow(end),
            accent_colour=discord.Colour(0xE67E22)))


async def test_discordpy_layouts_pass_and_nested_buttons_click(lb: Loopback,
                                                               client: discord.Client) -> None:
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    ann = lb.create_user("Ann")
    await lb.changed(lb.version, 0.5)  # the client hears of the channel
    target = client.get_channel(channel.id) or await client.fetch_channel(channel.id)
    assert isinstance(target, discord.TextChannel)
    clicked = asyncio.Event()
    view = Table("Ann's turn", clicked)
    sent = await target.send(view=view, file=Picture("table.png"))
    client.add_view(view, message_id=sent.id)
    message = lb.message(sent.id)
    assert message.components_v2 and message.images() == ["attachment://table.png"]
    assert message.custom_ids() == ["kg:hand:1", "kg:do:1:3:end"]
    assert "Ann's turn" in message.text()
    ix = await lb.click(ann, message, "kg:hand:1")
    await ix.done()
    await asyncio.wait_for(clicked.wait(), 5)
    assert "Ann's turn, again" in lb.message(sent.id).text()
    assert lb.message(sent.id).components_v2 and lb.breaches == []
    # discord.py refuses nothing the stand-in would have to: a layout cannot go back to content
    with pytest.raises(discord.HTTPException) as refused:
        await sent.edit(content="plain again", view=None)
    assert refused.value.status == 400 and refused.value.code == 50035
    assert [b.rule for b in lb.breaches] == ["limits"]
    lb.breaches.clear()
