"""The architecture holds: dependencies point one way, and the engine stays pure Python.

``bot -> render, engine, cards``; ``render -> engine``; ``engine -> cards``; everything may use
the one translation layer ``i18n``. Each package may import only the standard library, the
project packages listed for it and the third-party packages listed for it. Imports are read from
the source with :mod:`ast`, so a lazy import inside a function counts too.
"""

from __future__ import annotations

import ast
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
    "bot": ({"engine", "render", "cards", "i18n"}, {"discord", "aiosqlite", "pydantic", "yarl"}),
    # compression: the standard library's zstd from Python 3.14 on
    "loopback": (set(), {"aiohttp", "jsonschema", "referencing", "zstandard", "compression"}),
    "playground": ({"loopback", "bot", "i18n"}, {"aiohttp", "playwright"}),
}

#: The one reverse edge on purpose: with no token, ``python -m bot`` starts the playground.
EXCEPTIONS = {("bot/main.py", "playground")}


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
            if name in PROJECT and (name in project or (where, name) in EXCEPTIONS):
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
