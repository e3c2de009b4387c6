"""A crash between a move's commit and the post of the next turn's table message: on the next
start the table message shows the turn and the person to play is pinged, exactly once."""
from __future__ import annotations

from pathlib import Path

from bot_helpers import Clock
from live_bot import LiveBot
from players import ANN, BOB, Players, TinyRenderer, before_a_turn_ends, open_table

from loopback import Loopback


def pings(bot: LiveBot, user: int) -> list[int]:
    """The public messages that pinged ``user`` (a mention in a new message)."""
    return [m.id for m in bot.lb.messages.values() if m.owner is None and user in m.mentions]


async def test_a_turn_written_just_before_a_crash_pings_its_player_once(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    db = tmp_path / "k.db"
    h1 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    tid = await open_table(h1, ANN, [BOB])
    players = Players(h1, tid, [ANN, BOB])
    svc = h1.bot.service
    rec, state, action, after = await before_a_turn_ends(players)
    mover = rec.seats[state.current].user
    nxt = rec.seats[after.current].user
    assert mover is not None and nxt is not None and nxt != mover
    # the move is committed, then the process dies before posting anything
    await svc.play.act(tid, mover, rec.version, str(action))
    await h1.stop()
    before = pings(h1, nxt)
    h2 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    await h2.stop()
    new = [m for m in pings(h2, nxt) if m not in before]
    assert len(new) == 1, "the person to play is pinged once on restart"
    assert h2.last_table_message().id == new[0]
    h3 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)  # and only once
    await h3.stop()
    assert pings(h3, nxt) == [*before, *new]
