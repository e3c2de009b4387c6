from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from discord_harness import FakeDiscord, Harness, User

from engine import Observation

ANN = User(2000000000000000001, "Ann")
BOB = User(2000000000000000002, "Bob")
EVE = User(2000000000000000003, "Eve")
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16


class TinyRenderer:
    """Stands in for Pillow where a test plays hundreds of moves (images are tested apart)."""

    def table(self, obs: Observation, locale: str) -> bytes:
        return PNG

    def battle(self, obs: Observation, locale: str) -> bytes:
        assert obs.battle is not None
        return PNG

    def hand(self, obs: Observation, locale: str) -> bytes:
        assert obs.viewer is not None
        return PNG


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeDiscord:
    f = FakeDiscord()
    f.install(monkeypatch)
    return f


@pytest.fixture
async def bot(fake: FakeDiscord, tmp_path: Path) -> AsyncIterator[Harness]:
    h = await Harness.start(fake, tmp_path / "k.db", TinyRenderer())
    yield h
    await h.stop()


async def test_new_table_posts_a_lobby(bot: Harness, fake: FakeDiscord) -> None:
    assert any(c.method == "PUT" for c in fake.calls)  # first start syncs the commands
    await bot.command(ANN, "new")
    lobby = fake.public()[-1]
    ids = lobby.custom_ids()
    assert any(i.startswith("kg:hero:") for i in ids)
    assert {i.rsplit(":", 1)[1] for i in ids if i.startswith("kg:lobby:")} == {
        "join", "leave", "ai", "start", "cancel"}


async def open_table(h: Harness, host: User, others: list[User], ai: int = 0,
                     heroes: dict[int, str] | None = None) -> int:
    await h.command(host, "new")
    lobby = h.fake.public()[-1]
    tid = int(next(i for i in lobby.custom_ids() if i.startswith("kg:lobby:")).split(":")[2])
    for u in others:
        await h.click(u, lobby, f"kg:lobby:{tid}:join")
        lobby = h.fake.messages[lobby.id]
    for _ in range(ai):
        await h.click(host, lobby, f"kg:lobby:{tid}:ai")
        lobby = h.fake.messages[lobby.id]
    for uid, hero in (heroes or {}).items():
        user = next(u for u in [host, *others] if u.id == uid)
        await h.choose(user, lobby, f"kg:hero:{tid}", [hero])
        lobby = h.fake.messages[lobby.id]
    await h.click(host, lobby, f"kg:lobby:{tid}:start")
    return tid


class Players:
    """Simulated people: they look at their hand message and click what they decide."""

    def __init__(self, h: Harness, tid: int, users: list[User]) -> None:
        self.h = h
        self.tid = tid
        self.users = {u.id: u for u in users}
        self.hand_msgs: dict[int, int] = {}
        self.clicks = 0

    async def open_hand(self, user: User) -> Any:
        table_msg = self.h.fake.last_table_message()
        token = await self.h.click(user, table_msg, f"kg:hand:{self.tid}")
        msg = self.h.reply(token)
        assert msg.flags & 64, "the hand message must be ephemeral"
        self.hand_msgs[user.id] = msg.id
        return msg

    async def step(self) -> bool:
        """One decision by the seat that must decide; False once the game is over."""
        from bot.service import GameService
        from engine import observe
        from engine.agents import make_agent

        svc: GameService = self.h.bot.service
        rec = await svc.load(self.tid)
        if rec.status != "running":
            return False
        state = rec.game
        seat = rec.seats[state.current]
        assert seat.user is not None and not seat.ai, "AI seats must have played by now"
        user = self.users[seat.user]
        msg = self.h.fake.messages.get(self.hand_msgs.get(user.id, 0))
        if msg is None or not msg.offered():
            msg = await self.open_hand(user)
        obs = observe(state, state.current)
        offered = msg.offered()
        assert set(offered) == {str(a) for a in obs.legal}, "exactly the legal moves"
        for cid, _ in offered.values():
            assert f":{rec.version}:" in cid and len(cid) <= 100
        want = str(make_agent("heuristic", state.step).choose(obs))
        cid, value = offered[want]
        if value is None:
            await self.h.click(user, msg, cid)
        else:
            await self.h.choose(user, msg, cid, [value])
        self.clicks += 1
        after = await svc.load(self.tid)
        assert after.version > rec.version, f"{want} was not applied"
        return True


async def test_whole_match_one_human_and_ai(bot: Harness, fake: FakeDiscord) -> None:
    tid = await open_table(bot, ANN, [], ai=2, heroes={ANN.id: "horan"})
    players = Players(bot, tid, [ANN])
    for _ in range(3000):
        if not await players.step():
            break
    rec = await bot.bot.service.load(tid)
    assert rec.status == "finished" and rec.winner is not None
    log = await bot.store.action_log(tid)
    assert len(log) == rec.version
    assert sum(1 for r in log if not r.by_ai) == players.clicks > 0
    final = fake.public()[-1]
    assert "wins" in (final.content or "")
    assert not final.custom_ids()  # no buttons on a finished table


async def test_whole_match_two_humans(bot: Harness, fake: FakeDiscord) -> None:
    tid = await open_table(bot, ANN, [BOB])
    players = Players(bot, tid, [ANN, BOB])
    for _ in range(3000):
        if not await players.step():
            break
    rec = await bot.bot.service.load(tid)
    assert rec.status == "finished"
    mentions = [m for m in fake.public() if m.content and "your turn" in m.content]
    assert mentions and all(f"<@{ANN.id}>" in m.content or f"<@{BOB.id}>" in m.content
                            for m in mentions if m.content)
    # every post that mentions a player allows user mentions and nothing else
    for c in fake.calls:
        if c.method == "POST" and c.template == "/channels/{channel_id}/messages":
            am = c.body.get("allowed_mentions") or {}
            assert "everyone" not in am.get("parse", [])
