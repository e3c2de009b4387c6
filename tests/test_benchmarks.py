"""The engine benchmark still runs (a smoke test: its figures are read by people, not asserted)."""

from __future__ import annotations

import gc
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_the_engine_benchmark_prints_its_figures(capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    spec = importlib.util.spec_from_file_location("bench_engine", ROOT / "benchmarks/engine.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, bench)  # dataclasses look their module up there
    spec.loader.exec_module(bench)
    assert bench.main(["--games", "1", "--positions", "20"]) == 0
    out = capsys.readouterr().out
    assert "complete games/s" in out and "apply(check=True)" in out
    assert "games 1: finished 1" in out
    assert "garbage collector" in out


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
