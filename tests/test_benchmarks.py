"""The engine benchmark still runs (a smoke test: its figures are read by people, not asserted)."""

from __future__ import annotations

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
