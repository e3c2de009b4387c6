"""The documentation hangs together: README.md links every page of ``docs/``, and every relative
link and picture in README.md and the pages leads to a file that exists (and, with ``#anchor``, to
a heading of that page)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs").glob("*.md"))
#: ``[text](target)`` and ``![alt](target)``; the target ends at the first space or ``)``.
LINK = re.compile(r"\]\(([^)\s]+)\)")


def documents() -> list[Path]:
    """README.md, every page of docs/ and the pages of its subfolders."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def links(page: Path) -> list[str]:
    """The link targets of ``page``, code blocks and inline code left out."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    text = re.sub(r"`[^`\n]*`", "", text)
    return LINK.findall(text)


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives the headings of ``page``."""
    out = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def test_the_readme_links_every_page() -> None:
    linked = {(ROOT / target.split("#")[0]).resolve() for target in links(ROOT / "README.md")}
    missing = [page.name for page in PAGES if page.resolve() not in linked]
    assert PAGES and missing == [], f"README.md does not link {missing}"


def test_every_relative_link_resolves() -> None:
    broken = []
    for page in documents():
        for target in links(page):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...
                continue
            path, _, anchor = target.partition("#")
            where = (page.parent / path).resolve() if path else page
            if not where.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
            elif anchor and where.suffix == ".md" and anchor not in anchors(where):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert broken == []
