"""What discord.py and aiohttp alone cost a bot's process per Discord request, on the stand-in.

Usage: ``python benchmarks/requests.py [--messages N] [--rounds R] [--pictures K]``.

A plain ``discord.Client`` (no game, no storage, no drawing: the picture is drawn once before)
runs in a process of its own against the stand-in, and sends the requests a move of the bot is
made of, each with a Components V2 message of the bot's shape (a container with a line of text,
a media gallery of ``--pictures`` pictures and a row of buttons):

- **edit, new picture**: a channel message edited with its picture uploaded again (a table
  message after a move);
- **edit, picture kept**: the same edit sending the picture back by its attachment id;
- **post and delete**: a message posted with its picture, then deleted (a new turn's table
  message replacing the last one): the figure is per request, two a pair;
- **click answered**: a button clicked by a person (the gateway event read, the interaction
  built) answered by editing the clicked message with a new picture in the callback (a person's
  move answered with their hand).

Each kind runs ``--messages`` requests, eight at a time over as many channels, and prints the
client process's CPU milliseconds per request (the median of ``--rounds`` rounds). The stand-in
checks no request against Discord's description here (that would only slow the stand-in).
With the bot's requests per move (``load.py`` prints them by route) this gives the part of the
bot's CPU per move that the libraries take whatever the bot does.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import logging
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

from benchmarks import running  # noqa: E402
from loopback.botproc import TIED  # noqa: E402

KINDS = ("edit, new picture", "edit, picture kept", "post and delete", "click answered")
#: Requests in flight at once (one channel each).
AT_ONCE = 8


def _picture() -> bytes:
    """A table picture of the demo position, as the bot would upload it."""
    from engine import new_game, observe  # noqa: PLC0415
    from render import table_image  # noqa: PLC0415
    from render.positions import demo_config  # noqa: PLC0415

    state = new_game(demo_config(11, seats=4))
    return table_image(observe(state, None), "en")


def _view(n: int, pictures: int) -> Any:
    """A message of the bot's shape: its text says ``n`` (so every edit changes it)."""
    import discord  # noqa: PLC0415
    from discord import ui  # noqa: PLC0415

    view = ui.LayoutView(timeout=None)
    items = [discord.MediaGalleryItem(f"attachment://p{k}.png") for k in range(pictures)]
    gallery: ui.MediaGallery[ui.LayoutView] = ui.MediaGallery(*items)
    buttons = [ui.Button[ui.LayoutView](label=f"Card {k}", custom_id=f"bench:{k}")
               for k in range(4)]
    row: ui.ActionRow[ui.LayoutView] = ui.ActionRow(*buttons)
    view.add_item(ui.Container(ui.TextDisplay(f"**Round {n}**: the table after move {n}."),
                               gallery, row))
    return view


async def _client(channels: list[int], messages: int, pictures: int) -> None:
    """The client process: connect, run each kind, print one JSON line of CPU seconds per kind
    (clicks: the parent clicks once this process says ``ready``)."""
    import discord  # noqa: PLC0415

    from bot.discord_side.client import route_to  # noqa: PLC0415

    route_to(os.environ["KARAK_API_BASE"], os.environ["KARAK_GATEWAY_URL"])
    discord.utils.setup_logging(level=logging.WARNING)
    png = _picture()

    def files() -> list[discord.File]:
        return [discord.File(io.BytesIO(png), f"p{k}.png") for k in range(pictures)]

    client = discord.Client(intents=discord.Intents(guilds=True))
    ready = asyncio.Event()
    clicks: list[float] = []
    clicked = asyncio.Event()

    @client.event
    async def on_ready() -> None:
        ready.set()

    @client.event
    async def on_interaction(interaction: discord.Interaction) -> None:
        # the CPU from the first click's answer to the last's: ``messages`` clicks answered
        await interaction.response.edit_message(view=_view(len(clicks), pictures),
                                                attachments=files())
        clicks.append(time.process_time())
        if len(clicks) == messages + 1:
            clicked.set()

    async def each(work: Any) -> float:
        """CPU seconds of the client for ``messages`` calls of ``work(i, message)``, AT_ONCE
        at a time, one channel each."""
        start = time.process_time()
        for first in range(0, messages, AT_ONCE):
            await asyncio.gather(*(work(i, posted[i % AT_ONCE])
                                   for i in range(first, min(messages, first + AT_ONCE))))
        return time.process_time() - start

    async def edit_new(i: int, message: discord.Message) -> None:
        posted[i % AT_ONCE] = await message.edit(view=_view(i, pictures), attachments=files())

    async def edit_kept(i: int, message: discord.Message) -> None:
        await message.edit(view=_view(i, pictures), attachments=kept[i % AT_ONCE])

    async def post_delete(i: int, message: discord.Message) -> None:
        new = await message.channel.send(view=_view(i, pictures), files=files())
        await new.delete()

    async with client:
        runner = asyncio.create_task(client.start(os.environ["DISCORD_TOKEN"]))
        await ready.wait()
        targets = [client.get_channel(c) for c in channels]
        posted = [await t.send(view=_view(0, pictures), files=files())  # type: ignore[union-attr]
                  for t in targets]
        spent = {KINDS[0]: await each(edit_new) / messages}
        kept = [list(m.attachments) for m in posted]  # what each message carries now
        spent |= {KINDS[1]: await each(edit_kept) / messages,
                 KINDS[2]: await each(post_delete) / (2 * messages)}
        print(json.dumps({"ready": [m.id for m in posted]}), flush=True)
        await clicked.wait()
        spent[KINDS[3]] = (clicks[-1] - clicks[0]) / (len(clicks) - 1)
        print(json.dumps({"spent": spent}), flush=True)
        await client.close()
        runner.cancel()


async def _round(messages: int, pictures: int) -> dict[str, float]:
    """One client process against a fresh stand-in: CPU seconds per request of each kind."""
    from loopback import Loopback  # noqa: PLC0415

    async with Loopback(validate=False, keep_files=False) as lb:
        guild = lb.create_guild("Bench")
        channels = [lb.create_channel(guild, f"table-{k}") for k in range(AT_ONCE)]
        person = lb.create_user("Ann")
        proc = await asyncio.create_subprocess_exec(  # tied: it ends when this process ends
            sys.executable, str(TIED), str(os.getpid()), sys.executable, __file__, "--client",
            "--messages", str(messages), "--pictures", str(pictures),
            *(str(c.id) for c in channels),
            env={**os.environ, **lb.env()}, stdout=subprocess.PIPE)
        assert proc.stdout is not None
        try:
            line = json.loads(await proc.stdout.readline())
            ids = line["ready"]
            for first in range(0, messages + 1, AT_ONCE):
                batch = range(first, min(messages + 1, first + AT_ONCE))
                ixs = [await lb.click(person, lb.messages[ids[i % AT_ONCE]], "bench:0")
                       for i in batch]
                await asyncio.gather(*(ix.answered() for ix in ixs))
            spent: dict[str, float] = json.loads(await proc.stdout.readline())["spent"]
        finally:
            if proc.returncode is None:
                proc.kill()
            await proc.wait()
        return spent


def main(argv: list[str] | None = None) -> None:
    """Measure, or be the client process (``--client``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=400, help="requests of each kind")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pictures", type=int, default=1, help="pictures in each message")
    parser.add_argument("--client", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("channels", nargs="*", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.client:
        asyncio.run(_client(args.channels, args.messages, args.pictures))
        return
    rounds = [running.run(_round(args.messages, args.pictures)) for _ in range(args.rounds)]
    print(f"discord.py's CPU per request in a process of its own, {args.messages} requests of "
          f"each kind, {args.pictures} picture(s) a message, median of {args.rounds} rounds:")
    for kind in KINDS:
        values = [r[kind] * 1000 for r in rounds]
        print(f"  {kind:<20} {statistics.median(values):.2f} ms  "
              f"(rounds: {', '.join(f'{v:.2f}' for v in values)})")


if __name__ == "__main__":
    main()
