"""The limit of matches one person plays at once, on the stand-in with the real discord.py
client: a host at the limit is told privately, and what they opened waits."""
from __future__ import annotations

from in_threads import started
from live_bot import LiveBot, table_id
from players import ANN

from bot.discord_side.ui.custom_ids import LobbyButton
from bot.game.limits import MATCH_LIMIT


async def test_the_bot_tells_a_host_at_the_limit_privately_and_keeps_the_lobby(
        h: LiveBot) -> None:
    """On the stand-in, threads on (each started match frees the channel): Ann starts as many
    matches as allowed; her next Start is answered privately and her lobby waits with its
    buttons; her /goblin learn is refused the same way, pointing to no table."""
    for _ in range(MATCH_LIMIT):
        await started(h)
    await h.command(ANN, "new")
    lobby = h.public()[-1]
    tid = table_id(lobby)
    await h.click(ANN, lobby, LobbyButton.id_for(tid, "ai", None))
    told = h.said(await h.click(ANN, h.lb.message(lobby.id),
                                LobbyButton.id_for(tid, "start", None)))
    assert told and told[0].startswith(f"You already play {MATCH_LIMIT} matches")
    assert (await h.bot.service.tables.load(tid)).status == "lobby"
    start = LobbyButton.id_for(tid, "start", None)
    assert any(c.startswith(start) for c in h.lb.message(lobby.id).custom_ids())
    learn = h.said(await h.command(ANN, "learn", channel=h.lb.dm(ANN)))
    assert learn == [told[0]]
