"""Every rule id of RULES.md has a scenario test named after it; the rules notes cite real tests."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
RULES = ROOT.parent / "shared" / "rules" / "RULES.md"
NOTES = ROOT / "docs" / "rules-notes.md"


def scenario_names() -> set[str]:
    names: set[str] = set()
    for path in HERE.glob("test_*.py"):
        names.update(re.findall(r"^def (test_\w+)", path.read_text(), re.MULTILINE))
    return names


def rule_ids() -> list[str]:
    if not RULES.exists():
        pytest.skip(f"{RULES} is not available")
    return sorted(set(re.findall(r"^- ([RD]\d+) ", RULES.read_text(), re.MULTILINE)),
                  key=lambda r: (r[0], int(r[1:])))


def test_every_rule_and_decision_has_a_named_test() -> None:
    names = scenario_names()
    missing = [rid for rid in rule_ids()
               if not any(re.search(rf"(^test_|_){rid.lower()}_", n) for n in names)]
    assert not missing, f"no scenario test named after {missing}"


def test_rules_notes_cite_existing_tests() -> None:
    names = scenario_names()
    cited = set(re.findall(r"\b(test_r\d+\w*|test_d\d+\w*)", NOTES.read_text()))
    assert cited, "the notes cite no tests"
    assert not cited - names, f"the notes cite unknown tests {sorted(cited - names)}"
