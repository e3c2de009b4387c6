"""Simulated people for the end-to-end tests: they see only what Discord would show them and
click only controls present in those messages. A read-only look at the bot's database (the
"oracle") only helps them choose sensibly (so matches end) and checks the outcome."""
from __future__ import annotations

import asyncio
import random
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bot.storage import _COLUMNS, LogRow, TableRecord, _record
from engine import observe
from engine.agents import make_agent
from loopback import Channel, Interaction, InteractionFailed, Loopback, Message, User
from loopback.botproc import BotProcess

MOVE = re.compile(r"^kg:(do|pick):(\d+):(\d+):(.+)$")
NOTE = re.compile(r"^\*[^*]")


class Oracle:
    """Reads the bot's SQLite database (read-only) while the bot runs."""

    def __init__(self, db: Path) -> None:
        self.db = db

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=10)

    def table(self, tid: int) -> TableRecord:
        with self._connect() as con:
            row = con.execute(f"SELECT {_COLUMNS} FROM tables WHERE id = ?", (tid,)).fetchone()
        assert row is not None, f"no table {tid}"
        return _record(row)

    def log(self, tid: int) -> list[LogRow]:
        with self._connect() as con:
            rows = con.execute("SELECT step, seat, user_id, by_ai, action, at FROM actions "
                               "WHERE table_id = ? ORDER BY step", (tid,)).fetchall()
        return [LogRow(int(r[0]), int(r[1]), r[2], bool(r[3]), str(r[4]), float(r[5]))
                for r in rows]


def moves_of(message: Message) -> dict[str, tuple[str, str | None]]:
    """notation -> (custom_id, option value or None) of every move control in a message."""
    out: dict[str, tuple[str, str | None]] = {}
    for c in message.items():
        m = MOVE.match(str(c.get("custom_id", "")))
        if m is None:
            continue
        if m.group(1) == "do":
            out[m.group(4)] = (c["custom_id"], None)
        else:
            for o in c.get("options") or []:
                out[o["value"]] = (c["custom_id"], o["value"])
    return out


def table_of(message: Message) -> tuple[int, int] | None:
    """(table, version) of a message's move controls."""
    for cid in message.custom_ids():
        m = MOVE.match(cid)
        if m:
            return int(m.group(2)), int(m.group(3))
    return None


def hand_button(message: Message) -> str | None:
    return next((c for c in message.custom_ids() if c.startswith("kg:hand:")), None)


@dataclass
class Acknowledged:
    """A move the bot confirmed to its player (the hand message came back without a refusal)."""

    user: int
    table: int
    version: int
    notation: str


@dataclass
class Player:
    lb: Loopback
    user: User
    channel: Channel
    oracle: Oracle
    rng: random.Random
    acted: dict[int, int] = field(default_factory=dict)  # message id -> revision acted on
    asked: set[tuple[int, int]] = field(default_factory=set)  # table message (id, revision)
    acknowledged: list[Acknowledged] = field(default_factory=list)
    unoffered: list[str] = field(default_factory=list)
    clicks: int = 0

    def hand(self) -> Message | None:
        """The newest message only this player sees that holds move controls."""
        mine = [m for m in self.lb.messages_for(self.channel, self.user)
                if m.owner == self.user.id and moves_of(m)]
        return mine[-1] if mine else None

    def table_message(self) -> Message | None:
        public = [m for m in self.lb.messages_for(self.channel, self.user)
                  if m.owner is None and hand_button(m)]
        return public[-1] if public else None

    def choose(self, hand: Message) -> tuple[str, str, str | None]:
        offered = moves_of(hand)
        where = table_of(hand)
        assert where is not None
        rec = self.oracle.table(where[0])
        seat = rec.seat_of(self.user.id)
        notation = None
        if (rec.status == "running" and rec.version == where[1] and seat is not None
                and rec.game.current == seat and self.rng.random() > 0.05):
            obs = observe(rec.game, seat)
            want = str(make_agent("heuristic", rec.version).choose(obs))
            legal = {str(a) for a in obs.legal}
            if set(offered) != legal:
                self.unoffered.append(f"offered {sorted(offered)} != legal {sorted(legal)}")
            if want in offered:
                notation = want
        if notation is None:
            notation = self.rng.choice(sorted(offered))
        cid, value = offered[notation]
        return notation, cid, value

    async def send_move(self) -> tuple[Interaction, str, Message, tuple[int, int]] | None:
        """Click a move in the hand message if it changed since the last click."""
        hand = self.hand()
        if hand is None or self.acted.get(hand.id) == hand.revision:
            return None
        where = table_of(hand)
        assert where is not None
        notation, cid, value = self.choose(hand)
        self.acted[hand.id] = hand.revision
        if value is None:
            ix = await self.lb.click(self.user, hand, cid)
        else:
            ix = await self.lb.select(self.user, hand, cid, [value])
        self.clicks += 1
        return ix, notation, hand, where

    async def finish_move(self, ix: Interaction, notation: str, hand: Message,
                          where: tuple[int, int]) -> None:
        try:
            await ix.done(15)
        except InteractionFailed:
            self.acted.pop(hand.id, None)  # lost in a crash: the player will try again
            return
        if ix.followups:
            return  # refused with a message
        reply = self.lb.message(ix.original_id or 0)
        if any(NOTE.match(str(e.get("description", ""))) for e in reply.embeds[:1]):
            return  # a note in italics first: refused ("already played")
        self.acknowledged.append(Acknowledged(self.user.id, where[0], where[1], notation))

    async def open_hand(self, force: bool = False) -> bool:
        """Click "My hand" on the table message when it mentions me (or when forced)."""
        table = self.table_message()
        if table is None:
            return False
        key = (table.id, table.revision)
        if key in self.asked or not (force or self.user.id in table.mentions):
            return False
        self.asked.add(key)
        button = hand_button(table)
        assert button is not None
        ix = await self.lb.click(self.user, table, button)
        try:
            await ix.done(15)
        except InteractionFailed:
            self.asked.discard(key)
        return True


class Chaos:
    """Kills the bot at random points and starts it again on the same database."""

    def __init__(self, bot: BotProcess, rng: random.Random, every: tuple[int, int]) -> None:
        self.bot = bot
        self.rng = rng
        self.every = every
        self.countdown = rng.randint(*every)
        self.kills = 0

    def due(self) -> bool:
        self.countdown -= 1
        return self.countdown <= 0 and self.every[1] > 0

    async def restart(self) -> None:
        self.bot.kill()
        await self.bot.wait()
        self.kills += 1
        self.countdown = self.rng.randint(*self.every)
        await self.bot.start()


async def play(lb: Loopback, players: list[Player], tables: list[int], oracle: Oracle,
               chaos: Chaos | None = None, max_rounds: int = 20000) -> None:
    """Let the players play until every table is finished."""
    idle = 0
    rng = players[0].rng
    for _ in range(max_rounds):
        if all(oracle.table(t).status == "finished" for t in tables):
            return
        acted = False
        order = list(players)
        rng.shuffle(order)
        for p in order:
            sent = await p.send_move()
            if sent is not None:
                acted = True
                if chaos is not None and chaos.due():
                    await asyncio.sleep(rng.random() * 0.03)  # mid-flight, or just after
                    await chaos.restart()
                await p.finish_move(*sent)
            elif await p.open_hand():
                acted = True
        if acted:
            idle = 0
            continue
        idle += 1
        version = lb.version
        await lb.changed(version, 0.3)
        if idle >= 3:  # nothing to do for a while: everybody looks at their hand
            for p in order:
                await p.open_hand(force=True)
            idle = 0
    raise AssertionError("the matches did not finish")


@dataclass
class PrivacyWatch:
    """Records every message revision; fails on hands shown publicly (checked live) and keeps
    ephemeral move controls for the after-match check against the action log."""

    lb: Loopback
    problems: list[str] = field(default_factory=list)
    private_moves: list[tuple[int, int, int]] = field(default_factory=list)  # owner, table, ver
    hands_seen: int = 0

    def __call__(self, message: Message) -> None:
        hand_image = any(a.filename.startswith("hand") for a in message.attachments)
        hand_embed = [e for e in message.embeds
                      if str((e.get("image") or {}).get("url", "")).endswith("/hand.png")
                      or (e.get("image") or {}).get("url") == "attachment://hand.png"]
        moves = moves_of(message)
        if message.owner is None:
            if hand_image or hand_embed or moves:
                self.problems.append(f"public message {message.id} shows a hand: "
                                     f"{message.text()[:200]}")
            return
        owner = self.lb.users[message.owner]
        if hand_embed:
            self.hands_seen += 1
            text = str(hand_embed[0].get("description", ""))
            if f"**{owner.name}**" not in text:
                self.problems.append(f"{owner.name} was shown a hand that is not theirs: "
                                     f"{text[:200]}")
        where = table_of(message)
        if where is not None:
            self.private_moves.append((owner.id, *where))

    def check_moves(self, oracle: Oracle) -> None:
        """Every set of move controls went to the user whose seat was deciding."""
        logs: dict[int, list[LogRow]] = {}
        for owner, table, version in self.private_moves:
            if table not in logs:
                logs[table] = oracle.log(table)
            log = logs[table]
            rec = oracle.table(table)
            if version < len(log):
                seat = log[version].seat  # the row of step version+1: who decided at version
                if rec.seats[seat].user != owner:
                    self.problems.append(f"moves of seat {seat} at table {table} version "
                                         f"{version} were shown to user {owner}")


def check_acknowledged(players: list[Player], oracle: Oracle) -> int:
    """Every move the bot confirmed is in the action log, as the player's."""
    count = 0
    for p in players:
        for ack in p.acknowledged:
            log = oracle.log(ack.table)
            assert ack.version < len(log), f"acknowledged move lost: {ack}"
            row = log[ack.version]
            assert (row.step, row.user_id, row.action) == (
                ack.version + 1, ack.user, ack.notation), f"acknowledged {ack}, logged {row}"
            count += 1
    return count


async def open_table(lb: Loopback, channel: Channel, host: User, others: list[User],
                     ai: int = 0) -> int:
    """Open a lobby with /goblin new, let the others join, add AI seats and start."""
    ix = await lb.command(host, channel, "goblin new")
    await ix.done()
    lobby = lb.message(ix.original_id or 0)
    tid = int(next(c for c in lobby.custom_ids() if c.startswith("kg:lobby:")).split(":")[2])
    for who, op in [(u, "join") for u in others] + [(host, "ai")] * ai + [(host, "start")]:
        ix = await lb.click(who, lb.message(lobby.id), f"kg:lobby:{tid}:{op}")
        await ix.done()
    await until(lb, lambda: any(hand_button(m) == f"kg:hand:{tid}"
                                for m in lb.messages_for(channel, host)))
    return tid


async def until(lb: Loopback, predicate: Callable[[], bool], timeout: float = 20) -> None:
    """Wait until ``predicate()`` holds, re-checking whenever the stand-in changes."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("the expected change never came")
        await lb.changed(lb.version, 0.5)
