"""Server tournaments through the game service on a real SQLite store: sign-up and its
refusals, the start with 7, 8 and 9 players (tables of 4 and 3, a bye at tables of 3, AI seats
filling short tables), a round's tables ending (one played to its end, rated; the others
decided at the round's deadline on a clock moved by hand), the next round seated with no
repeated opponents, a drop, a restart mid-round (a new store on the same file, one pass), and
the final standings with the champion. Matches are driven by applying legal moves through the
service, never through Discord."""
from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from bot_helpers import Clock

from bot.game.places import Place, Sight
from bot.game.refusals import Refusal
from bot.game.service import GameService
from bot.game.tournament import rounds_needed
from bot.game.tournament_pictures import champion_picture, standing_lines
from bot.game.tournaments import Progress
from bot.storage.records import TableRecord
from bot.storage.sqlite import Store
from engine import apply, observe
from engine.agents import Agent, AiLevel, make_agent
from i18n import translate

GUILD, CHANNEL, HOST = 9, 500, 1
HOUR = 3600


async def _cup(service: GameService, entrants: int, channel: int = CHANNEL,
               **settings: object) -> int:
    """A tournament of ``entrants`` players (users 1, 2, ...; 1 is its host) signed up in
    ``channel``."""
    record = await service.tournaments.create(guild_id=GUILD, channel_id=channel,
                                              host_id=HOST, name="Goblin Cup",
                                              **settings)  # type: ignore[arg-type]
    for user in range(1, entrants + 1):
        await service.tournaments.join(record.id, user, f"P{user}")
    return record.id


async def play_out(service: GameService, table_id: int) -> TableRecord:
    """Play a match to its end: each person's move chosen by the normal AI and applied as
    their click would be."""
    agents: dict[int, Agent] = {}
    while True:
        record = await service.tables.load(table_id)
        if record.status != "running":
            return record
        seat = record.game.current
        agent = agents.setdefault(seat, make_agent("normal", seat))
        user = record.seats[seat].user
        assert user is not None and not record.seats[seat].ai
        await service.play.act(table_id, user, record.version,
                               str(agent.choose(observe(record.game, seat))), sure=True)


def _met(progress: Progress) -> set[frozenset[int]]:
    assert progress.opened is not None
    return {frozenset((a, b)) for pod in progress.opened.seating.pods
            for a in pod.players for b in pod.players if a < b}


async def test_sign_up_and_its_refusals(service: GameService, clock: Clock) -> None:
    tours = service.tournaments
    with pytest.raises(Refusal, match="server_only"):
        await tours.create(guild_id=None, channel_id=1, host_id=HOST, name="Cup")
    with pytest.raises(Refusal, match="bad_name"):
        await tours.create(guild_id=GUILD, channel_id=1, host_id=HOST, name="  ")
    with pytest.raises(Refusal, match="bad_table_size"):
        await tours.create(guild_id=GUILD, channel_id=1, host_id=HOST, name="Cup",
                           table_size=2)
    with pytest.raises(Refusal, match="bad_time"):
        await tours.create(guild_id=GUILD, channel_id=1, host_id=HOST, name="Cup",
                           closes_at=clock.now - 1)
    cup = await tours.create(guild_id=GUILD, channel_id=1, host_id=HOST, name=" Goblin  Cup ")
    assert cup.name == "Goblin Cup" and cup.status == "signup"
    view = await tours.join(cup.id, HOST, "Ann")
    assert [(s.user, s.rating) for s in view.standings] == [(HOST, view.standings[0].rating)]
    with pytest.raises(Refusal, match="already_entered"):
        await tours.join(cup.id, HOST, "Ann")
    with pytest.raises(Refusal, match="too_few"):
        await tours.start(cup.id, HOST)
    await tours.join(cup.id, 2, "Bob")
    with pytest.raises(Refusal, match="not_entered"):
        await tours.leave(cup.id, 3)
    with pytest.raises(Refusal, match="host_only"):
        await tours.start(cup.id, 2)
    with pytest.raises(Refusal, match="not_running"):
        await tours.drop(cup.id, 2)
    await tours.leave(cup.id, 2)
    assert [e.user for e in (await tours.view(cup.id)).tournament.entrants] == [HOST]
    assert [r.id for r in await tours.open_in(GUILD)] == [cup.id]
    assert (await tours.cancel(cup.id, 2, manager=True)).record.status == "cancelled"
    with pytest.raises(Refusal, match="signup_over"):
        await tours.join(cup.id, 3, "Cy")
    with pytest.raises(Refusal, match="signup_over$"):  # cancelled: no drop to point to
        await tours.leave(cup.id, HOST)
    with pytest.raises(Refusal, match="no_such"):
        await tours.view(cup.id + 1)


@pytest.mark.parametrize(("entrants", "size", "ai", "players", "seats", "bye"), [
    (7, 4, None, (4, 3), (4, 3), False),
    (8, 4, None, (4, 4), (4, 4), False),
    (9, 4, None, (3, 3, 3), (3, 3, 3), False),
    (7, 3, None, (3, 3), (3, 3), True),
    (5, 4, "easy", (3, 2), (4, 4), False),
])
async def test_the_first_round_is_seated_with_its_matches_open(
        service: GameService, entrants: int, size: int, ai: str | None,
        players: tuple[int, ...], seats: tuple[int, ...], bye: bool) -> None:
    cup = await _cup(service, entrants, table_size=size, ai_level=ai)
    progress = await service.tournaments.start(cup, HOST)
    assert progress.opened is not None and progress.record.status == "running"
    assert progress.record.round == 1 and progress.rounds == rounds_needed(entrants)
    pods = progress.opened.seating.pods
    assert tuple(len(p.players) for p in pods) == players
    assert tuple(len(t.seats) for t in progress.opened.tables) == seats
    assert (progress.opened.seating.bye is not None) == bye
    seated = [u for t in progress.opened.tables for u in (s.user for s in t.seats) if u]
    assert len(seated) == len(set(seated)) == entrants - bye
    for pod, table in zip(pods, progress.opened.tables, strict=True):
        assert table.status == "running" and table.channel_id == CHANNEL and table.threaded
        assert sorted(s.user or 0 for s in table.seats if not s.ai) == sorted(pod.players)
        assert all(s.level == ai for s in table.seats if s.ai)
        assert await service.store.tournament_of_table(table.id) == cup
    with pytest.raises(Refusal, match="started"):
        await service.tournaments.start(cup, HOST)
    assert await service.tournaments.sweep() == []  # nothing is due


async def test_a_whole_tournament_with_a_deadline_a_drop_and_a_restart(
        tmp_path: Path, store: Store, service: GameService, clock: Clock) -> None:
    tours = service.tournaments
    cup = await _cup(service, 9, table_size=3, rounds=2, round_span=HOUR)
    first = await tours.start(cup, HOST)
    assert first.opened is not None
    tables = first.opened.tables
    played = await play_out(service, tables[0].id)
    assert played.status == "finished"
    assert await store.changes_of_table(played.id)  # rated as any other match
    progress = await tours.table_ended(played.id)
    assert progress is not None and progress.opened is None
    assert [(d.pod, d.result.at_deadline) for d in progress.decided] == [(1, False)]
    assert await tours.table_ended(played.id) is None  # decided once
    assert await tours.advance(cup) is None  # the others play on, the deadline is ahead
    leaver = tables[1].seats[0].user
    assert leaver is not None
    view = await tours.drop(cup, leaver)
    assert [s.user for s in view.standings if s.dropped] == [leaver]
    with pytest.raises(Refusal, match="dropped"):
        await tours.drop(cup, leaver)

    # a restart mid-round: a new store on the same file, and the deadline passed meanwhile
    clock.now += HOUR
    reopened = await Store.open(tmp_path / "karak.sqlite3", clock=clock)
    try:
        after = GameService(reopened, clock=clock, seeds=lambda: 7)
        passes = await asyncio.gather(after.tournaments.sweep(), after.tournaments.sweep())
        moved = [p for found in passes for p in found]
        decided = [d for p in moved for d in p.decided]
        assert sorted((d.pod, d.result.at_deadline) for d in decided) == [(2, True), (3, True)]
        assert all(d.table is not None and d.table.status == "abandoned" for d in decided)
        seated = [p for p in moved if p.opened is not None]
        assert len(seated) == 1  # two passes at once: the round is seated once
        second = seated[0]
        assert second.opened is not None and second.record.round == 2
        assert len(second.opened.tables) == 3  # 8 players left: 3 + 3 + 2
        assert leaver not in {u for p in second.opened.seating.pods for u in p.players}
        assert not _met(first) & _met(second)  # nobody meets an opponent again
        assert await after.tournaments.sweep() == []
        clock.now += HOUR
        final = await after.tournaments.sweep()
        assert len(final) == 1 and final[0].finished
        assert final[0].record.status == "finished" and final[0].champion is not None
        assert final[0].champion == final[0].standings[0]
        assert champion_picture(final[0].tournament, "cs")  # what the channel is shown
        lines = final[0].standings
        assert [s.points for s in lines] == sorted((s.points for s in lines), reverse=True)
        assert sum(s.played for s in lines) == 9 + 8
        assert await after.tournaments.sweep() == []
    finally:
        await reopened.close()


async def test_sign_up_closing_by_its_time_starts_or_cancels(service: GameService,
                                                             clock: Clock) -> None:
    cup = await _cup(service, 3, closes_at=clock.now + 60)
    lone = await _cup(service, 1, CHANNEL + 1, closes_at=clock.now + 60)
    assert await service.tournaments.sweep() == []
    clock.now += 60
    # past its closing time, before the timers' pass: sign-up is over for clicks already
    with pytest.raises(Refusal, match="signup_over"):
        await service.tournaments.join(cup, 4, "P4")
    with pytest.raises(Refusal, match="signup_over_leave"):  # pointed to the drop
        await service.tournaments.leave(cup, 3)
    started, cancelled = await service.tournaments.sweep()
    assert started.record.id == cup and started.opened is not None
    assert [len(t.seats) for t in started.opened.tables] == [3]
    assert cancelled.record.id == lone and cancelled.record.status == "cancelled"
    assert cancelled.changed and not cancelled.finished
    mine = await service.lobby.create(guild_id=GUILD, channel_id=CHANNEL, host_id=HOST,
                                      host_name="Ann")  # beside the tournament's match
    assert await service.store.active_in_channel(CHANNEL) == mine.id
    assert await service.tournaments.sweep() == []


async def test_the_host_ends_a_round_without_a_deadline(service: GameService) -> None:
    cup = await _cup(service, 4, rounds=1)
    first = await service.tournaments.start(cup, HOST)
    assert first.opened is not None and first.record.deadline is None
    with pytest.raises(Refusal, match="host_only"):
        await service.tournaments.close_round(cup, 2)
    assert await service.tournaments.sweep() == []  # no deadline: the match plays on
    final = await service.tournaments.close_round(cup, 2, manager=True)
    assert [d.result.at_deadline for d in final.decided] == [True]
    assert final.finished and final.record.status == "finished"
    with pytest.raises(Refusal, match="not_running"):
        await service.tournaments.close_round(cup, HOST)


async def test_two_asking_at_once_end_one_round(service: GameService) -> None:
    """Two hosts (or managers) end round 1 at the same moment: the one who comes second is
    told the round is already being closed, and round 2 plays on."""
    cup = await _cup(service, 3, rounds=2)
    await service.tournaments.start(cup, HOST)
    ended = await service.tournaments.close_round(cup, HOST, round_number=1)
    assert ended.opened is not None and ended.record.round == 2
    with pytest.raises(Refusal, match="end_round.closing"):
        await service.tournaments.close_round(cup, 2, manager=True, round_number=1)
    assert (await service.tournaments.view(cup)).record.round == 2


# ---------------------------------------------------------------- a full sign-up, at once


async def test_people_joining_all_at_once_never_push_a_tournament_past_its_entrants_limit(
        service: GameService) -> None:
    """Join clicks arriving together (as when a sign-up is announced): each is checked against
    the limit in the same step that enters it, so the last seat is taken once and everyone
    after it is told the tournament is full."""
    from bot.game.tournaments import MAX_ENTRANTS

    tours = service.tournaments
    cup = await tours.create(guild_id=GUILD, channel_id=CHANNEL, host_id=HOST, name="Cup")
    for user in range(1, MAX_ENTRANTS - 1):
        await tours.join(cup.id, user, f"P{user}")
    late = range(MAX_ENTRANTS - 1, MAX_ENTRANTS + 3)  # 4 people for the last 2 places
    answers = await asyncio.gather(*(tours.join(cup.id, u, f"P{u}") for u in late),
                                   return_exceptions=True)
    refused = [a for a in answers if isinstance(a, Refusal)]
    assert len(refused) == 2 and all("full" in str(r) for r in refused), answers
    assert len((await tours.view(cup.id)).tournament.entrants) == MAX_ENTRANTS


# ---------------------------------------------------------------- a person forgotten


async def test_a_person_forgotten_during_sign_up_is_seated_in_no_match(
        service: GameService) -> None:
    """Forgetting a person who signed up takes them off the entrants: no match of the
    tournament seats a pseudonym nobody can play for."""
    cup = await _cup(service, 4)
    await service.people.forget(4)
    view = await service.tournaments.view(cup)
    assert sorted(e.user for e in view.tournament.entrants) == [1, 2, 3]
    started = await service.tournaments.start(cup, HOST)
    assert started.opened is not None
    people = [s.user for t in started.opened.tables for s in t.seats if not s.ai]
    assert sorted(u for u in people if u is not None) == [1, 2, 3]


async def test_a_person_forgotten_mid_tournament_drops_out(service: GameService) -> None:
    """Forgetting a person in a running tournament drops them: their match under way goes on
    with the AI in their seat, and no later round seats them."""
    cup = await _cup(service, 6, table_size=3, rounds=2)
    first = await service.tournaments.start(cup, HOST)
    assert first.opened is not None
    gone = first.opened.tables[0].seats[0].user
    assert gone is not None
    await service.people.forget(gone)
    view = await service.tournaments.view(cup)
    assert [s.dropped for s in view.standings if s.user < 0] == [True]
    # the standings picture names them as every message does
    assert [line.name for line, s in zip(standing_lines(view.tournament, "fr"), view.standings,
                                         strict=True) if s.user < 0] == ["Joueur oublié"]
    second = await service.tournaments.close_round(cup, HOST)
    assert second.opened is not None
    seated = [s.user for t in second.opened.tables for s in t.seats
              if s.user is not None and not s.ai]
    assert seated and all(u > 0 for u in seated)




async def test_a_forgotten_tournament_host_hands_no_player_the_close_of_their_match(
        service: GameService) -> None:
    """A tournament's matches are hosted by its host, who plays none of them: forgetting
    the host while a round is under way makes no player its match's host, who could then
    close it for everyone with /goblin abandon (the channel's managers still can), as no
    match of a later round has one either."""
    outside = 77  # hosts the tournament, plays in none of its matches
    cup = await service.tournaments.create(guild_id=GUILD, channel_id=CHANNEL,
                                           host_id=outside, name="Goblin Cup", table_size=3)
    for user in (1, 2, 3):
        await service.tournaments.join(cup.id, user, f"P{user}")
    first = await service.tournaments.start(cup.id, outside)
    assert first.opened is not None
    table = first.opened.tables[0].id
    await service.people.forget(outside)
    record = await service.tables.load(table)
    assert record.status == "running" and record.seat_of(record.host_id) is None
    with pytest.raises(Refusal):
        await service.lobby.abandon_table(table, 1, manager=False)
    assert (await service.tables.load(table)).status == "running"


@pytest.mark.parametrize("who", [HOST, 4])
async def test_a_person_kept_only_in_a_cancelled_tournament_is_told_something_was_deleted(
        service: GameService, who: int) -> None:
    """The host of a tournament cancelled during sign-up, and a person who had signed up
    for it, are kept in it (their id, an entrant's name) until forgotten: forgetting them
    says something was kept, and a second time that nothing was."""
    cup = await _cup(service, 4)
    await service.tournaments.cancel(cup, HOST)
    done = await service.people.forget(who)
    assert done.anything
    view = await service.tournaments.view(cup)
    assert who not in [e.user for e in view.tournament.entrants] + [view.record.host_id]
    assert not (await service.people.forget(who)).anything


# ---------------------------------------------------------------- a server's language


async def test_a_tournament_speaks_the_language_the_server_forced(service: GameService) -> None:
    """A server that forced its tables' language opens its tournaments in it, whatever its
    language in Discord; one forced later moves the tournaments under way too, so the rounds
    seated after it are in the new language like the matches already running."""
    await service.servers.change_settings(GUILD, True, language="fr")
    cup = await service.tournaments.create(guild_id=GUILD, channel_id=CHANNEL, host_id=HOST,
                                           name="Goblin Cup", rounds=2, locale="en")
    assert cup.locale == "fr"
    for user in (1, 2, 3):
        await service.tournaments.join(cup.id, user, f"P{user}")
    first = await service.tournaments.start(cup.id, HOST)
    assert first.opened is not None
    assert {t.locale for t in first.opened.tables} == {"fr"}
    await service.servers.change_settings(GUILD, True, language="cs", discord_locale="en")
    assert (await service.tournaments.view(cup.id)).record.locale == "cs"
    second = await service.tournaments.close_round(cup.id, HOST)
    assert second.opened is not None
    assert {t.locale for t in second.opened.tables} == {"cs"}


# ---------------------------------------------------------------- a match abandoned


async def test_its_host_abandoning_their_own_match_before_anyone_moved_takes_its_last_place(
        service: GameService) -> None:
    """The tournament's host, seated at a match of it, abandons it before anyone moved (not
    rated): as when a rated match is abandoned, they take its last place and the others are
    placed as it stands, so closing the table never shares its first place with them."""
    cup = await _cup(service, 3, table_size=3, rounds=2)
    first = await service.tournaments.start(cup, HOST)
    assert first.opened is not None
    table = first.opened.tables[0]
    assert table.seat_of(HOST) is not None
    closed = await service.lobby.abandon_table(table.id, HOST, False)
    assert closed.status == "abandoned" and await service.store.result_of(table.id) is None
    progress = await service.tournaments.table_ended(table.id)
    assert progress is not None and [d.pod for d in progress.decided] == [1]
    places = dict(progress.decided[0].result.places)
    assert places == {HOST: 3, 2: 1, 3: 1}, places
    points = {s.user: s.points for s in progress.standings}
    assert points == {HOST: 1, 2: 5, 3: 5}


async def test_a_manager_abandoning_a_match_they_do_not_play_places_it_as_it_stands(
        service: GameService) -> None:
    """Someone who sits at no seat of a tournament's match (a channel manager) abandons it:
    nobody forfeits, its players are placed as it stands, as at the round's deadline."""
    cup = await _cup(service, 2, table_size=3, rounds=2)
    first = await service.tournaments.start(cup, HOST)
    assert first.opened is not None
    table = first.opened.tables[0]
    await service.lobby.abandon_table(table.id, 99, True)
    progress = await service.tournaments.table_ended(table.id)
    assert progress is not None
    assert dict(progress.decided[0].result.places) == {HOST: 1, 2: 1}


async def test_a_pass_that_read_the_round_before_its_host_abandoned_their_match_sees_it(
        service: GameService, monkeypatch: pytest.MonkeyPatch) -> None:
    """A timer pass read the round's tables just before the host abandoned their own match
    (it then finds the match closed): the host still takes its last place."""
    cup = await _cup(service, 3, table_size=3, rounds=2)
    first = await service.tournaments.start(cup, HOST)
    assert first.opened is not None
    table = first.opened.tables[0].id
    load = service.tables.load

    async def abandoned_meanwhile(table_id: int) -> TableRecord:
        if table_id == table:
            monkeypatch.setattr(service.tables, "load", load)
            await service.lobby.abandon_table(table, HOST, False)
        return await load(table_id)

    monkeypatch.setattr(service.tables, "load", abandoned_meanwhile)
    progress = await service.tournaments.advance(cup)
    assert progress is not None and [d.pod for d in progress.decided] == [1]
    assert dict(progress.decided[0].result.places) == {HOST: 3, 2: 1, 3: 1}


# ---------------------------------------------------------------- a server's defaults


async def test_a_tournament_opened_without_options_takes_the_server_s_defaults(
        service: GameService) -> None:
    """A tournament opened with no timer nor abilities takes those of the server's
    ``/goblin settings``, as a lobby does; its matches are played with them, and a setting
    changed after its opening changes nothing of a tournament already opened."""
    await service.servers.change_settings(GUILD, True, abilities=True, timer=300)
    cup = await service.tournaments.create(guild_id=GUILD, channel_id=CHANNEL, host_id=HOST,
                                           name="Goblin Cup", rounds=2)
    assert (cup.timer, cup.abilities) == (300, True)
    lobby = await service.lobby.create(guild_id=GUILD, channel_id=CHANNEL + 1, host_id=HOST,
                                       host_name="Ann")
    assert (lobby.timer, lobby.abilities) == (cup.timer, cup.abilities)  # as a lobby's
    await service.servers.change_settings(GUILD, True, abilities=False, timer=0)
    for user in (1, 2, 3):
        await service.tournaments.join(cup.id, user, f"P{user}")
    first = await service.tournaments.start(cup.id, HOST)
    assert first.opened is not None
    assert {(t.timer, t.abilities) for t in first.opened.tables} == {(300, True)}
    assert all(t.deadline is not None for t in first.opened.tables)  # its turns are timed


async def test_a_tournament_s_own_options_win_over_the_server_s_defaults(
        service: GameService) -> None:
    """No timer and no abilities chosen for the tournament hold, whatever the server says."""
    await service.servers.change_settings(GUILD, True, abilities=True, timer=300)
    cup = await service.tournaments.create(guild_id=GUILD, channel_id=CHANNEL, host_id=HOST,
                                           name="Goblin Cup", timer=0, abilities=False)
    assert (cup.timer, cup.abilities) == (0, False)


async def test_a_server_that_never_chose_a_timer_gives_its_tournaments_the_bot_s(
        store: Store, clock: Clock) -> None:
    """A server that never chose a timer follows the bot's ``KARAK_TURN_TIMER``: so do the
    tournaments opened there without one."""
    service = GameService(store, default_timer=600, clock=clock, seeds=lambda: 7)
    cup = await service.tournaments.create(guild_id=GUILD, channel_id=CHANNEL, host_id=HOST,
                                           name="Goblin Cup")
    assert (cup.timer, cup.abilities) == (600, False)
    await service.servers.change_settings(GUILD, True, undo=False)  # a timer still unchosen
    cup = await service.tournaments.create(guild_id=GUILD, channel_id=CHANNEL + 1,
                                           host_id=HOST, name="Goblin Cup 2")
    assert cup.timer == 600


# ---------------------------------------------------------------- a rematch


async def test_a_rematch_is_not_refused_for_another_match_of_the_tournament_in_the_channel(
        service: GameService) -> None:
    """A server that turned threads off plays a round's matches side by side in the
    tournament's channel: the people of one that ended may play its rematch there while the
    others play on (as a lobby may be opened beside them), rather than be told to finish or
    abandon a match of the tournament that is not theirs."""
    await service.servers.change_settings(GUILD, True, threads=False)
    cup = await _cup(service, 5, table_size=3, rounds=2)  # a table of 3 and one of 2
    first = await service.tournaments.start(cup, HOST)
    assert first.opened is not None
    short = next(t for t in first.opened.tables if len(t.seats) == 2)
    other = next(t for t in first.opened.tables if t.id != short.id)
    done = await play_out(service, short.id)
    assert done.status == "finished"
    a, b = (s.user for s in done.seats)
    assert a is not None and b is not None
    await service.rematches.offer(short.id, a)
    started = (await service.rematches.ready(short.id, b)).started
    assert started is not None and started.status == "running"
    assert started.channel_id == CHANNEL and not started.threaded
    assert await service.store.tournament_of_table(started.id) is None  # a match of its own
    assert (await service.tables.load(other.id)).status == "running"
    # a rematch is still refused beside the channel's own table
    again = await play_out(service, started.id)
    await service.rematches.offer(again.id, a)
    await service.lobby.create(guild_id=GUILD, channel_id=CHANNEL, host_id=99, host_name="Zed")
    with pytest.raises(Refusal, match="table_active"):
        await service.rematches.ready(again.id, b)


# ---------------------------------------------------------------- a drop while a round is seated


async def test_a_player_who_drops_while_the_next_round_is_being_seated_is_not_seated(
        service: GameService, monkeypatch: pytest.MonkeyPatch) -> None:
    """A player's drop is saved while the pass that ends round 1 is seating round 2 (after
    it read the entrants, before it wrote the round): they were told they dropped out, so the
    round seats them at no table; the round is still seated by that pass."""
    cup = await _cup(service, 6, table_size=3, rounds=2)
    first = await service.tournaments.start(cup, HOST)
    assert first.opened is not None
    leaver = first.opened.tables[0].seats[0].user
    assert leaver is not None
    tours = service.tournaments
    threads = tours.threads
    assert threads is not None

    async def dropped_meanwhile(guild: int) -> bool:
        monkeypatch.setattr(tours, "threads", threads)
        await tours.drop(cup, leaver)
        return await threads(guild)

    monkeypatch.setattr(tours, "threads", dropped_meanwhile)
    second = await tours.close_round(cup, HOST)
    assert second.opened is not None and second.record.round == 2
    assert leaver in {s.user for s in (await tours.view(cup)).standings if s.dropped}
    seated = {s.user for t in second.opened.tables for s in t.seats}
    assert leaver not in seated
    assert leaver not in {u for p in second.opened.seating.pods for u in p.players}


@pytest.mark.parametrize("change", ["leave", "join"])
async def test_a_sign_up_changed_while_the_first_round_is_being_seated_is_seated_as_it_is(
        service: GameService, monkeypatch: pytest.MonkeyPatch, change: str) -> None:
    """A person leaves (or signs up) while the host's Start is seating round 1 (after it read
    the entrants, before it wrote the round), and is told they left (or are in): the round is
    seated with the entrants as they are then, the one who left at no table and the one who
    joined at one, never with the entrants the Start read."""
    cup = await _cup(service, 5, table_size=3)
    tours = service.tournaments
    threads = tours.threads
    assert threads is not None
    who = 5 if change == "leave" else 6

    async def changed_meanwhile(guild: int) -> bool:
        monkeypatch.setattr(tours, "threads", threads)
        if change == "leave":
            await tours.leave(cup, who)
        else:
            await tours.join(cup, who, f"P{who}")
        return await threads(guild)

    monkeypatch.setattr(tours, "threads", changed_meanwhile)
    first = await tours.start(cup, HOST)
    assert first.opened is not None and first.record.round == 1
    entrants = sorted(e.user for e in (await tours.view(cup)).tournament.entrants)
    assert entrants == ([1, 2, 3, 4] if change == "leave" else [1, 2, 3, 4, 5, 6])
    seated = {s.user for t in first.opened.tables for s in t.seats if not s.ai}
    if first.opened.seating.bye is not None:
        seated.add(first.opened.seating.bye)
    assert seated == set(entrants)


# ---------------------------------------------------------------- after the round's end


async def _at_the_round_s_end(service: GameService, clock: Clock,
                              ai_to_move: bool) -> TableRecord:
    """The match of a cup of two people and an AI seat with rounds of an hour, played (each
    person's move as their click) until an AI seat (``ai_to_move``) or a person must decide,
    then the round's end passed without the timers' pass that closes it."""
    cup = await _cup(service, 2, table_size=3, rounds=2, round_span=HOUR, ai_level="easy")
    first = await service.tournaments.start(cup, HOST)
    assert first.opened is not None and first.record.deadline is not None
    table = first.opened.tables[0].id
    while True:
        record = await service.tables.load(table)
        assert record.status == "running"
        seat = record.game.current
        if record.seats[seat].ai == ai_to_move:
            break
        if record.seats[seat].ai:
            assert await service.play.ai_step(table) is not None
        else:
            user = record.seats[seat].user
            assert user is not None
            move = make_agent("normal", seat).choose(observe(record.game, seat))
            await service.play.act(table, user, record.version, str(move), sure=True)
    clock.now = first.record.deadline + 1
    return record


async def test_an_ai_seat_makes_no_move_after_the_round_s_end(service: GameService,
                                                              clock: Clock) -> None:
    """The round's end passed while an AI seat was to move (the timers' pass that closes the
    match is still to come, or the bot restarted over it): the AI plays no more, and the match
    is decided as it stood at the round's end."""
    record = await _at_the_round_s_end(service, clock, ai_to_move=True)
    assert await service.play.ai_step(record.id) is None
    assert (await service.tables.load(record.id)).version == record.version
    [progress] = await service.tournaments.sweep()
    [decided] = progress.decided
    assert decided.result.at_deadline and decided.table is not None
    assert decided.table.status == "abandoned" and decided.table.game == record.game


async def test_a_person_s_move_after_the_round_s_end_is_refused(service: GameService,
                                                                clock: Clock) -> None:
    """A person clicks a move once the round's end passed, before the timers' pass closes the
    match: they are told the round is over, and nothing is played."""
    record = await _at_the_round_s_end(service, clock, ai_to_move=False)
    seat = record.game.current
    user = record.seats[seat].user
    assert user is not None
    move = make_agent("normal", seat).choose(observe(record.game, seat))
    with pytest.raises(Refusal, match="bot.tournament.round_over"):
        await service.play.act(record.id, user, record.version, str(move), sure=True)
    assert (await service.tables.load(record.id)).version == record.version


async def test_a_player_s_abandon_after_the_round_s_end_forfeits_nothing(
        service: GameService, clock: Clock) -> None:
    """A player abandons their match once the round's end passed, before the timers' pass
    closes it: they are told the round is over (the match is decided as it stood then, with
    no forfeit), and the table stays as it was for that pass to decide."""
    record = await _at_the_round_s_end(service, clock, ai_to_move=False)
    player = next(s.user for s in record.seats if s.user is not None)
    with pytest.raises(Refusal, match="bot.tournament.round_over"):
        await service.lobby.abandon_table(record.id, player, False)
    assert (await service.tables.load(record.id)).status == "running"
    await service.lobby.abandon_table(record.id, 99, True)  # a manager still closes it


async def test_its_host_abandoning_after_the_round_s_end_is_told_before_any_question(
        service: GameService, clock: Clock) -> None:
    """The host of a cup, sitting at a match, uses /goblin abandon once the round's end passed:
    they are told at once that the round is over, not first asked to confirm an abandon that
    would then be refused; a manager who does not play there is still asked."""
    record = await _at_the_round_s_end(service, clock, ai_to_move=False)
    assert record.seat_of(HOST) is not None and record.host_id == HOST
    with pytest.raises(Refusal, match="bot.tournament.round_over"):
        await service.lobby.to_confirm(record.channel_id, HOST, False)
    asked = await service.lobby.to_confirm(record.channel_id, 99, True)
    assert asked is not None and asked.id == record.id


# ---------------------------------------------------------------- another process's move


async def test_a_match_another_process_ends_as_its_round_is_closed_counts_as_it_ended(
        service: GameService, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The host ends the round while the last move of a match is made in another process
    (its own table locks, the same database), after this process read the match still
    playing and just before it closes it: the match ended and was rated, so the round takes
    its places from its result, as the ratings do, never from the position before that
    move."""
    cup = await _cup(service, 2, rounds=1)
    first = await service.tournaments.start(cup, HOST)
    assert first.opened is not None
    table = first.opened.tables[0].id
    agents: dict[int, Agent] = {}
    while True:  # people's moves until the next one ends the match
        record = await service.tables.load(table)
        seat = record.game.current
        move = agents.setdefault(seat, make_agent("normal", seat)).choose(
            observe(record.game, seat))
        if apply(record.game, move, seat=seat)[0].winner is not None:
            break
        user = record.seats[seat].user
        assert user is not None
        await service.play.act(table, user, record.version, str(move), sure=True)
    other = GameService(store, clock=service.clock, seeds=lambda: 7)
    user = record.seats[seat].user
    assert user is not None
    pending = [lambda: other.play.act(table, user, record.version, str(move), sure=True)]

    def meddled(write: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def moved_meanwhile(*args: Any, **kwargs: Any) -> Any:
            if pending:
                await pending.pop()()
            return await write(*args, **kwargs)
        return moved_meanwhile

    for name in ("abandon", "close_at_deadline"):  # the write that closes the match
        monkeypatch.setattr(store, name, meddled(getattr(store, name)))
    final = await service.tournaments.close_round(cup, HOST)
    ended = await service.tables.load(table)
    result = await store.result_of(table)
    assert ended.status == "finished" and result is not None  # rated
    ranks = tuple(s.place for s in sorted(result.seats, key=lambda s: s.seat))
    [decided] = final.decided
    assert not decided.result.at_deadline
    assert dict(decided.result.places) == {
        u: p for u, p in zip((s.user for s in ended.seats), ranks, strict=True)}
    rows = await store.tournament_rows(cup)
    assert rows is not None
    assert [(t.places, t.at_deadline) for t in rows.tables] == [(ranks, False)]


async def test_abandoning_a_match_its_others_left_before_moving_tells_both_what_it_records(
        service: GameService) -> None:
    """The tournament's host plays their match alone, the others having left before moving:
    abandoning it forfeits it in the tournament and also counts as a game they lost against
    the AI (as at a table they sat at alone). The confirmation says both beforehand."""
    cup = await _cup(service, 3, table_size=3, rounds=2)
    first = await service.tournaments.start(cup, HOST)
    assert first.opened is not None
    table = first.opened.tables[0].id
    for user in (2, 3):
        await service.lobby.leave(table, user)
    while (record := await service.tables.load(table)).game.current != record.seat_of(HOST):
        assert await service.play.ai_step(table) is not None
    seat = record.seat_of(HOST)
    assert seat is not None
    move = make_agent("normal", seat).choose(observe(record.game, seat))
    await service.play.act(table, HOST, record.version, str(move), sure=True)
    note = await service.lobby.abandon_note(await service.tables.load(table), HOST)
    assert note is not None
    told = translate(note, "en")
    await service.lobby.abandon_table(table, HOST, False)
    games = await service.store.ai_records(Place.server(GUILD).key, HOST)
    assert sum(g.games for g in games) == 1 and sum(g.wins for g in games) == 0
    assert "last place in the tournament" in told, told
    assert "lost in your record against the AI" in told, told


async def _play_with_ai(service: GameService, table_id: int, level: AiLevel) -> TableRecord:
    """Play a match to its end: its AI seats as the bot plays them, each person's move chosen
    by an AI of ``level`` and applied as their click would be."""
    agents: dict[int, Agent] = {}
    while True:
        record = await service.tables.load(table_id)
        if record.status != "running":
            return record
        seat = record.game.current
        if record.seats[seat].ai:
            await service.play.ai_step(table_id)
            continue
        user = record.seats[seat].user
        assert user is not None
        agent = agents.setdefault(seat, make_agent(level, seat))
        await service.play.act(table_id, user, record.version,
                               str(agent.choose(observe(record.game, seat))), sure=True)


async def test_a_player_who_left_their_match_to_the_ai_takes_its_last_place(
        service: GameService) -> None:
    """A player leaves their tournament match (``/goblin leave``): the AI plays their seat to
    the end, and however it places, they forfeit the match, as the ratings count it: its last
    place and its points, never the AI's win."""
    cup = await _cup(service, 3, table_size=3, rounds=1)
    first = await service.tournaments.start(cup, HOST)
    assert first.opened is not None
    table = first.opened.tables[0]
    await service.lobby.leave(table.id, 2)
    ended = await _play_with_ai(service, table.id, "easy")
    assert ended.status == "finished"
    result = await service.store.result_of(table.id)
    assert result is not None
    left = next(s for s in result.seats if s.user_id == 2)
    assert left.handed_to_ai and left.place < 3  # the AI did well in their seat
    progress = await service.tournaments.table_ended(table.id)
    assert progress is not None
    places = dict(progress.decided[0].result.places)
    assert places[2] == 3, places
    assert {s.user: s.points for s in progress.standings}[2] == 1


async def test_a_player_who_left_their_match_to_the_ai_is_last_at_the_round_s_deadline(
        service: GameService, clock: Clock) -> None:
    """A player leaves their tournament match to the AI, and the round's deadline decides it
    before anyone moved (all level as it stands): the one who left is last, the others share
    its first place."""
    cup = await _cup(service, 3, table_size=3, rounds=1, round_span=HOUR)
    first = await service.tournaments.start(cup, HOST)
    assert first.opened is not None
    table = first.opened.tables[0]
    await service.lobby.leave(table.id, 2)
    clock.now += HOUR
    [progress] = await service.tournaments.sweep()
    [decided] = progress.decided
    assert decided.result.at_deadline
    assert dict(decided.result.places) == {HOST: 1, 2: 3, 3: 1}
    rows = await service.store.tournament_rows(cup)
    assert rows is not None and rows.tables[0].places[
        rows.tables[0].seats.index(2)] == 3  # as stored


async def test_the_tournament_s_history_shows_who_left_at_the_place_it_gave_them(
        service: GameService, clock: Clock) -> None:
    """``/goblin history tournament:`` lists a match's seats at the places the tournament gave
    them: a player who left to the AI last (never the champion), at the match's end however
    the AI placed their seat, and at the round's deadline too (the others sharing first)."""
    sight = Sight(Place.server(GUILD))
    cup = await _cup(service, 3, table_size=3, rounds=1)
    first = await service.tournaments.start(cup, HOST)
    assert first.opened is not None
    table = first.opened.tables[0]
    await service.lobby.leave(table.id, 2)
    await _play_with_ai(service, table.id, "easy")
    result = await service.store.result_of(table.id)
    assert result is not None and next(s for s in result.seats if s.user_id == 2).place < 3
    progress = await service.tournaments.table_ended(table.id)
    assert progress is not None
    counted = dict(progress.decided[0].result.places)
    [shown] = (await service.history.page(sight, tournament=cup)).results
    assert {s.user_id: s.place for s in shown.seats if s.user_id is not None} == counted
    assert counted[2] == 3

    late = await _cup(service, 3, table_size=3, rounds=1, round_span=HOUR)
    first = await service.tournaments.start(late, HOST)
    assert first.opened is not None
    await service.lobby.leave(first.opened.tables[0].id, 2)
    clock.now += HOUR
    [progress] = await service.tournaments.sweep()
    [decided] = progress.decided
    [shown] = (await service.history.page(sight, tournament=late)).results
    assert {s.user_id: s.place for s in shown.seats if s.user_id is not None} == dict(
        decided.result.places) == {HOST: 1, 2: 3, 3: 1}
