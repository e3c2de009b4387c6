"""Races in the lobby, played against the real bot: Start and Cancel clicked at once, Start and
/goblin abandon, and several /goblin new in one channel at once. Whatever wins under the
table's lock decides; the loser gets a clear private answer; no message of the other outcome
comes afterwards. Each race is played once in a fixed order (the bot held at a :class:`Gate`
right after the winner released the lock) and many times with simultaneous requests."""
from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from e2e.lobby import abandon_confirmed
from e2e.messages import hand_button, lobby_button, lobby_table
from e2e.oracle import Oracle
from e2e.player import Player
from inprocess import Gate, live_bot

from bot.discord_side.client import KarakBot
from bot.discord_side.ui.custom_ids import HandButton, LobbyButton
from bot.game.refusals import Refusal
from i18n import msg
from loopback import Channel, Interaction, Loopback, Message, User

STARTED = "The game has started"
CANCELLED = "This table was cancelled"
ALREADY_STARTED = "already started"
CLOSED = "not taking seats any more"
LOBBY_EXISTS = "already has a table waiting for players"


def handlers() -> list[asyncio.Task[Any]]:
    """discord.py's tasks answering interactions (clicks and commands) still running."""
    return [t for t in asyncio.all_tasks() if not t.done()
            and t.get_name().startswith(("discord-ui-", "CommandTree"))]


async def settle(bot: KarakBot, background: bool = True) -> None:
    """Wait until the bot answered every interaction it received to the end, and (with
    ``background``) its background work (table messages, AI seats) is done."""
    while True:
        await asyncio.gather(*handlers(), return_exceptions=True)
        if background:
            await bot.tasks.idle()
        if not handlers():
            return


def hold_after(bot: KarakBot, monkeypatch: pytest.MonkeyPatch, name: str, gate: Gate) -> None:
    """Make the lobby's operation ``name`` wait at ``gate`` once it is done (its table lock
    released), the first time only."""
    real: Callable[..., Awaitable[Any]] = getattr(bot.service.lobby, name)

    async def held(*args: Any, **kwargs: Any) -> Any:
        try:
            return await real(*args, **kwargs)
        finally:
            if not gate.passed.is_set():
                await gate()

    monkeypatch.setattr(bot.service.lobby, name, held)


def hold_first(monkeypatch: pytest.MonkeyPatch, owner: object, name: str, gate: Gate) -> None:
    """Make ``owner.name`` (a coroutine method) wait at ``gate`` before its first call."""
    real: Callable[..., Awaitable[Any]] = getattr(owner, name)

    async def held(*args: Any, **kwargs: Any) -> Any:
        if not gate.passed.is_set():
            await gate()
        return await real(*args, **kwargs)

    monkeypatch.setattr(owner, name, held)


def answer(lb: Loopback, ix: Interaction, user: User) -> str:
    """The private answers ``user`` got to ``ix`` (none of them shown to anyone else)."""
    texts = []
    for mid in [ix.original_id, *ix.followups]:
        m = lb.messages.get(mid or 0)
        if m is not None and m.interaction_id == ix.id:
            assert m.owner == user.id, f"shown to everyone: {m.text()[:200]}"
            texts.append(m.text())
    return "\n".join(texts)


async def open_lobby(lb: Loopback, channel: Channel, host: User, guest: User) -> tuple[int,
                                                                                       Message]:
    """/goblin new by ``host``, ``guest`` joins; the table id and its lobby message."""
    ix = await lb.command(host, channel, "goblin new")
    await ix.done()
    lobby = lb.message(ix.original_id or 0)
    tid = lobby_table(lobby)
    ix = await lb.click(guest, lobby, lobby_button(lobby, tid, "join"))
    await ix.done()
    return tid, lb.message(lobby.id)


def check_one_outcome(lb: Loopback, oracle: Oracle, channel: Channel, host: User, tid: int,
                      lobby: Message) -> str:
    """The table ended up running or abandoned, and everything shown agrees: a running table
    has one table message with "My hand" and a lobby saying so; an abandoned one has no
    working "My hand" button anywhere and a lobby saying it was cancelled. Returns the
    status."""
    status = oracle.table(tid).status
    public = [m for m in lb.messages_for(channel, host) if m.owner is None]
    tables = [m for m in public if hand_button(m) == HandButton.id_for(tid)]
    shown = lb.message(lobby.id).text()
    if status == "running":
        assert len(tables) == 1, [m.text()[:100] for m in tables]
        assert STARTED in shown and CANCELLED not in shown, shown
    else:
        assert status == "abandoned", status
        assert tables == [], f"a working My hand button on an abandoned table: {tables}"
        assert not any(host.id in m.mentions for m in public if m.id != lobby.id), (
            "pinged to play at a closed table")
        assert CANCELLED in shown and STARTED not in shown, shown
    assert not lb.message(lobby.id).custom_ids(), "the lobby kept its buttons"
    return status


@pytest.fixture
def people(lb: Loopback) -> tuple[User, User, User]:
    return lb.create_user("Ann"), lb.create_user("Bob"), lb.create_user("Cyril")


@dataclass(frozen=True)
class StartRace:
    """A Start click held at a gate while a second request about the same table comes in."""

    #: Makes the bot wait at the gate: once the game started under the lock, or once the
    #: lobby already says it started (before the table message is posted).
    hold: Callable[[KarakBot, pytest.MonkeyPatch, Gate], None]
    lobby_says_started: bool  # what the lobby shows while the start is held
    second: str  # "cancel" (a click on the same lobby, at once) or "abandon" (/goblin abandon)
    outcome: str  # the table's status in the end
    told: str | None  # what the second request's private answer says, when it is checked


def after_start(bot: KarakBot, monkeypatch: pytest.MonkeyPatch, gate: Gate) -> None:
    """Hold the bot once the game started under the lock, before anything is shown."""
    hold_after(bot, monkeypatch, "start", gate)


def before_the_table(bot: KarakBot, monkeypatch: pytest.MonkeyPatch, gate: Gate) -> None:
    """Hold the bot once the lobby says the game started, before its table is posted."""
    hold_first(monkeypatch, bot.clicks.lobby, "begin", gate)


START_RACES = {
    "start then cancel at once: the start wins": StartRace(
        after_start, False, "cancel", "running", ALREADY_STARTED),
    "start then abandon: no turn posted for the closed table": StartRace(
        after_start, False, "abandon", "abandoned", None),
    "start shown then abandon before its table is posted": StartRace(
        before_the_table, True, "abandon", "abandoned", None),
}


@pytest.mark.parametrize("race", START_RACES.values(), ids=START_RACES.keys())
async def test_a_start_held_then_cancelled_or_abandoned(
        lb: Loopback, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        people: tuple[User, User, User], race: StartRace) -> None:
    ann, bob, _ = people
    channel = lb.create_channel(lb.create_guild())
    oracle = Oracle(tmp_path / "k.sqlite3")
    async with live_bot(lb, oracle.db) as bot:
        tid, lobby = await open_lobby(lb, channel, ann, bob)
        gate = Gate()
        race.hold(bot, monkeypatch, gate)
        started = await lb.click(ann, lobby, lobby_button(lobby, tid, "start"))
        await gate.passed.wait()
        assert (STARTED in lb.message(lobby.id).text()) is race.lobby_says_started
        if race.second == "cancel":
            second = await lb.click(ann, lobby, lobby_button(lobby, tid, "cancel"), forge=True)
        else:
            second = await abandon_confirmed(lb, channel, ann)
        await second.done(10)
        gate.open()
        await started.done(10)
        await settle(bot)
        assert check_one_outcome(lb, oracle, channel, ann, tid, lobby) == race.outcome
        if race.told is not None:
            assert race.told in answer(lb, second, ann)
    assert lb.breaches == []


async def test_start_and_cancel_at_once_many_times(
        lb: Loopback, tmp_path: Path, people: tuple[User, User, User]) -> None:
    ann, bob, _ = people
    guild = lb.create_guild()
    oracle = Oracle(tmp_path / "k.sqlite3")
    rng = random.Random(17)
    outcomes = []
    # Ann starts up to twelve matches and plays none: no limit of matches at once here
    async with live_bot(lb, oracle.db, match_limit=0) as bot:
        for _ in range(12):
            channel = lb.create_channel(guild)
            tid, lobby = await open_lobby(lb, channel, ann, bob)
            ops = ["start", "cancel"]
            rng.shuffle(ops)
            clicks = await asyncio.gather(*(
                lb.click(ann, lobby, lobby_button(lobby, tid, op), forge=True) for op in ops))
            await asyncio.gather(*(ix.done(10) for ix in clicks))
            await settle(bot)
            status = check_one_outcome(lb, oracle, channel, ann, tid, lobby)
            loser = clicks[ops.index("cancel" if status == "running" else "start")]
            assert (ALREADY_STARTED if status == "running" else CLOSED) in answer(lb, loser, ann)
            outcomes.append(status)
    assert lb.breaches == []
    assert set(outcomes) <= {"running", "abandoned"}


def lobbies_in(lb: Loopback, channel: Channel, viewer: User) -> list[Message]:
    """The public lobby messages of the channel."""
    return [m for m in lb.messages_for(channel, viewer) if m.owner is None
            and any(c.startswith(LobbyButton.prefix) for c in m.custom_ids())]


async def check_one_table(lb: Loopback, oracle: Oracle, channel: Channel,
                          asked: list[tuple[User, Interaction]]) -> None:
    """One table and one lobby message in the channel; everyone else was pointed to it."""
    tid = oracle.active_in(channel.id)
    assert tid is not None
    lobbies = lobbies_in(lb, channel, asked[0][0])
    assert len(lobbies) == 1, [m.text()[:80] for m in lobbies]
    assert oracle.table(tid).lobby_message_id == lobbies[0].id
    pointed = 0
    for user, ix in asked:
        if ix.original_id == lobbies[0].id:
            continue
        text = answer(lb, ix, user)
        assert LOBBY_EXISTS in text and str(lobbies[0].id) in text, text
        pointed += 1
    assert pointed == len(asked) - 1


async def test_three_new_tables_at_once_make_one_lobby(
        lb: Loopback, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        people: tuple[User, User, User]) -> None:
    channel = lb.create_channel(lb.create_guild())
    oracle = Oracle(tmp_path / "k.sqlite3")
    async with live_bot(lb, oracle.db) as bot:
        gate = Gate()
        hold_after(bot, monkeypatch, "create", gate)
        first = await lb.command(people[0], channel, "goblin new")
        await gate.passed.wait()  # the table exists; its lobby message is not posted yet
        others = [await lb.command(u, channel, "goblin new") for u in people[1:]]
        await asyncio.gather(*(ix.answered(10) for ix in others))
        gate.open()
        await asyncio.gather(*(ix.done(10) for ix in [first, *others]))
        await settle(bot)
        await check_one_table(lb, oracle, channel, list(zip(people, [first, *others],
                                                            strict=True)))
        with oracle._connect() as con:
            count = con.execute("SELECT COUNT(*) FROM tables WHERE channel_id = ?",
                                (channel.id,)).fetchone()[0]
        assert count == 1
    assert lb.breaches == []


async def test_new_tables_at_once_many_times(lb: Loopback, tmp_path: Path,
                                             people: tuple[User, User, User]) -> None:
    guild = lb.create_guild()
    oracle = Oracle(tmp_path / "k.sqlite3")
    # Ann starts up to twelve matches and plays none: no limit of matches at once here
    async with live_bot(lb, oracle.db, match_limit=0) as bot:
        for _ in range(12):
            channel = lb.create_channel(guild)
            asked = await asyncio.gather(*(lb.command(u, channel, "goblin new") for u in people))
            await asyncio.gather(*(ix.done(10) for ix in asked))
            await settle(bot)
            await check_one_table(lb, oracle, channel, list(zip(people, asked, strict=True)))
    assert lb.breaches == []


async def test_a_new_table_waiting_its_turn_opens_when_the_first_is_refused(
        lb: Loopback, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        people: tuple[User, User, User]) -> None:
    ann, bob, _ = people
    channel = lb.create_channel(lb.create_guild())
    oracle = Oracle(tmp_path / "k.sqlite3")
    async with live_bot(lb, oracle.db) as bot:
        gate = Gate()
        real = bot.service.lobby.create

        async def refused_first(**kwargs: Any) -> Any:
            if kwargs["host_id"] != ann.id:
                return await real(**kwargs)
            await gate()  # Ann's request is refused (as a bad option would be), slowly
            raise Refusal(msg("bot.error.bad_timer"))

        monkeypatch.setattr(bot.service.lobby, "create", refused_first)
        first = await lb.command(ann, channel, "goblin new")
        await gate.passed.wait()
        second = await lb.command(bob, channel, "goblin new")
        await second.answered(10)  # privately, while Ann's request still holds the channel
        gate.open()
        await asyncio.gather(first.done(10), second.done(10))
        await settle(bot)
        assert "turn timer is not allowed" in answer(lb, first, ann)
        lobbies = lobbies_in(lb, channel, bob)
        assert len(lobbies) == 1
        tid = oracle.active_in(channel.id)
        assert tid is not None and oracle.table(tid).lobby_message_id == lobbies[0].id
        assert oracle.table(tid).host_id == bob.id
        told = answer(lb, second, bob)
        assert f"Table #{tid} is open" in told and str(lobbies[0].id) in told, told
    assert lb.breaches == []


async def test_a_join_while_a_waiting_lobby_is_posted_leaves_one_up_to_date_lobby(
        lb: Loopback, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        people: tuple[User, User, User]) -> None:
    """Bob's /goblin new waited for Ann's, which was refused: his table is open before its
    lobby message is posted, and Cyril, told of it, runs /goblin join in the channel at that
    moment. One lobby message stands in the end, the one the table notes, showing both: the
    join's redraw neither posts a second lobby nor is drawn over by the table as it was
    before Cyril sat down."""
    ann, bob, cyril = people
    channel = lb.create_channel(lb.create_guild())
    oracle = Oracle(tmp_path / "k.sqlite3")
    async with live_bot(lb, oracle.db) as bot:
        refusing, posting = Gate(), Gate()
        real = bot.service.lobby.create

        async def refused_first(**kwargs: Any) -> Any:
            if kwargs["host_id"] != ann.id:
                return await real(**kwargs)
            await refusing()
            raise Refusal(msg("bot.error.bad_timer"))

        monkeypatch.setattr(bot.service.lobby, "create", refused_first)
        hold_first(monkeypatch, bot.messages.lobby, "show", posting)  # Bob's lobby, unposted
        first = await lb.command(ann, channel, "goblin new")
        await refusing.passed.wait()
        second = await lb.command(bob, channel, "goblin new")
        await second.answered(10)
        refusing.open()
        await posting.passed.wait()
        joined = await lb.command(cyril, channel, "goblin join")
        await joined.answered(10)
        for _ in range(40):  # the join's redraw, on its way (posted at once, unless it waits)
            if lobbies_in(lb, channel, bob):
                break
            await asyncio.sleep(0.05)
        posting.open()
        await asyncio.gather(first.done(10), second.done(10), joined.done(10))
        await settle(bot)
        tid = oracle.active_in(channel.id)
        assert tid is not None and len(oracle.table(tid).seats) == 2
        lobbies = lobbies_in(lb, channel, bob)
        assert len(lobbies) == 1, [m.text()[:80] for m in lobbies]
        assert oracle.table(tid).lobby_message_id == lobbies[0].id
        assert f"<@{cyril.id}>" in lobbies[0].text(), lobbies[0].text()
    assert lb.breaches == []


async def abandon_while_held(lb: Loopback, bot: KarakBot, channel: Channel, host: User,
                             tid: int, gate: Gate) -> None:
    """The host abandons the table while the bot is held at ``gate`` drawing the table
    message; then the gate opens. When the drawing holds the table's lock, the abandon waits
    for it; else the abandon goes through first (the order a slow drawing gives)."""
    await gate.passed.wait()
    abandoned = await abandon_confirmed(lb, channel, host)
    await abandoned.answered(10)
    if not bot.service.tables.busy(tid):
        await settle(bot, background=False)  # the abandon closed the table message
    gate.open()
    await abandoned.done(10)
    await settle(bot)


def no_working_table(lb: Loopback, oracle: Oracle, channel: Channel, viewer: User,
                     tid: int) -> None:
    """The table is abandoned and no message of it offers "My hand"."""
    assert oracle.table(tid).status == "abandoned"
    public = [m for m in lb.messages_for(channel, viewer) if m.owner is None]
    assert [m.text()[:120] for m in public if hand_button(m)] == [], "a working My hand"


async def test_a_move_drawn_as_the_table_is_abandoned_leaves_no_working_table(
        lb: Loopback, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        people: tuple[User, User, User]) -> None:
    ann, bob, _ = people
    channel = lb.create_channel(lb.create_guild())
    oracle = Oracle(tmp_path / "k.sqlite3")
    async with live_bot(lb, oracle.db) as bot:
        tid, lobby = await open_lobby(lb, channel, ann, bob)
        ix = await lb.click(ann, lobby, lobby_button(lb.message(lobby.id), tid, "start"))
        await ix.done(10)
        await settle(bot)
        rec = oracle.table(tid)
        player = Player(lb, ann if rec.seats[rec.game.current].user == ann.id else bob,
                        channel, oracle, random.Random(1))
        assert await player.open_hand(force=True)
        gate = Gate()
        hold_first(monkeypatch, bot.messages, "table_payload", gate)  # the table after it
        sent = await player.send_move()
        assert sent is not None
        await player.finish_move(*sent)
        await abandon_while_held(lb, bot, channel, ann, tid, gate)
        no_working_table(lb, oracle, channel, ann, tid)
    assert lb.breaches == []


async def test_a_turn_posted_as_the_table_is_abandoned_leaves_no_working_table(
        lb: Loopback, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        people: tuple[User, User, User]) -> None:
    ann = people[0]
    channel = lb.create_channel(lb.create_guild())
    oracle = Oracle(tmp_path / "k.sqlite3")
    async with live_bot(lb, oracle.db) as bot:
        ix = await lb.command(ann, channel, "goblin new")
        await ix.done()
        lobby = lb.message(ix.original_id or 0)
        tid = lobby_table(lobby)
        for op in ("ai", "start"):
            ix = await lb.click(ann, lobby, lobby_button(lb.message(lobby.id), tid, op))
            await ix.done(10)
        await settle(bot)
        gate = Gate()
        hold_first(monkeypatch, bot.messages, "post_table", gate)  # Ann's next turn
        player = Player(lb, ann, channel, oracle, random.Random(1))
        for _ in range(300):  # Ann plays her turn; the AI plays its own
            if gate.passed.is_set():
                break
            sent = await player.send_move()
            if sent is not None:
                await player.finish_move(*sent)
            else:
                player.asked.clear()
                await player.open_hand(force=True)
                await lb.changed(lb.version, 0.5)  # the AI plays meanwhile
        await abandon_while_held(lb, bot, channel, ann, tid, gate)
        no_working_table(lb, oracle, channel, ann, tid)
    assert lb.breaches == []
