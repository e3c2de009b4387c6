"""The real bot on Discord's terms: SIGTERM (``docker stop``) and Ctrl-C (SIGINT) end it with
status 0, no traceback, the database checkpointed and no drawing worker left behind, also when
Discord has gone away (the wait on it is cut short); SIGKILL while its drawing workers start
leaves none of them behind either, and a bot whose starter was killed outright ends too; a
table message Discord no longer lets it edit is posted afresh."""
from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sqlite3
import sys
from pathlib import Path

import pytest
from e2e.lobby import open_table, until
from e2e.messages import hand_button, lobby_table

from bot.discord_side.ui.custom_ids import HandButton
from loopback import Loopback, ManualClock
from loopback.botproc import ROOT, BotProcess, group_members

#: The bot draws in worker processes here (its default draws in a thread of its own process).
WORKERS = {"KARAK_DRAWING_WORKERS": "2"}
#: discord.py's line as its connection loop starts to sleep before its next try at the gateway.
RECONNECT = re.compile(r"Attempting a reconnect for shard ID \d+ in (\d+\.\d+)s")


async def ended(pid: int, guard: float = 30) -> None:
    """Wait until process ``pid`` has ended (told by a pidfd, no polling)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()
    loop.add_reader(fd, lambda: done.done() or done.set_result(None))
    try:
        await asyncio.wait_for(done, guard)
    except TimeoutError:
        raise AssertionError(f"process {pid} was left behind: "
                             f"{Path(f'/proc/{pid}/cmdline').read_text()!r}") from None
    finally:
        loop.remove_reader(fd)
        os.close(fd)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
async def test_the_bot_stops_cleanly(lb: Loopback, tmp_path: Path, sig: signal.Signals) -> None:
    db = tmp_path / "karak.sqlite3"
    bot = BotProcess(lb, db, extra_env=WORKERS)
    await bot.start()
    try:
        guild = lb.create_guild("Karak Club", locale="en-US")
        channel = lb.create_channel(guild, "goblin-hall")
        ann = lb.create_user("Ann")
        await open_table(lb, channel, ann, [], ai=1)  # pictures drawn: the workers run
        pids = bot.pids()
        assert len(pids) > 1, "drawing workers were started"
        assert bot.proc is not None
        bot.proc.send_signal(sig)
        status = await asyncio.wait_for(bot.wait(), 30)  # a guard, not a measurement
    finally:
        await bot.stop()
    assert status == 0, bot.log_tail()
    assert "Traceback" not in bot.log_text(), bot.log_tail()
    for pid in pids:  # the workers and multiprocessing's resource tracker end with the bot
        await ended(pid)
    wal = db.with_name(db.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0, "the write-ahead log was checkpointed"


async def test_the_bot_stops_at_once_when_discord_has_gone_away(lb: Loopback,
                                                                tmp_path: Path) -> None:
    """Discord goes away (the stand-in stops): discord.py tries again and again, sleeping ever
    longer in between (up to 17 minutes), and without a bound on the wait its stop would last
    the rest of that sleep. SIGTERM during a sleep lasting well beyond the wait on Discord (set
    low here) ends the bot with status 0 and one line saying Discord could not be reached; what
    was saved stays, and the database was closed properly."""
    db = tmp_path / "karak.sqlite3"
    bot = BotProcess(lb, db, extra_env={"KARAK_DISCORD_STOP_WAIT": "0.2"})
    await bot.start()
    try:
        channel = lb.create_channel(lb.create_guild("Karak Club", locale="en-US"), "goblin-hall")
        ix = await lb.command(lb.create_user("Ann"), channel, "goblin new")
        await ix.done()
        tid = lobby_table(lb.message(ix.original_id or 0))
        seen = len(bot.log_text())
        await lb.stop()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60  # a guard, not a measurement
        while not any(float(m[1]) >= 1.5 for m in RECONNECT.finditer(bot.log_text(), seen)):
            assert loop.time() < deadline, "discord.py never slept long: " + bot.log_tail()
            await asyncio.sleep(0.02)
        assert bot.proc is not None
        bot.proc.send_signal(signal.SIGTERM)  # as that sleep begins
        status = await asyncio.wait_for(bot.wait(), 30)  # a guard, not a measurement
    finally:
        await bot.stop()
    stop = bot.log_text().rsplit(" stopping\n", 1)[-1]
    assert status == 0, bot.log_tail()
    assert "Discord could not be reached while stopping" in stop, bot.log_tail()
    assert " ERROR " not in stop and "Traceback" not in stop, bot.log_tail()
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as con:
        assert con.execute("SELECT status FROM tables WHERE id = ?", (tid,)).fetchone()
    wal = db.with_name(db.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0, "the write-ahead log was checkpointed"


async def test_a_table_message_discord_refuses_to_edit_is_posted_afresh(
        lb: Loopback, clock: ManualClock, tmp_path: Path) -> None:
    """The stand-in lets a message older than an hour take 3 edits an hour, then answers 429
    with JSON code 30046, as Discord does: the bot posts the table afresh and takes the buttons
    off the old message."""
    bot = BotProcess(lb, tmp_path / "karak.sqlite3")
    await bot.start()
    try:
        guild = lb.create_guild("Karak Club", locale="en-US")
        channel = lb.create_channel(guild, "goblin-hall")
        ann, bob = lb.create_user("Ann"), lb.create_user("Bob")
        admin = lb.create_user("Ada", admin=True)
        tid = await open_table(lb, channel, ann, [bob])
        first = [m for m in lb.messages_for(channel, ann)
                 if hand_button(m) == HandButton.id_for(tid)]
        assert len(first) == 1
        clock.advance(2 * 3600)  # the table message is two hours old now
        old = first[0]
        for language in ("fr", "en", "cs", "en"):  # each redraws the table message
            seen = (old.revision, len(lb.breaches))
            ix = await lb.command(admin, channel, "goblin settings", language=language)
            await ix.done()
            await until(lb, lambda seen=seen: (old.revision, len(lb.breaches)) != seen, 30)
        await until(lb, lambda: len([m for m in lb.messages_for(channel, ann)
                                     if hand_button(m) == HandButton.id_for(tid)]) == 1
                    and (old.deleted or hand_button(old) is None), 30)
    finally:
        await bot.stop()
    assert lb.breaches and {b.rule for b in lb.breaches} == {"old-edit"}, lb.breaches
    lb.breaches.clear()  # provoked on purpose


async def test_a_killed_bot_takes_its_starting_workers_along(lb: Loopback, tmp_path: Path) -> None:
    """SIGKILL the bot as soon as the first pictures start a drawing worker (still starting up,
    maybe before it has asked to die with the bot): every process of its group ends."""
    bot = BotProcess(lb, tmp_path / "karak.sqlite3", extra_env=WORKERS)
    await bot.start()
    try:
        channel = lb.create_channel(lb.create_guild("Karak Club", locale="en-US"), "goblin-hall")
        alone = set(bot.group_pids())
        assert bot.pid in alone
        opening = asyncio.ensure_future(open_table(lb, channel, lb.create_user("Ann"), [], ai=1))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60  # a guard, not a measurement
        started: set[int] = set()
        while not any(b"bot.workers.drawing" in _cmdline(pid) for pid in started):  # starting
            assert loop.time() < deadline and not opening.done(), "no drawing worker started"
            await asyncio.sleep(0.005)
            started = set(bot.group_pids()) - alone
        bot.kill()
        opening.cancel()
        with contextlib.suppress(BaseException):
            await opening
        await bot.wait()  # the bot, then its whole group (bounded; TimeoutError names survivors)
    finally:
        await bot.stop()
    assert bot.group_pids() == []
    for pid in started | alone:
        await ended(pid)


def _cmdline(pid: int) -> bytes:
    """The command line of process ``pid`` (empty once it has ended)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


async def test_a_bot_ends_when_what_started_it_is_killed_outright(tmp_path: Path) -> None:
    """A test or benchmark killed with SIGKILL cannot stop the bot it started: the bot, tied to
    it, gets SIGTERM and stops."""
    holder = await asyncio.create_subprocess_exec(
        sys.executable, str(Path(__file__).with_name("bot_holder.py")),
        str(tmp_path / "karak.sqlite3"), cwd=str(ROOT), stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert holder.stdout is not None
    try:
        line = await asyncio.wait_for(holder.stdout.readline(), 90)
        bot = int(line)
        assert group_members(bot), "the bot runs"
    finally:
        holder.kill()
        await holder.wait()
    await ended(bot)
    assert group_members(bot) == []
