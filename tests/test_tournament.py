"""Server tournaments' rules: tables by standing, points by place, tie-breaks, byes, drops, the
deadline and the champion (:mod:`bot.game.tournament`)."""

from __future__ import annotations

import importlib.util
import io
import itertools
import random
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec import structs
from PIL import Image

from bot.game.tournament import (
    BYE_POINTS,
    EXHAUSTIVE,
    Entrant,
    PodResult,
    Settings,
    TableSize,
    Tournament,
    champion,
    deadline_result,
    drop,
    is_over,
    record,
    result_of_table,
    rounds_needed,
    seat_round,
    split,
    standings,
    start,
    total_rounds,
)
from bot.game.tournament_pictures import champion_picture, standing_lines, standings_picture
from bot.storage.records import SeatResult, TableResult
from engine import new_game
from engine.simulate import seated
from render.style import WIDTH
from render.tournament import lot_groups, lot_note


def entrants(count: int, seed: int = 0) -> list[Entrant]:
    """``count`` entrants with ratings drawn from ``seed`` (user ids from 1)."""
    lot = random.Random(seed)
    return [Entrant(u, f"Player {u}", lot.randint(1000, 2000)) for u in range(1, count + 1)]


def play_round(t: Tournament, lot: random.Random) -> Tournament:
    """Every table of the round under way given a result drawn from ``lot``; the AI seats of a
    table take their places among the players."""
    for pod in t.rounds[-1].seating.pods:
        seats: list[int | None] = [*pod.players, *([None] * pod.ai_seats)]
        lot.shuffle(seats)
        t = record(t, PodResult(pod.table, tuple((u, i + 1) for i, u in enumerate(seats)
                                                 if u is not None)))
    return t


def met_pairs(t: Tournament) -> set[frozenset[int]]:
    """Pairs of players who have sat at one table."""
    return {frozenset(pair) for rnd in t.rounds for pod in rnd.seating.pods
            for pair in itertools.combinations(pod.players, 2)}


def repeats(tables: Sequence[Sequence[int]], met: set[frozenset[int]]) -> int:
    """Pairs at ``tables`` who are in ``met``."""
    return sum(frozenset(pair) in met for t in tables for pair in itertools.combinations(t, 2))


def every_seating(players: Sequence[int], sizes: Sequence[int]) -> Iterator[list[list[int]]]:
    """Every way to seat ``players`` at tables of ``sizes`` (by brute force, each at least once)."""
    for perm in itertools.permutations(players):
        out, at = [], 0
        for size in sizes:
            out.append(list(perm[at:at + size]))
            at += size
        yield out


# ---------------------------------------------------------------- how many rounds, how many tables


def test_the_rounds_a_tournament_needs() -> None:
    assert [rounds_needed(n) for n in (2, 4, 8, 9, 16, 17, 64, 256, 257)] == \
        [3, 3, 3, 4, 4, 5, 6, 8, 9]
    assert total_rounds(start(Settings("Cup", rounds=2), entrants(30))) == 2
    assert total_rounds(start(Settings("Cup"), entrants(30))) == 5


@pytest.mark.parametrize(("count", "size", "tables", "byes"), [
    (7, 4, (4, 3), 0), (8, 4, (4, 4), 0), (9, 4, (3, 3, 3), 0), (10, 4, (4, 3, 3), 0),
    (13, 4, (4, 3, 3, 3), 0), (5, 4, (3, 2), 0), (2, 4, (2,), 0), (6, 4, (3, 3), 0),
    (7, 3, (3, 3), 1), (8, 3, (3, 3, 2), 0), (9, 3, (3, 3, 3), 0), (10, 3, (3, 3, 3), 1),
    (13, 3, (3, 3, 3, 3), 1), (4, 3, (3,), 1), (5, 3, (3, 2), 0), (2, 3, (2,), 0),
])
def test_how_a_count_splits_into_tables(count: int, size: int, tables: tuple[int, ...],
                                        byes: int) -> None:
    plan = split(count, size)
    assert (plan.players, plan.seats, plan.byes) == (tables, tables, byes)
    assert sum(plan.players) + plan.byes == count


@pytest.mark.parametrize(("count", "size", "players"), [
    (7, 4, (4, 3)), (5, 4, (3, 2)), (7, 3, (3, 2, 2)), (2, 4, (2,)), (10, 3, (3, 3, 2, 2)),
])
def test_ai_seats_fill_short_tables_instead_of_byes(count: int, size: int,
                                                    players: tuple[int, ...]) -> None:
    plan = split(count, size, ai_fill=True)
    assert (plan.players, plan.byes) == (players, 0)
    assert set(plan.seats) == {size}


@given(st.integers(2, 300), st.sampled_from([3, 4]), st.booleans())
def test_every_split_seats_everyone_at_allowed_tables(count: int, size: int, fill: bool) -> None:
    plan = split(count, size, fill)
    assert sum(plan.players) + plan.byes == count and plan.byes <= 1
    assert all(2 <= p <= s <= size for p, s in zip(plan.players, plan.seats, strict=True))
    if not fill and 2 in plan.players:  # a 2-seat table only where the count forces it
        assert count % size in (2, 5 % size) and plan.players.count(2) == 1
    if plan.byes:
        assert not fill and size == 3 and count % 3 == 1


# ---------------------------------------------------------------- seating by standing


@pytest.mark.parametrize("count", [7, 8, 9, 10, 13])
@pytest.mark.parametrize("size", [3, 4])
def test_the_first_round_is_seated_by_rating(count: int, size: TableSize) -> None:
    t = seat_round(start(Settings("Cup", table_size=size), entrants(count)), seed=5)
    seating = t.rounds[0].seating
    plan = split(count, size)
    assert tuple(len(p.players) for p in seating.pods) == plan.players
    assert seating.round == 1 and seating.seed == 5
    seated = [u for p in seating.pods for u in p.players]
    assert sorted(seated + ([seating.bye] if seating.bye else [])) == list(range(1, count + 1))
    rating = {e.user: e.rating for e in entrants(count)}
    # the tables hold the players in rating order, the strongest at table 1
    assert seated == sorted(seated, key=lambda u: -rating[u])
    if plan.byes:  # the bye goes to the lowest rated
        assert seating.bye == min(rating, key=rating.__getitem__)
    assert all(p.ai_seats == 0 for p in seating.pods)


def test_byes_go_to_the_lowest_standing_player_without_one() -> None:
    lot = random.Random(3)
    t = start(Settings("Cup", rounds=6, table_size=3), entrants(7))
    byes = []
    for _ in range(6):
        t = seat_round(t, lot.randrange(1000))
        bye = t.rounds[-1].seating.bye
        assert bye is not None
        before = standings(structs_drop_last_round(t))
        fresh = [s.user for s in before if s.user not in byes]
        assert bye == fresh[-1]  # the lowest standing of those without a bye
        byes.append(bye)
        t = play_round(t, lot)
    assert len(set(byes)) == 6
    table = {s.user: s for s in standings(t)}
    assert all(table[u].byes == 1 for u in byes)


def structs_drop_last_round(t: Tournament) -> Tournament:
    """``t`` as it stood before its last round was seated."""
    return Tournament(t.settings, t.entrants, t.rounds[:-1], t.dropped)


def test_ai_seats_fill_the_tables_when_asked() -> None:
    t = seat_round(start(Settings("Cup", table_size=4, ai_level="hard"), entrants(7)), seed=1)
    pods = t.rounds[0].seating.pods
    assert [(len(p.players), p.ai_seats, p.seats) for p in pods] == [(4, 0, 4), (3, 1, 4)]
    assert t.rounds[0].seating.bye is None


@settings(max_examples=40, deadline=None)
@given(count=st.integers(4, EXHAUSTIVE), size=st.sampled_from([3, 4]),
       seed=st.integers(0, 10_000), rounds=st.integers(2, 4))
def test_no_repeat_opponents_where_avoidable(count: int, size: TableSize, seed: int,
                                             rounds: int) -> None:
    """Round after round, the seating has as few pairs who met before as the best seating of the
    same tables found by brute force."""
    lot = random.Random(seed)
    t = start(Settings("Cup", rounds=rounds, table_size=size), entrants(count, seed))
    for _ in range(rounds):
        met = met_pairs(t)
        t = seat_round(t, lot.randrange(1000))
        seating = t.rounds[-1].seating
        tables = [p.players for p in seating.pods]
        players = [u for p in tables for u in p]
        best = min(repeats(s, met) for s in every_seating(players, [len(p) for p in tables]))
        assert repeats(tables, met) == best
        t = play_round(t, lot)


@pytest.mark.parametrize("count", [16, 24, 40])
def test_larger_events_meet_new_opponents_while_they_can(count: int) -> None:
    """Three rounds of tables of 4 with 16 or more players: nobody meets anyone twice."""
    lot = random.Random(count)
    t = start(Settings("Cup", rounds=3, table_size=4), entrants(count))
    for _ in range(3):
        t = play_round(seat_round(t, lot.randrange(1000)), lot)
    meetings = [pair for rnd in t.rounds for pod in rnd.seating.pods
                for pair in itertools.combinations(sorted(pod.players), 2)]
    assert len(meetings) == len(set(meetings))


def test_later_rounds_seat_players_of_similar_points_together() -> None:
    lot = random.Random(8)
    t = play_round(seat_round(start(Settings("Cup"), entrants(16)), 1), lot)
    t = seat_round(t, 2)
    points = {s.user: s.points for s in standings(t)}
    tops = [max(points[u] for u in p.players) for p in t.rounds[-1].seating.pods]
    assert tops == sorted(tops, reverse=True)
    assert t.rounds[-1].seating.pods[0].players[0] == standings(t)[0].user


@settings(max_examples=25, deadline=None)
@given(count=st.integers(2, 40), size=st.sampled_from([3, 4]), seed=st.integers(0, 10_000))
def test_the_same_seed_and_standings_give_the_same_seating(count: int, size: TableSize,
                                                           seed: int) -> None:
    lot = random.Random(seed)
    t = play_round(seat_round(start(Settings("Cup", table_size=size), entrants(count, seed)),
                              seed), lot)
    assert seat_round(t, seed + 1) == seat_round(t, seed + 1)
    assert seat_round(t, seed + 1).rounds[-1].seating.seed == seed + 1


def test_the_seed_draws_the_order_of_players_level_on_everything() -> None:
    level = [Entrant(u, f"P{u}", 1500) for u in range(1, 9)]
    t = start(Settings("Cup"), level)
    seatings = {seat_round(t, seed).rounds[0].seating.pods for seed in range(20)}
    assert len(seatings) > 1


# ---------------------------------------------------------------- points and tie-breaks


def test_points_by_place_and_tie_breaks() -> None:
    """Round 1: tables of 4 and 3; the standings by points, then opponents' points, then wins,
    then rating."""
    people = [Entrant(1, "Ann", 1900), Entrant(2, "Bob", 1800), Entrant(3, "Cid", 1700),
              Entrant(4, "Dan", 1600), Entrant(5, "Eve", 1500), Entrant(6, "Fay", 1400),
              Entrant(7, "Gus", 1300)]
    t = seat_round(start(Settings("Cup"), people), seed=0)
    assert [p.players for p in t.rounds[0].seating.pods] == [(1, 2, 3, 4), (5, 6, 7)]
    t = record(t, PodResult(1, ((1, 2), (2, 1), (3, 4), (4, 3))))
    t = record(t, PodResult(2, ((5, 3), (6, 1), (7, 2))))
    lines = {s.user: s for s in standings(t)}
    assert {u: lines[u].points for u in lines} == {1: 3, 2: 5, 3: 1, 4: 2, 5: 1, 6: 5, 7: 3}
    # Bob and Fay both won: Bob met 3+1+2 = 6 points, Fay 1+3 = 4
    assert (lines[2].opponents, lines[6].opponents) == (6, 4)
    assert [s.user for s in standings(t)][:2] == [2, 6]
    # Ann and Gus have 3 points: Ann met 5+1+2 = 8, Gus 1+5 = 6
    assert [s.user for s in standings(t)][2:4] == [1, 7]
    # Cid and Eve have 1 point: Cid met 3+5+2 = 10, Eve 5+3 = 8
    assert [s.user for s in standings(t)][5:] == [3, 5]
    assert [s.place for s in standings(t)] == [1, 2, 3, 4, 5, 6, 7]


def test_shared_places_share_the_points_of_that_place() -> None:
    """The game's places: seats level share a place and the next one skips (1, 2, 2, 4)."""
    t = seat_round(start(Settings("Cup"), entrants(4)), seed=0)
    t = record(t, PodResult(1, ((1, 1), (2, 2), (3, 2), (4, 4))))
    points = {s.user: s.points for s in standings(t)}
    assert sorted(points.values()) == [1, 3, 3, 5]


def test_wins_then_rating_break_ties() -> None:
    """Two players level on points and opponents' points: the one with more wins first; level on
    wins too, the higher rated first; level on everything, the lot drawn from the tournament's
    seed places them, and their lines say so."""
    people = [Entrant(1, "A", 1000), Entrant(2, "B", 2000), Entrant(3, "C", 1500),
              Entrant(4, "D", 1500)]
    t = seat_round(start(Settings("Cup", table_size=4), people), seed=0)
    t = record(t, PodResult(1, ((2, 1), (3, 2), (4, 2), (1, 4))))
    lines = standings(t)
    assert [s.place for s in lines] == [1, 2, 3, 4]
    assert [s.user for s in lines][::3] == [2, 1]
    assert {s.user for s in lines[1:3]} == {3, 4}
    assert [s.by_lot for s in lines] == [False, True, True, False]
    assert lines[0].wins == 1 and lines[1].wins == 0


def test_ai_seats_take_places_and_earn_nothing() -> None:
    t = seat_round(start(Settings("Cup", table_size=4, ai_level="easy"), entrants(2)), seed=0)
    assert t.rounds[0].seating.pods[0].ai_seats == 2
    t = record(t, PodResult(1, ((1, 2), (2, 4))))  # an AI seat won, the other came third
    points = {s.user: s.points for s in standings(t)}
    assert points == {1: 3, 2: 1}
    assert sum(s.points for s in standings(t)) == 4


def test_a_bye_is_worth_a_win_at_a_three_seat_table_and_is_no_win() -> None:
    t = seat_round(start(Settings("Cup", table_size=3), entrants(4)), seed=0)
    bye = t.rounds[0].seating.bye
    assert bye is not None and BYE_POINTS == 5
    line = next(s for s in standings(t) if s.user == bye)
    assert (line.points, line.wins, line.opponents, line.byes) == (5, 0, 0, 1)


def test_a_result_must_fit_its_table() -> None:
    t = seat_round(start(Settings("Cup"), entrants(4)), seed=0)
    with pytest.raises(ValueError, match="not the players given"):
        record(t, PodResult(1, ((1, 1), (2, 2), (3, 3))))
    with pytest.raises(ValueError, match="beyond"):
        record(t, PodResult(1, ((1, 1), (2, 2), (3, 3), (4, 5))))
    with pytest.raises(ValueError, match="no table"):
        record(t, PodResult(2, ((1, 1),)))
    t = record(t, PodResult(1, ((1, 1), (2, 2), (3, 3), (4, 4))))
    with pytest.raises(ValueError, match="already"):
        record(t, PodResult(1, ((1, 1), (2, 2), (3, 3), (4, 4))))


def test_the_next_round_waits_for_every_table() -> None:
    t = seat_round(start(Settings("Cup"), entrants(8)), seed=0)
    first = t.rounds[0].seating.pods[0].players
    t = record(t, PodResult(1, tuple((u, i + 1) for i, u in enumerate(first))))
    with pytest.raises(ValueError, match="not finished"):
        seat_round(t, 1)


def test_a_match_result_gives_each_person_their_place() -> None:
    """Finished or abandoned (the one who abandoned placed last), the match's result says the
    places; the AI seats' places count."""
    def seat(i: int, user: int | None, place: int) -> SeatResult:
        return SeatResult(seat=i, user_id=user, kind="person" if user else "ai",
                          ai_level=None if user else "normal", hero="horan", keys=0, hp=5,
                          place=place, handed_to_ai=False, moved=user is not None)

    result = TableResult(table_id=9, guild_id=1, channel_id=2, finished_at=0.0, rounds=9,
                         actions=99, catalogue="base", winner_seat=1, winner_user_id=None,
                         seats=(seat(0, 11, 2), seat(1, None, 1), seat(2, 12, 3)),
                         place_key="g1", abandoned_by=12)
    assert result_of_table(3, result) == PodResult(3, ((11, 2), (12, 3)))


# ---------------------------------------------------------------- drops, the deadline, the end


def test_a_dropped_player_keeps_their_points_and_is_seated_no_more() -> None:
    lot = random.Random(2)
    t = play_round(seat_round(start(Settings("Cup", rounds=3), entrants(9)), 1), lot)
    before = next(s for s in standings(t) if s.user == 4)
    t = drop(t, 4)
    assert drop(t, 4) == t
    t = seat_round(t, 2)
    assert t.rounds[-1].seating.pod_of(4) is None and t.rounds[-1].seating.bye != 4
    assert [len(p.players) for p in t.rounds[-1].seating.pods] == [4, 4]
    t = play_round(t, lot)
    after = next(s for s in standings(t) if s.user == 4)
    assert after.dropped and not before.dropped
    assert (after.points, after.played) == (before.points, 1)
    with pytest.raises(KeyError):
        drop(t, 99)


def test_the_tournament_ends_early_when_one_player_is_left() -> None:
    t = play_round(seat_round(start(Settings("Cup", rounds=5), entrants(3)), 1),
                   random.Random(0))
    t = drop(drop(t, 1), 2)
    assert is_over(t)
    with pytest.raises(ValueError, match="over"):
        seat_round(t, 2)
    winner = champion(t)
    assert winner is not None and winner.user == standings(t)[0].user


def test_the_deadline_decides_an_unfinished_table_by_the_match_standings() -> None:
    """Keys first, then hit points; seats level share a place; AI seats take places too."""
    state = new_game(seated(4, 4, abilities=True))
    assert state.winner is None
    marks = [(1, 3), (2, 1), (1, 3), (0, 5)]  # (keys, hp) of each seat
    keys = ("k1", "k2")
    state = structs.replace(state, seats=tuple(
        structs.replace(s, keys=keys[:k], hp=hp)
        for s, (k, hp) in zip(state.seats, marks, strict=True)))
    result = deadline_result(2, [21, None, 23, 24], state)
    assert result == PodResult(2, ((21, 2), (23, 2), (24, 4)), at_deadline=True)
    t = seat_round(start(Settings("Cup", ai_level="normal"), [
        Entrant(21, "A", 1500), Entrant(23, "B", 1400), Entrant(24, "C", 1300)]), seed=0)
    t = record(t, structs_table(result, 1))
    assert {s.user: s.points for s in standings(t)} == {21: 3, 23: 3, 24: 1}
    with pytest.raises(ValueError, match="seats"):
        deadline_result(2, [21, 23], state)


def structs_table(result: PodResult, table: int) -> PodResult:
    """``result`` for table ``table``."""
    return PodResult(table, result.places, result.at_deadline)


def test_the_final_standings_and_the_champion() -> None:
    lot = random.Random(11)
    t = start(Settings("Cup"), entrants(13))
    assert total_rounds(t) == 4
    for r in range(4):
        assert not is_over(t) and champion(t) is None
        t = seat_round(t, r)
        assert champion(t) is None
        t = play_round(t, lot)
    assert is_over(t)
    final = standings(t)
    winner = champion(t)
    assert winner == final[0]
    assert winner.points == max(s.points for s in final)
    assert [s.place for s in final] == sorted(s.place for s in final)
    assert all(s.played == 4 for s in final)


def test_the_benchmark_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    """A smoke test: the seating benchmark runs (its times are read by people, not asserted)."""
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "tournament.py"
    spec = importlib.util.spec_from_file_location("bench_tournament", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--entrants", "20", "--rounds", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count("seated 20 entrants in") == 2 and "slowest round:" in out


def test_the_pictures_of_a_tournament() -> None:
    """The standings after each round (the bye and the dropped marked) and, at the end only,
    the champion."""
    lot = random.Random(4)
    t = start(Settings("Zimní pohár", rounds=2, table_size=3), entrants(7))
    t = drop(play_round(seat_round(t, 1), lot), 3)
    t = seat_round(t, 2)
    lines = standing_lines(t)
    assert [line.name for line in lines] == [s.name for s in standings(t)]
    assert [line.dropped for line in lines].count(True) == 1
    assert [line.bye for line in lines].count(True) == (t.rounds[-1].seating.bye is not None)
    assert champion_picture(t) is None
    t = play_round(t, lot)
    for png in (standings_picture(t, "cs"), champion_picture(t, "fr")):
        assert png is not None
        image = Image.open(io.BytesIO(png))
        assert image.width == WIDTH


@settings(max_examples=30, deadline=None)
@given(count=st.integers(2, 30), size=st.sampled_from([3, 4]), fill=st.booleans(),
       seed=st.integers(0, 10_000), drops=st.integers(0, 4))
def test_any_tournament_seats_everyone_still_in_once_a_round(count: int, size: TableSize,
                                                              fill: bool, seed: int,
                                                              drops: int) -> None:
    """Whatever the field, the table size, the AI seats and the drops: each round seats every
    player still in exactly once (or gives them the bye), nobody who dropped, and the standings
    stay ordered by points and tie-breaks; the champion heads them."""
    lot = random.Random(seed)
    t = start(Settings("Cup", table_size=size, ai_level="normal" if fill else None),
              entrants(count, seed))
    while not is_over(t):
        for user in lot.sample(range(1, count + 1), k=min(drops, count)):
            if lot.random() < 0.2:
                t = drop(t, user)
        if is_over(t):
            break
        t = seat_round(t, lot.randrange(1000))
        seating = t.rounds[-1].seating
        seated = [u for p in seating.pods for u in p.players]
        if seating.bye is not None:
            seated.append(seating.bye)
        gone = {u for u, _ in t.dropped}
        assert sorted(seated) == sorted(e.user for e in t.entrants if e.user not in gone)
        assert all(p.seats == (size if fill else len(p.players)) for p in seating.pods)
        assert (seating.bye is None) or not fill
        t = play_round(t, lot)
        lines = standings(t)
        keys = [(-s.points, -s.opponents, -s.wins, -s.rating) for s in lines]
        assert keys == sorted(keys)
    winner = champion(t)
    assert winner is not None and winner == standings(t)[0]


def test_the_lot_is_the_last_tie_break_drawn_from_the_tournament_s_seed() -> None:
    """Players level on points and every tie-break get distinct places drawn from the
    tournament's seed: the same seed always gives the same order, another seed may not, and
    the champion is the first of the final standings, the one the lot placed first."""
    people = [Entrant(u, f"P{u}", 1500) for u in range(1, 4)]

    def final(seed: int) -> Tournament:
        t = seat_round(start(Settings("Cup", rounds=1, table_size=3), people, seed), seed=0)
        return record(t, PodResult(1, ((1, 1), (2, 1), (3, 1))))  # all three level

    orders = set()
    for seed in range(12):
        t = final(seed)
        lines = standings(t)
        assert [s.place for s in lines] == [1, 2, 3]
        assert all(s.by_lot for s in lines)
        assert lines == standings(final(seed))  # deterministic
        assert champion(t) == lines[0]
        orders.add(tuple(s.user for s in lines))
    assert len(orders) > 1  # the seed decides, not the order of entry


def test_the_pictures_name_only_the_places_the_lot_decided() -> None:
    """Four players share first place at one table (all level at the round's deadline): the
    rating places Ann and Bob (1600) above Cleo and Dan (1500), and the lot decides only within
    each pair, so the standings and the podium say places 1–2 and 3–4 were drawn by lot, not
    1–4."""
    people = [Entrant(1, "Ann", 1600), Entrant(2, "Bob", 1600), Entrant(3, "Cleo", 1500),
              Entrant(4, "Dan", 1500)]
    t = seat_round(start(Settings("Cup", rounds=1), people, seed=3), seed=5)
    t = record(t, PodResult(1, ((1, 1), (2, 1), (3, 1), (4, 1)), at_deadline=True))
    assert [s.rating for s in standings(t)] == [1600, 1600, 1500, 1500]
    lines = standing_lines(t)
    assert lot_groups(lines) == [(1, 2), (3, 4)]
    assert lot_note(lines, "en") == ["Places 1–2, 3–4 were decided by lot."]
