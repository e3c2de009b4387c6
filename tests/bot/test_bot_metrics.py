"""The bot's Prometheus metrics: served by the real bot on the stand-in (a port chosen by the
system), each one moving during a match (moves by a person, the AI and the timer, commands and
clicks by outcome, first answers, pictures, tables, a 429, database writes, the workers' pools);
nothing served or opened when no port is set; the Grafana dashboard asks only for metrics the
bot serves."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from bot_helpers import Clock
from live_bot import LiveBot, offered
from players import (
    ADMIN,
    Players,
    TinyRenderer,
    forged_message,
    my_turn_hand,
    open_table,
    raw_click,
)
from prometheus_client.parser import text_string_to_metric_families
from shared_files import discord_api_checked

from bot.discord_side.ui.custom_ids import ForgetButton, TurnsButton
from bot.process.metrics import PATH, instrument, served
from bot.process.settings import ConfigProblem, load_settings
from bot.supervision.metrics import Metrics
from loopback import Loopback, User

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "docs" / "metrics" / "grafana-dashboard.json"
TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GabcDE.abcdefghijklmnopqrstuvwxyz0123456789AB"
ANN = User(101, "Ann", "en-US")
BOB = User(102, "Bob", "en-US")

#: (metric family, labels) -> value, as scraped.
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


async def scrape(port: int) -> Samples:
    """The metrics page of the bot on ``port``, parsed."""
    async with aiohttp.ClientSession() as session, session.get(
            f"http://127.0.0.1:{port}{PATH}") as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain")
        text = await response.text()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def total(samples: Samples, metric: str, /, **labels: str) -> float:
    """The sum of the samples ``metric`` whose labels include ``labels``."""
    return sum(v for (n, ls), v in samples.items()
               if n == metric and set(labels.items()) <= set(ls))


@pytest.fixture
async def metered(lb: Loopback, tmp_path: Path,
                  clock: Clock) -> AsyncIterator[tuple[LiveBot, int]]:
    """The real bot counting in metrics of its own, served on a free port."""
    live = await LiveBot.start(lb, tmp_path / "k.db", TinyRenderer(), clock=clock)
    metrics = Metrics()
    instrument(metrics, live.store, live.bot.service, live.bot)
    try:
        async with served(metrics, live.store, "127.0.0.1", 0) as server:
            assert server is not None and server.port > 0
            yield live, server.port
    finally:
        await live.stop()


async def test_every_metric_moves_during_a_match(metered: tuple[LiveBot, int],
                                                 clock: Clock) -> None:
    bot, port = metered
    before = await scrape(port)
    assert total(before, "karak_moves_total") == 0
    assert total(before, "karak_tables", status="running") == 0

    await bot.command(ANN, "new", timer=300)
    lobby = await scrape(port)
    assert total(lobby, "karak_tables", status="lobby") == 1
    assert total(lobby, "karak_interactions_total", kind="command", name="new",
                 outcome="accepted") == 1

    bot.lb.inject_429(r"/channels/\d+/messages", method="POST", count=1, retry_after=0.01)
    tid = await open_table(bot, ANN, [], ai=1)
    players = Players(bot, tid, [ANN])
    _, hand, _ = await my_turn_hand(bot, tid, [ANN])
    stale = copy.deepcopy(hand)  # the hand as the player's client still shows it
    old = next(v[0] for v in offered(hand).values() if v[1] is None)
    for _ in range(60):  # until the AI seat had its turn
        assert await players.step()
        if any(row.by_ai for row in await bot.store.action_log(tid)):
            break
    rec = await bot.bot.service.tables.load(tid)
    clock.now = rec.deadline + 1 if rec.deadline is not None else clock.now + 3600
    assert await bot.bot.service.play.expire(tid, rec.version)
    await bot.settle()
    await bot.command(BOB, "join")  # no lobby: the table runs
    await bot.click(ANN, stale, old)  # a move played long ago

    after = await scrape(port)
    assert total(after, "karak_tables", status="running") == 1
    assert total(after, "karak_tables", status="lobby") == 0
    assert total(after, "karak_moves_total", by="person") >= 1
    assert total(after, "karak_moves_total", by="ai") >= 1
    assert total(after, "karak_moves_total", by="timer") >= 1
    assert total(after, "karak_interactions_total", kind="click", outcome="accepted") >= 3
    assert total(after, "karak_interactions_total", kind="click", outcome="refused") >= 1
    assert total(after, "karak_interactions_total", kind="command", name="join",
                 outcome="refused") == 1
    assert total(after, "karak_first_response_seconds_count") >= 5
    assert total(after, "karak_picture_seconds_count") > total(before,
                                                               "karak_picture_seconds_count")
    assert total(after, "karak_rate_limits_total") == 1
    assert total(after, "karak_db_write_seconds_count") > total(before,
                                                                "karak_db_write_seconds_count")
    assert total(after, "karak_db_write_seconds_sum") > 0
    pools = {dict(ls)["pool"] for (n, ls) in after if n == "karak_worker_queue_depth"}
    assert pools >= {"thinking", "hints"}
    assert {dict(ls)["pool"] for (n, ls) in after if n == "karak_worker_restarts_total"} == pools


async def test_a_tournament_command_is_counted_by_its_own_name(
        metered: tuple[LiveBot, int]) -> None:
    """``/goblin tournament new`` and ``/goblin tournament start`` are not counted as
    ``/goblin new`` and ``/goblin start``: the name tells the subcommand with its group."""
    bot, port = metered
    await bot.command(ADMIN, "tournament new", name="Spring Cup", rounds=2)
    await bot.command(ADMIN, "tournament start")
    await bot.command(ANN, "new")
    samples = await scrape(port)
    assert total(samples, "karak_interactions_total", kind="command", name="new") == 1
    assert total(samples, "karak_interactions_total", kind="command", name="start") == 0
    assert total(samples, "karak_interactions_total", kind="command",
                 name="tournament new") == 1
    assert total(samples, "karak_interactions_total", kind="command",
                 name="tournament start") == 1


async def test_clicks_on_a_persons_own_lists_and_questions_are_counted(
        metered: tuple[LiveBot, int]) -> None:
    """A page of ``/goblin turns`` and an answer to ``/goblin forget-me``'s question are
    counted as any click is: accepted, or refused when they were someone else's."""
    bot, port = metered
    turns = TurnsButton.id_for(ANN.id, 0)
    await raw_click(bot, ANN, forged_message(bot, ANN, turns), turns, 2)
    await raw_click(bot, BOB, forged_message(bot, BOB, turns), turns, 2)
    cancel = ForgetButton.id_for(ANN.id, False)
    await raw_click(bot, ANN, forged_message(bot, ANN, cancel), cancel, 2)
    await raw_click(bot, BOB, forged_message(bot, BOB, cancel), cancel, 2)
    samples = await scrape(port)
    for name in ("turnspage", "forget"):
        for outcome in ("accepted", "refused"):
            assert total(samples, "karak_interactions_total", kind="click", name=name,
                         outcome=outcome) == 1, (name, outcome)


def test_metrics_are_off_unless_a_port_is_set(tmp_path: Path) -> None:
    base = {"DISCORD_TOKEN": TOKEN, "KARAK_DB": str(tmp_path / "k.db")}
    settings = load_settings(base, env_file=None)
    assert settings.metrics_port is None and settings.metrics_host == "127.0.0.1"
    on = load_settings({**base, "KARAK_METRICS_PORT": "9464", "KARAK_METRICS_HOST": "0.0.0.0"},
                       env_file=None)
    assert (on.metrics_port, on.metrics_host) == (9464, "0.0.0.0")
    for bad in ({"KARAK_METRICS_PORT": "0"}, {"KARAK_METRICS_PORT": "70000"},
                {"KARAK_METRICS_HOST": "a b"}):
        with pytest.raises(ConfigProblem) as refused:
            load_settings({**base, **bad}, env_file=None)
        assert next(iter(bad)) in str(refused.value)


async def test_no_port_is_opened_without_one(tmp_path: Path) -> None:
    from bot.storage.sqlite import Store

    store = await Store.open(tmp_path / "k.db")
    try:
        async with served(Metrics(), store, "127.0.0.1", None) as server:
            assert server is None
    finally:
        await store.close()


def test_two_bots_count_apart() -> None:
    one, two = Metrics(), Metrics()
    one.moved("person")
    assert b'karak_moves_total{by="person"} 1.0' in one.page()
    assert b'karak_moves_total{by="person"} 0.0' in two.page()


def dashboard_names() -> set[str]:
    """The metric names the dashboard's PromQL expressions ask for, without the suffixes of a
    histogram's or a counter's samples."""
    board = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    exprs = [t["expr"] for p in board["panels"] for t in p.get("targets", [])]
    assert exprs
    names = {n for e in exprs for n in re.findall(r"\bkarak_[a-z0-9_]+", e)}
    return {re.sub(r"_(bucket|sum|count|total)$", "", n) for n in names}


def test_the_dashboard_shows_exactly_the_metrics_served() -> None:
    served_names = Metrics().names()
    assert dashboard_names() == served_names


async def test_a_replaced_worker_and_the_queue_show_at_the_next_scrape() -> None:
    import os

    from bot.workers.drawing import DrawingPool
    from engine import GameConfig, SeatConfig, new_game, observe

    obs = observe(new_game(GameConfig(seats=(SeatConfig("horan"), SeatConfig("taia")),
                                      seed=3)), 0)
    metrics = Metrics()
    drawing = DrawingPool(1)
    metrics.watch_pool("drawing", drawing.pool)
    try:
        await drawing.draw("hand", obs, "en")
        [worker] = drawing.pool.pids()
        os.kill(worker, 9)
        await drawing.draw("table", obs, "en")  # in a thread: its worker died
        await drawing.draw("table", obs, "fr")  # by a new worker
    finally:
        await drawing.close()
    page = metrics.page().decode()
    assert 'karak_worker_restarts_total{pool="drawing"} 1.0' in page
    assert 'karak_worker_queue_depth{pool="drawing"} 0.0' in page


async def test_the_bot_process_serves_its_metrics_on_the_port_set(tmp_path: Path) -> None:
    import socket

    from loopback.botproc import BotProcess

    with socket.socket() as probe:  # a port free a moment ago
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with Loopback(validate=discord_api_checked()) as lb:
        LiveBot.world(lb)
        bot = BotProcess(lb, tmp_path / "k.db", extra_env={"KARAK_METRICS_PORT": str(port)})
        try:
            await bot.start()
            page = await scrape(port)
        finally:
            await bot.stop()
    assert total(page, "karak_tables", status="running") == 0
    assert total(page, "karak_db_write_seconds_count") >= 1  # the commands' hash, saved
    assert {"drawing", "thinking", "hints"} <= {
        dict(ls)["pool"] for (n, ls) in page if n == "karak_worker_queue_depth"}
    assert "Traceback" not in bot.log_text()


def test_a_metrics_port_the_bot_cannot_listen_on_stops_it_in_one_line(tmp_path: Path) -> None:
    """A ``KARAK_METRICS_PORT`` another program listens on already stops the bot with one line
    naming the setting, the address and why, before it connects: not an "unexpected error"
    that sends the admin to the debug log."""
    import os
    import socket
    import subprocess
    import sys

    with socket.socket() as taken, socket.socket() as closed:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        closed.bind(("127.0.0.1", 0))
        port, nowhere = taken.getsockname()[1], closed.getsockname()[1]
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("KARAK_") and k != "DISCORD_TOKEN"}
        env.update({"DISCORD_TOKEN": TOKEN, "KARAK_DB": str(tmp_path / "k.db"),
                    "KARAK_METRICS_PORT": str(port),
                    "KARAK_API_BASE": f"http://127.0.0.1:{nowhere}/api",
                    "KARAK_GATEWAY_URL": f"ws://127.0.0.1:{nowhere}"})
        done = subprocess.run([sys.executable, "-m", "bot", "--env-file", os.devnull],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
                              check=False)
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert "KARAK_METRICS_PORT" in last and f"127.0.0.1:{port}" in last, done.stderr
    assert "Traceback" not in done.stderr and "unexpected" not in done.stderr


async def test_a_database_out_of_reach_leaves_the_page_served_without_the_table_counts(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """While the database is out of reach the page is still served (the refusals it counts
    are what the admin watches then), without ``karak_tables``, which cannot be counted: no
    HTTP 500 with a traceback in the log at every scrape. Once it is back, they are counted."""
    from database_away import cut_file
    from storage.helpers import played, started

    from bot.storage.sqlite import Store

    path = tmp_path / "k.db"
    first = await Store.open(path)
    await started(first, played(1).states[0])
    await first.close()
    store = await Store.open(path)  # what it reads comes from the file
    metrics = Metrics()
    metrics.answered("click", "move", "refused")
    try:
        async with served(metrics, store, "127.0.0.1", 0) as server:
            assert server is not None
            with cut_file(path):
                away = await scrape(server.port)
            back = await scrape(server.port)
    finally:
        await store.close()
    assert total(away, "karak_interactions_total", outcome="refused") == 1
    assert not any(name == "karak_tables" for name, _ in away)
    assert total(back, "karak_tables", status="running") == 1
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
