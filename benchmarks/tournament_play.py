"""A whole server tournament played by simulated people through the real bot on the stand-in.

    .venv/bin/python benchmarks/tournament_play.py [--entrants 64] [--table-size 4]
        [--rounds N] [--seed 1] [--think 0.2] [--skill 0.9] [--timeout 3600] [--stall 180]
        [--progress 60] [--against DIR] [--show-log]

The bot runs as its own process (``python -m bot``, as ``benchmarks/load.py`` runs it) against
the stand-in, on a fresh SQLite database, with matches in threads (``KARAK_THREADS=true``). An
admin opens the tournament with ``/goblin tournament new`` (``--rounds``: unset, as many as the
entrants need, ``ceil(log2(n))``; no round deadline, so each round moves on when its last match
ends), every one of ``--entrants`` people clicks Join on the sign-up message (all at about the
same time), and the admin starts it with ``/goblin tournament start``. Each person acts only on
what they see: a new line in the tournament's channel naming them opens a thread; there they
play as ``benchmarks/people.py``'s people do (a mention on the table message opens their hand,
then they click the moves it offers, thinking ``--think`` seconds on average; ``--skill`` of
the time the heuristic agent's move, their table read from the bot's database) until the match
ends, then wait for the next line naming them. The run ends when the tournament is finished in
the database and its champion is posted.

Printed: the wall time from ``/goblin tournament new`` to the champion, the CPU seconds of the
bot (with its drawing workers) and of this process (the stand-in and the people), the rounds,
matches and moves played, the bot's Discord requests (all, by route, and per match), the
interactions by kind, and the rule breaches found: Discord rules the stand-in saw broken
(every request body is validated against Discord's OpenAPI description when it is there,
``../shared/discord-api/openapi.json``), stored states that fail the engine's validator,
matches whose action log does not replay to their stored state, tournament tables whose places
disagree with their match's result or whose seats are not the match's, standings whose points
or matches played disagree with the places, refused or failed clicks (a Join, a move: none
should be), sign-up message not listing every entrant, errors in the bot's log. The exit status
is 1 when any of them is found (or the tournament did not finish), else 0.

``--against DIR``: the same tournament run by the bot of another version (``git archive
<commit>`` unpacked in ``DIR``) after this one. Versions without tournaments (7de6477 and
anything before them) cannot be compared: the script says so and exits with 2; a benchmark of
a new feature measures this version only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "loopback")]


from benchmarks import running  # noqa: E402
from benchmarks.capacity import pct  # noqa: E402
from benchmarks.load import routes  # noqa: E402
from benchmarks.people import Stats, Table, cancel_all  # noqa: E402
from bot.discord_side.ui.custom_ids import HandButton, TournamentButton  # noqa: E402
from bot.discord_side.ui.custom_ids import parse as read_custom_id  # noqa: E402
from bot.discord_side.ui.targets import OpenHand  # noqa: E402
from bot.game.tournament import BYE_POINTS, POINTS, standings  # noqa: E402
from bot.game.tournaments import rules_of  # noqa: E402
from bot.storage.choice import open_storage  # noqa: E402
from bot.storage.core.rows import TABLE_COLUMNS, read_record  # noqa: E402
from bot.storage.records import TableRecord, TableResult, places  # noqa: E402
from engine import observe  # noqa: E402
from engine.agents import make_agent  # noqa: E402
from engine.errors import BadState  # noqa: E402
from engine.replay import replay  # noqa: E402
from engine.validate import check_state  # noqa: E402
from i18n import msg, translate  # noqa: E402
from loopback import Channel, Interaction, Loopback, Message, User  # noqa: E402
from loopback.botproc import BotProcess  # noqa: E402
from loopback.spec import unavailable_reason, validation_off  # noqa: E402

#: The tournament's name.
NAME = "Bench Cup"
#: The people's language (their refusals are read in it).
LOCALE = "en-US"


@dataclass
class Figures:
    """What one tournament run measured and found."""

    entrants: int
    finished: bool = False
    wall: float = 0.0
    bot_cpu: float = 0.0
    own_cpu: float = 0.0
    rounds: int = 0
    matches: int = 0
    moves: int = 0
    requests: list[tuple[float, str, str]] = field(default_factory=list)
    interactions: Counter[str] = field(default_factory=Counter)
    lag: list[float] = field(default_factory=list)
    late: Counter[str] = field(default_factory=Counter)
    breaches: list[str] = field(default_factory=list)

    def line(self) -> str:
        """The headline figures on one line."""
        return (f"{'finished' if self.finished else 'NOT finished'} in {self.wall:.0f} s, bot "
                f"CPU {self.bot_cpu:.0f} s, {self.rounds} rounds, {self.matches} matches, "
                f"{self.moves} moves, {len(self.requests)} requests "
                f"({len(self.requests) / max(1, self.matches):.0f} per match), "
                f"{len(self.breaches)} breaches")


def said(lb: Loopback, ix: Interaction) -> list[str]:
    """What an interaction showed its person privately (its ephemeral answers)."""
    shown = [lb.messages.get(mid or 0) for mid in [ix.original_id, *ix.followups]]
    return [m.text() for m in shown if m is not None and m.ephemeral]


class Entrant:
    """One simulated person in the tournament: joins on the sign-up message, then plays each
    match a line of the tournament's channel names them in, in its thread."""

    def __init__(self, lb: Loopback, channel: Channel, user: User, think: float,
                 rng: random.Random, stats: Stats) -> None:
        self.lb = lb
        self.channel = channel
        self.user = user
        self.think = think
        self.rng = rng
        self.stats = stats
        self.played: list[int] = []  # the threads of the matches played, in order
        self.oracle: Path | None = None  # the bot's database: plays as the heuristic agent
        self.skill = 0.0
        self.refused: list[str] = []

    def _advice(self, table_id: int) -> Callable[[User, Message], str | None]:
        """The heuristic agent's move for this person at their turn, ``skill`` of the time
        (read from the bot's database, as the end-to-end tests' players do)."""
        def advice(user: User, hand: Message) -> str | None:
            assert self.oracle is not None
            record = table_now(self.oracle, table_id)
            seat = record.seat_of(user.id)
            if (self.rng.random() >= self.skill or record.status != "running" or seat is None
                    or record.game.current != seat):
                return None
            return str(make_agent("heuristic", record.version).choose(
                observe(record.game, seat)))
        return advice

    async def join(self, board_id: int, tournament: int) -> None:
        """Click Join on the sign-up message (as it is now)."""
        await asyncio.sleep(self.rng.uniform(0.0, 2.0))  # everyone at about the same time
        board = self.lb.message(board_id)
        ix = await self.lb.click(self.user, board, TournamentButton.id_for(tournament, "join"))
        await ix.done(60)
        deadline = time.monotonic() + 30  # the private answer follows the board's edit
        while not said(self.lb, ix) and time.monotonic() < deadline:
            await self.lb.changed(self.lb.version, 1)
        joined = translate(msg("bot.tournament.done.joined", name=NAME), LOCALE)
        if said(self.lb, ix) != [joined]:
            self.refused.append(f"{self.user.name} joining: {said(self.lb, ix)}")

    def _called(self, thread: Channel) -> bool:
        """True when ``thread`` is a match of this person not played yet: its line in the
        channel (the thread's starter message) names them."""
        starter = self.lb.starter(thread)
        return (thread.id not in self.played and starter is not None
                and self.user.name in starter.text())

    async def _table_in(self, thread: Channel) -> int:
        """The table of the match in ``thread``, read from its table message's "My hand"
        button once it is there."""
        while True:
            version = self.lb.channel_versions.get(thread.id, 0)
            table = self.lb.latest(thread, self.user, lambda m: any(
                c.startswith(HandButton.prefix) for c in m.custom_ids()))
            if table is not None:
                hand = next(t for t in map(read_custom_id, table.custom_ids())
                            if isinstance(t, OpenHand))
                return hand.table
            await self.lb.channel_changed(thread.id, version, 5)

    async def play(self) -> None:
        """Play every match this person is called to, until cancelled."""
        lb = self.lb
        while True:
            version = lb.channel_versions.get(self.channel.id, 0)
            thread = next((t for t in lb.threads_of(self.channel) if self._called(t)), None)
            if thread is None:
                await lb.channel_changed(self.channel.id, version, 5)
                continue
            self.played.append(thread.id)
            table = Table(lb, thread, [self.user], 0, self.think,
                          random.Random(self.rng.random()), self.stats)
            table.table_id = await self._table_in(thread)
            if self.oracle is not None:
                table.advice = self._advice(table.table_id)
            await table.person(self.user)
            self.stats.games += 1


async def watch_lag(figures: Figures, every: float = 0.1) -> None:
    """Record how late this process's event loop (the stand-in's and the people's) wakes
    from a sleep of ``every`` seconds, until cancelled: a busy stand-in answers and
    timestamps late, which the bot's answers would be blamed for."""
    loop = asyncio.get_running_loop()
    while True:
        began = loop.time()
        await asyncio.sleep(every)
        figures.lag.append(loop.time() - began - every)


def table_now(db: Path, table_id: int) -> TableRecord:
    """A table as the bot's database holds it now (read-only, while the bot runs)."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)) as con:
        row = con.execute(f"SELECT {TABLE_COLUMNS} FROM tables WHERE id = ?",
                          (table_id,)).fetchone()
    return read_record(row)


def route_counts(requests: list[tuple[float, str, str]]) -> Counter[str]:
    """The requests by method and route (ids left out, as ``load.routes`` writes them)."""
    return Counter(method + " " + re.sub(r"/[0-9]+|/aW[^/]*|/[A-Za-z0-9_.-]{40,}", "/:id", path)
                   for _, method, path in requests)


def stored(db: Path, query: str, *args: object) -> Any:
    """The first value of a read-only query on the bot's SQLite database (while the bot
    runs)."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)) as con:
        return con.execute(query, args).fetchone()[0]


async def check(db: Path, tournament_id: int, figures: Figures) -> None:
    """Read the finished tournament and its matches back (the bot stopped) and add every
    breach of the rules found to ``figures``: states the engine's validator refuses, logs
    that do not replay to their state, places that disagree with the match's result, points
    that disagree with the places."""
    store = await open_storage(db)
    try:
        rows = await store.tournament_rows(tournament_id)
        if rows is None:
            raise RuntimeError(f"no tournament {tournament_id}")
        figures.rounds = len(rows.rounds)
        figures.matches = len(rows.tables)
        points: Counter[int] = Counter()
        played: Counter[int] = Counter()
        for row in rows.tables:
            where = f"round {row.round} table {row.pod} (match {row.table_id})"
            table = await store.get(row.table_id)
            if table is None or table.state is None:
                figures.breaches.append(f"{where}: no stored match")
                continue
            try:
                check_state(table.state)
            except BadState as exc:
                figures.breaches.append(f"{where}: the stored state is invalid: {exc}")
            log = await store.action_log(row.table_id)
            if replay(table.game.config, [r.action for r in log]) != table.state:
                figures.breaches.append(f"{where}: its log does not replay to its state")
            if table.status != "finished" or not row.decided or row.at_deadline:
                figures.breaches.append(f"{where}: {table.status}, decided {row.decided}, "
                                        f"at the deadline {row.at_deadline}")
            if row.seats != tuple(s.user for s in table.seats):
                figures.breaches.append(f"{where}: seats {row.seats} are not the match's")
            result = await store.result_of(row.table_id)
            ranks = None if not isinstance(result, TableResult) else tuple(
                s.place for s in sorted(result.seats, key=lambda s: s.seat))
            if ranks is None or row.places != ranks or ranks != places(table.state):
                figures.breaches.append(f"{where}: places {row.places}, result {ranks}, "
                                        f"final state {places(table.state)}")
            for user, place in zip(row.seats, row.places, strict=True):
                if user is not None and place is not None:
                    points[user] += POINTS[len(row.seats)][place - 1]
                    played[user] += 1
        for r in rows.rounds:
            if r.bye_user is not None:
                points[r.bye_user] += BYE_POINTS
        for s in standings(rules_of(rows)):
            if (s.points, s.played) != (points[s.user], played[s.user]):
                figures.breaches.append(
                    f"standings of {s.name}: {s.points} points in {s.played} matches, the "
                    f"places give {points[s.user]} in {played[s.user]}")
        figures.finished = rows.record.status == "finished"
    finally:
        await store.close()


async def run(args: argparse.Namespace, root: Path = ROOT) -> Figures:
    """Play one tournament with the bot of the project at ``root``; its figures."""
    rng = random.Random(args.seed)
    figures = Figures(args.entrants)
    reason = unavailable_reason()
    if reason is not None:
        print(validation_off(reason), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        async with Loopback(validate=reason is None, keep_files=False) as lb:
            guild = lb.create_guild("Tournament server")
            channel = lb.create_channel(guild, "tournament")
            host = lb.create_user("Host", admin=True)
            width = len(str(args.entrants))
            people = [Entrant(lb, channel, lb.create_user(f"Player {n:0{width}d}"), args.think,
                              random.Random(rng.random()), Stats())
                      for n in range(1, args.entrants + 1)]
            db = Path(tmp) / "tournament.sqlite3"
            for p in people:
                p.oracle, p.skill = db, args.skill
            bot = BotProcess(lb, db, log=Path(tmp) / "bot.log", root=root,
                             extra_env={"KARAK_THREADS": "true"})
            await bot.start()
            began, bot_began, own_began = time.monotonic(), bot.cpu_seconds(), \
                time.process_time()
            first_request = len(lb.requests)
            tasks: list[asyncio.Task[None]] = []
            tid = 0
            try:
                options: dict[str, object] = {"name": NAME, "table_size": args.table_size}
                if args.rounds is not None:
                    options["rounds"] = args.rounds
                ix = await lb.command(host, channel, "goblin tournament new", **options)
                await ix.done(60)
                if ix.original_id is None:
                    raise RuntimeError(f"no sign-up message: {said(lb, ix)}")
                tid = int(stored(db, "SELECT id FROM tournaments"))
                await asyncio.gather(*(p.join(ix.original_id, tid) for p in people))
                board = lb.message(ix.original_id).text()
                if f"Entrants ({args.entrants})" not in board:
                    figures.breaches.append(f"the sign-up message lists: {board[-300:]}")
                tasks = [asyncio.get_running_loop().create_task(p.play()) for p in people]
                tasks.append(asyncio.get_running_loop().create_task(watch_lag(figures)))
                ix = await lb.command(host, channel, "goblin tournament start")
                await ix.done(120)
                started = translate(msg("bot.tournament.done.started", name=NAME), LOCALE)
                if said(lb, ix) != [started]:
                    raise RuntimeError(f"the tournament did not start: {said(lb, ix)}")
                await finish(args, lb, db, tid, channel, bot)
            except RuntimeError as exc:
                figures.breaches.append(str(exc)[:2000])
            finally:
                figures.wall = time.monotonic() - began
                figures.bot_cpu = bot.cpu_seconds() - bot_began
                figures.own_cpu = time.process_time() - own_began
                with contextlib.suppress(BaseException):
                    await cancel_all(tasks)
                await bot.stop()
            figures.requests = lb.requests[first_request:]
            figures.moves = int(stored(db, "SELECT COUNT(*) FROM actions"))
            for x in lb.interactions.values():
                kind = (type(read_custom_id(str(x.data.get("custom_id", "")))).__name__
                        if x.kind == "component" else x.kind)
                figures.interactions[kind] += 1
            figures.breaches += [f"Discord rule: {b}" for b in lb.breaches]
            for b in lb.breaches:  # what the late answers were to
                late = lb.interactions.get(b.interaction or 0)
                if b.rule == "late" and late is not None:
                    figures.late[type(read_custom_id(str(late.data.get("custom_id", ""))))
                                 .__name__ if late.kind == "component" else late.kind] += 1
            figures.breaches += [r for p in people for r in p.refused]
            for p in people:
                s = p.stats
                if s.refused or s.failed or s.errors:
                    figures.breaches.append(f"{p.user.name}: {s.refused} moves refused, "
                                            f"{s.failed} clicks failed {s.errors[:3]}")
            try:
                await check(db, tid, figures)
            except Exception as exc:  # the figures measured so far are still printed
                figures.breaches.append(f"the check could not end: {type(exc).__name__}: {exc}")
            errors = [line for line in bot.log_text().splitlines()
                      if re.search(r" (ERROR|CRITICAL) |^Traceback", line)]
            figures.breaches += [f"bot log: {line[:300]}" for line in errors]
            if args.show_log:
                print(bot.log_text()[-6000:])
    return figures


async def finish(args: argparse.Namespace, lb: Loopback, db: Path, tid: int,
                 channel: Channel, bot: BotProcess) -> None:
    """Wait until the tournament is finished and its champion posted; a stall (no move stored
    for ``--stall`` seconds) or ``--timeout`` ends the wait with an error."""
    deadline = time.monotonic() + args.timeout
    moves, moved_at = -1, time.monotonic()
    champion = re.escape(translate(msg("bot.tournament.champion", who="@@", name=NAME),
                                   LOCALE)).replace("@@", ".*")
    shown = time.monotonic()
    while True:
        version = lb.channel_versions.get(channel.id, 0)
        status = stored(db, "SELECT status FROM tournaments WHERE id = ?", tid)
        if time.monotonic() - shown >= args.progress:
            shown = time.monotonic()
            print(f"  ... round {stored(db, 'SELECT round FROM tournaments')}, "
                  f"{stored(db, 'SELECT COUNT(*) FROM tables WHERE status = ?', 'finished')} "
                  f"matches finished, {stored(db, 'SELECT COUNT(*) FROM actions')} moves "
                  f"stored", flush=True)
        posted = any(re.search(champion, m.text())
                     for m in lb.messages_for(channel, 0))
        if status == "finished" and posted:
            return
        now = time.monotonic()
        count = int(stored(db, "SELECT COUNT(*) FROM actions"))
        if count != moves:
            moves, moved_at = count, now
        if now - moved_at > args.stall or now > deadline or bot.pid is None:
            raise RuntimeError(f"the tournament is {status} with {count} moves stored, none "
                               f"for {now - moved_at:.0f} s: {bot.log_text()[-2000:]}")
        await lb.channel_changed(channel.id, version, 2)


def report(figures: Figures) -> None:
    """Print a run's figures."""
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    matches = max(1, figures.matches)
    print(f"{figures.entrants} entrants: {figures.line()} (load average {load})")
    print(f"  wall {figures.wall:.1f} s; CPU: bot and its workers {figures.bot_cpu:.1f} s "
          f"({figures.bot_cpu / matches:.2f} s per match, "
          f"{figures.bot_cpu * 1000 / max(1, figures.moves):.1f} ms per move), stand-in and "
          f"people {figures.own_cpu:.1f} s")
    print(f"  {figures.rounds} rounds, {figures.matches} matches, {figures.moves} moves "
          f"({figures.moves / matches:.0f} per match)")
    counts = route_counts(figures.requests)
    print(f"  Discord requests: {len(figures.requests)} in all; by route: " + ", ".join(
        f"{n} {r}" for r, n in counts.most_common()))
    print("  requests per match: " + routes(figures.requests, float("-inf"), float("inf"),
                                            matches))
    print("  interactions: " + ", ".join(f"{n} {k}"
                                         for k, n in figures.interactions.most_common()))
    print(f"  this process's event loop (stand-in and people) woke late: p50 "
          f"{pct(figures.lag, 0.5):.0f} ms, p99 {pct(figures.lag, 0.99):.0f} ms, max "
          f"{max(figures.lag, default=0.0) * 1000:.0f} ms")
    if figures.late:
        print("  answered late (over 3 s): " + ", ".join(
            f"{n} {k}" for k, n in figures.late.most_common()))
    print(f"  breaches: {len(figures.breaches)}")
    for b in figures.breaches[:30]:
        print(f"    {b}")


def has_tournaments(root: Path) -> bool:
    """True when the project at ``root`` has server tournaments."""
    return (root / "bot" / "game" / "tournaments.py").is_file()


async def main(args: argparse.Namespace) -> int:
    """Play the tournament (then with the other version, ``--against``) and print the
    figures; 1 when a breach was found or it did not finish."""
    if args.against is not None and not has_tournaments(args.against):
        print(f"{args.against} has no server tournaments: there is nothing to compare "
              "(a benchmark of a new feature measures this version only)")
        return 2
    results = [await run(args)]
    report(results[0])
    if args.against is not None:
        results.append(await run(args, args.against))
        print(f"against {args.against}:")
        report(results[1])
    return 0 if all(f.finished and not f.breaches for f in results) else 1


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--entrants", type=int, default=64)
    p.add_argument("--table-size", type=int, choices=(3, 4), default=4)
    p.add_argument("--rounds", type=int, default=None,
                   help="rounds played (default: as many as the entrants need)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--think", type=float, default=0.2, help="mean thinking time (s)")
    p.add_argument("--skill", type=float, default=0.9,
                   help="share of a person's moves taken from the heuristic agent (read "
                        "from the bot's database); the others by the load's preferences")
    p.add_argument("--timeout", type=float, default=3600.0, help="seconds the run takes at most")
    p.add_argument("--stall", type=float, default=180.0,
                   help="seconds without a stored move that end the run")
    p.add_argument("--progress", type=float, default=60.0,
                   help="seconds between progress lines")
    p.add_argument("--against", type=Path, default=None, metavar="DIR",
                   help="another version of the project (git archive) to run after this one")
    p.add_argument("--show-log", action="store_true", help="print the end of the bot's log")
    args = p.parse_args(argv)
    if not 2 <= args.entrants <= 64:
        p.error("--entrants: 2 to 64 (the most a tournament takes)")
    return args


if __name__ == "__main__":
    sys.exit(running.run(main(parse())))
