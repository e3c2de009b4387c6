"""The image built from the repository's Dockerfile, run as docker-compose.yml runs its service,
with the bot connected to the Discord stand-in on this machine (see :mod:`docker_container`).

In one container: the health check turns healthy; the bot runs as the image's user and no
other; people click through the first moves of a match with an AI seat; a database that takes
no write makes the health check unhealthy, naming the AI loop that fails, and healthy again
once it takes writes; ``docker stop`` while a hard AI seat is thinking (its worker frozen
mid-search, as a search on a slow machine lasts up to ``KARAK_AI_THINK``) ends the bot with
status 0 before Docker's 10 s grace runs out, and every move a player was told about is saved. The
container is removed, and a new one on the same volume (its root writable this time, so that
``docker diff`` shows anything the bot would write outside ``/data`` and ``/tmp``) answers
the buttons of messages posted before, plays the match to its end and lets the thinking table
go on.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import time
from pathlib import Path

from docker_container import FIGURES, UID, Built, Container, new_name, write_env
from e2e.catalogue import where_shown
from e2e.lobby import open_table, until
from e2e.oracle import Oracle
from e2e.player import Player, check_acknowledged, play, play_until

from bot.discord_side.ui.custom_ids import HandButton
from engine.replay import replay
from loopback import Loopback
from loopback.botproc import cpu_seconds

#: The bot's settings in the test's .env: AI seats move every 0.1 s (an AI-only table lasts a
#: while), and a hard seat may think for 10 s, the most an admin may set.
SETTINGS = {"KARAK_AI_PACE": "0.1", "KARAK_AI_THINK": "10", "KARAK_LOG_LEVEL": "INFO"}
#: A file-size limit past which no write goes: the database is larger, the heartbeat smaller.
NO_DATABASE_WRITES = 4096
#: Moves the people make before the first container is stopped.
FIRST_MOVES = 12


class Laps:
    """Seconds each phase of a test took (printed, never asserted)."""

    def __init__(self) -> None:
        self.last = time.monotonic()
        self.phases: list[str] = []

    def mark(self, name: str) -> None:
        """The phase ``name`` ends now."""
        now = time.monotonic()
        self.phases.append(f"{name} {now - self.last:.0f} s")
        self.last = now

    def __str__(self) -> str:
        return ", ".join(self.phases)


def confirmed(players: list[Player]) -> int:
    """Moves the bot confirmed to these players so far."""
    return sum(len(p.acknowledged) for p in players)


def person_to_move(oracle: Oracle, tid: int) -> bool:
    """True when a person holds the turn at a running table."""
    rec = oracle.table(tid)
    return rec.status == "running" and rec.seats[rec.game.current].user is not None


def hall_shows_now(player: Player, oracle: Oracle, tid: int) -> bool:
    """True when the newest table message ``player`` sees shows the table as stored: a move's
    messages go out after it is stored, and the one handing the turn to a person replaces the
    older table message."""
    message = player.table_message()
    shown = where_shown(message.text()) if message is not None else None
    return shown == (tid, oracle.table(tid).game.step)


def ai_to_move(oracle: Oracle, tid: int) -> bool:
    """True when an AI seat holds the turn at a running table."""
    rec = oracle.table(tid)
    return rec.status == "running" and rec.seats[rec.game.current].ai


async def catch_thinking(lb: Loopback, container: Container, person: Player, oracle: Oracle,
                         tid: int, turns: int = 30) -> int:
    """Freeze the hard AI seat of table ``tid`` while it thinks: on its turn, as soon as a
    thinking worker uses CPU, SIGSTOP it, as a slow machine's search would last; the worker's
    pid. The person plays their turns meanwhile."""
    for _ in range(turns):
        await play_until(lb, [person], lambda: ai_to_move(oracle, tid))
        used: dict[int, float] = {}
        while ai_to_move(oracle, tid):
            for pid in await container.workers("bot.workers.thinking"):
                now = cpu_seconds(pid)
                if now > used.setdefault(pid, now):
                    os.kill(pid, signal.SIGSTOP)
                    return pid
            await asyncio.sleep(0.002)
    raise AssertionError("the hard AI seat was never caught thinking")


def problems_logged(logs: str) -> list[str]:
    """ERROR / CRITICAL lines and tracebacks the bot printed, but those of an AI loop, the
    leases' loop or the turn timers' loop failing (expected while the database takes no write:
    each writes, the timers' loop renewing the leases first; a log record with its
    traceback)."""
    out, expected = [], False
    for line in logs.splitlines():
        if re.match(r"\d{4}-\d\d-\d\d ", line):  # a new log record
            expected = re.search(r" ERROR karak\.bot: (ai-\d+|leases|turn-timers) failed \(",
                                 line) is not None
        if not expected and re.search(r" (ERROR|CRITICAL) |^Traceback", line):
            out.append(line)
    return out


def unchanged_by_replay(oracle: Oracle, tid: int) -> bool:
    """True when the stored game is exactly its action log replayed (no move lost)."""
    rec = oracle.table(tid)
    return replay(rec.game.config, [r.action for r in oracle.log(tid)]) == rec.game


async def test_a_match_through_the_container_stopped_and_started_again(
        image: Built, standin: Loopback, volume: tuple[str, Path], tmp_path: Path) -> None:
    lb = standin
    assert image.added <= 90e6, f"the image adds {image.added / 1e6:.0f} MB to its base"
    env_file = write_env(tmp_path / ".env", lb, SETTINGS)
    oracle = Oracle(volume[1] / "karak.sqlite3")
    rng = random.Random(2026)
    guild = lb.create_guild("Karak Club", locale="en-US")
    hall, cellar, den = (lb.create_channel(guild, n) for n in ("hall", "cellar", "den"))
    ann, bob, ida, eve = (lb.create_user(n, "en-US") for n in ("Ann", "Bob", "Ida", "Eve"))
    laps = Laps()
    first = Container(new_name("bot"), volume[0], env_file)
    second = Container(new_name("bot"), volume[0], env_file, read_only=False)
    try:
        await first.start(lb)
        await first.wait_health("healthy")
        assert await first.uids() == {UID}
        laps.mark("started")

        # a match of two people and an AI seat; a table of AI seats alone in the cellar
        t1 = await open_table(lb, hall, ann, [bob], ai=1)
        t3 = await open_table(lb, cellar, ida, [], ai=1)
        await (await lb.command(ida, cellar, "goblin leave")).done()
        await first.limit_writes(NO_DATABASE_WRITES)
        said = await first.wait_health("unhealthy")
        assert f"ai-{t3} failing" in said, said
        await first.limit_writes(None)
        laps.mark("unhealthy")

        players = [Player(lb, u, hall, oracle, rng) for u in (ann, bob)]
        await play_until(lb, players, lambda: confirmed(players) >= FIRST_MOVES)
        await first.wait_health("healthy")  # the cellar's loop works again, no restart
        laps.mark("first moves, healthy again")

        # the hall's match waits for a person, whose hand is open
        await play_until(lb, players, lambda: person_to_move(oracle, t1))
        await until(lb, lambda: hall_shows_now(players[0], oracle, t1))
        mover = next(p for p in players if p.user.id == oracle.table(t1).seats[
            oracle.table(t1).game.current].user)
        await mover.open_hand(force=True)
        old_hand, old_table = mover.hand(), players[0].table_message()
        assert old_hand is not None and old_table is not None
        assert mover.acted.get(old_hand.id) != old_hand.revision, "no move left to click"

        # a hard AI seat in the den is thinking when the container is stopped
        t2 = await open_table(lb, den, eve, [], ai=1, ai_level="hard")
        eva = Player(lb, eve, den, oracle, rng)
        await catch_thinking(lb, first, eva, oracle, t2)
        laps.mark("caught thinking")
        # exact whatever the machine's speed: the hall waits for a person and the den's hard
        # seat is frozen mid-decision, so no write is under way, and once the stop begins no AI
        # move, timed-out turn or resumption starts (the shutdown grace lets only writes under
        # way finish)
        before = {tid: oracle.table(tid).version for tid in (t1, t2)}
        seconds, status = await first.stop()
        FIGURES.append(f"docker stop took {seconds:.1f} s while a hard AI seat was thinking")
        logs = await first.logs()
        assert status == 0, logs[-3000:]
        assert problems_logged(logs) == [], logs[-3000:]
        # nothing lost: every confirmed move is saved, every stored game its log replayed
        assert check_acknowledged([*players, eva], oracle) >= FIRST_MOVES
        assert {tid: oracle.table(tid).version for tid in (t1, t2)} == before
        assert all(unchanged_by_replay(oracle, tid) for tid in (t1, t2, t3))
        first.remove()

        laps.mark("stopped")
        # a new container on the same volume: old buttons answer, the matches go on
        await second.start(lb)
        # the table message of before the stop, clicked by the one who waits (the move below
        # replaces that message when it hands the turn to a person)
        waiter = next(p.user for p in players if p is not mover)
        ix = await lb.click(waiter, old_table, HandButton.id_for(t1))
        await ix.done()
        assert lb.message(ix.original_id or 0).owner == waiter.id
        sent = await mover.send_move()
        assert sent is not None and sent[2].id == old_hand.id
        await mover.finish_move(*sent)
        if oracle.table(t1).version == before[t1]:  # asked about first (a visit to the
            sent = await mover.send_move()  # merchant with nothing to pay): confirmed
            assert sent is not None and sent[2].id == old_hand.id
            await mover.finish_move(*sent)
        # the old hand's move applied once; the AI seats may already play on after it (their
        # turn starts as soon as the move is stored)
        log = oracle.log(t1)
        assert len(log) > before[t1] and log[before[t1]].user_id == mover.user.id
        assert all(row.by_ai for row in log[before[t1] + 1:]), log[before[t1]:]
        await play(lb, players, [t1], oracle)
        laps.mark("match finished")
        rec = oracle.table(t1)
        assert rec.status == "finished" and rec.winner is not None and unchanged_by_replay(
            oracle, t1)
        assert check_acknowledged(players, oracle) > FIRST_MOVES
        await until(lb, lambda: oracle.table(t2).version > before[t2], 60)  # the hard seat
        await until(lb, lambda: oracle.table(t3).status == "finished", 60)
        laps.mark("den and cellar went on")
        assert await second.uids() == {UID}
        outside = [line for line in await second.diff()
                   if not re.match(r"^[ACD] /(data|tmp)(/|$)", line)]
        assert outside == [], f"the bot wrote outside /data and /tmp: {outside}"
        seconds, status = await second.stop()
        logs = await second.logs()
        assert status == 0 and problems_logged(logs) == [], logs[-3000:]
        assert lb.breaches == [], "\n".join(map(str, lb.breaches))
    finally:
        FIGURES.append(f"test phases: {laps}")
        first.remove()
        second.remove()
