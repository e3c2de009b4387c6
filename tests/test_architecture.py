"""The architecture holds: dependencies point one way, the engine stays pure Python, only the
storage backends speak SQL.

The import rules are import-linter contracts in ``pyproject.toml`` (``lint-imports``, a step of
``scripts/dev.py test``); here the contracts are shown to pass, and each one to break when a
violation of it is planted in a copy of the project. Lazy imports inside functions and imports
under ``if TYPE_CHECKING:`` count. What import-linter cannot see is checked from the source:
SQL written outside the storage backends, and worker jobs named by a string.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ("engine", "cards", "render", "bot", "i18n", "loopback", "playground")
LINT = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
        "sys.exit(lint_imports_command())"]


def contracts() -> dict[str, str]:
    """The import-linter contracts of ``pyproject.toml``: id -> name."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {c["id"]: c["name"] for c in config["tool"]["importlinter"]["contracts"]}


def lint(root: Path, *contract: str) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` run on the project at ``root`` (only ``contract`` when named)."""
    only = [arg for c in contract for arg in ("--contract", c)]
    return subprocess.run([*LINT, "--no-cache", *only], cwd=root, capture_output=True,
                          text=True, env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
                          timeout=120)


def test_the_import_contracts_are_kept() -> None:
    done = lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Contracts: {len(contracts())} kept, 0 broken." in done.stdout


#: contract id -> (file planted in the copy, its source): one violation of each contract.
PLANTED: dict[str, tuple[str, str]] = {
    "packages": ("engine/planted.py", "import bot.game\n"),
    "bot-layers": ("bot/storage/planted.py", "def f():\n    from bot.game import service\n"),
    "discord-side": ("bot/workers/planted.py",
                     "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import discord\n"),
    "playground-discord": ("playground/planted.py", "import discord.ui\n"),
    "drivers": ("bot/game/planted.py", "import sqlite3\n"),
    "pure-engine": ("engine/planted.py", "from PIL import Image\n"),
    "render": ("render/planted.py", "import aiohttp\n"),
    "no-cycles": ("bot/game/planted.py", "import bot.game.service\n"),
}


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's packages and ``pyproject.toml``, copied (Python files only)."""
    root = tmp_path_factory.mktemp("project")
    for package in PROJECT:
        shutil.copytree(ROOT / package, root / package,
                        ignore=lambda folder, names: [n for n in names if not (
                            n.endswith(".py") or (Path(folder) / n).is_dir())
                            or n == "__pycache__"])
    shutil.copy(ROOT / "pyproject.toml", root)
    return root


def test_every_contract_has_a_planted_violation() -> None:
    assert set(PLANTED) == set(contracts())


@pytest.fixture
def planted(copy: Path, request: pytest.FixtureRequest) -> Iterator[Path]:
    """The copy with the violation of contract ``request.param`` planted (removed after)."""
    name, source = PLANTED[request.param]
    path = copy / name
    path.write_text(source, encoding="utf-8")
    service = copy / "bot/game/service.py"
    kept = service.read_text(encoding="utf-8")
    if request.param == "no-cycles":  # the other half of the cycle
        service.write_text(kept + "\nimport bot.game.planted\n", encoding="utf-8")
    try:
        yield copy
    finally:
        path.unlink()
        service.write_text(kept, encoding="utf-8")


@pytest.mark.parametrize("planted", sorted(PLANTED), indirect=True)
def test_a_planted_violation_breaks_its_contract(planted: Path,
                                                 request: pytest.FixtureRequest) -> None:
    contract = request.node.callspec.params["planted"]
    done = lint(planted, contract)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Contracts: 0 kept, 1 broken." in done.stdout, done.stdout
    assert "planted" in done.stdout, done.stdout


def test_every_bot_layer_says_what_it_owns() -> None:
    for layer in sorted(p.parent for p in (ROOT / "bot").glob("*/__init__.py")):
        assert ast.get_docstring(ast.parse((layer / "__init__.py").read_text())), \
            f"bot/{layer.name}/__init__.py has no docstring"


def test_the_architecture_page_names_every_module_of_each_layer() -> None:
    """docs/architecture.md's row of each layer of ``bot/`` names each of its modules (a
    module of a sub-package by its file name or its path under the layer)."""
    rows = {m.group(1): m.group(2) for m in re.finditer(
        r"^\| `([a-z_]+)/` \| (.*)$", (ROOT / "docs" / "architecture.md").read_text(
            encoding="utf-8"), flags=re.MULTILINE)}
    missing = []
    for layer in sorted(p.parent for p in (ROOT / "bot").glob("*/__init__.py")):
        row = rows.get(layer.name, "")
        for module in sorted(layer.rglob("*.py")):
            path = module.relative_to(layer).as_posix()
            if module.name != "__init__.py" and f"`{module.name}`" not in row \
                    and f"`{path}`" not in row:
                missing.append(f"bot/{layer.name}/{path}")
    assert missing == [], f"docs/architecture.md does not name {missing}"


# ------------------------------------------------------------------ SQL stays in the backends

#: A statement of SQL in any case, over one line or several.
SQL = re.compile(r"\b(select\s+[\w*.,()\s]+?\s+from\s+\w+|insert\s+into\s+\w+|update\s+\w+\s+"
                 r"set\s|delete\s+from\s+\w+|create\s+(unique\s+)?(table|index|trigger)\b|"
                 r"alter\s+table\s|drop\s+(table|index)\s|pragma\s+\w+)", re.IGNORECASE)
#: The start of a statement that writes, and the table it writes.
WRITE = re.compile(r"\b(?:insert\s+into|update|delete\s+from)\s+(\w+)", re.IGNORECASE)


def strings(path: Path) -> Iterator[tuple[int, str]]:
    """Every string constant of a source file but its docstrings: (line, text)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                          | ast.AsyncFunctionDef)
            and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docs:
            yield node.lineno, node.value


def is_backend(path: Path, root: Path) -> bool:
    """True for the storage's modules that speak SQL: its core's queries
    (``bot/storage/core/``) and the backends' modules (``bot/storage/sqlite*.py``,
    ``bot/storage/postgres*.py``)."""
    folder = path.relative_to(root).parent.as_posix()
    return folder == "bot/storage/core" or (
        folder == "bot/storage" and path.name.startswith(("sqlite", "postgres")))


def sql_leaks(root: Path, bot_tables: set[str]) -> list[str]:
    """SQL outside the storage backends: any in the project's packages; in ``benchmarks/``, a
    write to one of the bot's own tables (a benchmark may read what it measures)."""
    out = []
    for package in (*PROJECT, "benchmarks"):
        for path in sorted((root / package).rglob("*.py")):
            if is_backend(path, root):
                continue
            where = path.relative_to(root).as_posix()
            for line, text in strings(path):
                if package != "benchmarks" and SQL.search(text):
                    out.append(f"{where}:{line} holds SQL")
                out += [f"{where}:{line} writes {table}" for table in WRITE.findall(text)
                        if package == "benchmarks" and table.lower() in bot_tables]
    return out


def bot_tables() -> set[str]:
    """The tables of the bot's schema, as the backends' migrations create them."""
    sources = [(ROOT / "bot/storage" / f).read_text(encoding="utf-8")
               for f in ("sqlite_schema.py", "postgres_schema.py", "postgres_baseline.py")]
    return {name.lower() for text in sources
            for name in re.findall(r"CREATE TABLE (?:IF NOT EXISTS )?(\w+)", text)}


def test_only_the_storage_backends_speak_sql() -> None:
    assert sql_leaks(ROOT, bot_tables()) == []


def test_the_sql_checker_sees_sql_in_any_case_and_over_lines(tmp_path: Path) -> None:
    for package in (*PROJECT, "benchmarks"):
        (tmp_path / package).mkdir()
    (tmp_path / "bot" / "storage").mkdir()
    sql = 'Q = "SELECT id FROM tables"\n'
    (tmp_path / "bot" / "storage" / "core").mkdir()
    (tmp_path / "bot" / "storage" / "sqlite_rows.py").write_text(sql, encoding="utf-8")
    (tmp_path / "bot" / "storage" / "core" / "tables.py").write_text(sql, encoding="utf-8")
    (tmp_path / "bot" / "storage" / "records.py").write_text(sql, encoding="utf-8")
    (tmp_path / "playground" / "app.py").write_text(
        '"""Select a table from the list."""\n'
        'def f():\n    return ("select id\\n  from tables", "Select a card", """update\n'
        '  tables set x = 1""")\n', encoding="utf-8")
    (tmp_path / "benchmarks" / "b.py").write_text(
        'A = "SELECT COUNT(*) FROM actions"\nB = "insert into rows values (1)"\n'
        'C = "INSERT INTO tables (id) VALUES (?)"\n', encoding="utf-8")
    assert sql_leaks(tmp_path, {"tables", "actions"}) == [
        "bot/storage/records.py:1 holds SQL", "playground/app.py:3 holds SQL",
        "playground/app.py:3 holds SQL", "benchmarks/b.py:3 writes tables"]
    assert {"tables", "actions", "results"} <= bot_tables()


# ------------------------------------------------------------------ jobs named by a string

JOB = re.compile(r"^(bot\.(\w+)(?:\.\w+)*):\w+$")
#: what each layer of the bot may import (the contract ``bot-layers``), for jobs named by string
BELOW = {"process": {"discord_side", "game", "workers", "supervision", "storage"},
         "discord_side": {"game", "workers", "supervision", "storage"},
         "game": {"workers", "supervision", "storage"},
         "workers": set(), "supervision": set(), "storage": set()}


def upward_jobs(root: Path) -> list[str]:
    """Worker jobs (``"bot.layer.module:function"``, imported by name in the worker) named by a
    module of ``bot`` from a layer that may not import theirs."""
    out = []
    for path in sorted((root / "bot").rglob("*.py")):
        parts = path.relative_to(root).parts
        if len(parts) < 3:
            continue
        for line, text in strings(path):
            found = JOB.match(text)
            if found and found[2] != parts[1] and found[2] not in BELOW.get(parts[1], set()):
                out.append(f"{'/'.join(parts)}:{line} names {found[1]}")
    return out


def test_worker_jobs_are_named_downwards() -> None:
    assert upward_jobs(ROOT) == []
    assert set(BELOW) == {p.parent.name for p in (ROOT / "bot").glob("*/__init__.py")}


def test_the_job_checker_sees_an_upward_name(tmp_path: Path) -> None:
    (tmp_path / "bot" / "workers").mkdir(parents=True)
    (tmp_path / "bot" / "workers" / "x.py").write_text(
        'A = "bot.game.play:run"\nB = "bot.workers.drawing:draw"\n', encoding="utf-8")
    assert upward_jobs(tmp_path) == ["bot/workers/x.py:1 names bot.game.play"]
