"""Hard AI seats think in a worker process: the bot keeps answering while a hard decision runs,
and a worker that dies or never answers costs one decision, made at normal level, instead of
freezing the table. Real worker processes (spawned), the real bot on the loopback stand-in; no
process is left behind."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path

import pytest
from bot_helpers import Clock, alive, dying_decide, gated_decide, stuck_decide
from live_bot import LiveBot, resolve, table_id
from players import ANN, TinyRenderer

from bot.discord_side.ui.custom_ids import HandButton, LobbyButton
from bot.game.service import GameService
from bot.workers import thinking as thinking_module
from bot.workers.thinking import Thinking
from engine import Action, GameConfig, Observation, SeatConfig, new_game, observe, parse
from loopback import Interaction, Loopback


def ai_first_seed() -> int:
    """A seed whose two-seat game starts with the second seat (the AI's)."""
    return next(s for s in range(1, 1000) if new_game(GameConfig(
        seats=(SeatConfig("horan"), SeatConfig("taia")), seed=s)).current == 1)


async def start(lb: Loopback, tmp_path: Path, clock: Clock, thinking: Thinking) -> LiveBot:
    seed = ai_first_seed()
    return await LiveBot.start(lb, tmp_path / "k.db", TinyRenderer(), clock=clock,
                               seeds=lambda: seed, thinking=thinking)


async def hard_lobby(h: LiveBot) -> tuple[int, str]:
    """Ann's lobby with one hard AI seat; (table id, its start button)."""
    await h.command(ANN, "new", ai_level="hard")
    lobby = h.public()[-1]
    tid = table_id(lobby)
    await h.click(ANN, lobby, LobbyButton.id_for(tid, "ai", None))
    return tid, resolve(h.message(lobby), LobbyButton.id_for(tid, "start", None))


async def answered(h: LiveBot, ix: Interaction) -> Interaction:
    """Wait until the bot answered ``ix`` and finished everything but the AI seats' turns."""
    await ix.answered(20)
    await h.settle(but="ai-")
    return ix



async def test_the_bot_answers_while_a_hard_decision_runs_in_a_worker(
        lb: Loopback, tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = tmp_path / "gate"
    gate.mkdir()
    for fifo in ("started", "go"):
        os.mkfifo(gate / fifo)
    (gate / "armed").touch()
    monkeypatch.setenv("KARAK_TEST_GATE", str(gate))  # the spawned worker inherits it
    h = await start(lb, tmp_path, clock, Thinking(workers=1, seconds=0.2, work=gated_decide))
    try:
        tid, start_id = await hard_lobby(h)
        # the game starts; the hard seat starts thinking
        await answered(h, await lb.click(ANN, h.public()[-1], start_id))
        worker = int(await asyncio.to_thread((gate / "started").read_text))
        assert worker != os.getpid()  # the decision runs in another process...
        rec = await h.bot.service.tables.load(tid)
        assert rec.version == 0 and rec.seats[rec.game.current].ai  # ...and is not made yet
        # meanwhile the bot answers: Ann's hand (the table's lock is free) and a command
        hand = await answered(h, await lb.click(ANN, h.last_table_message(),
                                                HandButton.id_for(tid)))
        assert "Your hand" in h.reply(hand).text()
        rules = await answered(h, await lb.command(ANN, h.channel, "goblin rules"))
        assert any("in short" in t for t in h.said(rules))
        assert (await h.bot.service.tables.load(tid)).version == 0  # still thinking
        await asyncio.to_thread((gate / "go").write_text, "go")
        await h.settle()  # the worker decides with the real hard agent, the seat plays on
        rec = await h.bot.service.tables.load(tid)
        log = await h.store.action_log(tid)
        assert log and log[0].by_ai and log[0].seat == 1
        assert rec.status == "finished" or not rec.seats[rec.game.current].ai  # Ann's turn
    finally:
        await h.stop()
    assert not alive(worker)  # the worker stopped with the bot


async def test_a_dying_worker_costs_a_normal_move_not_the_table(
        lb: Loopback, tmp_path: Path, clock: Clock, caplog: pytest.LogCaptureFixture) -> None:
    h = await start(lb, tmp_path, clock, Thinking(workers=1, seconds=0.2, work=dying_decide))
    try:
        tid, start_id = await hard_lobby(h)
        await h.click(ANN, h.public()[-1], start_id)
        rec = await h.bot.service.tables.load(tid)
        log = await h.store.action_log(tid)
        assert log and all(r.by_ai and r.seat == 1 for r in log)  # the AI's turn was played
        assert rec.status == "finished" or not rec.seats[rec.game.current].ai  # Ann's turn
        failed = [r.getMessage() for r in caplog.records if "hard AI decision" in r.getMessage()]
        assert failed and all("WorkerGone" in m for m in failed)
        assert not h.bot.service.thinking.pool.pids()  # the next one starts a fresh worker
    finally:
        await h.stop()


async def test_a_stuck_worker_is_stopped_and_the_move_made_at_normal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
        ) -> None:
    os.mkfifo(tmp_path / "never")
    monkeypatch.setenv("KARAK_TEST_GATE", str(tmp_path))
    thinking = Thinking(workers=1, seconds=0.1, work=stuck_decide, slack=0.5)
    state = new_game(GameConfig(seats=(SeatConfig("horan"), SeatConfig("taia")), seed=3))
    obs = observe(state, state.current)
    try:
        action = await thinking.choose("hard", 5, obs)
        assert action in obs.legal
        assert any("no answer in 0.6 s" in r.getMessage() for r in caplog.records)
        assert not thinking.pool.pids()  # the stuck worker was ended
    finally:
        await thinking.close()


async def test_a_hard_decision_in_a_worker_is_legal(tmp_path: Path) -> None:
    thinking = Thinking(workers=1, seconds=0.2)
    state = new_game(GameConfig(seats=(SeatConfig("horan"), SeatConfig("taia")), seed=11))
    obs = observe(state, state.current)
    try:
        assert await thinking.choose("hard", 1, obs) in obs.legal
        assert await thinking.choose("easy", 1, obs) in obs.legal  # at once, no worker needed
    finally:
        await thinking.close()


async def test_a_decided_move_waits_for_the_ai_s_pace(service: GameService) -> None:
    """The pace runs while the AI thinks; the move is applied when both are done."""
    table = await service.lobby.create(guild_id=1, channel_id=1, host_id=1, host_name="Ann")
    await service.lobby.add_ai(table.id, 1)
    await service.lobby.start(table.id, 1)
    rec = await service.lobby.leave(table.id, 1)  # every seat is the AI's
    decided = asyncio.Event()
    choose = service.thinking.choose

    async def noting(level: str, seed: int, obs: Observation) -> Action:
        action = await choose(level, seed, obs)
        decided.set()
        return action

    service.thinking.choose = noting  # type: ignore[method-assign]
    pacing, over = asyncio.Event(), asyncio.get_running_loop().create_future()

    async def pace() -> None:
        pacing.set()
        await over

    step = asyncio.create_task(service.play.ai_step(table.id, pace()))
    waiting = asyncio.create_task(pacing.wait())
    await asyncio.wait({step, waiting}, return_when=asyncio.FIRST_COMPLETED)
    assert decided.is_set() and waiting.done() and not step.done()  # chosen, waiting its pace
    assert (await service.tables.load(table.id)).version == rec.version
    over.set_result(None)  # ...and played once the pace is over
    outcome = await step
    assert outcome is not None and outcome.record.version == rec.version + 1


@pytest.mark.allow_errors("the easy AI failed", "which is not legal here")
async def test_an_agent_that_fails_or_cheats_is_logged_once_and_a_legal_move_played(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    state = new_game(GameConfig(seats=(SeatConfig("horan"), SeatConfig("taia")), seed=3))
    obs = observe(state, state.current)
    thinking = Thinking(workers=0)

    class Broken:
        def choose(self, observation: Observation) -> Action:
            raise KeyError("oops")

    class Cheating:
        def choose(self, observation: Observation) -> Action:
            return parse("fight:3-1")  # the third level is not open at the start

    monkeypatch.setattr(thinking_module, "make_agent", lambda *a, **k: Broken())
    for seed in range(3):
        assert await thinking.choose("easy", seed, obs) == obs.legal[0]
    monkeypatch.setattr(thinking_module, "make_agent", lambda *a, **k: Cheating())
    for seed in range(3):
        assert await thinking.choose("normal", seed, obs) == obs.legal[0]
    told = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert len(told) == 2 and "KeyError" in told[0] and "not legal" in told[1]


async def test_closing_drops_a_decision_in_progress(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stopping the bot (``docker stop``) never waits for a search: closing kills the worker
    in the middle of its decision (the seat's loop, cancelled, decides again next time)."""
    for fifo in ("started", "go"):
        os.mkfifo(tmp_path / fifo)
    (tmp_path / "armed").touch()
    monkeypatch.setenv("KARAK_TEST_GATE", str(tmp_path))  # the spawned worker inherits it
    thinking = Thinking(workers=1, seconds=0.1, work=gated_decide, slack=3600)
    state = new_game(GameConfig(seats=(SeatConfig("horan"), SeatConfig("taia")), seed=3))
    obs = observe(state, state.current)
    deciding = asyncio.ensure_future(thinking.choose("hard", 5, obs))
    worker = int(await asyncio.to_thread((tmp_path / "started").read_text))  # it is deciding
    await asyncio.wait_for(thinking.close(), 60)  # a guard: the decision would never end
    deciding.cancel()  # as the bot's shutdown cancels the AI seat's loop
    with contextlib.suppress(asyncio.CancelledError):
        await deciding
    assert not alive(worker)  # killed and waited for
