"""A private hand message belongs to its owner: a click on it by another player (Discord shows
an ephemeral message to its owner only; the stand-in forges the click) never redraws it with
the clicker's hand, never shows the owner's hand to the clicker, and gets a clear private
answer. The two players share a display name, so only seats and user ids tell them apart."""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from e2e.lobby import open_table
from e2e.messages import moves_of
from e2e.oracle import Oracle
from e2e.player import Player
from e2e.privacy import PrivacyWatch
from inprocess import live_bot

from loopback import Interaction, Loopback, Message, User

NOT_YOURS = "not yours"


def private_answer(lb: Loopback, ix: Interaction, user: User, clicked: Message) -> str:
    """What the interaction answered outside the ``clicked`` message, checked to be seen by
    ``user`` only."""
    texts = []
    for mid in {ix.original_id or clicked.id, *ix.followups} - {clicked.id}:
        m = lb.message(mid)
        assert m.owner == user.id, f"an answer to {user.name} was shown to others: {m.text()}"
        texts.append(m.text())
    return "\n".join(texts)


async def click_stale(lb: Loopback, who: User, hand: Message) -> Interaction:
    """``who`` clicks a move control of ``hand`` (forged: it may be another's message)."""
    cid, value = next(iter(moves_of(hand).values()))
    if value is None:
        return await lb.click(who, hand, cid, forge=True)
    return await lb.select(who, hand, cid, [value], forge=True)


@pytest.mark.parametrize("same_name", [True, False])
async def test_a_stale_hand_clicked_by_another_player_stays_its_owners(
        lb: Loopback, tmp_path: Path, same_name: bool) -> None:
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    ann = lb.create_user("Sam")
    bob = lb.create_user("Sam" if same_name else "Bob")
    db = tmp_path / "karak.sqlite3"
    oracle = Oracle(db)
    watch = PrivacyWatch(lb, seating=oracle.heroes)
    lb.watchers.append(watch)
    async with live_bot(lb, db) as bot:
        tid = await open_table(lb, channel, ann, [bob])
        rec = oracle.table(tid)
        owner = ann if rec.seats[rec.game.current].user == ann.id else bob
        other = bob if owner is ann else ann
        player = Player(lb, owner, channel, oracle, random.Random(3))
        # the owner opens their hand twice and plays in the newer message: the older is stale
        assert await player.open_hand(force=True)
        stale = player.hand()
        assert stale is not None
        player.asked.clear()
        assert await player.open_hand(force=True)
        sent = await player.send_move()
        assert sent is not None and sent[2].id != stale.id
        await player.finish_move(*sent)
        await bot.tasks.idle()
        assert oracle.table(tid).version > rec.version
        seen = (stale.revision, stale.text(), [a.filename for a in stale.attachments])

        # the other player clicks the owner's stale hand
        ix = await click_stale(lb, other, stale)
        await ix.done(10)
        await bot.tasks.idle()
        after = lb.message(stale.id)
        assert (after.revision, after.text(), [a.filename for a in after.attachments]) == seen
        assert NOT_YOURS in private_answer(lb, ix, other, stale)
        # the owner's hand was shown to nobody else: every hand message went to its owner
        assert watch.problems == [], watch.problems

        # the owner's own click on the stale hand still refreshes it in place
        ix = await click_stale(lb, owner, stale)
        await ix.done(10)
        await bot.tasks.idle()
        assert lb.message(stale.id).revision > seen[0]
        assert watch.hands_seen >= 3
        assert watch.problems == [], watch.problems
    assert lb.breaches == [], lb.breaches
