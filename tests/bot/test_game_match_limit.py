"""How many matches one person may play at once (``KARAK_MATCH_LIMIT``): their Start, their
``/goblin learn`` and the rematch they would host are refused at the limit, with what they play
and how to end one; two Starts at once cannot both pass it; what is left of a refused start is
closed; slow matches, a tournament's round and joining someone's lobby are never refused."""

from __future__ import annotations

import asyncio

import pytest
from bot_helpers import Clock
from players import ANN, BOB, finished_match
from storage.helpers import played

from bot.game.limits import MATCH_LIMIT, TooMany, counted
from bot.game.refusals import Refusal
from bot.game.reminders import SLOW
from bot.game.service import GameService
from bot.storage.sqlite import Store
from i18n import msg, translate

GUILD = 9


async def lobby(service: GameService, channel: int, host: int = ANN.id,
                timer: int | None = None, guild: int | None = GUILD) -> int:
    """``host``'s lobby in ``channel`` with an AI seat."""
    record = await service.lobby.create(guild_id=guild, channel_id=channel, host_id=host,
                                        host_name="Ann" if host == ANN.id else "Bob",
                                        timer=timer)
    await service.lobby.add_ai(record.id, host)
    return record.id


async def running(service: GameService, count: int, host: int = ANN.id,
                  first: int = 100) -> list[int]:
    """``count`` matches ``host`` started against the AI, each in a channel of its own."""
    out = []
    for n in range(count):
        tid = await lobby(service, first + n, host)
        out.append((await service.lobby.start(tid, host)).id)
    return out


async def test_a_start_at_the_limit_is_refused_saying_how_many_and_how_to_end_one(
        service: GameService) -> None:
    await running(service, MATCH_LIMIT)
    tid = await lobby(service, 1)
    with pytest.raises(TooMany) as refused:
        await service.lobby.start(tid, ANN.id)
    text = translate(refused.value.reason)
    assert f"already play {MATCH_LIMIT} matches" in text
    assert f"at most {MATCH_LIMIT} at once" in text and "/goblin abandon" in text
    assert "deux" not in translate(refused.value.reason, "fr")  # a number, as told
    assert (await service.tables.load(tid)).status == "lobby"  # it waits: nothing lost
    assert refused.value.record is not None and refused.value.record.id == tid


async def test_a_start_is_allowed_again_once_one_match_is_abandoned(
        service: GameService) -> None:
    first, *_ = await running(service, MATCH_LIMIT)
    tid = await lobby(service, 1)
    with pytest.raises(TooMany):
        await service.lobby.start(tid, ANN.id)
    await service.lobby.abandon_table(first, ANN.id, False)
    assert (await service.lobby.start(tid, ANN.id)).status == "running"


async def test_two_starts_at_once_one_below_the_limit_start_one_match(
        service: GameService) -> None:
    await running(service, MATCH_LIMIT - 1)
    one, two = await lobby(service, 1), await lobby(service, 2)
    outcomes = await asyncio.gather(service.lobby.start(one, ANN.id),
                                    service.lobby.start(two, ANN.id), return_exceptions=True)
    assert sum(isinstance(o, TooMany) for o in outcomes) == 1, outcomes
    assert await service.limit.playing(ANN.id) == MATCH_LIMIT


async def test_slow_matches_neither_count_nor_are_refused(service: GameService) -> None:
    await running(service, MATCH_LIMIT)
    slow = await lobby(service, 1, timer=SLOW)
    assert (await service.lobby.start(slow, ANN.id)).status == "running"
    assert await service.limit.playing(ANN.id) == MATCH_LIMIT


async def test_joining_someone_s_lobby_at_the_limit_is_not_refused_and_counts_once_started(
        service: GameService) -> None:
    await running(service, MATCH_LIMIT)
    tid = await lobby(service, 1, host=BOB.id)
    await service.lobby.join(tid, ANN.id, "Ann")
    assert (await service.lobby.start(tid, BOB.id)).status == "running"
    assert await service.limit.playing(ANN.id) == MATCH_LIMIT + 1


async def test_a_match_left_to_its_other_people_no_longer_counts_but_one_left_to_the_ai_does(
        service: GameService) -> None:
    """Ann leaves a match Bob plays on (Bob hosts it now): it no longer counts for her; she
    leaves her own match against the AI alone: the AI plays it on, and she still hosts it."""
    shared = await lobby(service, 1)
    await service.lobby.join(shared, BOB.id, "Bob")
    await service.lobby.start(shared, ANN.id)
    (alone,) = await running(service, 1)
    await service.lobby.leave(shared, ANN.id)
    await service.lobby.leave(alone, ANN.id)
    left = await service.tables.load(shared)
    assert not counted(left, ANN.id) and counted(left, BOB.id)
    assert counted(await service.tables.load(alone), ANN.id)
    assert await service.limit.playing(ANN.id) == 1


async def test_no_limit_when_the_admin_set_none(store: Store, clock: Clock) -> None:
    seeds = iter(range(1000, 100000))
    service = GameService(store, clock=clock, seeds=lambda: next(seeds), match_limit=0)
    await running(service, MATCH_LIMIT + 2)
    assert await service.limit.playing(ANN.id) == MATCH_LIMIT + 2


async def test_a_limit_lowered_below_what_a_person_plays_says_how_many_to_end(
        store: Store, clock: Clock) -> None:
    """An admin lowered KARAK_MATCH_LIMIT to 2 while Ann plays 4 matches: ending one is not
    enough, so her refused Start says she must end 3 (in every language, with its plural)."""
    seeds = iter(range(1000, 100000))
    await running(GameService(store, clock=clock, seeds=lambda: next(seeds), match_limit=0), 4)
    service = GameService(store, clock=clock, seeds=lambda: next(seeds), match_limit=2)
    tid = await lobby(service, 1)
    with pytest.raises(TooMany) as refused:
        await service.lobby.start(tid, ANN.id)
    text = translate(refused.value.reason)
    assert "already play 4 matches" in text and "at most 2 at once" in text, text
    assert "end one first" not in text and "end 3 of them first" in text, text
    assert "une d'abord" not in translate(refused.value.reason, "fr")
    assert "3 d'entre elles" in translate(refused.value.reason, "fr")
    assert "Nejdřív některou" not in translate(refused.value.reason, "cs")
    assert "3 z nich" in translate(refused.value.reason, "cs")
    await service.lobby.abandon(100, ANN.id, False)  # one ended: still over the limit
    with pytest.raises(TooMany) as refused:
        await service.lobby.start(tid, ANN.id)
    assert "end 2 of them first" in translate(refused.value.reason)
    await service.lobby.abandon(101, ANN.id, False)  # at the limit: one more to end
    with pytest.raises(TooMany) as refused:
        await service.lobby.start(tid, ANN.id)
    assert "Finish or end one first" in translate(refused.value.reason)


async def test_learn_at_the_limit_is_refused_and_leaves_no_lobby(service: GameService) -> None:
    await running(service, MATCH_LIMIT)
    with pytest.raises(TooMany) as refused:
        await service.lobby.learn(guild_id=None, channel_id=1, host_id=ANN.id,
                                  host_name="Ann")
    assert refused.value.record is None  # nothing to point to
    assert await service.store.active_in_channel(1) is None


async def test_learn_beaten_to_the_limit_by_another_start_closes_the_lobby_it_opened(
        service: GameService, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ann's Start on another lobby passes while her /goblin learn opens its lobby: the lesson
    is refused, and its lobby, which nobody saw, is closed."""
    await running(service, MATCH_LIMIT - 1)
    other = await lobby(service, 2)
    create = service.lobby.create

    async def meanwhile(**kwargs: object) -> object:
        record = await create(**kwargs)  # type: ignore[arg-type]
        await service.lobby.start(other, ANN.id)
        return record

    monkeypatch.setattr(service.lobby, "create", meanwhile)
    with pytest.raises(TooMany):
        await service.lobby.learn(guild_id=None, channel_id=1, host_id=ANN.id,
                                  host_name="Ann")
    assert await service.store.active_in_channel(1) is None


async def test_a_rematch_its_host_cannot_start_is_refused_and_opens_nothing(
        service: GameService, store: Store) -> None:
    """Ann's finished match with Bob and an AI seat: Bob's Ready, the last, would start the
    rematch Ann hosts while she plays as many matches as allowed: he is told it is Ann who
    must end one first; her own Start is told as hers. Once she ends one, Bob's Ready starts
    it."""
    tid = await finished_match(store, played(2), channel=1)
    first, *_ = await running(service, MATCH_LIMIT)
    await service.rematches.offer(tid, ANN.id)
    with pytest.raises(Refusal) as refused:
        await service.rematches.ready(tid, BOB.id)
    text = translate(refused.value.reason)
    assert text.startswith("Ann, who would host the rematch, already has")
    with pytest.raises(TooMany):
        await service.rematches.start(tid, ANN.id)
    assert await store.active_in_channel(1) is None
    await service.lobby.abandon_table(first, ANN.id, False)
    state = await service.rematches.ready(tid, BOB.id)
    assert state.started is not None and state.started.status == "running"


async def test_a_rematch_host_over_a_lowered_limit_is_said_to_end_as_many_as_needed(
        store: Store, clock: Clock) -> None:
    """The limit lowered to 2 while Ann, who would host the rematch, plays 4 matches: Bob's
    Ready is told the rematch starts once she ends 3 of them, not once she ends one."""
    seeds = iter(range(1000, 100000))
    tid = await finished_match(store, played(2), channel=1)
    await running(GameService(store, clock=clock, seeds=lambda: next(seeds), match_limit=0), 4)
    service = GameService(store, clock=clock, seeds=lambda: next(seeds), match_limit=2)
    await service.rematches.offer(tid, ANN.id)
    with pytest.raises(Refusal) as refused:
        await service.rematches.ready(tid, BOB.id)
    text = translate(refused.value.reason)
    assert text.startswith("Ann, who would host the rematch, already has 4 matches"), text
    assert "once they finish or end one." not in text and "end 3 of them" in text, text
    assert "3 d'entre elles" in translate(refused.value.reason, "fr")
    assert "3 z nich" in translate(refused.value.reason, "cs")


async def test_a_tournament_round_seats_a_player_at_the_limit(service: GameService) -> None:
    await running(service, MATCH_LIMIT, host=2)
    cup = await service.tournaments.create(guild_id=GUILD, channel_id=500, host_id=1,
                                           name="Goblin Cup")
    for user in (1, 2, 3, 4):
        await service.tournaments.join(cup.id, user, f"P{user}")
    progress = await service.tournaments.start(cup.id, 1)
    assert progress.opened is not None
    assert any(2 in {s.user for s in t.seats} for t in progress.opened.tables)
    assert await service.limit.playing(2) == MATCH_LIMIT + 1



async def test_the_refusal_says_a_match_left_to_the_ai_still_counts_while_its_host_holds_it(
        service: GameService) -> None:
    """Ann left every match she plays against the AI alone: the AI plays them on and she still
    hosts them, so they count. Her next Start is refused, and the refusal must not leave her
    thinking /goblin leave frees a match (she did just that): it says /goblin abandon ends a match
    its host plays with no other person, in every language, and so does the refusal over a
    lowered limit."""
    for alone in await running(service, MATCH_LIMIT):
        await service.lobby.leave(alone, ANN.id)
    tid = await lobby(service, 1)
    with pytest.raises(TooMany) as refused:
        await service.lobby.start(tid, ANN.id)
    over = msg("bot.error.too_many_matches_over", count=7, limit=5, ends=3)
    for told in (refused.value.reason, over):
        assert "/goblin abandon if you host it with no other person in it" in translate(told)
        assert "abandonner si vous en êtes l'hôte et que personne d'autre n'y joue" in translate(
            told, "fr")
        assert "ukončit, pokud jste ji založili a nikdo jiný v ní nehraje" in translate(told, "cs")


@pytest.mark.parametrize("locale", ["en", "fr", "cs"])
@pytest.mark.parametrize(("count", "limit"), [(1, 1), (3, 3), (5, 5), (12, 5)])
def test_the_refusal_is_a_few_lines_on_a_phone(locale: str, count: int, limit: int) -> None:
    """About six lines on a 390 px wide phone (some 50 characters a line), in every plural
    form: which matches hold the person and how to end one, no more."""
    told = TooMany(count, limit).reason
    assert len(translate(told, locale)) <= 320, translate(told, locale)
