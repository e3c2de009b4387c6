"""The real bot process against component interactions that reach it damaged (no
``custom_id``, a number as ``custom_id``, no ``component_type``): each is logged in one line,
answered privately as a damaged button (never Discord's "This interaction failed"), and the bot
stays connected and keeps answering ``/goblin`` commands."""
from __future__ import annotations

from pathlib import Path

from e2e.answers import answered
from shared_files import discord_api_checked

from loopback import Loopback
from loopback.botproc import BotProcess
from loopback.people import MALFORMED_EVENTS

DAMAGES = ("no_custom_id", "int_custom_id", "no_component_type")


async def test_a_malformed_interaction_is_answered_and_the_bot_keeps_serving(
        tmp_path: Path) -> None:
    async with Loopback(validate=discord_api_checked()) as lb:
        bot = BotProcess(lb, tmp_path / "karak.sqlite3")
        try:
            guild = lb.create_guild("Karak Club", locale="en-US")
            host = lb.create_user("Eve", "en-US")
            guest = lb.create_user("Bo", "en-US")
            await bot.start()
            lobby = await lb.command(host, lb.create_channel(guild, "hall"), "goblin new")
            await lobby.done()
            message = lb.message(lobby.original_id or 0)
            join = next(c for c in message.custom_ids() if ":join" in c)
            for number, damage in enumerate(DAMAGES, start=1):
                lb.send_malformed(damage)
                click = await lb.click(guest, lb.message(message.id), join)
                lb.send_malformed(None)
                await answered(lb, click, guest, "damaged")
                # the gateway delivers in order: this answer comes after the damaged event
                ix = await lb.command(host, lb.create_channel(guild, f"room-{number}"),
                                      "goblin new")
                await ix.done()
                assert bot.pid is not None, bot.log_tail()
                assert ix.original_id is not None
                dropped = [line for line in bot.log_text().splitlines()
                           if "dropped a malformed INTERACTION_CREATE event" in line]
                assert len(dropped) == number, bot.log_tail()
                assert "Traceback" not in bot.log_text()
            assert lb.gateway.identifies == 1  # never reconnected either
        finally:
            await bot.stop()


async def test_any_unreadable_gateway_event_is_dropped_and_the_bot_keeps_serving(
        tmp_path: Path) -> None:
    """A damaged MESSAGE_CREATE, GUILD_CREATE or CHANNEL_UPDATE: one warning line naming the
    event and the error (never the payload), no traceback, no reconnect, and the bot answers
    the next command."""
    async with Loopback(validate=discord_api_checked()) as lb:
        bot = BotProcess(lb, tmp_path / "karak.sqlite3")
        try:
            guild = lb.create_guild("Karak Club", locale="en-US")
            host = lb.create_user("Eve", "en-US")
            await bot.start()
            for number, event in enumerate(MALFORMED_EVENTS, start=1):
                lb.send_malformed_event(event)
                # the gateway delivers in order: this answer comes after the damaged event
                ix = await lb.command(host, lb.create_channel(guild, f"room-{number}"),
                                      "goblin new")
                await ix.done()
                assert bot.pid is not None, bot.log_tail()
                assert ix.original_id is not None
                log = bot.log_text()
                dropped = [line for line in log.splitlines()
                           if "dropped a malformed" in line and " event" in line]
                assert len(dropped) == number, bot.log_tail()
                assert f"dropped a malformed {event} event" in dropped[-1], dropped
                assert "Traceback" not in log
                assert "leaked-secret-token" not in log
            assert lb.gateway.identifies == 1  # never reconnected
            assert lb.gateway.resumes == 0
        finally:
            await bot.stop()
