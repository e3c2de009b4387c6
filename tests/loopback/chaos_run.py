"""A seeded chaos run of the real bot against the stand-in, shared by the chaos test and
``benchmarks/chaos.py`` (the same code, a larger plan).

Each table has one person and one AI seat. The person clicks through their private hand
message for a few moves, then hands their seat to the AI (``/goblin leave``), which plays the
match to its end. Meanwhile:

- the bot is SIGKILLed and started again on the same database when the number of stored moves
  (over all tables) passes seeded marks; when a person is clicking then, the kill lands 0-30 ms
  after their click (mid-flight, or just after the answer);
- the stand-in answers a seeded share of REST requests with 429s, each for its route (global
  429s are left to ``test_loopback_bot_429``, one table: with ten, a request already on its way
  when a global 429 is answered lands after it, which the stand-in cannot tell from an early
  retry);
- once, after a seeded number of acknowledged moves, the disk refuses every write of the bot
  (its processes get a file-size limit of 0 bytes, RLIMIT_FSIZE, set from outside with
  ``prlimit``: no root, no small filesystem) while the people go on clicking; it is freed after
  a few clicks were refused, and every table must then move on without a restart.

At the end every match is finished, every move the bot acknowledged to its person is in the
stored action list, every table's replay (seed + stored actions through the engine) equals its
stored state, and SQLite's ``PRAGMA integrity_check`` says ``ok``.
"""
from __future__ import annotations

import asyncio
import random
import resource
import sqlite3
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from e2e.botlog import bot_errors
from e2e.lobby import open_table_despite_crashes, settle
from e2e.oracle import Oracle
from e2e.player import Player

from engine.replay import replay
from i18n import msg, translate
from loopback import Interaction, Loopback, Message, Schedule
from loopback.botproc import BotProcess

#: The people's languages, in turn.
LOCALES = ("en-US", "fr", "cs")
#: Seconds the tables get to move on after the disk is freed, without a restart.
RECOVERY = 30.0
#: The run fails when no move is stored for this long (seconds) while the bot is up.
STALL = 120.0


@dataclass(frozen=True)
class Plan:
    """What a chaos run does: ``tables`` matches, ``kills`` SIGKILLs at least, 429s on
    ``rate`` of the REST requests, each person playing ``moves`` (a range) acknowledged moves
    before handing their seat to the AI, and a full disk until ``refusals`` clicks were refused
    (``disk_full`` False: none). The AI seats wait ``ai_pace`` seconds before each move, so the
    matches outlast the kills however quick the bot (each restart takes a second or so)."""

    seed: int
    tables: int = 10
    kills: int = 10
    rate: float = 0.05
    moves: tuple[int, int] = (3, 6)
    disk_full: bool = True
    refusals: int = 3
    ai_pace: float = 0.03

    def schedule(self) -> Schedule:
        """The stand-in's 429s for this plan (each for its route: see the module's text)."""
        return Schedule(seed=self.seed, rate=self.rate, global_share=0.0)


@dataclass
class Figures:
    """What a chaos run measured."""

    seed: int
    tables: int = 0
    seconds: float = 0.0
    finished: int = 0
    stored_moves: int = 0
    kills: list[tuple[str, int]] = field(default_factory=list)  # (how, stored moves then)
    acknowledged: int = 0
    lost: list[str] = field(default_factory=list)
    injected_429: int = 0
    replays_identical: int = 0
    integrity: str = ""
    refused_while_full: int = 0
    stored_while_full: int = -1  # moves stored while the disk refused writes (-1: no full disk)
    stalled: list[int] = field(default_factory=list)  # tables idle after the disk was freed
    breaches: int = 0
    errors: list[str] = field(default_factory=list)  # ERROR lines and tracebacks the bot logged

    def problems(self, plan: Plan) -> list[str]:
        """What falls short of a passing run of ``plan`` (nothing: it passed)."""
        checks = [
            (self.finished == plan.tables, f"{self.finished} of {plan.tables} matches finished"),
            (len(self.kills) >= plan.kills, f"{len(self.kills)} SIGKILLs, {plan.kills} planned"),
            (self.acknowledged >= plan.tables * plan.moves[0],
             f"only {self.acknowledged} moves acknowledged"),
            (not self.lost, "acknowledged moves lost: " + "; ".join(self.lost)),
            (self.injected_429 > 0 or plan.rate == 0, "no 429 injected"),
            (not plan.disk_full or (self.refused_while_full > 0 and self.stored_while_full == 0),
             f"the full disk refused {self.refused_while_full} clicks and let "
             f"{self.stored_while_full} moves be stored"),
            (not self.stalled, f"tables {self.stalled} did not move on after the full disk"),
            (self.replays_identical == plan.tables,
             f"{plan.tables - self.replays_identical} replays differ from their stored state"),
            (self.integrity == "ok", f"integrity_check: {self.integrity}"),
            (self.breaches == 0, f"{self.breaches} Discord rules broken"),
            (not self.errors, "the bot logged errors:\n" + "\n".join(self.errors)),
        ]
        return [problem for ok, problem in checks if not ok]

    def report(self) -> str:
        """The figures, one per line."""
        clicked = sum(how == "after a click" for how, _ in self.kills)
        full = ("no full disk" if self.stored_while_full < 0 else
                f"{self.refused_while_full} clicks refused, {self.stored_while_full} moves "
                "stored meanwhile; " + (
                    f"tables {self.stalled} made no move in {RECOVERY:g} s after it (only the "
                    "next restart resumed them)" if self.stalled else
                    "every table moved on after it without a restart"))
        return "\n".join([
            f"chaos run, seed {self.seed}, {self.seconds:.0f} s:",
            f"  tables finished:          {self.finished} of {self.tables} "
            f"({self.stored_moves} moves stored)",
            f"  SIGKILLs:                 {len(self.kills)} ({clicked} 0-30 ms after a click)",
            f"  moves acknowledged:       {self.acknowledged}",
            f"  acknowledged moves lost:  {len(self.lost)}",
            f"  429s injected:            {self.injected_429}",
            f"  disk full:                {full}",
            f"  replays identical:        {self.replays_identical} of {self.tables}",
            f"  integrity_check:          {self.integrity}",
            f"  Discord rules broken:     {self.breaches}",
            f"  bot errors logged:        {len(self.errors)} (outside the full disk)",
        ])


def refuse_writes(bot: BotProcess, limit: int) -> None:
    """Give the bot and its workers a file-size limit (RLIMIT_FSIZE, bytes): with 0 every write
    to a file fails (EFBIG) and SQLite refuses every change, as on a full disk; with
    ``resource.RLIM_INFINITY`` writes work again. Reads and sockets are untouched."""
    for pid in bot.group_pids():
        _, hard = resource.prlimit(pid, resource.RLIMIT_FSIZE)
        resource.prlimit(pid, resource.RLIMIT_FSIZE, (limit, hard))


@dataclass
class Person(Player):
    """A player who plays ``quota`` acknowledged moves at ``table``, then hands their seat to
    the AI. A move the bot could not save (the disk is full) is tried again."""

    table: int = 0
    quota: int = 0
    left: bool = False
    unsaved: int = 0

    def playing(self) -> bool:
        """True while this person still clicks moves."""
        return not self.left and len(self.acknowledged) < self.quota

    async def finish_move(self, ix: Interaction, notation: str, hand: Message,
                          where: tuple[int, int]) -> None:
        """As :meth:`Player.finish_move`; an answer that nothing could be saved is counted and
        the hand message clicked again."""
        await super().finish_move(ix, notation, hand, where)
        sorry = translate(msg("bot.error.cannot_save"), self.user.locale)
        told = [m for m in (ix.original_id, *ix.followups) if m and m != hand.id]
        if any(sorry in self.lb.message(m).text() for m in told):
            self.unsaved += 1
            self.acted.pop(hand.id, None)

    async def leave(self) -> None:
        """``/goblin leave``: the seat goes to the AI (checked in the database, since the bot
        may have died under the command)."""
        ix = await self.lb.command(self.user, self.channel, "goblin leave")
        await settle(ix)
        sorry = translate(msg("bot.error.cannot_save"), self.user.locale)
        answers = [i for i in (ix.original_id, *ix.followups) if i]
        if any(sorry in self.lb.message(i).text() for i in answers):
            self.unsaved += 1  # the full disk refused it: it is tried again
        rec = self.oracle.table(self.table)
        seat = rec.seat_of(self.user.id)
        self.left = rec.status != "running" or (seat is not None and rec.seats[seat].ai)


@dataclass
class Full:
    """The disk while it is full: clicks refused before it filled, moves stored when it was
    first seen full (-1 until then), and how often everybody opened their hand since, nothing
    else happening."""

    refused: int
    moved: int = -1
    looked: int = 0


def progress(db: Path) -> tuple[int, int]:
    """(tables not finished, moves stored over all tables), read-only."""
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)) as con:
        row = con.execute("SELECT COUNT(*) FILTER (WHERE status != 'finished'), "
                          "COALESCE(SUM(version), 0) FROM tables").fetchone()
    return int(row[0]), int(row[1])


def versions(db: Path) -> dict[int, int]:
    """The version of every running table."""
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)) as con:
        rows = con.execute("SELECT id, version FROM tables WHERE status = 'running'").fetchall()
    return {int(r[0]): int(r[1]) for r in rows}


class ChaosRun:
    """One chaos run of ``plan`` with a stand-in and a bot process (started here; the caller
    stops it whatever happens)."""

    def __init__(self, plan: Plan, lb: Loopback, bot: BotProcess) -> None:
        self.plan = plan
        self.lb = lb
        self.bot = bot
        self.rng = random.Random(plan.seed)
        self.oracle = Oracle(bot.db)
        self.figures = Figures(plan.seed, tables=plan.tables)
        # kills when the stored moves pass these marks: all are passed while every match is
        # still under way (a match has more than 100 moves)
        self.marks = sorted(self.rng.sample(range(10, plan.tables * 30), plan.kills))
        # the disk fills once this many people left (their AI seats play alone) while others
        # still click
        third = max(1, plan.tables // 3)
        self.full_after = self.rng.randint(third, plan.tables - third) if plan.disk_full else -1
        self.people: list[Person] = []
        self.full: Full | None = None
        self.recovering: dict[int, int] = {}  # table -> its version when the disk was freed
        self.recovery_deadline = 0.0

    async def run(self) -> Figures:
        """Open the tables, play them to the end through the chaos, stop the bot, check and
        return the figures."""
        lb, plan = self.lb, self.plan
        began = asyncio.get_running_loop().time()
        guild = lb.create_guild("Karak Chaos", locale="en-US")
        await self.bot.start()
        for i in range(plan.tables):
            user = lb.create_user(f"Player {i + 1}", LOCALES[i % len(LOCALES)])
            channel = lb.create_channel(guild, f"table-{i + 1}")
            tid = await open_table_despite_crashes(lb, self.oracle, channel, user, [], ai=1)
            self.people.append(Person(lb, user, channel, self.oracle,
                                      random.Random(self.rng.random()), table=tid,
                                      quota=self.rng.randint(*plan.moves)))
        await self.play()
        await self.bot.stop()
        self.figures.seconds = asyncio.get_running_loop().time() - began
        self.check()
        return self.figures

    async def restart(self, how: str, moved: int) -> None:
        """SIGKILL the bot, wait until its processes are gone, start it again."""
        self.figures.kills.append((how, moved))
        self.bot.kill()
        await self.bot.wait()
        await self.bot.start()

    def kill_due(self, moved: int) -> bool:
        """True when the stored moves passed the next mark (and the disk is neither full nor
        just freed)."""
        if self.full is not None or self.recovering or not self.marks or moved < self.marks[0]:
            return False
        self.marks.pop(0)
        return True

    async def play(self) -> None:
        """Let the people play (and the AI finish) until every match is finished."""
        lb = self.lb
        idle = 0
        clock = asyncio.get_running_loop().time
        last_moved, since = -1, clock()
        while True:
            unfinished, moved = progress(self.bot.db)
            if unfinished == 0:
                return
            if moved != last_moved:
                last_moved, since = moved, clock()
            elif clock() - since > STALL:
                raise AssertionError(f"no move stored for {STALL:g} s; running tables and "
                                     f"their versions: {versions(self.bot.db)}")
            if not lb.gateway.connected():  # the bot is down: people wait a moment, then retry
                await lb.changed(lb.version, 0.2)
                continue
            self.disk(moved)
            kill = self.kill_due(moved)
            acted = False
            order = list(self.people)
            self.rng.shuffle(order)
            for p in order:
                if not p.left and not p.playing():
                    await p.leave()
                    acted = acted or p.left  # a leave the full disk refused is no progress
                    continue
                sent = await p.send_move() if p.playing() else None
                if sent is not None:
                    acted = True
                    if kill:
                        await asyncio.sleep(self.rng.random() * 0.03)  # mid-flight or just after
                        await self.restart("after a click", moved)
                        kill = False
                    await p.finish_move(*sent)
                elif p.playing() and await p.open_hand():
                    acted = True
            if kill:
                await self.restart("between moves", moved)
            if acted:
                idle = 0
                continue
            idle += 1
            await lb.changed(lb.version, 0.3)
            if idle >= 3:  # nothing to do for a while: everybody looks at their hand
                for p in order:
                    if p.playing():
                        await p.open_hand(force=True)
                idle = 0
                if self.full is not None:
                    self.full.looked += 1

    def acknowledged(self) -> int:
        """Moves acknowledged to the people so far."""
        return sum(len(p.acknowledged) for p in self.people)

    def refused(self) -> int:
        """Clicks answered that nothing could be saved so far."""
        return sum(p.unsaved for p in self.people)

    def disk(self, moved: int) -> None:
        """The full disk: filled once the seeded number of people left, while a person who
        still plays is to move; freed once enough clicks were refused, or when nothing happened
        after everybody opened their hand twice (a person whose click a kill cut short waits
        for that, and must still get to click the hand it brings); then every table that was
        running must move on, without a restart, before the next kill (those still idle after
        :data:`RECOVERY` seconds are noted)."""
        if self.full is None and self.full_after >= 0:
            left = sum(p.left for p in self.people)
            if left >= self.full_after and any(self.to_move(p) for p in self.people):
                self.full_after = -1
                refuse_writes(self.bot, 0)
                self.full = Full(self.refused())
        elif self.full is not None:
            if self.full.moved < 0:  # the first look since the limit is in force
                self.full.moved = moved
            refused = self.refused() - self.full.refused
            if refused < self.plan.refusals and self.full.looked < 2:
                return
            self.figures.refused_while_full = refused
            self.figures.stored_while_full = moved - self.full.moved
            refuse_writes(self.bot, resource.RLIM_INFINITY)
            self.full = None
            self.recovering = versions(self.bot.db)
            self.recovery_deadline = asyncio.get_running_loop().time() + RECOVERY
        elif self.recovering:
            now = versions(self.bot.db)
            self.recovering = {t: v for t, v in self.recovering.items() if now.get(t, v + 1) == v}
            if self.recovering and asyncio.get_running_loop().time() > self.recovery_deadline:
                self.figures.stalled = sorted(self.recovering)
                self.recovering = {}  # the kills go on (and resume them)

    def to_move(self, person: Person) -> bool:
        """True when ``person`` still plays and their seat is to move."""
        if not person.playing():
            return False
        rec = self.oracle.table(person.table)
        return rec.status == "running" and rec.seat_of(person.user.id) == rec.game.current

    def check(self) -> None:
        """Fill in the end figures from the database (the bot stopped)."""
        f = self.figures
        db = self.bot.db
        with closing(sqlite3.connect(db)) as con:
            f.integrity = str(con.execute("PRAGMA integrity_check").fetchone()[0])
        f.stored_moves = progress(db)[1]
        for p in self.people:
            rec = self.oracle.table(p.table)
            log = self.oracle.log(p.table)
            f.finished += rec.status == "finished"
            if replay(rec.game.config, [r.action for r in log]) == rec.game:
                f.replays_identical += 1
            for ack in p.acknowledged:
                row = log[ack.version] if ack.version < len(log) else None
                if row is None or (row.user_id, row.action) != (ack.user, ack.notation):
                    f.lost.append(f"{ack} (logged: {row})")
        f.acknowledged = self.acknowledged()
        f.injected_429 = self.lb.world.limiter.scheduled
        f.breaches = len(self.lb.breaches)
        f.errors = bot_errors(self.bot, killed=True, full_disk=f.stored_while_full >= 0)
