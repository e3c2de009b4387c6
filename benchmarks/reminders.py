"""Reminders of slow matches falling due in the same minute, sent by the real bot to the
stand-in with its limits on.

    .venv/bin/python benchmarks/reminders.py [--matches 1000] [--people 2000] [--seed 7]
                                             [--rate 0.05] [--against DIR]

The real bot (discord.py, SQLite) connects to the stand-in, whose limits are on: a channel's
message limit (5 posts in 5 s per channel) and a seeded share ``--rate`` of requests answered
with 429 (a fifth of them global). Then ``--matches`` running matches with a 3-day turn timer
are stored among ``--people`` people (two a match, each asked for reminders), each with its
table message, their reminders falling due over the same minute (one a second, spread). The
bot holds their leases (as its leases loop would) and its ``reminders`` loop runs as in
production. Printed: how many reminders went out, their delay after their due time (p50, p99,
the last one), when the last one went out after the minute's first due time, the requests the
bot made (and the 429s it got), and how many reminders arrived in the stand-in's direct
messages. Goal: every reminder out within the minute it fell due in (the last one less than
60 s after the minute's first due time).

With ``--against DIR`` (another version of the project, e.g. ``git archive main`` unpacked in
``DIR``), the same run is made with that version's bot, then with this one's, each in a process
of its own (this script runs both; ``--root`` names the version a process measures).

Times are wall-clock; the machine may be shared.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent


def _root(argv: list[str]) -> Path:
    """The project measured: this one, or the one after ``--root`` (a run of ``--against``)."""
    return Path(argv[argv.index("--root") + 1]).resolve() if "--root" in argv else HERE


ROOT = _root(sys.argv)
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "tests"))  # the discord.py client connected to the stand-in

from discordpy_client import discordpy_client  # type: ignore[import-not-found]  # noqa: E402

from bot.game.places import Place  # noqa: E402
from bot.game.reminders import Reminder  # noqa: E402
from bot.game.service import GameService  # noqa: E402
from bot.process.compose import compose  # noqa: E402
from bot.storage import sqlite  # noqa: E402
from bot.storage.records import SeatInfo  # noqa: E402
from bot.workers.pictures import PillowRenderer  # noqa: E402
from engine import GameConfig, SeatConfig, new_game  # noqa: E402
from loopback import Loopback, ManualClock  # noqa: E402
from loopback.model import DM_CHANNEL  # noqa: E402
from loopback.ratelimit import ChannelLimit, Schedule  # noqa: E402

THREE_DAYS = 3 * 86400
FIRST_ID = 10**17
GUILD = 1_300_000_000_000_000_000
CHANNEL = GUILD + 1
MINUTE = 60.0


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class BotClock:
    """The bot's clock: the time, shifted so that the minute measured starts soon."""

    def __init__(self) -> None:
        self.shift = 0.0

    def __call__(self) -> float:
        return time.time() + self.shift


async def fill(store: sqlite.Store, matches: int, people: int, start: float) -> None:
    """Store the running matches, their reminders due one a second from ``start`` on."""
    for n in range(matches):
        a, b = FIRST_ID + (2 * n) % people, FIRST_ID + (2 * n + 1) % people
        seats = (SeatInfo(user=a, name=f"P{a - FIRST_ID}", hero="horan"),
                 SeatInfo(user=b, name=f"P{b - FIRST_ID}", hero="taia"))
        state = new_game(GameConfig(seats=(SeatConfig("horan"), SeatConfig("taia")), seed=n))
        rec = await store.create_table(
            guild_id=GUILD, place_key=Place.of(GUILD, a).key, channel_id=CHANNEL + 1 + n, host_id=a,
            seats=seats, abilities=False, timer=THREE_DAYS, seed=n)
        due = start + n % int(MINUTE)
        await store.start_game(rec.id, seats, state, due + 0.75 * THREE_DAYS)
        await store.set_message(rec.id, message_id=10**7 + n)
    for i in range(people):
        await store.set_notify(FIRST_ID + i, True)


async def run(matches: int, people: int, seed: int, rate: float) -> int:
    """The measurement (see the module's docstring)."""
    lb = Loopback(clock=ManualClock(), validate=False, channel_limit=ChannelLimit(),
                  rate_limits=Schedule(seed=seed, rate=rate))
    async with lb:
        guild = lb.create_guild("Karak Club", guild_id=GUILD)
        lb.create_channel(guild, "games", channel_id=CHANNEL)
        for i in range(people):
            lb.create_user(f"P{i}", user_id=FIRST_ID + i)
        clock = BotClock()
        with tempfile.TemporaryDirectory() as tmp:
            store = await sqlite.Store.open(Path(tmp) / "reminders.sqlite3", clock=clock)
            service = GameService(store, clock=clock)
            bot = compose(service, PillowRenderer(0), ai_pace=0, timer_poll=5.0,
                           guild_ready_timeout=0.0)
            sent_at: list[float] = []  # each reminder's delay after its due time
            out_at: list[float] = []  # when each went out, after the minute's first due time
            real_send = bot.reminders.send

            async def send(reminder: Reminder) -> None:
                await real_send(reminder)
                sent_at.append(clock() - reminder.due)
                out_at.append(clock() - start)

            bot.reminders.send = send  # type: ignore[method-assign]
            try:
                async with discordpy_client(lb, bot):
                    start = clock() + 20.0  # the minute starts once the matches are stored
                    await fill(store, matches, people, start)
                    await bot.scheduler.leases.keep()  # as the leases loop would
                    requests = [0]
                    real = lb.world.rest

                    async def rest(*args: Any) -> Any:
                        requests[0] += 1
                        return await real(*args)

                    lb.world.rest = rest  # type: ignore[method-assign,assignment]
                    limited = lb.world.limiter.scheduled + lb.world.limiter.channel_limited
                    if clock() < start:
                        await asyncio.sleep(start - clock())
                    began = time.perf_counter()
                    while len(sent_at) < matches and time.perf_counter() - began < 3 * MINUTE:
                        await asyncio.sleep(0.5)
                    limited = (lb.world.limiter.scheduled + lb.world.limiter.channel_limited
                               - limited)
                    dms = sum(1 for m in lb.messages.values()
                              if lb.channels[m.channel_id].type == DM_CHANNEL)
            finally:
                await store.close()
    last = max(sent_at) if sent_at else float("inf")
    took = max(out_at) if out_at else float("inf")
    print(f"reminders due over one minute: {matches} (among {people} people; stand-in limits "
          f"on: 5 posts / 5 s a channel, {rate:.0%} of requests answered 429)")
    print(f"sent: {len(sent_at)}; arrived as direct messages: {dms}")
    if sent_at:
        print(f"delay after the due time: p50 {_pct(sent_at, 0.5):.1f} s, p99 "
              f"{_pct(sent_at, 0.99):.1f} s, last {last:.1f} s")
    print(f"the last reminder went out {took:.1f} s after the minute's first due time")
    print(f"requests made: {requests[0]} ({limited} answered 429)")
    verdict = "ok" if took < MINUTE and len(sent_at) == matches else "MISSED"
    print(f"goal: every reminder out within the minute it fell due in (the last one < 60 s "
          f"after the first due time): {verdict}", flush=True)
    return 0 if verdict == "ok" else 1


def against(args: argparse.Namespace) -> int:
    """The run with the bot of the version at ``--against``, then with this one's, each in a
    process of its own; this one's exit status."""
    status = 0
    for label, root in (("base", args.against.resolve()), ("this", HERE)):
        print(f"== {label}: {root}", flush=True)
        status = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--root", str(root),
             "--matches", str(args.matches), "--people", str(args.people),
             "--seed", str(args.seed), "--rate", str(args.rate)], check=False).returncode
    return status


def main(argv: list[str] | None = None) -> int:
    """Parse the options and run (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--people", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rate", type=float, default=0.05)
    parser.add_argument("--against", type=Path, default=None, metavar="DIR",
                        help="another version of the project, measured first")
    parser.add_argument("--root", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.against is not None:
        if not (args.against / "bot" / "game" / "reminders.py").is_file():
            parser.error(f"{args.against} is no version of this project with reminders")
        return against(args)
    return asyncio.run(run(args.matches, args.people, args.seed, args.rate))


if __name__ == "__main__":
    sys.exit(main())
