"""Rows of the tables read in bulk, damaged in the database (a value its column cannot hold,
as a bad disk or a careless hand leaves it): each hurts only its own row, named once in a
warning, never every other row read with it (PostgreSQL's column types refuse some of these
damages: skipped there)."""

from __future__ import annotations

import logging
import math

import pytest

from bot.game.standings import rate_result
from bot.storage.core.reminders import SENT
from bot.storage.interface import Storage
from bot.storage.records import (
    DamagedOffer,
    DamagedTournament,
    NewTournamentTable,
    RematchOffer,
    SeatInfo,
)
from storage.backends import Backend
from storage.helpers import (
    ANN,
    BOB,
    GUILD,
    PLACE,
    SEATS,
    Clock,
    finished,
    new_tournament,
    play_on,
    played,
    started,
)

ALONE = (SeatInfo(user=ANN, name="Ann", hero="horan"),
         SeatInfo(ai=True, hero="taia", level="hard"),
         SeatInfo(ai=True, hero="argentus", level="easy"))
CAT = 303
WITH_CAT = (SEATS[0], SeatInfo(user=CAT, name="Cat", hero="taia"), SEATS[2])


def warnings_of(caplog: pytest.LogCaptureFixture, *words: str) -> list[str]:
    """The warnings logged that hold every one of ``words``."""
    return [r.getMessage() for r in caplog.records
            if r.levelno == logging.WARNING and all(w in r.getMessage() for w in words)]


@pytest.mark.parametrize(("column", "value"), [
    ("mu", "x"), ("sigma", math.inf), ("games", 2.5), ("last_table", "t")])
async def test_a_damaged_rating_hurts_only_its_own_person(
        backend: Backend, store: Storage, caplog: pytest.LogCaptureFixture,
        column: str, value: object) -> None:
    """One person's damaged rating: the server's ratings read every other one, that person
    reads as unrated, and their next match ends and is rated (from a newcomer's rating, which
    mends the row) as any other."""
    await finished(store, 1, 1, rater=rate_result)
    bob = await store.rating_of(GUILD, BOB)
    await backend.damage_row("ratings", {"guild_id": GUILD, "user_id": ANN}, **{column: value})
    caplog.set_level(logging.WARNING)
    assert [r.user_id for r in await store.ratings(GUILD)] == [BOB]
    assert [r.user_id for r in await store.ratings(GUILD)] == [BOB]
    assert await store.rating_of(GUILD, ANN) is None
    assert await store.rating_of(GUILD, BOB) == bob
    assert len(warnings_of(caplog, "ratings", str(ANN))) == 1  # named once, not every read
    await finished(store, 2, 2, rater=rate_result)
    ann = await store.rating_of(GUILD, ANN)
    assert ann is not None and ann.games == 1
    again = await store.rating_of(GUILD, BOB)
    assert again is not None and bob is not None and again.games == bob.games + 1


@pytest.mark.parametrize(("column", "value"), [("games", "x"), ("wins", 1.5)])
async def test_a_damaged_record_against_the_ai_hurts_only_itself(
        backend: Backend, store: Storage, caplog: pytest.LogCaptureFixture,
        column: str, value: object) -> None:
    """One damaged record against the AI: the person's other records read, and their next
    match alone with the AI ends and counts as any other."""
    await finished(store, 1, 1, seats=ALONE, rater=rate_result)
    records = await store.ai_records(PLACE, ANN)
    assert len(records) == 2
    await backend.damage_row("ai_records", {"place_key": PLACE, "user_id": ANN,
                                            "level": "hard"}, **{column: value})
    caplog.set_level(logging.WARNING)
    assert await store.ai_records(PLACE, ANN) == [r for r in records if r.level != "hard"]
    assert len(warnings_of(caplog, "ai_records", str(ANN))) == 1
    await finished(store, 2, 2, seats=ALONE, rater=rate_result)
    assert len(await store.ai_records(PLACE, ANN)) == 2


@pytest.mark.parametrize("ready", ["[Ann", '{"Ann": 1}', '["Ann"]'])
async def test_a_damaged_rematch_offer_hurts_only_its_own_table(
        backend: Backend, store: Storage, clock: Clock, caplog: pytest.LogCaptureFixture,
        ready: str) -> None:
    """An open offer whose row is damaged is left out of the open offers (the others lapse
    and are drawn as ever), and said to be damaged when asked of by its table."""
    first = await finished(store, 1, 1)
    second = await finished(store, 2, 2)
    for tid in (first, second):
        assert await store.save_rematch(RematchOffer(tid, ANN, clock.now, (ANN,)))
    await backend.damage_row("rematches", {"table_id": first}, ready=ready)
    caplog.set_level(logging.WARNING)
    assert [o.table_id for o in await store.open_rematches()] == [second]
    assert [o.table_id for o in await store.open_rematches()] == [second]
    assert len(warnings_of(caplog, "rematches", str(first))) == 1
    with pytest.raises(DamagedOffer):  # asked of by name: said to be damaged
        await store.rematch_of(first)
    assert (await store.rematch_of(second)) is not None


@pytest.mark.parametrize(("table", "column", "value"), [
    ("tournaments", "ai_level", "godlike"), ("tournaments", "round", "two"),
    ("tournament_entrants", "joined_at", "noon"), ("tournament_entrants", "rating", 1.5)])
async def test_a_damaged_tournament_hurts_only_itself(
        backend: Backend, store: Storage, caplog: pytest.LogCaptureFixture, table: str,
        column: str, value: object) -> None:
    """A tournament one of whose rows is damaged (its own, or an entrant's): the place's
    tournaments list every other one, and it is said to be damaged when asked of by its id,
    named once in a warning."""
    first = await new_tournament(store)
    second = await new_tournament(store, name="Winter", channel_id=78)
    for cup in (first, second):
        assert await store.enter(cup.id, ANN, "Ann", 1500)
    where = ({"id": first.id} if table == "tournaments"
             else {"tournament_id": first.id, "user_id": ANN})
    await backend.damage_row(table, where, **{column: value})
    caplog.set_level(logging.WARNING)
    assert [t.id for t in await store.tournaments_of(PLACE, "signup", "running")] == (
        [second.id] if table == "tournaments" else [first.id, second.id])
    for _ in range(2):
        with pytest.raises(DamagedTournament):
            await store.tournament_rows(first.id)
    assert len(warnings_of(caplog, f"tournament {first.id}")) == 1
    rows = await store.tournament_rows(second.id)
    assert rows is not None and [e.user_id for e in rows.entrants] == [ANN]


@pytest.mark.parametrize(("table", "column", "value"), [
    ("seat_seen", "seen_at", "noon"), ("seat_seen", "seen_at", math.inf),
    ("reminders", "turn", "t"), ("reminders", "turn", 2.5)])
async def test_a_damaged_reminder_or_click_hurts_only_its_own_row(
        backend: Backend, store: Storage, clock: Clock, caplog: pytest.LogCaptureFixture,
        table: str, column: str, value: object) -> None:
    """A damaged reminder, or a damaged time of someone's last click: the reminders and clicks
    of every other person and table read (the pass of reminders goes on), it is left out,
    named once in a warning."""
    first = (await started(store, played(1).states[0], channel=1)).id
    second = (await started(store, played(2).states[0], channel=2)).id
    for tid in (first, second):
        for user in (ANN, BOB):
            await store.seen(tid, user, 100.0)
            assert await store.claim_reminder(tid, user, 1000, clock.now, SENT)
    await backend.damage_row(table, {"table_id": first, "user_id": ANN}, **{column: value})
    caplog.set_level(logging.WARNING)
    for _ in range(2):
        seen = await store.seen_at([first, second])
        done = await store.reminders_of([first, second])
    kept = {(first, BOB), (second, ANN), (second, BOB)}
    assert set(seen) == (kept if table == "seat_seen" else kept | {(first, ANN)})
    assert {(t, u) for t, u, _ in done} == (kept if table == "reminders"
                                            else kept | {(first, ANN)})
    assert len(warnings_of(caplog, table, str(first), str(ANN))) == 1


async def test_a_damaged_hint_is_said_to_be_so_and_replaced_when_worked_out_again(
        backend: Backend, store: Storage) -> None:
    """A hint kept damaged (a word where its bytes belong) is said to be damaged when read,
    not taken for none or for a hint, and a hint worked out again in its place replaces it;
    the hints of every other decision read as ever."""
    table = (await started(store, played(1).states[0], channel=1)).id
    assert await store.record_hint(table, 0, ANN, 0, b"first", 1.0) == b"first"
    assert await store.record_hint(table, 1, ANN, 0, b"next", 2.0) == b"next"
    assert await store.record_hint(table, 2, ANN, 0, b"bad", 2.0) == b"bad"
    assert await store.record_hint(table, 2, ANN, 0, b"good", 2.0, mend=True) == b"good"
    await backend.damage_row("hints", {"table_id": table, "version": 0}, answer="garbled")
    with pytest.raises(ValueError, match="answer"):
        await store.stored_hint(table, 0, ANN)
    assert await store.stored_hint(table, 1, ANN) == b"next"
    assert await store.record_hint(table, 0, ANN, 0, b"again", 3.0, mend=True) == b"again"
    assert await store.stored_hint(table, 0, ANN) == b"again"
    assert await store.hints_used(table) == {0: 3}


async def _seated(store: Storage, name: str, deadline: float | None,
                  channel: int) -> tuple[int, int]:
    """A tournament of Ann and Bob in ``channel`` whose first round seats them at one table
    until ``deadline``: its id and the table's."""
    cup = await new_tournament(store, name=name, channel_id=channel)
    for user in (ANN, BOB):
        assert await store.enter(cup.id, user, str(user), 1500)
    ids = await store.seat_tournament_round(
        cup.id, 0, 7, None, [NewTournamentTable(1, SEATS[:2], played(1, ("horan", "taia"))
                                                .states[0], 1, None)], deadline)
    assert ids is not None
    return cup.id, ids[0]


async def test_a_tournament_s_damaged_deadline_hurts_only_its_own_matches(
        backend: Backend, store: Storage, clock: Clock,
        caplog: pytest.LogCaptureFixture) -> None:
    """A running tournament whose deadline is damaged: the ends of the rounds of every other
    tournament's matches read (the pass of reminders, a person's list of their matches),
    its own matches read as of a round without a deadline, named once in a warning."""
    first, damaged = await _seated(store, "Spring", clock.now + 3600, 77)
    _, kept = await _seated(store, "Winter", clock.now + 7200, 78)
    await backend.damage_row("tournaments", {"id": first}, deadline="noon")
    caplog.set_level(logging.WARNING)
    for _ in range(2):
        assert await store.round_ends([damaged, kept]) == {kept: clock.now + 7200}
    assert len(warnings_of(caplog, f"tournament {first}")) == 1


async def test_a_tournament_s_damaged_table_row_is_left_out_of_its_matches(
        backend: Backend, store: Storage, caplog: pytest.LogCaptureFixture) -> None:
    """A damaged row of one of a tournament's tables: its other past matches are listed, the
    damaged one left out, named once in a warning."""
    cup = await new_tournament(store, name="Cup")
    for user in (ANN, BOB, CAT):
        assert await store.enter(cup.id, user, str(user), 1500)
    game = played(1)
    ids = await store.seat_tournament_round(
        cup.id, 0, 7, None, [NewTournamentTable(pod, seats, game.states[-2], 1, None)
                             for pod, seats in ((1, SEATS), (2, WITH_CAT))], None)
    assert ids is not None
    for tid in ids:
        await play_on(store, tid, game)
    assert [m.table_id for m in await store.tournament_matches(cup.id, PLACE)] == ids[::-1]
    await backend.damage_row("tournament_tables", {"table_id": ids[0]}, pod="one")
    caplog.set_level(logging.WARNING)
    for _ in range(2):
        assert [m.table_id for m in await store.tournament_matches(cup.id, PLACE)] == [ids[1]]
    assert len(warnings_of(caplog, "tournament_tables", str(ids[0]))) == 1


@pytest.mark.parametrize("value", ["noon", math.inf])
async def test_a_damaged_post_of_a_match_is_taken_as_expired(
        backend: Backend, store: Storage, clock: Clock, caplog: pytest.LogCaptureFixture,
        value: object) -> None:
    """A match's post in a channel whose time is damaged: the next claim of it is granted (as
    of a post whose window is over) and mends the row, named once in a warning; the posts of
    other channels are as ever."""
    tid = await finished(store, 1, channel=1)
    for channel in (50, 51):
        first = await store.claim_share(tid, channel, ANN, window=600, slowmode=0,
                                        posting=300)
        await store.share_posted(tid, channel, first.at, 777)
    await backend.damage_row("shares", {"table_id": tid, "channel_id": 50}, posted_at=value)
    caplog.set_level(logging.WARNING)
    clock.now += 1
    again = await store.claim_share(tid, 50, BOB, window=600, slowmode=0, posting=300)
    assert again.granted
    assert (await store.claim_share(tid, 50, ANN, window=600, slowmode=0,
                                    posting=300)).earlier is not None  # mended: BOB's now
    assert not (await store.claim_share(tid, 51, BOB, window=600, slowmode=0,
                                        posting=300)).granted
    assert len(warnings_of(caplog, "shares", str(tid))) == 1


@pytest.mark.parametrize("value", ["noon", math.inf])
async def test_a_damaged_time_of_a_person_s_last_share_is_taken_as_long_ago(
        backend: Backend, store: Storage, clock: Clock, caplog: pytest.LogCaptureFixture,
        value: object) -> None:
    """A person whose last share in a channel is kept damaged shares there again (as of a
    share older than the slowmode), named once in a warning; the slowmode holds after."""
    one, two, three = [await finished(store, s, channel=s) for s in (1, 2, 3)]
    assert (await store.claim_share(one, 50, ANN, window=600, slowmode=60,
                                    posting=300)).granted
    await backend.damage_row("sharers", {"channel_id": 50, "user_id": ANN}, shared_at=value)
    caplog.set_level(logging.WARNING)
    clock.now += 1
    assert (await store.claim_share(two, 50, ANN, window=600, slowmode=60,
                                    posting=300)).granted
    slowed = await store.claim_share(three, 50, ANN, window=600, slowmode=60, posting=300)
    assert slowed.wait_until == clock.now + 60
    assert len(warnings_of(caplog, "sharers", str(ANN))) == 1


@pytest.mark.parametrize("value", ["noon", math.inf])
async def test_a_damaged_lease_is_taken_as_expired(
        backend: Backend, store: Storage, clock: Clock, caplog: pytest.LogCaptureFixture,
        value: object) -> None:
    """A table whose lease's expiry is damaged (its owner gone by another name): it is listed
    among the lapsed ones and another owner's claim is granted, named once in a warning; the
    lease then holds as any other."""
    tid = (await started(store, played(1).states[0], channel=1)).id
    kept = (await started(store, played(2).states[0], channel=2)).id
    assert await store.claim(tid, "old", 15) and await store.claim(kept, "old", 15)
    await backend.damage_row("leases", {"table_id": tid}, expires_at=value)
    caplog.set_level(logging.WARNING)
    assert await store.lapsed() == [tid]
    assert await store.claim(tid, "new", 15)
    assert not await store.claim(tid, "other", 15)
    assert await store.lapsed() == []
    assert len(warnings_of(caplog, "leases", str(tid))) == 1


@pytest.mark.parametrize("value", ["Ann", 2.5])
async def test_a_damaged_host_of_a_table_does_not_keep_a_person_from_being_forgotten(
        backend: Backend, store: Storage, caplog: pytest.LogCaptureFixture,
        value: object) -> None:
    """A table whose host is kept damaged, whose seats hold Bob's id only in a name (a table
    forgetting must look at, not his): forgetting him goes on, the table left as it is, its
    damaged host named in a warning."""
    game = played(1)
    tid = (await started(store, game.states[0], channel=1, seats=(
        SEATS[0], SeatInfo(user=CAT, name=f"fan of {BOB}", hero="taia"), SEATS[2]))).id
    mine = await finished(store, 2, channel=2)
    await backend.damage_row("tables", {"id": tid}, host_id=value)
    caplog.set_level(logging.WARNING)
    forgotten = await store.forget_person(BOB)
    assert forgotten.tables == (mine,)
    assert not await store.keeps_about(BOB)
    assert len(warnings_of(caplog, "tables", str(tid), "host_id")) == 1


async def test_a_damaged_seating_holding_a_person_is_cleared_when_they_are_forgotten(
        backend: Backend, store: Storage, caplog: pytest.LogCaptureFixture) -> None:
    """A table whose seats are kept damaged (no longer JSON) while they still hold Bob's id
    and name: forgetting him goes on, and the damaged seats, which no reading could unname,
    are cleared (said in a warning); his other tables are forgotten as ever."""
    tid = await finished(store, 1, channel=1)
    mine = await finished(store, 2, channel=2)
    await backend.damage_row("tables", {"id": tid},
                             seats=f'[{{"user": {ANN}, "name": "Ann"}}, {{"user": {BOB}, "name')
    caplog.set_level(logging.WARNING)
    forgotten = await store.forget_person(BOB)
    assert set(forgotten.tables) == {tid, mine}
    assert not await store.keeps_about(BOB)
    rows = dict(await backend.read_rows("tables", ["id", "seats"]))
    assert str(BOB) not in str(rows[tid]) and "Bob" not in str(rows[tid])
    assert len(warnings_of(caplog, "tables", str(tid), "seats")) == 1


async def test_a_damaged_host_holding_the_person_s_id_is_given_the_pseudonym(
        backend: Backend, store: Storage, caplog: pytest.LogCaptureFixture) -> None:
    """A table whose host is kept damaged as a text still holding the person's id: forgetting
    them gives it the pseudonym (nothing keeps their id), and says so in a warning."""
    tid = (await started(store, played(1, ("horan", "argentus")).states[0],
                         seats=(SEATS[0], SEATS[2]), host=BOB)).id  # he left: not seated
    await backend.damage_row("tables", {"id": tid}, host_id=f"{BOB}x")
    caplog.set_level(logging.WARNING)
    forgotten = await store.forget_person(BOB)
    assert forgotten.tables == (tid,)
    [(host,)] = await backend.read_rows("tables", ["host_id"])
    assert host == forgotten.pseudonym
    assert len(warnings_of(caplog, "tables", str(tid), "host_id")) == 1
