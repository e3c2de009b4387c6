"""A crash between the last move's commit and the result's post: the result is posted on the
next start, exactly once."""
from __future__ import annotations

from pathlib import Path

from discord_harness import FakeDiscord, Harness
from test_bot_discord import ANN, BOB, Players, TinyRenderer, open_table

from engine import apply, observe
from engine.agents import make_agent


def game_overs(fake: FakeDiscord) -> list[str]:
    return [m.content or "" for m in fake.public() if "wins" in m.text()]


async def test_result_lost_in_a_crash_is_posted_on_restart(fake: FakeDiscord,
                                                            tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    h1 = await Harness.start(fake, db, TinyRenderer())
    tid = await open_table(h1, ANN, [BOB])
    players = Players(h1, tid, [ANN, BOB])
    svc = h1.bot.service
    for _ in range(3000):
        rec = await svc.load(tid)
        state = rec.game
        obs = observe(state, state.current)
        action = make_agent("heuristic", state.step).choose(obs)
        if apply(state, action)[0].winner is not None:
            break
        assert await players.step()
    # the last move is committed, then the process dies before posting anything
    user = rec.seats[state.current].user
    assert user is not None
    await svc.act(tid, user, rec.version, str(action))
    await h1.stop()
    assert game_overs(fake) == []
    h2 = await Harness.start(fake, db, TinyRenderer())
    await h2.stop()
    assert len(game_overs(fake)) == 1
    assert not fake.public()[-1].custom_ids()
    h3 = await Harness.start(fake, db, TinyRenderer())  # and only once
    await h3.stop()
    assert len(game_overs(fake)) == 1
