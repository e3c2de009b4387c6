"""What people are named, on the stand-in: a display name is text its person chose, shown as
typed and never a way to ping someone else."""
from __future__ import annotations

from pathlib import Path

from bot_helpers import Clock
from live_bot import Call, LiveBot, User
from players import ANN, EVE, Players, TinyRenderer, open_table

from bot.discord_side.ui.custom_ids import LogButton
from bot.game.markup import plain
from loopback import Loopback, Message
from loopback.components import TEXT_DISPLAY, walk

#: A player whose display name is a mention of someone who does not play.
PINGER = User(2000000000000000201, f"<@{EVE.id}>")


async def test_a_name_that_is_a_mention_pings_nobody(bot: LiveBot, calls: list[Call]) -> None:
    """Each turn's message pings the person to move, and only them: a player whose display
    name is a mention of someone else pings nobody with it."""
    tid = await open_table(bot, PINGER, [ANN])
    players = Players(bot, tid, [PINGER, ANN])
    for _ in range(60):
        if not await players.step():
            break
    # (a private answer pings nobody: only the channel's messages count)
    assert not [m for m in bot.public() if EVE.id in m.mentions]
    for c in calls:
        if c.channel_post and "components" in c.body and "<@" in str(c.body):
            allowed = c.body["allowed_mentions"]
            assert "users" not in allowed.get("parse", []) and len(allowed.get("users", [])) <= 1



#: A display name of Discord's markdown: bold, a spoiler and a masked link (32 characters).
MARKDOWN = User(2000000000000000202, "**Kat** ||x|| [gift](https://e.x")


def markdown(message: Message) -> str:
    """The markdown of a message's text displays (what Discord renders)."""
    return "\n".join(str(c.get("content") or "") for c in walk(message.components)
                     if c.get("type") == TEXT_DISPLAY)


async def test_a_name_of_markdown_or_a_mention_is_shown_as_typed(bot: LiveBot) -> None:
    """Display names are shown as their people typed them wherever the bot's markdown names
    them (the table message, the hands, the Log, /goblin turns): escaped, never bold, hidden,
    a link or a mention of someone else."""
    tid = await open_table(bot, MARKDOWN, [PINGER, ANN])
    players = Players(bot, tid, [MARKDOWN, PINGER, ANN])
    for _ in range(40):
        await players.step()
    await bot.click(ANN, bot.last_table_message(), LogButton.id_for(tid))
    await bot.command(MARKDOWN, "turns")
    shown = "\n".join(markdown(m) for m in bot.lb.messages.values())
    for user in (MARKDOWN, PINGER):
        assert user.name not in shown
        assert plain(user.name) in shown
    assert r"**\*\*Kat\*\* \|\|x\|\| \[gift\](https://e.x**" in shown  # bold, as typed
    assert rf"\<\@{EVE.id}>" in shown


async def test_the_channels_line_of_a_match_in_a_thread_shows_names_as_typed(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """The channel's line of a match played in a thread names its players as they typed
    their names; the thread's name, plain text, takes them untouched."""
    h = await LiveBot.start(lb, tmp_path / "k.db", TinyRenderer(), clock=clock, threads=True)
    try:
        before = {t.id for t in lb.threads_of(h.channel)}
        await open_table(h, MARKDOWN, [ANN])
        thread = next(t for t in lb.threads_of(h.channel) if t.id not in before)
        said = "\n".join(markdown(m) for m in h.public())
        assert plain(MARKDOWN.name) in said and MARKDOWN.name not in said
        assert MARKDOWN.name in thread.name
    finally:
        await h.stop()
