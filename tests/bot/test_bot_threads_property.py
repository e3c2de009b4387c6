"""Matches in threads crossing every feature, over seeded runs against the stand-in with the real
discord.py client: two matches run at once in threads of one channel while their people, by
seeded dice, play moves, take them back, ask for hints and open the Log; then one match is
abandoned from inside its thread (/goblin abandon there finds the thread's match) and the other's
thread is deleted. After every act: the channel holds only the matches' lines (no button, no
picture), every public message of a match is in its own thread, and each table stays in its
thread; at the end the lines say how each match ended and the logs are whole. (A match played to
its end, its Replay, Share and rematch: :mod:`test_bot_threads`.)"""
from __future__ import annotations

import asyncio
import random

import pytest
from in_threads import ThreadPlayers, started, table_message
from live_bot import GUILD, LiveBot, offered
from players import ANN, BOB

from bot.discord_side.ui.custom_ids import LogButton
from engine import Undo, observe
from engine.agents import make_agent
from loopback import Channel, User

#: Seeded runs, and the acts of each.
RUNS, ACTS = 3, 14
UNDO = str(Undo())


async def act(h: LiveBot, dice: random.Random, tid: int, user: User, thread: Channel) -> str:
    """One act of ``user`` at table ``tid``, drawn by ``dice``: a take-back when one is
    offered, a hint when one is offered, the Log, or a move; the act's name."""
    players = ThreadPlayers(h, tid, [user], thread)
    record = await h.bot.service.tables.load(tid)
    if record.status != "running":
        return "over"
    hand = await players.open_hand(user)
    moves = offered(hand)
    hint = next((c for c in hand.custom_ids() if c.startswith("kg:hint:")), None)
    roll = dice.random()
    if roll < 0.25 and UNDO in moves:
        await h.play(user, hand, UNDO)
        return "take-back"
    if roll < 0.45 and hint is not None:
        ix = await h.click(user, hand, hint)
        assert h.said(ix), "a hint is answered privately"
        return "hint"
    if roll < 0.6:
        ix = await h.click(user, table_message(h, thread), LogButton.id_for(tid))
        assert h.said(ix), "the Log is shown privately"
        return "log"
    state = record.game
    obs = observe(state, state.current)
    legal = [str(a) for a in obs.legal if not isinstance(a, Undo)]
    want = str(make_agent("heuristic", state.step).choose(obs))
    await h.play(user, hand, want if want in legal else legal[0])
    return "move"


def check(h: LiveBot, lines: list[int], matches: dict[int, Channel]) -> None:
    """The channel holds only the matches' lines; each match's messages are in its thread."""
    assert [m.id for m in h.public()] == lines
    for message in h.public():
        assert not message.custom_ids() and not message.attachments
    for tid, thread in matches.items():
        for message in h.public(thread):
            assert all(f":{tid}" in c for c in message.custom_ids()), message.custom_ids()


@pytest.mark.parametrize("seed", range(RUNS))
async def test_matches_in_threads_cross_every_feature(h: LiveBot, seed: int) -> None:
    dice = random.Random(seed)
    first, one = await started(h, ANN)
    second, two = await started(h, BOB)
    matches = {first: one, second: two}
    lines = [m.id for m in h.public()]
    assert len(lines) == 2
    done: list[str] = []
    for _ in range(ACTS):
        tid, user = dice.choice([(first, ANN), (second, BOB)])
        done.append(await act(h, dice, tid, user, matches[tid]))
        check(h, lines, matches)
        for table, thread in matches.items():
            record = await h.bot.service.tables.load(table)
            assert record.thread_id == thread.id and record.channel_id == h.channel.id
    assert {"move", "take-back", "hint", "log"} <= set(done), done  # every crossing met
    logs = {t: await h.store.action_log(t) for t in matches}
    # /goblin abandon inside the first thread closes that thread's match
    await h.abandon(ANN, channel=one)
    assert (await h.bot.service.tables.load(first)).status in ("abandoned", "finished")
    # the second thread is deleted by a moderator
    heard = asyncio.ensure_future(h.bot.wait_for("raw_thread_delete", timeout=10))
    h.lb.delete_thread(two)
    await heard
    await h.settle()
    assert (await h.bot.service.tables.load(second)).status in ("abandoned", "finished")
    texts = [h.lb.message(i).text() for i in lines]
    link = f"https://discord.com/channels/{GUILD}/"
    assert texts[0] == f"The match between Ann and 1 AI was abandoned →\u00a0{link}{one.id}", done
    assert texts[1] == ("The match between Bob and 1 AI was abandoned: its thread was deleted. "
                        "Its log is kept."), done
    for table in matches:
        assert (await h.store.action_log(table))[:len(logs[table])] == logs[table]
    assert await h.store.active_in_channel(h.channel.id) is None
