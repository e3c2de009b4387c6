"""Golden playthroughs: seeded games of the uniformly random agent replay exactly as recorded.

The files are written by ``scripts/golden.py``; when a change of the rules, the setup, the random
generator or the catalogue is intended, regenerate them with ``.venv/bin/python scripts/golden.py``
and review the diff.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("golden_script", ROOT / "scripts" / "golden.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("golden_script", module)
    spec.loader.exec_module(module)
    return module


golden = _script()


def _diff(name: str, expected: list[str], actual: list[str]) -> str | None:
    """The first difference as a readable message, or None when the lines agree."""
    for i, (want, got) in enumerate(zip(expected, actual, strict=False)):
        if want != got:
            step = next((line for line in reversed(actual[:i + 1]) if line.startswith("step ")),
                        "the header")
            return (f"{name}: line {i + 1} differs (at {step}):\n"
                    f"  recorded: {want}\n  now:      {got}")
    if len(expected) != len(actual):
        return f"{name}: recorded {len(expected)} lines, the engine now gives {len(actual)}"
    return None


def _play_lines(lines: list[str]) -> list[str]:
    """The lines that describe play (the catalogue hash is only there to explain a mismatch)."""
    return [line if not line.startswith("# catalogue: ") else "# catalogue" for line in lines]


@pytest.mark.parametrize("game", golden.GAMES, ids=lambda g: g.name)
def test_golden_playthrough(game: Any) -> None:
    path = game.path
    regenerate = f"If the change is intended, run `{golden.COMMAND}` and review the diff."
    assert path.exists(), f"{path.name} is missing. {regenerate}"
    expected = path.read_text(encoding="utf-8").splitlines()
    actual = golden.play(game)
    recorded = next((line for line in expected if line.startswith("# catalogue: ")), "")
    problem = _diff(path.name, _play_lines(expected), _play_lines(actual))
    if problem is None:
        return
    current = f"# catalogue: {golden.catalogue_hash()}"
    if recorded != current:
        pytest.fail(
            f"The catalogue data (cards/data/*.toml) changed since {path.name} was recorded "
            f"({recorded.removeprefix('# catalogue: ') or 'no hash'} -> "
            f"{golden.catalogue_hash()}), so the playthrough differs.\n{regenerate}\n{problem}",
            pytrace=False,
        )
    pytest.fail(f"The engine no longer replays {path.name} as recorded.\n{regenerate}\n{problem}",
                pytrace=False)


def test_diff_reports_the_first_difference() -> None:
    recorded = ["# header", "step 0", "  a", "step 1", "  b"]
    assert _diff("x.txt", recorded, list(recorded)) is None
    message = _diff("x.txt", recorded, ["# header", "step 0", "  a", "step 1", "  c"])
    assert message is not None and "line 5" in message and "step 1" in message
    assert "recorded: " in message and "  b" in message and "  c" in message
    message = _diff("x.txt", recorded, recorded[:3])
    assert message is not None and "5 lines" in message and "3" in message
