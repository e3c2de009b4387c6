"""Player ratings: places, AI seats at fixed ratings, the shown number, and recomputing every
rating from the finished matches."""

from __future__ import annotations

import copy
import importlib.util
import random
from dataclasses import replace
from pathlib import Path

import pytest

from bot.game.ratings import (
    AI_RATINGS,
    BASE,
    MODEL,
    PROVISIONAL_SIGMA,
    SCALE,
    START,
    AiSeat,
    MatchKind,
    Person,
    Rating,
    SeatResult,
    Shown,
    change,
    match_kind,
    places,
    rate,
    recompute,
    shown,
)

ROOT = Path(__file__).resolve().parent.parent


def person(user: int, rating: Rating | None = None, keys: int = 0, hp: int = 5,
           won: bool = False, forfeited: bool = False) -> SeatResult:
    return SeatResult(Person(user, rating, forfeited), keys, hp, won)


def ai(level: str, keys: int = 0, hp: int = 5, won: bool = False) -> SeatResult:
    return SeatResult(AiSeat(level), keys, hp, won)


def test_places_champion_first_then_keys_then_hp() -> None:
    seats = [person(1, keys=1, hp=5), person(2, keys=2, hp=1), ai("easy", keys=3, hp=2, won=True),
             person(3, keys=2, hp=4), ai("hard", keys=1, hp=5)]
    assert places(seats) == [4, 3, 1, 2, 4]


def test_a_person_who_left_or_was_taken_over_is_last() -> None:
    """Whatever the seat reached, even the win the AI finished for it."""
    seats = [person(1, keys=3, hp=5, won=True, forfeited=True), person(2, keys=0, hp=1),
             ai("normal", keys=2, hp=3), person(3, keys=3, hp=4, forfeited=True)]
    assert places(seats) == [3, 2, 1, 3]
    after = rate(seats)
    assert shown(after[1]).value < BASE and shown(after[3]).value < BASE
    assert after[2].mu > START.mu  # finished ahead of the two who left


def test_fewer_than_two_people_is_not_rated() -> None:
    alone = [person(1, won=True, keys=3), ai("hard"), ai("easy")]
    assert match_kind(alone) is MatchKind.AGAINST_AI
    assert rate(alone) == {}
    assert match_kind([ai("easy"), ai("hard")]) is MatchKind.AGAINST_AI
    pair = [person(1, won=True, keys=3), person(2), ai("hard")]
    assert match_kind(pair) is MatchKind.RATED
    assert set(rate(pair)) == {1, 2}


def test_ai_seats_play_at_fixed_ratings_that_never_change() -> None:
    fixed = copy.deepcopy(AI_RATINGS)
    assert fixed["easy"].mu < fixed["normal"].mu < fixed["hard"].mu
    gains = {}
    for level in ("easy", "hard"):
        seats = [person(1, won=True, keys=3), person(2, keys=1), ai(level, keys=0)]
        after = rate(seats)
        assert set(after) == {1, 2}  # only people get a new rating
        gains[level] = after[1].mu - START.mu
    assert AI_RATINGS == fixed
    assert gains["hard"] > gains["easy"] > 0  # beating a stronger seat is worth more
    # Finishing behind a hard seat costs less than finishing behind an easy one.
    behind = {level: rate([ai(level, won=True), person(1, keys=2), person(2, keys=1)])[1].mu
              for level in ("easy", "hard")}
    assert behind["hard"] > behind["easy"]


def random_rating(rnd: random.Random) -> Rating | None:
    """A newcomer, an uncertain or a well-known rating, weak to strong."""
    return rnd.choice([None, Rating(rnd.uniform(10, 40), rnd.uniform(0.8, START.sigma))])


def test_a_loss_never_raises_the_shown_number() -> None:
    """Finishing alone below every other seat, or leaving (alone or with others), never raises
    a person's shown rating, whoever the others are."""
    rnd = random.Random(7)
    checked = 0
    for _ in range(3000):
        n = rnd.randint(2, 4)
        seats = [person(i, random_rating(rnd), keys=rnd.randint(0, 3), hp=rnd.randint(0, 5),
                        forfeited=rnd.random() < 0.2)
                 if i < 2 or rnd.random() < 0.5 else ai(rnd.choice(list(AI_RATINGS)),
                                                        keys=rnd.randint(0, 3))
                 for i in range(n)]
        if rnd.random() < 0.9:  # else the match ended with no champion among them
            c = rnd.randrange(n)
            seats[c] = SeatResult(seats[c].player, 3, rnd.randint(1, 5), won=True)
        rank = places(seats)
        after = rate(seats)
        for s, place in zip(seats, rank, strict=True):
            if not isinstance(s.player, Person) or s.player.user not in after:
                continue
            alone_last = place == max(rank) and rank.count(place) == 1
            if alone_last or s.player.forfeited:
                checked += 1
                assert shown(after[s.player.user]).value <= shown(s.player.rating).value, seats
    assert checked > 1000


def test_two_who_left_are_not_a_draw() -> None:
    """A newcomer who left with a strong player: openskill, reading their shared last place as a
    draw, would raise the newcomer; rated as the only one who left, the newcomer drops."""
    veteran = Rating(40.0, 1.0)
    seats = [person(1, Rating(25, 2), keys=3, won=True), person(2, Rating(25, 2), keys=1),
             person(3, veteran, forfeited=True), person(4, None, forfeited=True)]
    tied = MODEL.rate([[MODEL.rating(r.mu, r.sigma)] for r in
                       (Rating(25, 2), Rating(25, 2), veteran, START)], ranks=[1, 2, 3, 3])
    assert tied[3][0].mu - 3 * tied[3][0].sigma > 0  # the draw would lift the newcomer
    after = rate(seats)
    assert shown(after[4]).value < BASE and after[3].mu < veteran.mu


def test_the_shown_number_and_provisional_flag() -> None:
    assert shown(None) == shown(START) == Shown(BASE, provisional=True)
    assert shown(Rating(25.0, 2.0)) == Shown(round(BASE + SCALE * 19.0), provisional=False)
    assert not shown(Rating(25.0, PROVISIONAL_SIGMA)).provisional
    assert shown(Rating(25.0, PROVISIONAL_SIGMA + 0.01)).provisional
    # 200 points between two well-known players: a 76% chance, as in chess (Elo).
    gap = 200 / SCALE
    chance = MODEL.predict_win([[MODEL.rating(25 + gap, 0.0)], [MODEL.rating(25, 0.0)]])[0]
    assert chance == pytest.approx(1 / (1 + 10 ** -0.5), abs=1e-3)


def test_the_change_after_a_match() -> None:
    after = rate([person(1, won=True, keys=3), person(2, keys=1)])
    won, lost = change(None, after[1]), change(None, after[2])
    assert won.before == lost.before == BASE
    assert won.after > BASE > lost.after
    assert won.delta == won.after - BASE and lost.delta == lost.after - BASE
    assert won.provisional and lost.provisional
    settled = Rating(27.0, 1.5)
    same = change(settled, settled)
    assert same.delta == 0 and not same.provisional


def test_a_match_no_game_can_end_with_is_refused() -> None:
    with pytest.raises(ValueError, match="two seats"):
        rate([person(1), person(1, won=True)])
    with pytest.raises(ValueError, match="one champion"):
        rate([person(1, won=True), person(2, won=True)])
    with pytest.raises(ValueError, match="unknown AI level"):
        rate([person(1), person(2), ai("brutal")])


def synthetic(count: int, people: int, seed: int) -> list[list[SeatResult]]:
    """benchmarks/ratings.py's seeded matches."""
    spec = importlib.util.spec_from_file_location("bench_ratings", ROOT / "benchmarks/ratings.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    matches: list[list[SeatResult]] = bench.synthetic(count, people, seed)
    return matches


def test_recompute_equals_rating_each_match_as_it_ended() -> None:
    matches = synthetic(400, 25, seed=3)
    assert any(isinstance(s.player, Person) and s.player.forfeited for m in matches for s in m)
    live: dict[int, Rating] = {}
    for seats in matches:  # as the bot does: read the stored ratings, rate, store
        current = [SeatResult(Person(s.player.user, live.get(s.player.user), s.player.forfeited),
                              s.keys, s.hp, s.won) if isinstance(s.player, Person) else s
                   for s in seats]
        live.update(rate(current))
    stale = [[replace(s, player=replace(s.player, rating=Rating(99.0, 9.0)))
              if isinstance(s.player, Person) else s for s in seats] for seats in matches]
    rebuilt = recompute(stale)  # the ratings the seats hold are not read
    assert rebuilt == live  # exactly: the same arithmetic in the same order
    assert len(rebuilt) == 25 and len({r.mu for r in rebuilt.values()}) == 25
    assert recompute(matches[:200]) != recompute(matches[:201])
    assert recompute([]) == {}
