"""A simulated person at a table: opens their hand when the table message mentions them, clicks a
move offered there (mostly the heuristic agent's choice, read through the oracle) and keeps
the moves the bot confirmed; :func:`play` lets several play until every table is finished."""
from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from engine import observe
from engine.agents import make_agent
from loopback import Channel, Interaction, InteractionFailed, Loopback, Message, User

from .chaos import Chaos
from .messages import asking, hand_button, moves_of, refused, table_of
from .oracle import Oracle

#: Taking back a move, and how often a person does when it is offered.
UNDO = "undo"
UNDO_CHANCE = 0.1
#: Seconds the players wait for a bot that went away (a restart takes a few) before giving up.
AWAY_AT_MOST = 60.0


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
        """The move to click: the question's Confirm when asked, else sometimes Undo (a
        misclick taken back), mostly the heuristic agent's choice, now and then any move."""
        offered = moves_of(hand)
        where = table_of(hand)
        assert where is not None
        rec = self.oracle.table(where[0])
        seat = rec.seat_of(self.user.id)
        notation = None
        if asking(hand) or (UNDO in offered and self.rng.random() < UNDO_CHANCE):
            notation = next(iter(offered)) if asking(hand) else UNDO
        elif (rec.status == "running" and rec.version == where[1] and seat is not None
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
        if ix.followups or ix.original_id not in (None, hand.id):
            return  # refused with a message of its own (the first answer or a follow-up)
        reply = self.lb.message(ix.original_id or 0)
        if refused(reply) or asking(reply):
            return  # a note in italics first: refused ("already played"); or a question
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


async def play(lb: Loopback, players: list[Player], tables: list[int], oracle: Oracle,
               chaos: Chaos | None = None, max_rounds: int = 20000,
               shards: Collection[int] | None = None) -> None:
    """Let the players play until every table is finished (while the bot is connected on each
    of ``shards``: None, every shard). A bot away for :data:`AWAY_AT_MOST` seconds in a row
    fails the run (it died, and nothing starts it again)."""
    idle = 0
    rng = players[0].rng
    loop = asyncio.get_running_loop()
    away_since: float | None = None
    for _ in range(max_rounds):
        if all(oracle.table(t).status == "finished" for t in tables):
            return
        if not lb.gateway.connected(shards):  # the bot is down: people wait a moment, then retry
            away_since = loop.time() if away_since is None else away_since
            if loop.time() - away_since > AWAY_AT_MOST:
                raise AssertionError(f"the bot stayed away for {AWAY_AT_MOST:g} s")
            await lb.changed(lb.version, 0.2)
            continue
        away_since = None
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


async def play_until(lb: Loopback, players: list[Player], done: Callable[[], bool],
                     rounds: int = 2000) -> None:
    """The players click the moves offered to them (opening their hands when the table
    mentions them, or when nothing happens for a while) until ``done()``."""
    for _ in range(rounds):
        if done():
            return
        acted = False
        for p in players:
            sent = await p.send_move()
            if sent is not None:
                await p.finish_move(*sent)
                acted = True
            elif await p.open_hand():
                acted = True
        if not acted:
            await lb.changed(lb.version, 0.3)
            for p in players:
                await p.open_hand(force=True)
    raise AssertionError("what the players waited for never came")


def check_acknowledged(players: list[Player], oracle: Oracle) -> int:
    """Every move the bot confirmed is in the action log, as the player's."""
    count = 0
    for p in players:
        for ack in p.acknowledged:
            log = oracle.log(ack.table)
            assert ack.version < len(log), f"acknowledged move lost: {ack}"
            row = log[ack.version]  # the action applied at that version (steps go back)
            assert (row.user_id, row.action) == (
                ack.user, ack.notation), f"acknowledged {ack}, logged {row}"
            count += 1
    return count
