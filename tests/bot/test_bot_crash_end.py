"""A crash between the last move's commit and the result's post: the result is posted on the
next start, exactly once; a start longer after than the end's window shows it on the match's
last table message instead, posting nothing so late."""
from __future__ import annotations

from pathlib import Path

import pytest
from bot_helpers import Clock
from live_bot import LiveBot
from players import ANN, BOB, Players, TinyRenderer, open_table
from test_bot_outage import AnswerLost

from bot.discord_side.ui.custom_ids import HandButton
from bot.game.scheduler import ANNOUNCE_WINDOW
from engine import apply, observe
from engine.agents import make_agent
from loopback import Loopback


def game_overs(bot: LiveBot) -> list[str]:
    return [m.text() for m in bot.public() if "wins" in m.text()]


async def test_result_lost_in_a_crash_is_posted_on_restart(lb: Loopback, tmp_path: Path,
                                                            clock: Clock) -> None:
    db = tmp_path / "k.db"
    h1 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    tid = await open_table(h1, ANN, [BOB])
    players = Players(h1, tid, [ANN, BOB])
    svc = h1.bot.service
    for _ in range(3000):
        rec = await svc.tables.load(tid)
        state = rec.game
        obs = observe(state, state.current)
        action = make_agent("heuristic", state.step).choose(obs)
        if apply(state, action)[0].winner is not None:
            break
        assert await players.step()
    # the last move is committed, then the process dies before posting anything
    user = rec.seats[state.current].user
    assert user is not None
    await svc.play.act(tid, user, rec.version, str(action))
    await h1.stop()
    assert game_overs(h1) == []
    h2 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    assert tid in h2.bot.scheduler._resumed_ends  # taken up: no second post while it goes
    await h2.bot.scheduler._lease_pass()
    assert h2.bot.scheduler._resumed_ends == set()  # posted: nothing kept of it any more
    await h2.stop()
    assert len(game_overs(h2)) == 1
    [final] = [m for m in h2.public() if "wins" in m.text()]
    assert [c.split(":")[1] for c in final.custom_ids()] == ["rp", "rm"]
    h3 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)  # and only once
    await h3.stop()
    assert len(game_overs(h3)) == 1


async def test_result_lost_longer_ago_than_the_window_shows_on_its_table_message(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """A bot down for longer than the end's announcement window (a crash after the last move,
    then hours away): its restart posts no late result, but the match's last table message
    is brought to its end (who won, no hand button pinging a turn that never comes), once."""
    db = tmp_path / "k.db"
    h1 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    tid = await open_table(h1, ANN, [BOB])
    players = Players(h1, tid, [ANN, BOB])
    svc = h1.bot.service
    for _ in range(3000):
        rec = await svc.tables.load(tid)
        state = rec.game
        obs = observe(state, state.current)
        action = make_agent("heuristic", state.step).choose(obs)
        if apply(state, action)[0].winner is not None:
            break
        assert await players.step()
    user = rec.seats[state.current].user
    assert user is not None
    await svc.play.act(tid, user, rec.version, str(action))
    await h1.stop()
    before = len(h1.public())
    clock.now += ANNOUNCE_WINDOW + 3600  # the bot stays down for two hours
    h2 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    await h2.stop()
    assert len(h2.public()) == before  # nothing posted so late
    [final] = game_overs(h2)
    live = [m for m in h2.public() if any(c.startswith(HandButton.prefix)
                                          for c in m.custom_ids())]
    assert live == []  # no table left asking a person to play
    h3 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)  # and only once
    await h3.stop()
    assert game_overs(h3) == [final] and len(h3.public()) == before


@pytest.mark.parametrize("away", [300.0, ANNOUNCE_WINDOW + 3600])
async def test_a_result_whose_answer_was_lost_is_not_posted_again_on_restart(
        lb: Loopback, tmp_path: Path, clock: Clock, away: float) -> None:
    """Discord made the end's post but the connection dropped before the bot heard so (its
    result not known posted), then the bot restarted once Discord forgot the post's nonce
    (``away`` seconds later; past the end's window too): the restarted bot finds the result
    made instead of showing it a second time."""
    db = tmp_path / "k.db"
    h1 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    tid = await open_table(h1, ANN, [BOB])
    players = Players(h1, tid, [ANN, BOB])
    svc = h1.bot.service
    for _ in range(3000):
        rec = await svc.tables.load(tid)
        state = rec.game
        obs = observe(state, state.current)
        action = make_agent("heuristic", state.step).choose(obs)
        if apply(state, action)[0].winner is not None:
            break
        assert await players.step()
    lost = AnswerLost(h1)
    assert await players.step()  # the last move: its result is made, the answer lost
    await h1.settle()
    assert lost.lost
    [made] = game_overs(h1)
    await h1.stop()
    lb.clock.advance(away)  # Discord forgot the nonce meanwhile
    clock.now += away
    h2 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    await h2.stop()
    assert game_overs(h2) == [made]
    live = [m for m in h2.public() if any(c.startswith(HandButton.prefix)
                                          for c in m.custom_ids())]
    assert live == []  # the table message it replaced went, as after an answered post
