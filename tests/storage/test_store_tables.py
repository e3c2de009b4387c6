"""The stored tables through the storage interface: a move and its log row are one write, the
log keeps the order moves were applied (a step may come back after an undo), everything survives
a restart, a damaged column hurts its own table only, and the servers' settings and the bot's
metadata are kept; a table opened as its server's language changes speaks the new one."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.game.places import Place
from bot.storage.interface import Storage
from bot.storage.records import (
    CorruptTable,
    LogRow,
    RematchOffer,
    SeatInfo,
    ServerDefaults,
    StaleVersion,
    StorageError,
    TableExists,
    with_seat,
)
from storage.backends import Backend
from storage.helpers import (
    ANN,
    BOB,
    GUILD,
    SEATS,
    Clock,
    before_commit,
    finished,
    new_tournament,
    play_on,
    played,
    started,
    waits_for_lock,
)
from storage.old_bots import old_rows


async def test_a_lobby_becomes_a_game_and_the_channel_holds_one_table(store: Storage) -> None:
    lobby = await store.create_table(guild_id=GUILD, place_key=Place.of(GUILD, ANN).key,
                                     channel_id=1, host_id=ANN, seats=SEATS[:1],
                                     abilities=True, timer=60, seed=5, locale="fr",
                                     ai_level="hard")
    assert (lobby.status, lobby.version, lobby.state, lobby.ai_level) == ("lobby", 0, None, "hard")
    with pytest.raises(TableExists) as info:
        await store.create_table(guild_id=GUILD, place_key=Place.of(GUILD, ANN).key,
                                 channel_id=1, host_id=ANN, seats=SEATS[:1],
                                 abilities=False, timer=0, seed=6)
    assert info.value.table_id == lobby.id
    await store.update_lobby(lobby.id, SEATS, host_id=202)
    moved = await store.get(lobby.id)
    assert moved is not None and moved.seats == SEATS and moved.host_id == 202
    assert moved.revision == lobby.revision + 1
    state = played(1).states[0]
    await store.start_game(lobby.id, SEATS, state, deadline=123.0)
    game = await store.get(lobby.id)
    assert game is not None and (game.status, game.state, game.deadline) == (
        "running", state, 123.0)
    assert await store.active_in_channel(1) == lobby.id
    assert await store.active_in_guild(GUILD) == [lobby.id]
    assert await store.ids_with_status("running") == [lobby.id]
    assert await store.timers() == [(lobby.id, game.version, 123.0)]
    await store.set_status(lobby.id, "abandoned")
    assert await store.timers() == []
    assert await store.active_in_channel(1) is None
    assert await store.history() == [lobby.id]


async def test_a_deleted_channel_takes_its_lobbies_and_matches_and_its_threads(
        store: Storage) -> None:
    state = played(1).states[0]
    here = await started(store, state, channel=10)  # played in the channel
    ended = await started(store, state, channel=20)
    await store.set_status(ended.id, "abandoned")
    threaded = await started(store, state, channel=20)
    await store.set_thread(threaded.id, 21, True)  # played in a thread of channel 20
    lobby = await store.create_table(guild_id=GUILD, place_key=Place.of(GUILD, ANN).key,
                                     channel_id=20, host_id=ANN, seats=SEATS[:1],
                                     abilities=False, timer=0, seed=1)
    in_thread = await started(store, state, channel=22)  # opened in a thread people made
    assert await store.active_within(20) == [threaded.id, lobby.id]
    assert await store.active_within(21) == [threaded.id]  # the thread: its match
    assert await store.active_within(22) == [in_thread.id]
    assert await store.active_within(10) == [here.id]
    assert await store.active_within(99) == []



async def test_a_deleted_thread_is_named_by_none_of_the_matches_that_ended_in_it(
        store: Storage, fresh: Storage) -> None:
    """Thread 21 of channel 20 deleted: the finished and abandoned matches played in it no
    longer name it (their messages go to the channel, where the history places them), for
    this process, which read one before, and another; a running match in it is left to its closing,
    and a match of another thread is untouched. The history tells a match bound for a thread
    that has none (deleted, or never opened) from one played in its channel."""
    game = played(1)
    ended = []
    for thread in (21, 21, 23, None):  # ended in thread 21 (twice), in 23, in no thread
        record = await started(store, game.states[0], channel=20)
        await store.set_thread(record.id, thread, True)
        await store.set_status(record.id, "abandoned")
        ended.append(record.id)
    done = await finished(store, 2, channel=20)
    await store.set_thread(done, 21, True)
    running = await started(store, game.states[0], channel=20)
    await store.set_thread(running.id, 21, True)
    plain = await started(store, game.states[0], channel=20)  # played in the channel
    await store.set_status(plain.id, "abandoned")
    assert (await store.get(done)).thread_id == 21  # type: ignore[union-attr]
    assert await store.thread_gone(21) == [ended[0], ended[1], done]
    for table in (ended[0], ended[1], done):
        for reader in (store, fresh):
            record = await reader.get(table)
            assert record is not None and record.thread_id is None and record.where == 20
            assert record.threaded and record.status in ("finished", "abandoned")
    assert (await store.get(running.id)).thread_id == 21  # type: ignore[union-attr]
    assert await store.thread_gone(21) == []
    assert await store.threads_of([*ended, done, running.id, plain.id]) == {
        ended[0]: None, ended[1]: None, ended[2]: 23, ended[3]: None, done: None,
        running.id: 21}


async def test_a_guided_match_bound_for_a_thread_takes_no_place_in_its_channel(
        store: Storage) -> None:
    """A guided match that moves to a thread of its own opens, and runs, beside the lobby of
    its channel (two of them by two people too), and a lobby opens beside it; one played in
    the channel itself (threads off) is refused there, as any table is. The channel's table
    is found before the guided matches, but the one a person sits at first."""
    async def table(host: int, lessons: bool = False, threaded: bool = False) -> int:
        return (await store.create_table(
            guild_id=GUILD, place_key=Place.of(GUILD, host).key, channel_id=1, host_id=host,
            seats=(SeatInfo(user=host, name="x"),), abilities=False, timer=0, seed=1,
            lessons=lessons, threaded=threaded)).id

    bob = await table(BOB, lessons=True, threaded=True)
    lobby = await table(ANN)
    eve = await table(303, lessons=True, threaded=True)
    with pytest.raises(TableExists) as info:
        await table(404, lessons=True)
    assert info.value.table_id == lobby
    with pytest.raises(TableExists) as info:
        await table(404, threaded=True)
    assert info.value.table_id == lobby
    await store.start_game(bob, SEATS, played(1).states[0], None)
    assert await store.active_in_channel(1) == lobby
    assert await store.active_in_channel(1, BOB) == bob
    assert await store.active_in_channel(1, 303) == eve
    await store.set_status(lobby, "abandoned")
    assert await store.active_in_channel(1) == bob
    await store.set_thread(bob, 21, True)
    assert await store.active_in_channel(1) == eve
    assert await store.active_in_channel(21) == bob
    assert await table(ANN) > eve  # a lobby opens beside the guided matches


async def test_a_lobby_change_is_written_only_at_the_revision_it_was_decided_on(
        store: Storage, fresh: Storage) -> None:
    """Another process (``fresh``) changed the lobby after this one read it: a seat taken
    or left, the lobby started or closed at the revision read is refused, nothing written."""
    lobby = await store.create_table(guild_id=GUILD, place_key=Place.of(GUILD, ANN).key,
                                     channel_id=1, host_id=ANN, seats=SEATS[:1],
                                     abilities=False, timer=0, seed=5)
    read = lobby.revision
    await fresh.update_lobby(lobby.id, SEATS[:2], revision=read)  # Bob joins there
    with pytest.raises(StaleVersion):  # an AI seat added to the lobby without Bob
        await store.update_lobby(lobby.id, (SEATS[0], SEATS[2]), revision=read)
    with pytest.raises(StaleVersion):  # Ann, alone as she saw it, leaves
        await store.set_status(lobby.id, "abandoned", read)
    with pytest.raises(StaleVersion):  # a Start without Bob
        await store.start_game(lobby.id, SEATS[:1] + SEATS[2:], played(1).states[0], None,
                               read)
    now = await store.get(lobby.id)
    assert now is not None and (now.status, now.seats, now.revision) == (
        "lobby", SEATS[:2], read + 1)
    state = played(1).states[0]
    await fresh.start_game(lobby.id, SEATS, state, None, now.revision)
    with pytest.raises(StaleVersion):  # a Cancel decided on the lobby: the match goes on
        await store.set_status(lobby.id, "abandoned", now.revision)
    running = await store.get(lobby.id)
    assert running is not None and running.status == "running"
    gone = with_seat(SEATS, 1, SEATS[1].model_copy(update={"ai": True}))
    await fresh.update_seats(lobby.id, running.version, gone, revision=running.revision)
    with pytest.raises(StaleVersion):  # Ann's seat handed to the AI on the seats before
        await store.update_seats(lobby.id, running.version,
                                 with_seat(SEATS, 0, SEATS[0].model_copy(update={"ai": True})),
                                 host_id=BOB, revision=running.revision)
    last = await store.get(lobby.id)
    assert last is not None and (last.seats, last.host_id) == (gone, ANN)

async def test_the_log_keeps_the_order_moves_were_applied(store: Storage, clock: Clock) -> None:
    game = played(1)
    rec = await started(store, game.states[0])
    await play_on(store, rec.id, game, upto=3)
    # a step that comes back (after an undo) is logged again, after the others
    again = LogRow(step=3, seat=game.moves[2][0], user_id=ANN, by_ai=False,
                   action=game.moves[2][1], at=clock.now)
    await store.apply(rec.id, 3, game.states[3], again)
    log = await store.action_log(rec.id)
    assert [(r.step, r.action) for r in log] == [
        (1, game.moves[0][1]), (2, game.moves[1][1]), (3, game.moves[2][1]),
        (3, game.moves[2][1])]
    assert log[-1] == again and not any(r.undone for r in log)


async def test_a_restart_keeps_everything(backend: Backend, store: Storage,
                                          clock: Clock) -> None:
    game = played(1)
    rec = await started(store, game.states[0])
    await play_on(store, rec.id, game, upto=5)
    await store.set_message(rec.id, message_id=77, lobby_message_id=78)
    await store.set_guild_settings(GUILD, ServerDefaults(True, 300, "easy"))
    await store.set_meta("k", "v")
    before = await store.get(rec.id)
    log = await store.action_log(rec.id)
    await store.close()  # closing a closed store again (the fixture does) is harmless
    again = await backend.open(clock)
    try:
        assert await again.get(rec.id) == before
        assert await again.action_log(rec.id) == log
        assert await again.guild_settings(GUILD) == ServerDefaults(True, 300, "easy")
        assert await again.get_meta("k") == "v"
        await play_on(again, rec.id, game, upto=6)
        assert [r.step for r in await again.action_log(rec.id)] == [1, 2, 3, 4, 5, 6]
    finally:
        await again.close()


#: Damage to ordinary columns (not the game state): (column, stored value).
DAMAGE = [
    ("guild_id", "guild"), ("channel_id", "chan"), ("host_id", "host"), ("timer", "soon"),
    ("deadline", "tomorrow"), ("seed", 1.5), ("version", "v"), ("message_id", b"\0"),
    ("created_at", "then"), ("updated_at", "later"), ("locale", ""), ("seats", "[1"),
    ("winner", "nobody"), ("ai_level", "godlike"), ("catalogue", b"\0"),
    ("seats", '[{"user":1,"name":"Ann","ai":false},{"ai":true,"level":"godlike"}]'),
]


@pytest.mark.parametrize(("column", "value"), DAMAGE)
async def test_a_damaged_column_only_hurts_its_table(
        backend: Backend, store: Storage, column: str, value: object) -> None:
    state = played(1).states[0]
    damaged = await started(store, state, channel=1)
    healthy = await started(store, state, channel=2)
    await backend.damage_table(store, damaged.id, **{column: value})
    with pytest.raises(CorruptTable) as info:
        await store.get(damaged.id)
    assert info.value.table_id == damaged.id
    assert await store.get(healthy.id) == healthy
    assert await store.ids_with_status("running") == [damaged.id, healthy.id]
    assert await store.host_of(damaged.id) == (None if column == "host_id" else ANN)
    await store.abandon_damaged(damaged.id, 1)  # only when it is the table of channel 1
    left = [healthy.id] if column != "channel_id" else [damaged.id, healthy.id]
    assert await store.ids_with_status("running") == left


async def test_servers_settings_and_the_bots_metadata(backend: Backend, store: Storage) -> None:
    assert await store.guild_settings(GUILD) is None and await store.guild_settings(None) is None
    with pytest.raises(StorageError):
        await store.relocalise_guild(GUILD, None, "cs", "cs")  # no settings row to change yet
    await store.set_guild_settings(GUILD, ServerDefaults(False, 60, "hard"))
    await store.relocalise_guild(GUILD, None, "fr", "fr")
    assert await store.guild_locale(GUILD) == "fr" and await store.guild_locale(None) is None
    await store.set_guild_settings(GUILD, ServerDefaults(True, 0, "easy"))
    assert await store.guild_settings(GUILD) == ServerDefaults(True, 0, "easy")
    assert await store.guild_locale(GUILD) == "fr"  # the language stays
    await store.relocalise_guild(GUILD, None, None, "en")
    assert await store.guild_locale(GUILD) is None
    await backend.damage_settings(store, GUILD, ai_level="godlike")
    assert await store.guild_settings(GUILD) == ServerDefaults(True, 0, "normal")
    assert await store.get_meta("synced") is None
    await store.set_meta("synced", "a")
    await store.set_meta("synced", "b")
    assert await store.get_meta("synced") == "b"


async def test_a_servers_language_changes_with_its_tables_and_tournaments_at_once(
        store: Storage, fresh: Storage) -> None:
    """A server's forced language, its defaults, and the language of its open tables and
    tournaments go in one write: the tables and tournaments whose language changed are told
    back; another server's, and finished ones, keep theirs."""
    running = await started(store, played(1).states[0], channel=1)
    elsewhere = await started(store, played(2).states[0], channel=2, guild=GUILD + 1)
    over = await started(store, played(3).states[0], channel=3)
    await store.abandon(over.id, over.version, None)
    cup = await new_tournament(store)
    defaults = ServerDefaults(True, 600, "hard")
    changed, moved = await store.relocalise_guild(GUILD, defaults, "fr", "fr")
    assert (changed, moved) == ([running.id], [cup.id])
    for reader in (store, fresh):
        assert await reader.guild_locale(GUILD) == "fr"
        assert await reader.guild_settings(GUILD) == defaults
        assert [(await reader.get(t)).locale for t in (running.id, elsewhere.id, over.id)] \
            == ["fr", "en", "en"]  # type: ignore[union-attr]
        found = await reader.tournament(cup.id)
        assert found is not None and found.locale == "fr"
    assert await store.relocalise_guild(GUILD, None, None, "fr") == ([], [])  # as they are
    assert await store.guild_locale(GUILD) is None
    with pytest.raises(StorageError):  # no defaults stored for that server yet
        await store.relocalise_guild(GUILD + 2, None, "cs", "cs")


async def test_a_finished_table_whose_rematch_offer_is_open_changes_language_with_its_server(
        store: Storage, fresh: Storage, clock: Clock) -> None:
    """A finished table whose rematch offer is open speaks the server's new language (its offer
    and the rematch it starts are drawn in it), keeping when it finished; one whose offer
    lapsed or started a rematch, or that none was offered at, keeps its own."""
    waiting = await finished(store, 1, channel=1)
    lapsed = await finished(store, 2, channel=2)
    quiet = await finished(store, 3, channel=3)
    assert await store.save_rematch(RematchOffer(waiting, ANN, clock.now, (ANN,)))
    assert await store.save_rematch(RematchOffer(lapsed, ANN, clock.now, (ANN,), closed=True))
    ended = (await store.get(waiting)).updated_at  # type: ignore[union-attr]
    await store.set_guild_settings(GUILD, ServerDefaults())
    clock.now += 60
    assert await store.relocalise_guild(GUILD, None, "fr", "fr") == ([waiting], [])
    for reader in (store, fresh):
        assert [(await reader.get(t)).locale for t in (waiting, lapsed, quiet)] \
            == ["fr", "en", "en"]  # type: ignore[union-attr]
        assert (await reader.get(waiting)).updated_at == ended  # type: ignore[union-attr]


async def test_a_table_opened_as_another_process_changes_the_language_speaks_the_new_one(
        backend: Backend, store: Storage, fresh: Storage,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process forces French on the server while a table of it is opened here: the
    opening waits for the change's transaction to end (PostgreSQL's READ COMMITTED would let it
    read the former language while the change, which cannot see an uncommitted table, misses
    it), then speaks French. A table opened in direct messages waits for nothing."""
    theirs = fresh if backend.shared else store  # SQLite: one process holds the file
    await store.set_guild_settings(GUILD, ServerDefaults())
    running = await started(store, played(1).states[0], channel=1)  # one the change writes
    # the table opened while the language is written, not yet committed
    opened = before_commit(monkeypatch, theirs, store, backend.shared, lambda: store.create_table(
        guild_id=GUILD, place_key=Place.of(GUILD, ANN).key, channel_id=2, host_id=ANN,
        seats=SEATS[:1], abilities=False, timer=0, seed=5, locale="en"))
    assert await theirs.relocalise_guild(GUILD, None, "fr", "fr") == ([running.id], [])
    table = await opened[0]
    assert table.locale == "fr"
    assert (await fresh.get(table.id)).locale == "fr"  # type: ignore[union-attr]
    alone = await store.create_table(guild_id=None, place_key=Place.of(None, ANN).key,
                                      channel_id=3, host_id=ANN, seats=SEATS[:1],
                                      abilities=False, timer=0, seed=5, locale="cs")
    assert alone.locale == "cs"  # direct messages: the person's language, no server's


async def test_a_new_rematch_offer_speaks_the_language_its_server_forced(
        store: Storage, fresh: Storage, clock: Clock) -> None:
    """A match finished in English before the server forced French: the offer made at it
    afterwards makes it speak French (as a change of language makes an open offer's table);
    a finished table in direct messages, or of a server following Discord's language, keeps
    its own."""
    server = await finished(store, 1, channel=1)
    alone = await finished(store, 2, channel=2, guild=None)
    other = await finished(store, 3, channel=3, guild=GUILD + 1)
    await store.set_guild_settings(GUILD, ServerDefaults())
    assert await store.relocalise_guild(GUILD, None, "fr", "fr") == ([], [])  # none offered
    await store.set_guild_settings(GUILD + 1, ServerDefaults())
    for tid in (server, alone, other):
        assert (await store.get(tid)).locale == "en"  # type: ignore[union-attr]
        assert await store.save_rematch(RematchOffer(tid, ANN, clock.now, (ANN,)))
    for reader in (store, fresh):
        assert [(await reader.get(t)).locale for t in (server, alone, other)] \
            == ["fr", "en", "en"]  # type: ignore[union-attr]


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)  # SQLite: nothing waits
async def test_a_rematch_offer_waiting_for_a_language_change_leaves_its_table_free(
        backend: Backend, store: Storage, fresh: Storage, clock: Clock,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process forces French on the server while an offer is made at one of its
    finished tables here: the offer waits for the server's language lock before it touches its
    table, as the change takes that lock before the tables it writes. While it waits, a third
    writer may lock the table's row (a person at it being forgotten, who may hold a table the
    change waits for): no three of them wait for each other round. The offer then speaks
    French. On PostgreSQL only: SQLite writes one transaction at a time."""
    await store.set_guild_settings(GUILD, ServerDefaults())
    offered = await finished(store, 1, channel=1)
    running = await started(store, played(2).states[0], channel=2)  # one the change writes
    offer: list[asyncio.Task[bool]] = []
    free: list[bool] = []
    wrote = fresh._wrote  # type: ignore[attr-defined]

    async def paused(*args: Any) -> bool:  # the language written, not yet committed
        if not offer:
            offer.append(asyncio.ensure_future(store.save_rematch(
                RematchOffer(offered, ANN, clock.now, (ANN,)))))
            while not offer[0].done() and not await waits_for_lock(store):
                await asyncio.sleep(0)  # until the offer waits for the lock (or got through)
            try:
                async with store._tx() as db:  # type: ignore[attr-defined]
                    await db.fetchrow("SELECT id FROM tables WHERE id = ? FOR UPDATE NOWAIT",
                                      offered)
                free.append(True)
            except StorageError:  # the row locked by the waiting offer
                free.append(False)
        return bool(await wrote(*args))
    monkeypatch.setattr(fresh, "_wrote", paused)
    assert await fresh.relocalise_guild(GUILD, None, "fr", "fr") == ([running.id], [])
    assert await offer[0]
    assert free == [True]
    assert (await fresh.get(offered)).locale == "fr"  # type: ignore[union-attr]


async def test_times_come_back_to_the_microsecond(store: Storage, fresh: Storage,
                                                  clock: Clock) -> None:
    """PostgreSQL keeps times as ``timestamptz`` (microseconds): a time to the microsecond
    reads back as the very float it was written as, on both backends."""
    game = played(1)
    clock.now = 1_764_369_309.123457
    rec = await started(store, game.states[0], channel=9)
    await store.apply(rec.id, 0, game.states[1], game.log_row(0, at=1_764_369_310.000001),
                      deadline=1_764_369_399.999999)
    for reader in (store, fresh):
        moved = await reader.get(rec.id)
        assert moved is not None and moved.created_at == 1_764_369_309.123457
        assert moved.updated_at == 1_764_369_309.123457 and moved.deadline == 1_764_369_399.999999
        assert [r.at for r in await reader.action_log(rec.id)] == [1_764_369_310.000001]


async def test_idle_lobbies_are_the_open_ones_unchanged_since_and_close_once(
        store: Storage, fresh: Storage, clock: Clock) -> None:
    """The lobbies with no change since a time (a lobby message posted again is none; a
    running table is no lobby), closed only while still open at the revision read and
    unchanged since, their last change kept as ``updated_at``."""
    opened = clock.now

    async def lobby(channel: int) -> int:
        made = await store.create_table(guild_id=GUILD, place_key=Place.of(GUILD, ANN).key,
                                        channel_id=channel, host_id=ANN, seats=SEATS[:1],
                                        abilities=False, timer=0, seed=channel)
        return made.id

    idle, busy = await lobby(1), await lobby(2)
    await started(store, played(1).states[0], channel=3)
    clock.now += 100
    await store.update_lobby(busy, SEATS[:2])  # Bob joins: a change
    await store.set_message(idle, lobby_message_id=77)  # its message posted again: none
    assert await store.idle_lobbies(opened) == [(idle, 0)]
    assert await store.idle_lobbies(clock.now) == [(idle, 0), (busy, 1)]
    assert not await store.close_idle_lobby(busy, 1, opened, clock.now)  # changed since
    assert not await store.close_idle_lobby(idle, 1, opened, clock.now)  # another revision
    assert await store.close_idle_lobby(idle, 0, opened, clock.now)
    assert not await store.close_idle_lobby(idle, 0, opened, clock.now)  # closed once
    with pytest.raises(StaleVersion):  # a Start that lost the race to the close
        await fresh.start_game(idle, SEATS, played(1).states[0], None)
    closed = await fresh.get(idle)
    assert closed is not None and (closed.status, closed.revision, closed.lobby_message_id) == (
        "abandoned", 1, 77)
    assert (closed.updated_at, closed.finished_at) == (opened, clock.now)
    assert await fresh.idle_lobbies(clock.now) == [(busy, 1)]
    assert await fresh.active_in_channel(1) is None
    assert await fresh.history() == [idle]


async def test_a_lobby_keeps_whether_its_thread_was_chosen_and_its_start_decides_where(
        store: Storage) -> None:
    """A lobby opened on the server's choice of threads stores no choice of its own: its start
    writes where its match is played, in the start's own write; a chosen one keeps its
    choice."""
    state = played(1).states[0]
    waiting = await store.create_table(
        guild_id=GUILD, place_key=Place.of(GUILD, ANN).key, channel_id=1, host_id=ANN,
        seats=SEATS, abilities=False, timer=0, seed=1, threaded=True, thread_chosen=False)
    assert waiting.threaded and waiting.thread_choice is None
    await store.start_game(waiting.id, SEATS, state, None, threaded=False)
    now = await store.get(waiting.id)
    assert now is not None and not now.threaded and now.thread_choice is None
    chosen = await store.create_table(
        guild_id=GUILD, place_key=Place.of(GUILD, ANN).key, channel_id=2, host_id=ANN,
        seats=SEATS, abilities=False, timer=0, seed=1, threaded=True)
    assert chosen.threaded and chosen.thread_choice is True
    await store.start_game(chosen.id, SEATS, state, None)
    now = await store.get(chosen.id)
    assert now is not None and now.threaded and now.thread_choice is True


async def test_the_upgrade_keeps_where_each_waiting_lobby_was_to_be_played(
        backend: Backend, clock: Clock) -> None:
    """Lobbies opened before a host's choice of a thread was stored apart keep where they
    were to be played when they opened (one opened inside a thread, or where the bot lacked a
    permission for a thread, never moves to one by the server's choice at its start)."""
    await backend.build(22)
    rows = [*old_rows(22, 1, "lobby", None, 0), *old_rows(22, 2, "lobby", None, 0)]
    rows[0][1]["threaded"] = 1
    await backend.insert_rows(rows)
    await backend.build(23)
    store = await backend.open(clock)
    try:
        one, two = await store.get(1), await store.get(2)
        assert one is not None and one.threaded and one.thread_choice is True
        assert two is not None and not two.threaded and two.thread_choice is False
    finally:
        await store.close()
