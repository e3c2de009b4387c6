"""The engine benchmark still runs (a smoke test: its figures are read by people, not asserted)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib.util
import json
import re
import signal
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from benchmarks.people import cancel_all
from benchmarks.running import TERMINATED

ROOT = Path(__file__).resolve().parent.parent


def _benchmark(name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The script ``benchmarks/<name>.py`` imported as a module (registered for this test only)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / f"benchmarks/{name}.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, bench)
    spec.loader.exec_module(bench)
    return bench


def test_the_engine_benchmark_prints_its_figures(capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _benchmark("engine", monkeypatch)
    assert bench.main(["--games", "1", "--heuristic-games", "1", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "heuristic self-play:" in out and "steps/s" in out
    assert "complete games/s (1 of 1 finished)" in out
    assert "state_to_json + state_from_json, midgame:" in out
    assert bench.main(["--against", str(ROOT / "docs")]) == 2  # not a checkout


def test_the_requests_benchmark_prints_its_figures(capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _benchmark("requests", monkeypatch)
    bench.main(["--messages", "8", "--rounds", "1"])
    out = capsys.readouterr().out
    for kind in bench.KINDS:
        assert re.search(rf"{kind} +\d+\.\d\d ms", out), out


def test_the_instruction_count_workload_plays_and_replays() -> None:
    """The part of benchmarks/engine_instructions.py that runs under valgrind (valgrind itself is
    too slow for the suite: about two minutes for one comparison)."""
    spec = importlib.util.spec_from_file_location("bench_instructions",
                                                  ROOT / "benchmarks/engine_instructions.py")
    assert spec is not None and spec.loader is not None
    counter = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(counter)
    try:
        played = counter.workload(ROOT, games=1, passes=1, replay=False)
        replayed = counter.workload(ROOT, games=1, passes=2, replay=True)
    finally:
        gc.unfreeze()  # the workload, like engine.simulate, froze what was alive
    assert played > 100 and replayed == played
    assert counter.main(["--against", str(ROOT / "docs")]) == 2  # no checkout (or no valgrind)


def test_the_ai_thinking_benchmark_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("bench_ai_think",
                                                  ROOT / "benchmarks/ai_think.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--decisions", "1", "--seconds", "0.1"]) == 0
    out = capsys.readouterr().out
    assert all(f"{mode}:" in out for mode in ("loop", "thread", "worker")), out


def test_the_replay_benchmark_prints_its_figures(capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _benchmark("replay", monkeypatch)
    assert bench.main(["--min-actions", "1", "--max-actions", "100000", "--steps", "3",
                       "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "match: seed 1," in out and "replay build:" in out
    assert out.count("replay step (") == 2 and "animation:" in out and "MiB" in out


def test_the_hint_load_benchmark_reads_the_ai_seats_delays(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """hint_load.py's AI delay: from the move before, at the same table, within the window."""
    import sqlite3

    bench = _benchmark("hint_load", monkeypatch)
    db = tmp_path / "actions.sqlite3"
    with contextlib.closing(sqlite3.connect(db)) as con, con:
        con.execute("CREATE TABLE actions (table_id, seq, by_ai, at)")
        con.executemany("INSERT INTO actions VALUES (?, ?, ?, ?)", [
            (1, 1, 0, 10.0), (1, 2, 1, 11.5), (1, 3, 1, 13.5), (2, 1, 1, 12.0),
            (2, 2, 0, 14.0), (2, 3, 1, 20.0)])
    assert bench.ai_delays(db, 11.0, 14.0) == [1.5, 2.0]  # table 2's first move has no before
    assert bench.ai_delays(db, 0.0, 100.0) == [1.5, 2.0, 6.0]
    assert bench.parse(["--tables", "3"]).hint_chance == 0.3


def test_the_hint_load_benchmark_compares_versions_in_turn(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """--against: this version and the other in turn, each run's line, the goals read from this
    version's figures."""
    import asyncio

    bench = _benchmark("hint_load", monkeypatch)
    quick = bench.HintFigures([0.2] * 99 + [1.4], ([1.5] * 100, [1.6] * 100), 0)
    slow = bench.HintFigures([0.2] * 98 + [1.6] * 2, ([1.5] * 100, [1.7] * 100), 0)
    assert quick.good() and not slow.good()  # p99 1.6 s; AI p99 x1.133
    assert round(slow.ratio, 3) == 1.133 and "p99 1600 ms" in slow.line()
    other = Path("/elsewhere")
    seen: list[Path] = []

    async def run(root: Path) -> object:
        seen.append(root)
        return quick if root == other else slow

    runs = asyncio.run(bench.in_turn(2, other, run, bench.HintFigures.line))
    assert seen == [ROOT, other, ROOT, other]
    assert runs == {"this": [slow, slow], "base": [quick, quick]}
    out = capsys.readouterr().out
    assert out.count("load average") == 4 and "round 2 base: hint p50 200 ms" in out


def test_the_history_benchmark_prints_its_figures(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _benchmark("history", monkeypatch)
    assert bench.main(["--min-actions", "1", "--max-actions", "100000", "--steps", "2",
                       "--matches", "12", "--pages", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count("replay step, ") == 2 and "database: 12 finished matches" in out
    assert out.count("history page, ") == 2


def test_the_ratings_benchmark_prints_its_figures(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _benchmark("ratings", monkeypatch)
    assert bench.main(["--matches", "50", "--people", "10", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "recompute: 50 matches among 10 people in" in out and "shown numbers: min" in out


def test_the_ai_ratings_benchmark_prints_its_figures(capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _benchmark("ai_ratings", monkeypatch)
    assert bench.main(["--games", "2", "--iterations", "2", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["games"] == figures["rated"] == 2 and figures["errors"] == 0
    assert set(figures["levels"]) == {"easy", "normal", "hard"}
    for level in figures["levels"].values():
        assert level["settled"]["sigma"] < 25 / 3  # two games made every level more certain
    assert sum(level["predicted_share"] for level in figures["levels"].values()) \
        == pytest.approx(1.0, abs=1e-3)


def test_the_stats_benchmark_prints_its_figures(capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _benchmark("stats", monkeypatch)
    assert bench.main(["--matches", "60", "--people", "8", "--asks", "2"]) == 0
    out = capsys.readouterr().out
    assert "60 matches among 8 people rebuilt in" in out and "stats finished with chart" in out


def test_the_processes_benchmark_spreads_the_shards_over_processes() -> None:
    """load.py --processes: one process on every shard against one process a shard, each
    named."""
    from benchmarks.multiproc import one_process, per_shard, shards_of

    assert [shards_of(env) for env in one_process(3)] == [None]
    assert [env["KARAK_SHARD_COUNT"] for env in one_process(3)] == ["3"]
    assert [shards_of(env) for env in per_shard(3)] == [[0], [1], [2]]
    assert len({env["KARAK_INSTANCE"] for env in per_shard(3)}) == 3
    assert one_process(1) == [{}]


def test_the_turns_benchmark_prints_its_figures(capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _benchmark("turns", monkeypatch)
    assert bench.main(["--matches", "30", "--people", "20", "--mine", "10", "--asks", "3",
                       "--cold", "2"]) == 0
    out = capsys.readouterr().out
    assert "30 running matches among 20 people" in out and "the person sits in 10" in out
    assert "turns, tables kept (3): p50" in out and "turns, store just opened (2): p50" in out


def test_the_simulated_people_confirm_a_move_they_are_asked_to_be_sure_of() -> None:
    """benchmarks/people.py: a hand asking "Really end the battle?" offers its Confirm button
    as a move (a person who saw no move there waited for ever); Back is no move."""
    from benchmarks.people import moves
    from bot.discord_side.ui.custom_ids import BackButton, SureButton
    from loopback import Message, User

    sure = SureButton.id_for(7, 12, "end")
    asked = Message(1, 2, 3, User(4, "Ann"), components=[{"type": 1, "components": [
        {"type": 2, "style": 3, "label": "Confirm", "custom_id": sure},
        {"type": 2, "style": 2, "label": "Back", "custom_id": BackButton.id_for(7)}]}])
    assert moves(asked) == [("end", sure, None)]


def test_the_tournament_play_benchmark_measures_this_version_only(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """benchmarks/tournament_play.py --against a version without tournaments: nothing to
    compare, said so (a whole tournament on the bot takes minutes: not run here)."""
    import asyncio

    bench = _benchmark("tournament_play", monkeypatch)
    args = bench.parse(["--against", str(ROOT / "docs")])
    assert (args.entrants, args.table_size, args.rounds) == (64, 4, None)
    assert asyncio.run(bench.main(args)) == 2
    assert "has no server tournaments" in capsys.readouterr().out


def test_a_benchmark_ended_by_sigterm_runs_its_clean_up_first(tmp_path: Path) -> None:
    """SIGTERM (``kill``, ``timeout``) cancels a benchmark's main task, so what it started (bot
    processes, stand-ins, servers) is stopped on the way out; the exit status says SIGTERM."""
    script = tmp_path / "bench.py"
    script.write_text(
        "import asyncio, sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from benchmarks.running import run\n"
        "async def main() -> int:\n"
        "    try:\n"
        "        print('ready', flush=True)\n"
        "        await asyncio.Event().wait()\n"
        "    finally:\n"
        "        await asyncio.sleep(0)  # a clean-up that awaits, as stopping a bot does\n"
        "        print('cleaned up', flush=True)\n"
        "    return 0\n"
        "sys.exit(run(main()))\n")
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:  # it waits for ever: never left behind
            proc.kill()
            proc.communicate()
    assert out == "cleaned up\n"
    assert proc.returncode == TERMINATED == 143


async def test_a_person_who_missed_a_cancellation_is_cancelled_again() -> None:
    """The people of a benchmark stop even when one of them swallowed its cancellation (as
    Python 3.11's ``asyncio.wait_for`` can): waiting for them would otherwise never end."""
    async def stubborn() -> None:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(3600)
        await asyncio.sleep(3600)  # goes on waiting for the next match

    task = asyncio.create_task(stubborn())
    await asyncio.sleep(0)
    await asyncio.wait_for(cancel_all([task]), 30)  # a guard, not a measurement
    assert task.cancelled()


def test_the_lessons_benchmark_prints_its_figures(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _benchmark("lessons", monkeypatch)
    assert bench.main(["--moves", "40", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "a hand's lesson: p50" in out and "kept up to date, per move" in out, out
    assert "one replay to step 40:" in out, out
    assert bench.main(["--against", str(ROOT / "docs")]) == 2  # not a checkout
