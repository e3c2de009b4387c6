"""A match's animation posted in a channel, through the storage interface on every backend and
by the stores' clock: one post per match and channel within the window (a later claim is shown
the earlier post), a person's shares in a channel spaced by its slowmode, a claim whose post
failed given up, what is stored kept across a restart, and of twenty claims at once from two
processes exactly one granted."""

from __future__ import annotations

import asyncio

from bot.storage.interface import Storage
from bot.storage.shares import ShareClaim, SharedPost
from storage.helpers import ANN, BOB, Clock, finished

WINDOW, POSTING = 600.0, 300.0


async def claim(store: Storage, table: int, channel: int, user: int,
                slowmode: float = 0.0) -> ShareClaim:
    """``user`` claims the post of ``table`` in ``channel``."""
    return await store.claim_share(table, channel, user, window=WINDOW, slowmode=slowmode,
                                   posting=POSTING)


async def test_one_post_per_match_and_channel_within_the_window(
        store: Storage, fresh: Storage, clock: Clock) -> None:
    tid, other = await finished(store, 1, channel=1), await finished(store, 2, channel=2)
    first = await claim(store, tid, 50, ANN)
    assert first.granted and first.at == clock.now
    clock.now += 5
    being = await claim(store, tid, 50, BOB)  # not posted yet: no message to point at
    assert being.earlier == SharedPost(tid, 50, ANN, first.at, None)
    await store.share_posted(tid, 50, first.at, 777)
    assert (await claim(store, other, 50, BOB)).granted  # another match
    assert (await claim(store, tid, 51, BOB)).granted  # another channel
    clock.now += WINDOW - 10
    later = await fresh.claim_share(tid, 50, BOB, window=WINDOW, slowmode=0, posting=POSTING)
    assert later.earlier == SharedPost(tid, 50, ANN, first.at, 777)  # after a restart too
    clock.now += 5
    assert (await claim(fresh, tid, 50, BOB)).granted  # the window is over


async def test_a_person_shares_in_a_channel_no_more_often_than_its_slowmode(
        store: Storage, clock: Clock) -> None:
    one, two, three = [await finished(store, s, channel=s) for s in (1, 2, 3)]
    first = await claim(store, one, 50, ANN, slowmode=60)
    assert first.granted
    clock.now += 20
    waited = await claim(store, two, 50, ANN, slowmode=60)
    assert waited.wait_until == first.at + 60 and not waited.granted
    assert (await claim(store, two, 50, BOB, slowmode=60)).granted  # another person
    assert (await claim(store, two, 51, ANN, slowmode=60)).granted  # another channel
    clock.now += 40
    assert (await claim(store, three, 50, ANN, slowmode=60)).granted
    assert (await claim(store, one, 51, ANN, slowmode=0)).granted  # no slowmode there


async def test_a_claim_whose_post_failed_is_given_up(store: Storage, clock: Clock) -> None:
    tid, other = await finished(store, 1, channel=1), await finished(store, 2, channel=2)
    first = await claim(store, tid, 50, ANN, slowmode=60)
    await store.drop_share(tid, 50, ANN, first.at)
    clock.now += 1
    again = await claim(store, other, 50, ANN, slowmode=60)  # not slowed by the failed one
    assert again.granted
    assert (await claim(store, tid, 50, BOB)).granted  # the match may be posted again


async def test_a_claim_that_never_got_its_message_lapses(store: Storage, clock: Clock) -> None:
    tid = await finished(store, 1, channel=1)
    first = await claim(store, tid, 50, ANN)
    clock.now += POSTING - 1
    assert (await claim(store, tid, 50, BOB)).earlier is not None
    clock.now += 1  # its poster stopped while drawing: anyone may post it
    assert (await claim(store, tid, 50, BOB)).granted
    await store.share_posted(tid, 50, first.at, 1)  # the first poster's late word changes nothing
    assert (await claim(store, tid, 50, ANN)).earlier == SharedPost(tid, 50, BOB,
                                                                    clock.now, None)


async def test_of_twenty_claims_at_once_from_two_processes_one_is_granted(
        store: Storage, fresh: Storage) -> None:
    tid = await finished(store, 1, channel=1)
    answers = await asyncio.gather(*(claim(s, tid, 50, 1000 + i)
                                     for i in range(10) for s in (store, fresh)))
    assert sum(a.granted for a in answers) == 1


async def test_a_post_whose_message_is_gone_lets_the_match_be_posted_again(
        store: Storage, clock: Clock) -> None:
    tid = await finished(store, 1, channel=1)
    first = await claim(store, tid, 50, ANN, slowmode=60)
    await store.share_posted(tid, 50, first.at, 777)
    clock.now += 5
    await store.share_gone(tid, 50, 778)  # another message: the post stands
    assert (await claim(store, tid, 50, BOB)).earlier == SharedPost(tid, 50, ANN, first.at, 777)
    await store.share_gone(tid, 50, 777)
    assert (await claim(store, tid, 50, ANN, slowmode=60)).wait_until == first.at + 60
    assert (await claim(store, tid, 50, BOB)).granted  # the sharer's turn is theirs still
