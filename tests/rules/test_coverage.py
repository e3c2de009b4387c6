"""The rules reference is complete and used: every rule and decision of ``docs/rules.md`` has a
scenario test named after it, every rule id cited anywhere in the project is defined in
``docs/``, and the rules notes cite real tests."""

from __future__ import annotations

import re
from pathlib import Path

from shared_files import RULES_REFERENCE, require_file

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
RULES = ROOT / "docs" / "rules.md"
NOTES = ROOT / "docs" / "rules-notes.md"
#: Where rule ids may be cited: every folder of the project and its README.
CITING = ("engine", "cards", "render", "bot", "i18n", "loopback", "playground", "benchmarks",
          "scripts", "tests", "docs", "README.md")
#: A rule (R), decision (D) or note (N) id as prose and comments cite it: ``R23``, ``D5``, ``N18``.
CITED_ID = re.compile(r"\b([RDN]\d+)\b")


def by_number(ids: set[str]) -> list[str]:
    return sorted(ids, key=lambda r: (r[0], int(r[1:])))


def defined(path: Path, pattern: str) -> list[str]:
    """The ids ``path`` defines, in order, duplicates kept."""
    return re.findall(pattern, path.read_text(encoding="utf-8"), re.MULTILINE)


def rule_ids() -> list[str]:
    """The rules (R-n) and decisions (D-n) of docs/rules.md: ``- **R14** ...`` items."""
    return defined(RULES, r"^- \*\*([RD]\d+)\*\* ")


def note_ids() -> list[str]:
    """The engine's notes (N-n) of docs/rules-notes.md: ``**N18 — title**`` paragraphs."""
    return defined(NOTES, r"^\*\*(N\d+) — ")


def scenario_names() -> set[str]:
    names: set[str] = set()
    for path in HERE.glob("test_*.py"):
        names.update(re.findall(r"^def (test_\w+)", path.read_text(), re.MULTILINE))
    return names


def cited_ids() -> dict[str, list[str]]:
    """Every id cited in the project, with the files citing it; ``# noqa: D103`` style lint
    codes are not rule ids, and scenario test names cite ids in lower case (``test_r62_d6_``)."""
    cited: dict[str, list[str]] = {}
    files: list[Path] = []
    for name in CITING:
        top = ROOT / name
        files += [top] if top.is_file() else [
            p for p in top.rglob("*") if p.suffix in (".py", ".md", ".toml")]
    for path in files:
        text = re.sub(r"noqa:[^\n]*", "", path.read_text(encoding="utf-8"))
        found = set(CITED_ID.findall(text))
        for test in re.findall(r"^\s*(?:async )?def test_(\w+)", text, re.MULTILINE):
            found.update(t.upper() for t in test.split("_") if re.fullmatch(r"[rd]\d+", t))
        for rid in found:
            cited.setdefault(rid, []).append(path.relative_to(ROOT).as_posix())
    return cited


def test_ids_are_defined_once() -> None:
    rules, notes = rule_ids(), note_ids()
    assert len(rules) >= 50 and len(notes) >= 10, (rules, notes)
    twice = by_number({i for i in rules + notes if (rules + notes).count(i) > 1})
    assert not twice, f"defined twice: {twice}"


def test_every_cited_id_is_defined_in_docs() -> None:
    known = set(rule_ids()) | set(note_ids())
    cited = cited_ids()
    assert {"R21", "D5", "N18"} <= set(cited), "the scan finds no citations"
    unknown = {rid: files for rid, files in cited.items() if rid not in known}
    assert not unknown, f"cited but defined neither in docs/rules.md nor in the notes: {unknown}"


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


def test_the_same_ids_as_the_shared_rules_reference() -> None:
    """docs/rules.md restates the shared reference beside the project: no rule lost or added."""
    shared = require_file(RULES_REFERENCE, "that docs/rules.md has the shared reference's ids")
    theirs = set(re.findall(r"^- ([RD]\d+) ", shared.read_text(encoding="utf-8"), re.MULTILINE))
    ours = set(rule_ids())
    assert theirs, f"no rule ids found in {shared}"
    assert ours == theirs, (f"only in docs/rules.md: {by_number(ours - theirs)}; "
                            f"only in {shared}: {by_number(theirs - ours)}")
