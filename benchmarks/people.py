"""The simulated people of ``benchmarks/load.py``: at each table, people who act only on what
they see (a mention on the table message opens their hand; they pick one of its move controls,
weighted towards fighting and playing cards, after their thinking time; with a ``hint_chance``
they first click the hand's Hint button, when it has one, that often)."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.discord_side.ui.custom_ids import (
    HandButton,
    HintButton,
    LobbyOp,
    Move,
    MoveMenu,
    RematchButton,
    parse,
)
from bot.discord_side.ui.targets import Sure
from loopback import Channel, Interaction, InteractionFailed, Loopback, Message, User

#: Preference of a simulated person among the moves offered (first match wins a weighted draw).
PREFERENCE = (("fight:", 8.0), ("play:", 6.0), ("reward:keep", 4.0), ("keep:", 4.0),
              ("discard:", 3.0), ("strength:", 2.0), ("counter:", 2.0), ("heal", 2.0),
              ("buy:", 1.0), ("pay:", 3.0), ("revive", 0.5), ("merchant", 0.3),
              ("leave", 3.0), ("end", 1.0), ("cancel", 0.2), ("stack:", 0.5),
              ("undo", 0.1))


def moves(message: Message) -> list[tuple[str, str, str | None]]:
    """(notation, custom_id, select value or None) of every move control of a message (the
    Confirm button of a question asked before a move easy to regret among them)."""
    out: list[tuple[str, str, str | None]] = []
    for c in message.items():
        cid = str(c.get("custom_id", ""))
        target = parse(cid)
        if isinstance(target, Move | Sure):
            out.append((target.notation, cid, None))
        elif cid.startswith(MoveMenu.prefix):
            out += [(str(o["value"]), cid, str(o["value"])) for o in c.get("options") or []]
    return out


def weight(notation: str) -> float:
    """How much a simulated person likes a move."""
    return next((w for prefix, w in PREFERENCE if notation.startswith(prefix)), 1.0)


@dataclass
class Stats:
    """What the simulated people did."""

    moves: int = 0
    hands: int = 0
    refused: int = 0
    failed: int = 0
    games: int = 0
    opened: int = 0
    hints: int = 0
    errors: list[str] = field(default_factory=list)


class Table:
    """One channel with its players; opens a new table whenever the previous one ends."""

    def __init__(self, lb: Loopback, channel: Channel, humans: list[User], ai: int,
                 think: float, rng: random.Random, stats: Stats,
                 options: dict[str, object] | None = None) -> None:
        self.lb = lb
        self.channel = channel
        self.humans = humans
        self.ai = ai
        self.think = think
        self.rng = rng
        self.stats = stats
        self.stop = False
        self.table_id = 0
        self.options = options or {}  # of /goblin new
        self.hint_chance = 0.0  # how often a person asks for a hint first (when offered)
        #: the move a person would rather play, given their hand message (None: no advice,
        #: or a move not offered: they pick by :data:`PREFERENCE`)
        self.advice: Callable[[User, Message], str | None] | None = None

    async def _wait(self, ix: Interaction) -> bool:
        try:
            await ix.done(30)
            return True
        except InteractionFailed:
            self.stats.failed += 1
            return False

    async def open(self) -> None:
        """/goblin new, joins, AI seats, start."""
        host = self.humans[0]
        ix = await self.lb.command(host, self.channel, "goblin new", **self.options)
        if not await self._wait(ix) or ix.original_id is None:
            raise RuntimeError("could not open a table")
        lobby = self.lb.message(ix.original_id)
        ops = [t for t in map(parse, lobby.custom_ids()) if isinstance(t, LobbyOp)]
        if not ops:
            raise RuntimeError(f"no lobby: {lobby.text()[:200]}")
        self.table_id = ops[0].table
        steps = [(u, "join") for u in self.humans[1:]] + [(host, "ai")] * self.ai
        for who, op in [*steps, (host, "start")]:
            current = self.lb.message(lobby.id)
            targets = [(c, parse(c)) for c in current.custom_ids()]
            cid = next(c for c, t in targets
                       if isinstance(t, LobbyOp) and t.table == self.table_id and t.op == op)
            ix = await self.lb.click(who, current, cid)
            await self._wait(ix)
        self.stats.opened += 1

    def _table_message(self, user: User) -> Message | None:
        tag, final = HandButton.id_for(self.table_id), RematchButton.id_for(self.table_id, "offer")
        return self.lb.world.latest(self.channel, user, lambda m: m.owner is None and (
            tag in m.custom_ids()  # the table, with its "My hand" button
            or final in m.custom_ids()  # the game is over: Replay and Rematch
            or (not m.components and any(a.filename in ("table.png", "battle.png")
                                         for a in m.attachments))))  # the game is over

    async def person(self, user: User) -> None:
        """One simulated person at this table."""
        lb = self.lb
        acted: dict[int, int] = {}
        asked: set[tuple[int, int]] = set()
        idle_since = time.monotonic()
        while not self.stop:
            version = lb.channel_versions.get(self.channel.id, 0)
            hand = lb.latest(self.channel, user, lambda m: m.owner == user.id and bool(moves(m)))
            if hand is not None and acted.get(hand.id) != hand.revision:
                acted[hand.id] = hand.revision
                hint = next((c for c in hand.custom_ids() if c.startswith(HintButton.prefix)), None)
                if hint is not None and self.rng.random() < self.hint_chance:
                    if await self._wait(await lb.click(user, hand, hint)):
                        self.stats.hints += 1
                offered = moves(hand)
                advised = None if self.advice is None else self.advice(user, hand)
                notation, cid, value = next((o for o in offered if o[0] == advised), None) \
                    or self.rng.choices(offered, [weight(n) for n, _, _ in offered])[0]
                await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))
                if self.stop:
                    return
                current = lb.message(hand.id)
                if current.revision != hand.revision:
                    continue  # the hand changed while thinking (a turn timer, a refresh)
                ix = await (lb.click(user, current, cid) if value is None
                            else lb.select(user, current, cid, [value]))
                if await self._wait(ix):
                    self.stats.moves += 1
                    if ix.followups or ix.original_id not in (None, current.id):
                        self.stats.refused += 1  # told in a message of its own
                else:
                    acted.pop(hand.id, None)
                idle_since = time.monotonic()
                continue
            table = self._table_message(user)
            if table is not None and HandButton.id_for(self.table_id) not in table.custom_ids():
                return  # the game is over
            if table is not None:
                # a mention opens the hand once per table message (its edits mention the
                # person again); someone idle for 20 s looks again at each new revision
                stale = time.monotonic() - idle_since > 20
                key = (table.id, table.revision if stale else 0)
                if key not in asked and (user.id in table.mentions or stale):
                    asked.add(key)
                    ix = await lb.click(user, table, HandButton.id_for(self.table_id))
                    if await self._wait(ix):
                        self.stats.hands += 1
                    idle_since = time.monotonic()
                    continue
            await lb.channel_changed(self.channel.id, version, 5)

    async def run(self) -> None:
        """Play tables in this channel until stopped."""
        while not self.stop:
            try:
                await self.open()
                await asyncio.gather(*(self.person(u) for u in self.humans))
                self.stats.games += 1
            except Exception as exc:  # keep the load going; report at the end
                self.stats.errors.append(f"{type(exc).__name__}: {exc}"[:300])
                await asyncio.sleep(1)


async def cancel_all(tasks: list[asyncio.Task[None]]) -> None:
    """Cancel ``tasks`` and wait until every one has ended. A task whose cancellation was
    swallowed is cancelled again (Python 3.11's ``asyncio.wait_for`` can swallow one that lands
    as its wait ends, and the person's loop would then go on waiting for the next match)."""
    pending = {task for task in tasks if not task.done()}
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=1.0)


async def stop_all(tables: list[Table], tasks: list[asyncio.Task[None]]) -> None:
    """Stop every table's people and wait until their tasks have ended."""
    for t in tables:
        t.stop = True
    with contextlib.suppress(BaseException):
        await cancel_all(tasks)
