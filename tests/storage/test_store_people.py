"""A person forgotten on request, through the storage interface on every backend: after it
their id and their name are in no column of any table (every table the database has, found by
asking it, so a table added later and not handled fails here), while other people's results,
ratings, action logs and games read the same, and a rebuild of the ratings rates them the same;
on PostgreSQL a running bot hears of the change another process (the admin command) makes to
the table it plays; whether anything is still kept about a person is read from each kind of
row, and is no longer once they are forgotten."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import pytest
from postgres_server import Server

from bot.game.leases import Leases
from bot.game.places import Place, Sight
from bot.game.results import finished_result
from bot.game.service import GameService
from bot.game.standings import rate_result
from bot.storage.core import ratings as ratings_rows
from bot.storage.core import tables as tables_rows
from bot.storage.core.people import unnamed_state
from bot.storage.interface import Storage
from bot.storage.records import LogRow, NewTournamentTable, RematchOffer, SeatInfo
from engine import GameConfig, Phase, SeatConfig, apply, new_game, observe
from engine.agents import make_agent
from storage.backends import Backend, PostgresBackend
from storage.helpers import BOB, GUILD, PLACE, Clock, finished, play_on, played, started

#: The person forgotten: an id and a name found nowhere by chance.
ZED, ZED_NAME = 731234567890123456, "Zelda Quill"
SEATS = (SeatInfo(user=ZED, name=ZED_NAME, hero="horan"),
         SeatInfo(user=BOB, name="Bob", hero="taia"),
         SeatInfo(ai=True, hero="argentus", level="easy"))


async def play_named(store: Storage, seed: int, channel: int, seats: tuple[SeatInfo, ...],
                     guild: int | None = GUILD, host: int = ZED, upto: int | None = None,
                     leases: Leases | None = None) -> int:
    """A table whose game (its setup naming the seats' people) the normal AI plays, each
    person's moves logged as theirs, to its end (rated) or to move ``upto``. ``leases``: those
    of a bot running on ``store``, which holds the table while its moves are written (a pass of
    them meanwhile takes no part in it) and gives it up once it ended."""
    config = GameConfig(seats=tuple(SeatConfig(s.hero or "", name=s.name, ai=s.ai)
                                    for s in seats), seed=seed)
    state = new_game(config)
    rec = await store.create_table(guild_id=guild, place_key=Place.of(guild, host).key,
                                   channel_id=channel, host_id=host, seats=seats,
                                   abilities=False, timer=0, seed=seed)
    if leases is not None:
        assert await leases.holding(rec.id)
    await store.start_game(rec.id, seats, state, None)
    agents = [make_agent("normal", seed * 8 + i) for i in range(len(seats))]
    moves = 0
    while state.phase is not Phase.OVER and (upto is None or moves < upto):
        seat = state.current
        action = agents[seat].choose(observe(state, seat))
        after, _ = apply(state, action)
        user = seats[seat].user
        await store.apply(rec.id, state.step, after,
                          LogRow(after.step, seat, user, user is None, str(action), 0.0),
                          rater=rate_result)
        state, moves = after, moves + 1
    if leases is not None and state.phase is Phase.OVER:
        leases.forget(rec.id)
    return rec.id


def found(rows: dict[str, list[str]], text: str) -> list[str]:
    """The tables holding ``text`` (a number: as a whole number) in some column."""
    pattern = re.compile(rf"(?<![\d-]){re.escape(text)}(?!\d)")
    return sorted(t for t, values in rows.items() if any(pattern.search(v) for v in values))


async def kept_about_bob(store: Storage, tables: list[int]) -> object:
    """What Bob and anyone looking at these tables sees (the forgotten seat's id and name
    left out: only those may change)."""
    results = [r for r in await store.matches(PLACE, BOB)]
    games = []
    for tid in tables:
        rec = await store.get(tid)
        assert rec is not None and rec.state is not None
        games.append((rec.state.step, rec.state.seats, rec.state.winner, rec.status,
                      [s.hero for s in rec.seats],
                      [(r.seat, r.action, r.step, r.undone) for r in await store.action_log(tid)]))
    return (await store.rating_of(GUILD, BOB), await store.rating_changes(GUILD, BOB),
            [(r.table_id, r.winner_seat, [(s.place, s.keys, s.hp, s.kind) for s in r.seats])
             for r in results], games)


async def test_a_person_forgotten_is_found_nowhere_and_others_keep_their_past(
        backend: Backend, store: Storage, fresh: Storage, clock: Clock) -> None:
    rated = await play_named(store, 3, channel=1, seats=SEATS)
    alone = await play_named(store, 4, channel=2, guild=None,
                             seats=(SEATS[0], SeatInfo(ai=True, hero="taia", level="easy")))
    running = await play_named(store, 5, channel=3, seats=SEATS, host=BOB, upto=6)
    await store.record_hint(rated, 2, ZED, 0, b"answer", clock.now)
    await store.record_hint(rated, 3, BOB, 1, b"answer", clock.now)
    assert await store.claim_reminder(running, ZED, 86400, clock.now, "sent")
    await store.seen(running, ZED, clock.now)
    await store.note_dms_closed(ZED, clock.now)
    assert (await store.claim_share(rated, 50, ZED, window=600, slowmode=60,
                                    posting=300)).granted
    await store.save_rematch(RematchOffer(rated, ZED, clock.now, (ZED, BOB)))
    assert await store.ai_records(Place.dms(ZED).key, ZED)
    assert await store.rating_of(GUILD, ZED) is not None
    cup = await store.create_tournament(
        guild_id=GUILD, place_key=PLACE, channel_id=9, host_id=ZED, name="Cup", rounds=None,
        table_size=4, timer=0, abilities=False, ai_level=None, round_span=0, closes_at=None,
        seed=1, locale="en")
    assert await store.enter(cup.id, ZED, ZED_NAME, 1500)
    assert await store.enter(cup.id, BOB, "Bob", 1400)
    duel = new_game(GameConfig(seats=tuple(SeatConfig(s.hero or "", name=s.name)
                                           for s in SEATS[:2]), seed=8))
    assert await store.seat_tournament_round(
        cup.id, 0, 3, ZED, [NewTournamentTable(1, SEATS[:2], duel, 8, None)], None)
    before = await kept_about_bob(store, [rated, running])
    rows = await backend.every_row()
    assert found(rows, str(ZED)) and found(rows, ZED_NAME)  # the test sees them when there

    gone = await store.forget_person(ZED)

    assert gone.pseudonym < 0 and gone.anything
    rows = await backend.every_row()
    assert found(rows, str(ZED)) == [] and found(rows, ZED_NAME) == []
    for reader in (store, fresh):
        assert await kept_about_bob(reader, [rated, running]) == before
        assert await reader.rating_of(GUILD, ZED) is None
        assert await reader.ai_records(Place.dms(ZED).key, ZED) == []
        assert await reader.player_results(PLACE, ZED) == []
        seat = (await reader.get(running))
        assert seat is not None and seat.seats[0].user == gone.pseudonym
        assert seat.seats[0].name == "" and seat.game.config.seats[0].name == ""
        assert seat.game.config.seats[1].name == "Bob"
    kept = await store.tournament_rows(cup.id)
    assert kept is not None and kept.record.host_id == gone.pseudonym
    assert [(e.user_id, e.name) for e in kept.entrants] == [(gone.pseudonym, ""), (BOB, "Bob")]
    assert kept.rounds[0].bye_user == gone.pseudonym
    assert kept.tables[0].seats == (gone.pseudonym, BOB)
    offer = await store.rematch_of(rated)
    assert offer is not None and offer.ready == (gone.pseudonym, BOB)
    assert await store.hints_used(rated) == {1: 1}
    again = await store.forget_person(ZED)
    assert not again.anything and again.pseudonym != gone.pseudonym
    assert (await store.claim_share(rated, 51, ZED, window=600, slowmode=60,
                                    posting=300)).granted  # their slowmode went with them
    rebuilt = await store.recompute_ratings(rate_result)
    assert rebuilt == 2
    assert await kept_about_bob(store, [rated, running]) == before  # rated as before
    assert await store.rating_of(GUILD, gone.pseudonym) is None  # nothing of the pseudonym
    assert await store.rating_changes(GUILD, gone.pseudonym) == []
    for place in (PLACE, Place.dms(gone.pseudonym).key):
        assert await store.ai_records(place, gone.pseudonym) == []
    assert alone


async def test_two_people_forgotten_never_share_a_pseudonym(store: Storage) -> None:
    first = await play_named(store, 6, channel=1, seats=SEATS)
    one = await store.forget_person(ZED)
    two = await store.forget_person(BOB)
    assert one.pseudonym != two.pseudonym and two.pseudonym < 0
    rec = await store.get(first)
    assert rec is not None
    assert [s.user for s in rec.seats] == [one.pseudonym, two.pseudonym, None]


async def test_a_running_bot_hears_its_table_change_when_another_process_forgets(
        postgres_server: Server, clock: Clock) -> None:
    pg = PostgresBackend(postgres_server)
    bot, admin = await pg.open(clock), await pg.open(clock)
    try:
        heard: asyncio.Queue[int | None] = asyncio.Queue()
        await bot.subscribe(heard.put_nowait)
        running = await play_named(bot, 7, channel=1, seats=SEATS, host=BOB, upto=4)
        assert await bot.claim(running, "bot", 15.0)  # the bot plays this table
        done = await GameService(admin, clock=clock).people.forget(ZED)
        assert done.anything
        told = {await asyncio.wait_for(heard.get(), 30) for _ in range(2)}
        assert told == {running}  # its seat handed to the AI, then its names
        record = await bot.get(running)
        assert record is not None and record.status == "running"
        assert record.seats[0].ai and record.seats[0].user == done.store.pseudonym
    finally:
        await bot.close()
        await admin.close()


def test_a_state_saved_in_the_first_format_loses_the_name_too() -> None:
    saved = json.dumps({"format": 1, "state": {
        "config": {"seats": [{"hero": "horan", "name": ZED_NAME}, {"hero": "taia",
                                                                     "name": "Bob"}]},
        "log": [{"to": None, "text": {"key": "event.turn", "params": {"who": ZED_NAME}}},
                {"to": None, "text": {"key": "event.turn", "params": {"who": "Bob"}}}]}})
    text = unnamed_state(saved, [0], ZED_NAME)
    assert text is not None and ZED_NAME not in text and "Bob" in text
    assert json.loads(text)["state"]["log"][0]["text"]["params"]["who"] == {
        "key": "hero.horan.name", "params": []}
    assert unnamed_state("not a state", [0], ZED_NAME) == "not a state"  # damaged: left as it is


async def test_a_match_running_when_a_person_is_forgotten_rates_the_others_as_a_rebuild(
        store: Storage, clock: Clock) -> None:
    for seed in (1, 2, 3):  # Zed's rating is no newcomer's any more
        clock.now += 100
        await play_named(store, seed, channel=seed, seats=SEATS)
    clock.now += 100
    running = await play_named(store, 4, channel=4, seats=SEATS, upto=30)  # Zed moved
    assert await store.rating_of(GUILD, ZED) is not None

    await GameService(store, clock=clock).people.forget(ZED)  # the AI takes his seat

    record = await store.get(running)
    assert record is not None and record.status == "running" and record.seats[0].ai
    state = record.game
    agents = [make_agent("normal", 4 * 8 + i) for i in range(len(SEATS))]
    while state.phase is not Phase.OVER:  # the match goes on to its end, as the game plays it
        seat = state.current
        action = agents[seat].choose(observe(state, seat))
        after, _ = apply(state, action)
        user = None if record.seats[seat].ai else record.seats[seat].user
        row = LogRow(after.step, seat, user, user is None, str(action), 0.0)
        result = None if after.winner is None else finished_result(
            record, record.seats, after, [*await store.action_log(running), row], 0.0)
        await store.apply(running, state.step, after, row, rater=rate_result, result=result)
        state = after
    assert [c.user_id for c in await store.changes_of_table(running)] == []  # Bob alone
    live = (await store.rating_of(GUILD, BOB), await store.rating_changes(GUILD, BOB))

    await store.recompute_ratings(rate_result)

    assert (await store.rating_of(GUILD, BOB), await store.rating_changes(GUILD, BOB)) == live



async def test_a_person_named_as_a_word_of_the_game_leaves_their_matches_whole(
        store: Storage, clock: Clock) -> None:
    """Discord usernames are lowercase words: a person called as a hero ("horan"), a deck's
    stacking ("top") or a message's parameter ("who", "card") is forgotten, and the matches
    they played still read and replay as before (a running one goes on): only the name goes."""
    for seed, name in enumerate(("horan", "top", "who", "card"), start=10):
        forgotten = 700000000000000000 + seed
        seats = (SeatInfo(user=forgotten, name=name, hero="horan"), *SEATS[1:])
        rated = await play_named(store, seed, channel=1, seats=seats, host=BOB)
        running = await play_named(store, seed, channel=seed, seats=seats, host=BOB, upto=12)
        sight = Sight.of(Place.server(GUILD), None)
        before = (await GameService(store, clock=clock).history.replay(rated, sight)).replay

        await GameService(store, clock=clock).people.forget(forgotten)

        for table in (rated, running):
            record = await store.get(table)
            assert record is not None and record.state is not None, name
            assert [(s.hero, s.name) for s in record.game.config.seats] == [
                ("horan", ""), ("taia", "Bob"), ("argentus", "")], name
        after = (await GameService(store, clock=clock).history.replay(rated, sight)).replay
        assert (after.last, after.final.seats, after.final.winner) == (
            before.last, before.final.seats, before.final.winner), name


async def test_a_replay_kept_by_another_process_loses_the_name_forgotten(
        postgres_server: Server, clock: Clock) -> None:
    """Several bot processes share a PostgreSQL database: a person forgotten through one of
    them (or the admin command) is gone from the replay another process built and kept of a
    match they played."""
    pg = PostgresBackend(postgres_server)
    bot, admin = await pg.open(clock), await pg.open(clock)
    try:
        rated = await play_named(bot, 3, channel=1, seats=SEATS, host=BOB)
        history = GameService(bot, clock=clock).history
        sight = Sight(Place.server(GUILD))
        before = await history.replay(rated, sight)
        assert before.replay.final.config.seats[0].name == ZED_NAME

        await GameService(admin, clock=clock).people.forget(ZED)

        after = await history.replay(rated, sight)
        assert after.replay.final.config.seats[0].name == ""
        told = [line for step in range(after.replay.last + 1)
                for line in after.replay.narration(step, "en")]
        assert told and not [line for line in told if ZED_NAME in line]
    finally:
        await bot.close()
        await admin.close()


async def _lobby_seat(store: Storage, clock: Clock) -> None:
    await store.create_table(guild_id=GUILD, place_key=PLACE, channel_id=1, host_id=BOB,
                             seats=(SEATS[1], SEATS[0]), abilities=False, timer=0, seed=1)


async def test_a_match_of_their_direct_messages_is_not_shared_once_they_are_forgotten(
        backend: Backend, store: Storage, fresh: Storage) -> None:
    """Zed opened the replay of a match of their direct messages, then was forgotten (by
    another process too) before their Share was claimed: the claim is refused, and no row ties
    Zed, or the channel of their direct messages, to that match again. A match of a server
    they played in is still theirs to share: a share is a new act, naming no seat."""
    dms = 424242424242424242
    alone = await play_named(store, 4, channel=dms, guild=None,
                             seats=(SEATS[0], SeatInfo(ai=True, hero="taia", level="easy")))
    rated = await play_named(store, 3, channel=1, seats=SEATS)
    await store.forget_person(ZED)

    for claimer in (fresh, store):
        refused = await claimer.claim_share(alone, dms, ZED, window=600, slowmode=0,
                                            posting=300)
        assert refused.not_theirs and not refused.granted
    rows = await backend.every_row()
    assert found(rows, str(ZED)) == [] and found(rows, str(dms)) == []
    assert not (await store.claim_share(alone, 51, BOB, window=600, slowmode=0,
                                        posting=300)).granted  # never Bob's either
    assert (await store.claim_share(rated, 51, ZED, window=600, slowmode=0,
                                    posting=300)).granted


async def _lobby_hosted(store: Storage, clock: Clock) -> None:
    await store.create_table(guild_id=GUILD, place_key=PLACE, channel_id=1, host_id=ZED,
                             seats=(SEATS[1],), abilities=False, timer=0, seed=1)


async def _played(store: Storage, clock: Clock) -> None:
    await play_named(store, 3, channel=1, seats=SEATS, host=BOB)


async def _shared(store: Storage, clock: Clock) -> None:
    """Zed shared Bob's match against the AI, where Zed never sat."""
    tid = await play_named(store, 4, channel=1, seats=(SEATS[1], SEATS[2]), host=BOB)
    assert (await store.claim_share(tid, 50, ZED, window=600, slowmode=60,
                                    posting=300)).granted


async def _notify(store: Storage, clock: Clock) -> None:
    await store.set_notify(ZED, False)


async def _dms_closed(store: Storage, clock: Clock) -> None:
    await store.note_dms_closed(ZED, clock.now)


async def _entrant(store: Storage, clock: Clock) -> None:
    cup = await store.create_tournament(
        guild_id=GUILD, place_key=PLACE, channel_id=9, host_id=BOB, name="Cup", rounds=None,
        table_size=4, timer=0, abilities=False, ai_level=None, round_span=0, closes_at=None,
        seed=1, locale="en")
    assert await store.enter(cup.id, ZED, ZED_NAME, 1500)


@pytest.mark.parametrize("keep", [_lobby_seat, _lobby_hosted, _played, _shared, _notify,
                                  _dms_closed, _entrant], ids=lambda f: f.__name__[1:])
async def test_what_is_kept_about_a_person_is_found_and_gone_once_forgotten(
        store: Storage, fresh: Storage, clock: Clock,
        keep: Callable[[Storage, Clock], Awaitable[None]]) -> None:
    """Whether the store keeps anything about Zed: nothing at first; yes after any one kind of
    row that holds them (a reader opened before sees it too); no once they are forgotten, while
    Bob, who played or hosted beside them, is still known."""
    assert not await store.keeps_about(ZED)
    await keep(store, clock)
    assert await store.keeps_about(ZED) and await fresh.keeps_about(ZED)
    assert (await store.forget_person(ZED)).anything
    assert not await store.keeps_about(ZED) and not await fresh.keeps_about(ZED)
    assert await store.keeps_about(BOB) == (keep not in (_notify, _dms_closed))


async def test_a_match_another_process_ends_while_its_person_is_forgotten_keeps_nothing_of_them(
        postgres_server: Server, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    """On PostgreSQL another process writes the winning move of a match the person plays (its
    result and their new rating) while they are being forgotten: whichever transaction comes
    first, no rating, rating change or result of theirs is left under their id, and the match
    is rated (Bob's rating stays)."""
    pg = PostgresBackend(postgres_server)
    forgetting, playing = await pg.open(clock), await pg.open(clock)
    try:
        game = played(1)
        rec = await started(playing, game.states[-2], seats=SEATS, host=BOB)
        rated, go, renaming = asyncio.Event(), asyncio.Event(), asyncio.Event()
        real_result = tables_rows.store_result

        async def held_open(*args: Any, **kwargs: Any) -> None:
            """The match's result and ratings written, its transaction not yet committed."""
            await real_result(*args, **kwargs)
            rated.set()
            await go.wait()

        monkeypatch.setattr(tables_rows, "store_result", held_open)
        real_rename = forgetting._rename_tables

        async def renames(*args: Any) -> list[int]:
            renaming.set()
            return await real_rename(*args)

        monkeypatch.setattr(forgetting, "_rename_tables", renames)
        last = len(game.moves) - 1
        move = asyncio.create_task(playing.apply(rec.id, last, game.final, game.log_row(last),
                                                 rater=rate_result))
        await rated.wait()
        forget = asyncio.create_task(forgetting.forget_person(ZED))
        await renaming.wait()
        go.set()
        await move
        await forget
        assert not await forgetting.keeps_about(ZED)
        assert [r.user_id for r in await forgetting.ratings(GUILD)] == [BOB]
        assert await forgetting.rating_changes(GUILD, ZED) == []
    finally:
        await forgetting.close()
        await playing.close()


async def test_a_rebuild_of_the_ratings_as_a_person_is_forgotten_keeps_nothing_of_them(
        postgres_server: Server, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    """On PostgreSQL an admin rebuilds a server's ratings (``ratings --recompute --guild``)
    while another process forgets a person rated there: the rebuild's rows, written from the
    results as they were before, are not left under the person's id once both are done."""
    pg = PostgresBackend(postgres_server)
    forgetting, rebuilding = await pg.open(clock), await pg.open(clock)
    try:
        game = played(1)
        rec = await started(rebuilding, game.states[-2], seats=SEATS, host=BOB)
        await play_on(rebuilding, rec.id, game, rater=rate_result)
        assert ZED in {r.user_id for r in await rebuilding.ratings(GUILD)}
        saved, go = asyncio.Event(), asyncio.Event()
        real_save = ratings_rows.save

        async def held_open(*args: Any, **kwargs: Any) -> None:
            """The rebuilt rows written, the rebuild's transaction not yet committed."""
            await real_save(*args, **kwargs)
            saved.set()
            await go.wait()

        monkeypatch.setattr(ratings_rows, "save", held_open)
        rebuild = asyncio.create_task(rebuilding.recompute_ratings(rate_result, GUILD))
        await saved.wait()
        forget = asyncio.create_task(forgetting.forget_person(ZED))
        while not await rebuilding._read.fetchrow(  # the forgetting waits for the rebuild
                "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock'"):
            assert not forget.done(), forget.exception()
        go.set()
        await rebuild
        await forget
        assert not await forgetting.keeps_about(ZED)
        assert [r.user_id for r in await forgetting.ratings(GUILD)] == [BOB]
    finally:
        await forgetting.close()
        await rebuilding.close()


async def test_a_rebuild_of_the_ratings_begun_as_a_person_is_forgotten_reads_them_forgotten(
        postgres_server: Server, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    """The other way round: the rebuild of a server's ratings begins while a forgetting is
    written, not yet committed; it reads the results once the person is forgotten (their
    pseudonym), so it writes nothing under their id."""
    pg = PostgresBackend(postgres_server)
    forgetting, rebuilding = await pg.open(clock), await pg.open(clock)
    try:
        game = played(1)
        rec = await started(rebuilding, game.states[-2], seats=SEATS, host=BOB)
        await play_on(rebuilding, rec.id, game, rater=rate_result)
        written, go = asyncio.Event(), asyncio.Event()
        real_wrote = forgetting._wrote

        async def held_open(*args: Any) -> bool:
            """The forgetting written, its transaction not yet committed."""
            written.set()
            await go.wait()
            return await real_wrote(*args)

        monkeypatch.setattr(forgetting, "_wrote", held_open)
        forget = asyncio.create_task(forgetting.forget_person(ZED))
        await written.wait()
        rebuild = asyncio.create_task(rebuilding.recompute_ratings(rate_result, GUILD))
        while not await forgetting._read.fetchrow(  # the rebuild waits for the forgetting
                "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock'"):
            assert not rebuild.done(), rebuild.exception()
        go.set()
        await forget
        await rebuild
        assert not await forgetting.keeps_about(ZED)
        assert [r.user_id for r in await forgetting.ratings(GUILD)] == [BOB]
    finally:
        await forgetting.close()
        await rebuilding.close()


async def _a_click_s_rows(store: Storage, table_id: int, version: int) -> bytes:
    """What a click of Zed's at table ``table_id`` writes about them there: the hint they asked
    for, the reminder of their turn, and that they were active; the hint they are given."""
    given = await store.record_hint(table_id, version, ZED, 0, b"hint", 5.0)
    await store.claim_reminder(table_id, ZED, 7, 6.0, "sent")
    await store.seen(table_id, ZED, 8.0)
    return given


async def test_a_click_read_before_a_person_was_forgotten_keeps_nothing_of_them(
        store: Storage) -> None:
    """Zed's click read their table before another process forgot them and writes after it:
    they get their hint, but no hint, reminder or click is kept under their id at the table
    where their seat now holds the pseudonym."""
    rec = await started(store, played(3).states[0], seats=SEATS, host=BOB)
    await store.forget_person(ZED)
    assert await _a_click_s_rows(store, rec.id, rec.version) == b"hint"
    assert not await store.keeps_about(ZED)
    assert await store.hints_used(rec.id) == {}


async def test_a_rematch_click_read_before_a_person_was_forgotten_keeps_nothing_of_them(
        store: Storage, clock: Clock) -> None:
    """Zed's Rematch or Ready click read their finished table before another process forgot
    them and writes after it: nothing is written (the click, read again, finds them no longer
    at the table), and no offer names them."""
    offered = await finished(store, 4, channel=3, seats=SEATS, host=BOB)
    alone = await finished(store, 5, channel=4, seats=SEATS, host=BOB)
    bob_s = RematchOffer(offered, BOB, clock.now, (BOB,))
    assert await store.save_rematch(bob_s)
    await store.forget_person(ZED)
    assert not await store.save_rematch(replace(bob_s, ready=(BOB, ZED)), bob_s)
    assert not await store.save_rematch(RematchOffer(alone, ZED, clock.now, (ZED,)))
    assert await store.rematch_of(offered) == bob_s and await store.rematch_of(alone) is None
    assert not await store.keeps_about(ZED)


@pytest.mark.parametrize("where", ["running", "finished"])
async def test_a_click_written_while_a_person_is_being_forgotten_keeps_nothing_of_them(
        postgres_server: Server, clock: Clock, monkeypatch: pytest.MonkeyPatch,
        where: str) -> None:
    """On PostgreSQL, Zed's click in one process writes while another process forgets them
    (after the forgetting deleted or renamed their rows, before it ends): at a running table
    a hint, a reminder, a click noted; at a finished one, Ready on Bob's rematch offer. The
    click waits for the forgetting, finds them forgotten, and keeps nothing under their id."""
    backend = PostgresBackend(postgres_server)
    mine, theirs, watcher = (await backend.open(clock), await backend.open(clock),
                             await backend.open(clock))
    try:
        if where == "running":
            rec = await started(mine, played(3).states[0], seats=SEATS, host=BOB)

            async def write() -> object:
                return await _a_click_s_rows(mine, rec.id, rec.version)
        else:
            tid = await finished(mine, 4, channel=3, seats=SEATS, host=BOB)
            bob_s = RematchOffer(tid, BOB, clock.now, (BOB,))
            assert await mine.save_rematch(bob_s)

            async def write() -> object:
                return await mine.save_rematch(replace(bob_s, ready=(BOB, ZED)), bob_s)
        click: list[asyncio.Task[object]] = []
        wrote = theirs._wrote  # type: ignore[attr-defined]

        async def paused(*args: Any) -> None:  # the forgetting's last step, before it ends
            if not click:
                click.append(asyncio.create_task(write()))
                while not click[0].done() and (await watcher._read.fetchrow(  # type: ignore[attr-defined]
                        "SELECT COUNT(*) FROM pg_locks WHERE NOT granted"))[0] == 0:
                    await asyncio.sleep(0.01)  # until the click is written, or waits
            await wrote(*args)
        monkeypatch.setattr(theirs, "_wrote", paused)
        await theirs.forget_person(ZED)
        assert await click[0] in (b"hint", False)
        assert not await mine.keeps_about(ZED)
    finally:
        for store in (mine, theirs, watcher):
            await store.close()
