"""Load on the real bot: N concurrent tables of simulated players against the loopback stand-in.

Usage: ``python benchmarks/load.py [--tables 200] [--humans 2] [--ai 2] [--think 3]
[--duration 60] [--warmup 15] [--ai-pace 1.5] [--validate] [--capacity-rounds 4]
[--against DIR [--rounds 3]] [--backends [--rounds 3]]
[--processes [--shards 2] [--rounds 3]] [--bot-env NAME=VALUE]``.

The bot runs as its own process (``python -m bot``) exactly as in production, pointed at the
stand-in by ``KARAK_API_BASE`` / ``KARAK_GATEWAY_URL``, with a fresh database. Every table has
``--humans`` simulated people (``benchmarks/people.py``) and ``--ai`` AI seats. A person acts
only on what they see: when a table message mentions them they click "My hand", then pick one of
the move controls of their private hand message (weighted towards fighting and playing cards so
games move on), wait their thinking time (uniform between half and 1.5 times ``--think``
seconds) and go on while the hand offers moves. A finished table is replaced by a new one in
the same channel.

Printed after the warm-up window, over the measured window, and saying whether request
validation (``--validate``) was on: interactions per second (answered ones), the latency from
INTERACTION_CREATE (the stand-in dispatching it) to the first response (p50 / p99 / max) and to
the updated messages of an accepted move: the mover's hand message (the first edit answering
the move, with a new hand picture or keeping the pictures that did not change) and the table
message (the first edit of the channel's public table message whose footer shows the move
applied), with how many moves got no such update; also the hand pictures of "My hand" clicks,
the number of table messages posted and edited, Discord rule breaches, and the bot's RSS and
CPU use (also as CPU milliseconds per move applied, people's and AI's: bot and drawing workers
together, a figure that holds even on a shared machine). Every run (``--against`` too) also
prints the bot's Discord requests per move applied, by method and route.

With ``--against DIR`` (another version of the project, e.g. ``git archive <commit>`` unpacked
in ``DIR``), the same load runs ``--rounds`` times with each version's bot in turn; the CPU per
move and the hand after a move are printed side by side (no capacity search then).
With ``--backends``, the same load runs ``--rounds`` times on SQLite and on PostgreSQL in turn
(a throwaway PostgreSQL server started as the tests start it, a new database each run), and
the hand after a move (p99) and the CPU per move (with PostgreSQL, the bot's and the server's
processes together) are printed side by side.
With ``--processes`` (``benchmarks/multiproc.py``), the same load runs ``--rounds`` times on
PostgreSQL as one process connected to ``--shards`` Discord shards and as ``--shards``
processes of one shard each, in turn, the tables spread over guilds on every shard: the CPU per
move (every bot process with its workers, and the server), the database's commits and row
writes per move (``pg_stat_database``) and the hand after a move (p99) side by side.

Then the capacity (``benchmarks/capacity.py``): a bounded search of ``--capacity-rounds`` short
runs (fresh stand-in and bot each) for the largest number of tables at which the hand after a
move stays under 1 s at p99 (doubling from ``--tables`` while it holds, then halving the
interval).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "tests"))  # the throwaway PostgreSQL server of the tests

from benchmarks import running  # noqa: E402
from benchmarks.capacity import Figures, capacity, pct  # noqa: E402
from benchmarks.multiproc import (  # noqa: E402
    PG_COUNTERS,
    Bots,
    Layout,
    checked,
    pg_counters,
    processes,
)
from benchmarks.people import Stats, Table, stop_all  # noqa: E402
from benchmarks.versions import in_turn  # noqa: E402
from bot.discord_side.ui.custom_ids import HandButton, Move, Pick  # noqa: E402
from bot.discord_side.ui.custom_ids import parse as read_custom_id  # noqa: E402
from i18n import LOCALES, catalog  # noqa: E402
from loopback import Interaction, Loopback, Message  # noqa: E402
from loopback.components import TEXT_DISPLAY, walk  # noqa: E402
from loopback.sharding import snowflake_on  # noqa: E402

#: A refusal shown in the clicked hand message: a note in italics first ("already played").
NOTE = re.compile(r"^\*[^*]")
#: The table message's footer in every language ("Round 3 - move 41"): the step it shows.
FOOTERS = [re.compile(re.escape(str(catalog(lc)["bot.table.footer"]))
                      .replace(re.escape("{round}"), r"\d+")
                      .replace(re.escape("{step}"), r"(?P<step>\d+)")) for lc in LOCALES]
TABLE_PICTURES = ("table.png", "battle.png")


def shown_step(message: Message) -> int | None:
    """The game step a table message shows (read from its footer), or None."""
    for text in [message.text()]:
        for pattern in FOOTERS:
            found = pattern.search(text.replace("\u00a0", " "))
            if found:
                return int(found.group("step"))
    return None


class TablePictures:
    """Watches the stand-in: every time a public message carrying a table (or battle) picture
    shows a later step (read from its footer), whether its picture was drawn again or kept, with
    the channel and the time."""

    def __init__(self, lb: Loopback) -> None:
        self.lb = lb
        self.seen: dict[int, int] = {}  # message id -> the step it shows
        self.updates: dict[int, list[tuple[float, int]]] = {}  # channel -> (time, step)

    def __call__(self, message: Message) -> None:
        if message.owner is not None:
            return
        if not any(a.filename in TABLE_PICTURES for a in message.attachments):
            return
        step = shown_step(message)
        if step is None or self.seen.get(message.id) == step:
            return
        self.seen[message.id] = step
        self.updates.setdefault(message.channel_id, []).append((self.lb.now(), step))

    def latency(self, ix: Interaction, step: int) -> float | None:
        """Seconds from ``ix`` to the first table message showing ``step`` or later."""
        return next((t - ix.created for t, shown in self.updates.get(ix.channel_id, [])
                     if t >= ix.created and shown >= step), None)


def accepted(lb: Loopback, ix: Interaction) -> bool:
    """True when the bot took the move: answered in the clicked message (no refusal in a
    message of its own), no refusal note."""
    if ix.responded is None or ix.followups or ix.failed:
        return False
    if ix.original_id is not None and ix.original_id != ix.message_id:
        return False
    reply = lb.messages.get(ix.original_id or 0)
    if reply is None:
        return True
    first = [str(c.get("content") or "") for c in walk(reply.components)
             if c.get("type") == TEXT_DISPLAY][:1]
    return not any(NOTE.match(line) for line in (first[0].split("\n")[:2] if first else []))


async def applied(db: Path, url: str | None = None) -> int:
    """How many moves (people's and AI's) the bot has written to its action log so far (in the
    SQLite file ``db``, or the PostgreSQL database ``url`` when given)."""
    if url is not None:
        return int((await pg_counters(url))["moves"])
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as con:
        return int(con.execute("SELECT COUNT(*) FROM actions").fetchone()[0])


async def steps_reached(db: Path, url: str | None = None) -> dict[tuple[int, int], int]:
    """The game step each move reached (what the table message's footer then shows), by table
    and the table's version after it: a take-back goes one step back, so after one the version
    is no longer the step. Empty for a version of the bot whose log has no ``seq``."""
    query = "SELECT table_id, seq, step FROM actions"
    if url is not None:
        import asyncpg

        conn = await asyncpg.connect(url)
        try:
            rows = [tuple(r) for r in await conn.fetch(query)]
        except asyncpg.UndefinedColumnError:
            return {}
        finally:
            await conn.close()
    else:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as con:
            try:
                rows = con.execute(query).fetchall()
            except sqlite3.OperationalError:
                return {}
    return {(int(t), int(seq)): int(step) for t, seq, step in rows}


async def measure(args: argparse.Namespace, count: int, warmup: float, duration: float,
                  report: bool, root: Path = ROOT, url: str | None = None,
                  server_cpu: Callable[[], float] = lambda: 0.0,
                  layout: Layout | None = None) -> Figures:
    """Run ``count`` tables against a fresh stand-in and bot (the bot of the project at
    ``root``, on the PostgreSQL database ``url`` when given, whose server's CPU seconds so far
    ``server_cpu`` tells: counted with the bot's; as the processes of ``layout``, the tables
    spread over guilds on each of their shards); print every figure if ``report``."""
    rng = random.Random(args.seed)
    stats = Stats()
    layout = layout or [{}]
    shards = max(int(env.get("KARAK_SHARD_COUNT", "1")) for env in layout)
    with tempfile.TemporaryDirectory() as tmp:
        async with (Loopback(validate=args.validate, keep_files=False) as lb,
                    contextlib.AsyncExitStack() as stopped):
            guilds = [lb.create_guild(f"Load {n}", guild_id=snowflake_on(n, shards))
                      for n in range(shards)]
            db = Path(tmp) / "load.sqlite3"
            env = args.bot_env if url is None else {**args.bot_env, "KARAK_DB": url}
            bot = Bots(lb, db, layout, env, Path(tmp) / "bot.log", ai_pace=args.ai_pace,
                       root=root)
            pictures = TablePictures(lb)
            lb.watchers.append(pictures)
            stopped.push_async_callback(bot.stop)  # also when the run fails or is cancelled
            await bot.start()
            tables = []
            for n in range(count):
                channel = lb.create_channel(guilds[n % shards], f"table-{n}")
                humans = [lb.create_user(f"P{n}-{i}") for i in range(args.humans)]
                tables.append(Table(lb, channel, humans, args.ai, args.think,
                                    random.Random(rng.random()), stats))
            if report:
                print(f"{count} tables x {args.humans} people + {args.ai} AI seats, "
                      f"think {args.think} s, AI pace {args.ai_pace} s, validation "
                      f"{'on' if args.validate else 'off'}; bot pid {bot.pid}", flush=True)
            started = time.monotonic()
            tasks = []
            for t in tables:  # open the tables progressively, as a server fills up
                tasks.append(asyncio.get_running_loop().create_task(t.run()))
                await asyncio.sleep(warmup / max(1, len(tables)) / 2)
            await asyncio.sleep(max(0.0, started + warmup - time.monotonic()))
            window_start, server_start = lb.now(), server_cpu()
            cpu_start = bot.cpu_seconds() + server_start
            own_bot_start = bot.cpu_seconds(children=False)
            applied_start = await applied(db, url)
            pg_start = await pg_counters(url) if url is not None else {}
            own_start = time.process_time()
            stats_start = (stats.moves, stats.hands)
            rss: list[tuple[int, int]] = []
            for _ in range(int(duration)):
                await asyncio.sleep(1)
                rss.append((bot.rss(children=False), bot.rss()))
            processes = len(bot.pids())
            window_end, server_end = lb.now(), server_cpu()
            cpu_end = bot.cpu_seconds() + server_end
            own_bot = bot.cpu_seconds(children=False) - own_bot_start
            made = await applied(db, url) - applied_start
            pg_end = await pg_counters(url) if url is not None else {}
            own_cpu = time.process_time() - own_start
            await stop_all(tables, tasks)
            await bot.stop()

            span = window_end - window_start
            window = [ix for ix in lb.interactions.values()
                      if window_start <= ix.created < window_end]
            answered = [ix for ix in window if ix.responded is not None]
            first = [ix.responded - ix.created for ix in answered if ix.responded is not None]
            reached = await steps_reached(db, url)
            moved: list[tuple[Interaction, int]] = []  # accepted moves, the step they reached
            for ix in window:
                found = read_custom_id(str(ix.data.get("custom_id", ""))) if (
                    ix.kind == "component") else None
                if isinstance(found, Move | Pick) and accepted(lb, ix):
                    version = found.version + 1
                    moved.append((ix, reached.get((found.table, version), version)))
            # the hand message showing the move: with a new hand picture, or the pictures it
            # carried kept when they did not change
            hand_image = [ix.completed - ix.created for ix, _ in moved
                          if ix.completed is not None]
            kept = sum(1 for ix, _ in moved if ix.completed is not None and ix.imaged is None)
            table_image = [t for t in (pictures.latency(ix, v) for ix, v in moved)
                           if t is not None]
            figures = Figures(count, span, hand_image, table_image, len(lb.breaches),
                              (cpu_end - cpu_start) / max(1, made),
                              (server_end - server_start) / max(1, made),
                              {k: (pg_end[k] - pg_start[k]) / max(1, made) for k in PG_COUNTERS
                               if k in pg_start}, made)
            print("requests per move: " + routes(lb.requests, window_start, window_end, made))
            sliding, ticked = busiest_second(lb.requests, window_start, window_end)
            print(f"requests within Discord's global limit (all but the interactions'): at most "
                  f"{sliding} within a second, {ticked} within a second of the clock "
                  f"(Discord allows 50)")
            clicks: dict[str, int] = {}
            for ix in window:
                what = (type(read_custom_id(str(ix.data.get("custom_id", "")))).__name__
                        if ix.kind == "component" else ix.kind)
                clicks[what] = clicks.get(what, 0) + 1
            print("interactions per move: " + ", ".join(
                f"{n / max(1, made):.2f} {k}" for k, n in sorted(clicks.items(),
                                                               key=lambda kv: -kv[1]))
                  + f"; {stats.opened} tables opened, {stats.games} games finished in all")
            if not report:
                return figures
            opened = [ix for ix in window if ix.kind == "component"
                      and str(ix.data.get("custom_id", "")).startswith(HandButton.prefix)]
            opened_image = [ix.imaged - ix.created for ix in opened if ix.imaged is not None]
            requests = [(m, p) for t, m, p in lb.requests if window_start <= t < window_end]
            posts = sum(1 for m, p in requests if m == "POST" and p.startswith("/channels"))
            edits = sum(1 for m, p in requests if m == "PATCH" and p.startswith("/channels"))
            print(f"measured {span:.0f} s after a {warmup:.0f} s warm-up "
                  f"({stats.opened} tables opened, {stats.games} games finished); request "
                  f"validation {'ON (--validate)' if args.validate else 'OFF (no --validate)'}")
            print(f"interactions: {len(answered) / span:.1f}/s answered ({len(window)} sent, "
                  f"{len(window) - len(answered)} unanswered); moves "
                  f"{(stats.moves - stats_start[0]) / span:.1f}/s, hands opened "
                  f"{(stats.hands - stats_start[1]) / span:.1f}/s")
            print(f"first response: p50 {pct(first, 0.5):.0f} ms, p99 {pct(first, 0.99):.0f} "
                  f"ms, max {max(first, default=float('nan')) * 1000:.0f} ms "
                  f"(goal p99 <= 50 ms)")
            print(f"updated message after a move ({len(moved)} accepted moves):")
            print(f"  hand:  {spread(hand_image)} ({len(moved) - len(hand_image)} moves "
                  f"without an answer; {kept} kept their pictures, nothing to redraw)")
            print(f"  table: {spread(table_image)} "
                  f"({len(moved) - len(table_image)} moves not shown on a table message)")
            print(f"hand picture after My hand: {spread(opened_image)} "
                  f"({len(opened)} clicks, {len(opened) - len(opened_image)} without a picture)")
            print(f"table messages: {posts / span:.1f} posted/s, {edits / span:.1f} edited/s")
            main_rss = statistics.median(r[0] for r in rss) / 2**20
            all_rss = statistics.median(r[1] for r in rss) / 2**20
            print(f"bot: RSS {main_rss:.0f} MiB (with its drawing workers {all_rss:.0f} MiB, "
                  f"max {max(r[1] for r in rss) / 2**20:.0f} MiB); CPU "
                  f"{(cpu_end - cpu_start) / span * 100:.0f}% of one core "
                  f"({processes} processes)")
            print(f"bot CPU per move: {(cpu_end - cpu_start) / max(1, made) * 1000:.1f} ms "
                  f"(its own process {own_bot / max(1, made) * 1000:.1f} ms; {made} moves "
                  f"applied, people's and AI's)")
            print(f"this process (stand-in and simulated people): CPU "
                  f"{own_cpu / span * 100:.0f}% of one core")
            print(f"Discord rule breaches: {len(lb.breaches)}; failed interactions: "
                  f"{stats.failed}; refusals: {stats.refused}")
            for b in lb.breaches[:5]:
                print("  ", b)
            for e in sorted(set(stats.errors))[:5]:
                print("  simulation error:", e)
            if args.show_log:
                print(bot.log_tail(40))
            return figures


def routes(requests: list[tuple[float, str, str]], start: float, end: float,
           moves: int) -> str:
    """The bot's Discord requests in the window per move applied, by method and route (ids
    left out)."""
    counts: dict[str, int] = {}
    for t, method, path in requests:
        if start <= t < end:
            route = method + " " + re.sub(r"/[0-9]+|/aW[^/]*|/[A-Za-z0-9_.-]{40,}", "/:id", path)
            counts[route] = counts.get(route, 0) + 1
    total = sum(counts.values())
    parts = [f"{n / max(1, moves):.2f} {r}"
             for r, n in sorted(counts.items(), key=lambda kv: -kv[1])]
    return f"{total / max(1, moves):.2f} in all (" + ", ".join(parts) + ")"


def busiest_second(requests: list[tuple[float, str, str]], start: float,
                   end: float) -> tuple[int, int]:
    """The most requests bound by Discord's global limit (every route but an interaction's
    callback and webhook) that reached the stand-in within any one second of the window, and
    within any second of the clock (from one whole second to the next)."""
    times = [t for t, _, path in requests if start <= t < end
             and "/interactions/" not in path and "/webhooks/" not in path]
    busiest, first = 0, 0
    for last, t in enumerate(times):
        while times[first] <= t - 1.0:
            first += 1
        busiest = max(busiest, last - first + 1)
    ticks: dict[int, int] = {}
    for t in times:
        ticks[int(t)] = ticks.get(int(t), 0) + 1
    return busiest, max(ticks.values(), default=0)


def spread(values: list[float]) -> str:
    """p50, p99 and max of latencies, in milliseconds."""
    return (f"p50 {pct(values, 0.5):.0f} ms, p99 {pct(values, 0.99):.0f} ms, max "
            f"{max(values, default=float('nan')) * 1000:.0f} ms")


async def against(args: argparse.Namespace) -> int:
    """Measure this version's bot and the one at ``--against`` in turn, ``--rounds`` times
    each, and print the CPU per move and the hand after a move side by side."""
    runs = await in_turn(
        args.rounds, args.against,
        lambda root: measure(args, args.tables, args.warmup, args.duration, False, root),
        lambda f: f"CPU per move {f.cpu_per_move * 1000:.2f} ms, hand p99 "
                  f"{pct(f.hand, 0.99):.0f} ms, breaches {f.breaches}")
    this, base = (statistics.median(f.cpu_per_move for f in runs[k]) for k in ("this", "base"))
    print(f"CPU per move, median of {args.rounds}: this {this * 1000:.2f} ms, base "
          f"{base * 1000:.2f} ms ({(this / base - 1) * 100:+.1f}%)")
    return 0 if all(f.breaches == 0 for fs in runs.values() for f in fs) else 1


async def backends(args: argparse.Namespace) -> int:
    """Measure the bot on SQLite and on PostgreSQL in turn, ``--rounds`` times each, and print
    the hand after a move (p99) and the CPU per move side by side."""
    # found through sys.path (the tests' folder), which mypy does not search
    from postgres_server import running_server  # type: ignore[import-not-found]

    runs: dict[str, list[Figures]] = {"sqlite": [], "postgres": []}
    with running_server() as server:
        for n in range(args.rounds):
            for name in runs:
                url = await server.new_database() if name == "postgres" else None
                figures = await measure(args, args.tables, args.warmup, args.duration, False,
                                        url=url, server_cpu=server.cpu_seconds)
                runs[name].append(figures)
                print(f"round {n + 1} {name}: CPU per move {figures.cpu_per_move * 1000:.2f} "
                      f"ms, hand p99 {pct(figures.hand, 0.99):.0f} ms, breaches "
                      f"{figures.breaches}", flush=True)
    cpu = {k: statistics.median(f.cpu_per_move for f in v) for k, v in runs.items()}
    p99 = {k: statistics.median(pct(f.hand, 0.99) for f in v) for k, v in runs.items()}
    print(f"{args.tables} tables, median of {args.rounds} runs each:")
    print(f"  hand after a move, p99: sqlite {p99['sqlite']:.0f} ms, postgres "
          f"{p99['postgres']:.0f} ms ({(p99['postgres'] / p99['sqlite'] - 1) * 100:+.1f}%)")
    print(f"  bot CPU per move: sqlite {cpu['sqlite'] * 1000:.2f} ms, postgres "
          f"{cpu['postgres'] * 1000:.2f} ms ({(cpu['postgres'] / cpu['sqlite'] - 1) * 100:+.1f}%)")
    return 0 if all(f.breaches == 0 for fs in runs.values() for f in fs) else 1


async def main(args: argparse.Namespace) -> int:
    """Run the load and print the figures (then the capacity, unless ``--capacity-rounds 0``);
    with ``--against``, compare with another version instead."""
    if args.against is not None:
        return await against(args)
    if args.backends:
        return await backends(args)
    if args.processes:
        return await processes(args, measure)
    figures = await measure(args, args.tables, args.warmup, args.duration, report=True)
    if args.capacity_rounds > 0:
        await capacity(figures, args.capacity_rounds, args.capacity_max,
                       lambda count: measure(args, count, args.capacity_warmup,
                                             args.capacity_duration, report=False))
    return 0 if figures.breaches == 0 else 1


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--humans", type=int, default=2, choices=(1, 2, 3, 4))
    p.add_argument("--ai", type=int, default=2, choices=(0, 1, 2, 3))
    p.add_argument("--think", type=float, default=3.0, help="mean thinking time (s)")
    p.add_argument("--duration", type=float, default=60.0, help="measured seconds")
    p.add_argument("--warmup", type=float, default=15.0, help="seconds before measuring")
    p.add_argument("--ai-pace", type=float, default=1.5, help="KARAK_AI_PACE of the bot")
    p.add_argument("--validate", action="store_true",
                   help="validate every request body against the OpenAPI document")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--show-log", action="store_true", help="print the end of the bot's log")
    p.add_argument("--capacity-rounds", type=int, default=4,
                   help="short runs searching the capacity (0: no search)")
    p.add_argument("--capacity-max", type=int, default=1600, help="tables tried at most")
    p.add_argument("--capacity-duration", type=float, default=20.0,
                   help="measured seconds of each capacity run")
    p.add_argument("--capacity-warmup", type=float, default=10.0,
                   help="warm-up seconds of each capacity run")
    p.add_argument("--bot-env", action="append", default=[], metavar="NAME=VALUE",
                   help="a setting of the bot's environment (e.g. KARAK_DRAWING_WORKERS=0)")
    p.add_argument("--against", type=Path, default=None, metavar="DIR",
                   help="another version of the project (git archive) to compare with")
    p.add_argument("--backends", action="store_true",
                   help="compare SQLite and PostgreSQL (a throwaway server) side by side")
    p.add_argument("--processes", action="store_true",
                   help="on PostgreSQL, one process on --shards shards against --shards "
                        "processes of one shard each, side by side")
    p.add_argument("--shards", type=int, default=2, help="Discord shards (--processes)")
    p.add_argument("--rounds", type=int, default=3,
                   help="runs of each version (--against), backend (--backends) or "
                        "layout (--processes)")
    return checked(p, p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(running.run(main(parse())))
