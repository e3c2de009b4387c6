"""What people are named, on the stand-in: a display name is text its person chose, shown as
typed and never a way to ping someone else."""
from __future__ import annotations

from live_bot import Call, LiveBot, User
from players import ANN, EVE, Players, open_table

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

