"""Every message of a match, at a 390 px phone's width, in English, French and Czech: the page
never scrolls sideways, no text or control runs past the window, and every picture is shown at
least at half the size it was drawn (its words stay legible). Plays Ann's seat in the
playground with two AI seats until she is in a battle (the hand, the battle and the table)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from playground.browser import chromium
from playground.drive import Driver, PlaygroundProcess
from playground.screenshot import battle_scene

WIDTH = 390
#: Pictures are drawn larger than they are shown: never shrunk below this part of their size.
LEAST_SCALE = 0.5


def measure(driver: Driver) -> dict[str, Any]:
    """The page's width, the messages' parts running past the window, and each picture's
    shown and drawn widths."""
    result: dict[str, Any] = driver.page.evaluate("""() => {
        const out = {scroll: document.documentElement.scrollWidth, wide: [], pictures: []};
        for (const el of document.querySelectorAll('article.msg *')) {
            const box = el.getBoundingClientRect();
            if (box.width > 0 && box.right > window.innerWidth + 1) {
                out.wide.push(el.tagName + ' ' + (el.textContent || '').slice(0, 60));
            }
        }
        for (const img of document.querySelectorAll('article.msg img')) {
            if (img.naturalWidth > 0) {
                out.pictures.push([img.getAttribute('src') || '', img.naturalWidth,
                                   img.getBoundingClientRect().width]);
            }
        }
        return out;
    }""")
    return result


@pytest.mark.parametrize("locale", ["en", "fr", "cs"])
def test_a_match_fits_a_phone(chromium_ready: None, tmp_path: Path, locale: str) -> None:
    with PlaygroundProcess(tmp_path / "pg.sqlite3", ai_pace=0.05, locale=locale) as proc, \
            chromium(WIDTH, 900) as page:
        driver = Driver(page, proc.url)
        driver.open(1)
        assert battle_scene(driver, random.Random(4)), "no battle came up"
        driver.settle()
        seen = measure(driver)
        page.screenshot(path=str(tmp_path / f"phone-{locale}.png"), full_page=True)
    assert seen["scroll"] <= WIDTH, seen["scroll"]
    assert seen["wide"] == [], seen["wide"][:5]
    names = " ".join(src for src, _, _ in seen["pictures"])
    assert "hand" in names and "battle" in names, names
    small = [(src[-40:], drawn, round(shown)) for src, drawn, shown in seen["pictures"]
             if shown < drawn * LEAST_SCALE]
    assert small == [], small
