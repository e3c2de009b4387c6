"""A token reset in the Developer Portal while the bot runs: Discord closes its connection
(authentication failed, 4004) and refuses it again; the bot stops with the same one line as
when it starts with a refused token, not as a crash."""
from __future__ import annotations

from pathlib import Path

from loopback import Loopback
from loopback.botproc import BotProcess


async def test_a_token_reset_while_running_stops_the_bot_in_the_token_line(
        lb: Loopback, tmp_path: Path) -> None:
    proc = BotProcess(lb, tmp_path / "karak.sqlite3")
    try:
        await proc.start()
        lb.world.rest_api.token = "MTEwMDAwMDAwMDAwMDAwMDAwMQ.GReset.another-token-after-a-reset"
        await lb.gateway.drop(code=4004)  # authentication failed
        assert await proc.wait() == 2
    finally:
        await proc.stop()
    last = proc.log_text().strip().splitlines()[-1]
    assert last.startswith("Discord refused the token"), proc.log_tail()
    assert "Traceback" not in proc.log_text(), proc.log_tail()
    assert lb.breaches == []
