"""``KARAK_DEV_GUILD`` naming no server the bot is in (a mistyped id, a channel's id copied
instead of the server's): Discord refuses to register the commands there, and the bot stops with
one line naming the setting and what to check, as with any other wrong setting, not as a
crash; with the server's right id it starts."""
from __future__ import annotations

from pathlib import Path

import pytest

from loopback import Loopback
from loopback.botproc import BotExited, BotProcess


async def test_a_dev_guild_the_bot_is_not_in_stops_it_in_one_line(
        lb: Loopback, tmp_path: Path) -> None:
    guild = lb.create_guild("Karak Club", locale="en-US")
    channel = lb.create_channel(guild, "goblin")
    db = tmp_path / "karak.sqlite3"
    proc = BotProcess(lb, db, extra_env={"KARAK_DEV_GUILD": str(channel.id)})
    try:
        with pytest.raises(BotExited):
            await proc.start()
        assert await proc.wait() == 2
    finally:
        await proc.stop()
    last = proc.log_text().strip().splitlines()[-1]
    assert last.startswith(f"KARAK_DEV_GUILD: Discord refused to register the commands in "
                           f"server {channel.id}"), proc.log_tail()
    assert "Traceback" not in proc.log_text(), proc.log_tail()
    proc = BotProcess(lb, db, extra_env={"KARAK_DEV_GUILD": str(guild.id)})
    try:
        await proc.start()
    finally:
        await proc.stop()
    assert [c["name"] for c in lb.commands[guild.id]] == ["goblin"]
    assert lb.breaches == []
