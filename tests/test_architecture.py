"""The architecture holds: dependencies point one way, and the engine stays pure Python.

``bot -> render, engine, cards``; ``render -> engine``; ``engine -> cards``; everything may use
the one translation layer ``i18n``. Each package may import only the standard library, the
project packages listed for it and the third-party packages listed for it. Imports are read from
the source with :mod:`ast`, so a lazy import inside a function counts too. Inside a package, no
module may import itself back through others (no import cycle).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = {"engine", "cards", "render", "bot", "i18n", "loopback", "playground"}

#: package -> (project packages it may import, third-party packages it may import)
ALLOWED: dict[str, tuple[set[str], set[str]]] = {
    "i18n": (set(), set()),
    "cards": ({"i18n"}, {"pydantic"}),
    "engine": ({"cards", "i18n"}, {"msgspec"}),
    "render": ({"engine", "i18n"}, {"PIL"}),
    "bot": ({"engine", "render", "cards", "i18n"}, {"aiohttp", "discord", "aiosqlite", "asyncpg",
                                                 "pydantic", "pydantic_settings", "yarl",
                                                 "msgspec", "openskill"}),
    # compression: the standard library's zstd from Python 3.14 on
    "loopback": (set(), {"aiohttp", "jsonschema", "referencing", "zstandard", "compression"}),
    "playground": ({"loopback", "bot", "i18n"}, {"aiohttp", "playwright"}),
}

def imports(path: Path) -> set[str]:
    """The top-level names of every absolute import in a source file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def violations(package: str) -> list[str]:
    """Every import of ``package`` that its row of :data:`ALLOWED` does not permit."""
    project, third_party = ALLOWED[package]
    out = []
    for path in sorted((ROOT / package).rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        for name in sorted(imports(path)):
            if name == package or name == "__future__" or name in sys.stdlib_module_names:
                continue
            if name in PROJECT and name in project:
                continue
            if name not in PROJECT and name in third_party:
                continue
            out.append(f"{where} imports {name}")
    return out


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_dependencies_point_one_way(package: str) -> None:
    assert violations(package) == []


def test_every_package_has_a_row() -> None:
    assert set(ALLOWED) == PROJECT
    assert all((ROOT / p / "__init__.py").exists() for p in PROJECT)


def test_the_checker_sees_a_forbidden_import(tmp_path: Path) -> None:
    source = tmp_path / "bad.py"
    source.write_text("import os\n\ndef f():\n    from PIL import Image\n    import discord.ui\n"
                      "from .sibling import x\n", encoding="utf-8")
    assert imports(source) == {"os", "PIL", "discord"}


# ------------------------------------------------------------------ the bot's layers

#: sub-package of ``bot`` -> the other sub-packages it may import (each says so in its __init__)
BOT_LAYERS: dict[str, set[str]] = {
    "process": {"discord_side", "game", "workers", "supervision", "storage"},
    "discord_side": {"game", "workers", "supervision", "storage"},
    "game": {"workers", "storage"},
    "workers": set(),
    "supervision": set(),
    "storage": set(),
}


def _layer(module: str) -> str | None:
    """The sub-package of ``bot`` that ``module`` belongs to (None: ``bot`` itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in BOT_LAYERS) else None


def bot_layer_violations(root: Path) -> list[str]:
    """Every import of one sub-package of ``bot`` by another that :data:`BOT_LAYERS` forbids."""
    bot = root / "bot"
    graph = import_graph(root, "bot")
    out = []
    for module, imported in sorted(graph.items()):
        layer = _layer(module)
        if layer is None:  # bot itself and bot.__main__ start the process
            continue
        for name in sorted(imported):
            other = _layer(name)
            if other not in (None, layer) and other not in BOT_LAYERS[layer]:
                out.append(f"{module} imports {name}")
    assert set(BOT_LAYERS) == {p.name for p in bot.iterdir() if (p / "__init__.py").exists()}
    return out


def test_the_bots_layers_import_downwards() -> None:
    assert bot_layer_violations(ROOT) == []


def test_every_bot_layer_says_what_it_owns() -> None:
    for layer in BOT_LAYERS:
        doc = ast.get_docstring(ast.parse((ROOT / "bot" / layer / "__init__.py").read_text()))
        assert doc, f"bot/{layer}/__init__.py has no docstring"


def test_the_layer_checker_sees_an_upward_import(tmp_path: Path) -> None:
    for layer in BOT_LAYERS:
        (tmp_path / "bot" / layer).mkdir(parents=True)
        (tmp_path / "bot" / layer / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "bot" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "bot" / "storage" / "x.py").write_text("from bot.game import y\n")
    (tmp_path / "bot" / "game" / "y.py").write_text("from bot.storage import x\n")
    assert bot_layer_violations(tmp_path) == ["bot.storage.x imports bot.game.y"]


# ------------------------------------------------------------------ the storage backends

#: The database drivers, and the statements of SQL (upper case, as the backends write them).
DRIVERS = {"sqlite3", "aiosqlite", "asyncpg"}
SQL = re.compile(r"\b(SELECT .* FROM|INSERT INTO|UPDATE \w+ SET|DELETE FROM|CREATE (TABLE|INDEX"
                 r"|TRIGGER)|ALTER TABLE|DROP TABLE|PRAGMA \w+)\b")


def is_backend(path: Path, root: Path) -> bool:
    """True for the backends' modules: ``bot/storage/sqlite*.py`` and
    ``bot/storage/postgres*.py``."""
    return path.relative_to(root).parent.as_posix() == "bot/storage" \
        and path.name.startswith(("sqlite", "postgres"))


def storage_leaks(root: Path) -> list[str]:
    """Every import of a database driver, and every string holding SQL, in the project's
    packages outside the storage backends."""
    out = []
    for package in sorted(PROJECT):
        for path in sorted((root / package).rglob("*.py")):
            if is_backend(path, root):
                continue
            where = path.relative_to(root).as_posix()
            out += [f"{where} imports {name}" for name in sorted(imports(path) & DRIVERS)]
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            out += [f"{where}:{node.lineno} holds SQL" for node in ast.walk(tree)
                    if isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and SQL.search(node.value)]
    return out


def test_only_the_storage_backends_speak_sql() -> None:
    assert storage_leaks(ROOT) == []


def test_the_storage_checker_sees_a_driver_and_sql(tmp_path: Path) -> None:
    for package in PROJECT:
        (tmp_path / package).mkdir()
    (tmp_path / "bot" / "storage").mkdir()
    sql = 'import aiosqlite\nimport asyncpg\nQ = "SELECT id FROM tables"\n'
    for name in ("sqlite.py", "sqlite_schema.py", "postgres.py", "records.py"):
        (tmp_path / "bot" / "storage" / name).write_text(sql, encoding="utf-8")
    (tmp_path / "playground" / "app.py").write_text(
        'def f():\n    import sqlite3\n    return "PRAGMA user_version", "Select a card"\n',
        encoding="utf-8")
    assert storage_leaks(tmp_path) == [
        "bot/storage/records.py imports aiosqlite", "bot/storage/records.py imports asyncpg",
        "bot/storage/records.py:3 holds SQL",
        "playground/app.py imports sqlite3", "playground/app.py:3 holds SQL"]


# ------------------------------------------------------------------ cycles inside a package

def module_name(path: Path, root: Path) -> str:
    """``bot/discord_side/cog.py`` -> ``bot.discord_side.cog``; a package's ``__init__.py`` is
    the package."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, module: str, modules: set[str]) -> set[str]:
    """The modules of ``modules`` that the source of ``module`` imports: absolute and relative
    imports, at the top or inside a function or an ``if TYPE_CHECKING:`` block."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    wanted: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            wanted.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for alias in node.names:  # from base import name: base.name when it is a module
                inner = f"{base}.{alias.name}" if base else alias.name
                wanted.add(inner if inner in modules else base)
    found = set()
    for name in wanted:
        while name and name not in modules:  # import a.b.c names module a.b when c is not one
            name = name.rpartition(".")[0]
        if name and name != module:
            found.add(name)
    return found


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Each module of ``package`` (a folder under ``root``) -> the package's modules it imports."""
    paths = {module_name(p, root): p for p in sorted((root / package).rglob("*.py"))}
    return {m: imported_modules(p, m, set(paths)) for m, p in paths.items()}


def cycles(graph: dict[str, set[str]]) -> set[tuple[str, ...]]:
    """Every elementary cycle of ``graph``, each starting at its smallest module."""
    found: set[tuple[str, ...]] = set()

    def walk(start: str, path: list[str]) -> None:
        for nxt in sorted(graph[path[-1]]):
            if nxt == start:
                found.add(tuple(path))
            elif nxt > start and nxt not in path:
                walk(start, [*path, nxt])

    for start in sorted(graph):
        walk(start, [start])
    return found


def shown(cycle: tuple[str, ...]) -> str:
    return " -> ".join([*cycle, cycle[0]])


@pytest.mark.parametrize("package", sorted(PROJECT))
def test_no_import_cycle_inside_a_package(package: str) -> None:
    found = sorted(shown(c) for c in cycles(import_graph(ROOT, package)))
    assert not found, f"import cycles in {package}: {found}"


def test_the_checker_sees_an_import_cycle(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "from pkg.a import A\n",
        "a.py": "import pkg.sub.b\nA = 1\n",
        "sub/__init__.py": "",
        "sub/b.py": "def f():\n    from ..c import C\n    return C\n",
        "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\nC = 2\n",
        "d.py": "from pkg import sub\nfrom pkg.sub import b\n",
        "e.py": "from .e import x\nimport pkg.d\n",
    }
    for name, text in files.items():
        (pkg / name).write_text(text, encoding="utf-8")
    graph = import_graph(tmp_path, "pkg")
    assert graph == {"pkg": {"pkg.a"}, "pkg.a": {"pkg.sub.b"}, "pkg.sub": set(),
                     "pkg.sub.b": {"pkg.c"}, "pkg.c": {"pkg.a"},
                     "pkg.d": {"pkg.sub", "pkg.sub.b"}, "pkg.e": {"pkg.d"}}
    assert cycles(graph) == {("pkg.a", "pkg.sub.b", "pkg.c")}
    assert shown(("pkg.a", "pkg.sub.b", "pkg.c")) == "pkg.a -> pkg.sub.b -> pkg.c -> pkg.a"
    assert cycles({"x": {"y"}, "y": {"x", "z"}, "z": {"x"}}) == {("x", "y"), ("x", "y", "z")}


@pytest.mark.parametrize("package", ["bot", "engine", "cards", "render", "i18n", "loopback",
                                     "playground", "benchmarks", "scripts", "tests"])
def test_every_file_reads_in_one_sitting(package: str) -> None:
    """Each module (and each test file) does one job and stays small (about 400 lines at
    most)."""
    long = [f"{p.relative_to(ROOT).as_posix()}: {n} lines"
            for p in sorted((ROOT / package).rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400]
    assert not long
