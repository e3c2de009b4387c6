"""A finished game's result: written by the move that ends the game, in its transaction, exactly
once; each seat's place (the champion first, then by keys and HP, ties sharing a place); read back
by table and by server, newest first, page by page."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from bot.game.places import Place
from bot.storage.interface import Storage
from bot.storage.records import (
    DatabaseError,
    SeatResult,
    StaleVersion,
    TableResult,
    places,
    table_result,
)
from cards import catalogue_version
from engine import GameState
from storage.backends import Backend
from storage.helpers import ANN, BOB, GUILD, PLACE, SEATS, Clock, finished, play_on, played, started


def ended_as(state: GameState, winner: int, keys_hp: list[tuple[int, int]]) -> GameState:
    """``state`` with ``winner`` and each seat's number of keys and HP set."""
    seats = tuple(replace(seat, keys=("k",) * keys, hp=hp)
                  for seat, (keys, hp) in zip(state.seats, keys_hp, strict=True))
    return replace(state, seats=seats, winner=winner)


def test_the_champion_comes_first_then_keys_then_hp_and_ties_share_a_place() -> None:
    start = played(1, ("horan", "taia", "argentus", "xanros")).states[0]
    assert places(ended_as(start, 2, [(2, 5), (3, 1), (1, 9), (2, 5)])) == (3, 2, 1, 3)
    assert places(ended_as(start, 0, [(0, 1), (3, 4), (3, 4), (3, 2)])) == (1, 2, 2, 4)
    assert places(ended_as(start, 3, [(1, 5), (1, 6), (2, 0), (3, 5)])) == (4, 3, 2, 1)


def test_a_result_tells_who_held_each_seat() -> None:
    final = played(1).final
    seats = (SEATS[0], SEATS[1].model_copy(update={"ai": True}), SEATS[2])
    result = table_result(7, GUILD, 3, "cards", seats, final, 12.5, PLACE)
    assert [(s.user_id, s.kind, s.ai_level, s.handed_to_ai) for s in result.seats] == [
        (ANN, "person", None, False), (BOB, "person", "normal", True), (None, "ai", "easy", False)]
    assert [s.hero for s in result.seats] == ["horan", "taia", "argentus"]
    assert [(s.keys, s.hp) for s in result.seats] == [(len(s.keys), s.hp) for s in final.seats]
    assert result.winner_seat == final.winner
    assert result.winner_user_id == seats[result.winner_seat].user
    assert (result.rounds, result.actions) == (final.round, final.step)
    with pytest.raises(ValueError, match="no winner"):
        table_result(7, GUILD, 3, "cards", seats, played(1).states[0], 12.5, PLACE)


async def test_the_move_that_ends_the_game_writes_its_result(
        store: Storage, fresh: Storage, clock: Clock) -> None:
    game = played(1)
    rec = await started(store, game.states[-3], channel=4)
    await play_on(store, rec.id, game, upto=len(game.moves) - 1)
    assert await store.result_of(rec.id) is None  # still running
    clock.now += 60
    handed = (SEATS[0].model_copy(update={"ai": True}), SEATS[1], SEATS[2])
    await play_on(store, rec.id, game, seats=handed)
    expected = table_result(rec.id, GUILD, 4, catalogue_version(), handed, game.final,
                            clock.now, PLACE)
    assert await store.result_of(rec.id) == expected
    assert await fresh.result_of(rec.id) == expected  # stored, not only kept
    assert expected.catalogue == rec.catalogue == catalogue_version()
    assert expected.seats[0] == SeatResult(
        seat=0, user_id=ANN, kind="person", ai_level="normal", hero="horan",
        keys=len(game.final.seats[0].keys), hp=game.final.seats[0].hp,
        place=places(game.final)[0], handed_to_ai=True, moved=True)
    ended = await store.get(rec.id)
    assert ended is not None and ended.status == "finished" and ended.winner == game.final.winner


async def test_a_result_is_written_once(store: Storage) -> None:
    game = played(2)
    tid = await finished(store, 2, channel=1)
    result = await store.result_of(tid)
    assert result is not None
    with pytest.raises(StaleVersion):  # the game is over: no move is applied again
        await store.apply(tid, len(game.moves) - 1, game.final, game.log_row(len(game.moves) - 1))
    assert await store.result_of(tid) == result
    assert await store.matches(PLACE) == [result]


async def test_a_refused_result_refuses_the_move_that_ends_the_game(
        backend: Backend, store: Storage, fresh: Storage) -> None:
    game = played(1)
    rec = await started(store, game.states[-2])
    await backend.refuse(store, "results")
    with pytest.raises(DatabaseError):
        await play_on(store, rec.id, game)
    for reader in (store, fresh):
        after = await reader.get(rec.id)
        assert after is not None and after.status == "running" and after.state == game.states[-2]
        assert await reader.action_log(rec.id) == []
        assert await reader.result_of(rec.id) is None


async def test_only_finished_tables_have_results(store: Storage) -> None:
    game = played(1)
    running = await started(store, game.states[0], channel=1)
    abandoned = await started(store, game.states[0], channel=2)
    await store.set_status(abandoned.id, "abandoned")
    lobby = await store.create_table(guild_id=GUILD, place_key=Place.of(GUILD, ANN).key,
                                     channel_id=3, host_id=ANN, seats=SEATS[:1],
                                     abilities=False, timer=0, seed=1)
    for tid in (running.id, abandoned.id, lobby.id, 999, 2**70, -(2**70)):
        assert await store.result_of(tid) is None
    assert await store.matches(PLACE) == []


async def test_a_servers_results_newest_first_page_by_page(store: Storage) -> None:
    ours = [await finished(store, seed, channel=seed) for seed in (1, 2, 3)]
    theirs = await finished(store, 1, channel=10, guild=GUILD + 1)
    nowhere = await finished(store, 2, channel=11, guild=None)
    elsewhere = await finished(store, 3, channel=12, guild=None, host=BOB)
    assert [r.table_id for r in await store.matches(PLACE)] == ours[::-1]
    assert [r.table_id for r in await store.matches(PLACE, limit=2)] == ours[:0:-1]
    assert [r.table_id for r in await store.matches(PLACE, limit=2, before=ours[1])] == ours[:1]
    assert await store.matches(PLACE, before=ours[0]) == []
    assert len(await store.matches(PLACE, before=2**70)) == 3  # no SQLite integer: no bound
    assert [r.table_id for r in await store.matches(Place.server(GUILD + 1).key)] == [theirs]
    # outside any server, each person's direct messages are a place of their own
    assert [r.table_id for r in await store.matches(Place.dms(ANN).key)] == [nowhere]
    assert [r.table_id for r in await store.matches(Place.dms(BOB).key)] == [elsewhere]
    found = await store.result_of(elsewhere)
    assert found is not None and found.place_key == f"dm:{BOB}"
    every = await store.matches(PLACE)
    assert every == [await store.result_of(tid) for tid in ours[::-1]]
    assert all(isinstance(r, TableResult) and len(r.seats) == 3 for r in every)
