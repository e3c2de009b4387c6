"""Every message of a match, at a 390 px phone's width, in English, French and Czech: the page
never scrolls sideways, no text or control runs past the window, and every picture is shown at
least at half the size it was drawn (its words stay legible). Plays Ann's seat in the
playground with two AI seats until she is in a battle (the hand, the battle and the table), and
replays a match the AI played out."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from planted_page import planted

from playground.app import Playground
from playground.browser import chromium
from playground.drive import EPHEMERAL, Driver, PlaygroundProcess
from playground.screenshot import battle_scene, final_scene, window_picture

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


def _replay(driver: Driver, locale: str) -> Any:
    """``/goblin replay`` of table 1 as Ann, her Discord set to ``locale``; its message."""
    page = driver.page
    page.select_option("#language", locale)
    driver.settle()
    page.fill("#command-input", "/goblin replay")
    page.keyboard.press("Enter")
    page.fill("#command-options input", "1")
    page.click("#send")
    driver.settle()
    return page.locator(f"{EPHEMERAL}:has([data-custom-id^='kg:rp:'])").last


def test_the_replay_fits_a_phone_in_every_language(chromium_ready: None,
                                                    tmp_path: Path) -> None:
    """A match the AI played out, replayed at 390 px in English, French and Czech: the replay
    at its start and a turn later, and its seek menu opened."""
    with PlaygroundProcess(tmp_path / "pg.sqlite3", ai_pace=0.0) as proc, \
            chromium(WIDTH, 900) as page:
        driver = Driver(page, proc.url)
        driver.open(1)
        assert final_scene(driver) is not None, "the match was not played out"
        for locale in ("en", "fr", "cs"):
            shown = _replay(driver, locale)
            assert shown.count(), driver.describe()
            seen = [measure(driver)]
            shown.locator("[data-custom-id$='.nturn']").click()
            driver.settle()
            shown = page.locator(f"{EPHEMERAL}:has([data-custom-id^='kg:rp:'])").last
            seen.append(measure(driver))
            shown.locator(".select button[aria-haspopup]").click()
            seen.append(measure(driver))
            page.screenshot(path=str(tmp_path / f"replay-{locale}.png"), full_page=True)
            page.keyboard.press("Escape")
            for moment in seen:
                assert moment["scroll"] <= WIDTH, (locale, moment["scroll"], moment["wide"][:5])
                assert moment["wide"] == [], (locale, moment["wide"][:5])


LONG = ("Niveau 3, place 4 : Seigneur de Tous les Monstres, attaque 7, 12 PV, malédictions : "
        "cartes rouges")


def _plant_long_menus(pg: Playground) -> None:
    """A hand-like layout whose menus hold the longest texts Discord takes (100 characters an
    option, 150 a placeholder), one chosen, one not."""
    assert pg.channel is not None
    options = [{"label": LONG[:100], "value": "a", "description": LONG[:100]},
               {"label": "court", "value": "b"}]
    pg.lb.plant_message(pg.channel, [{"type": 17, "components": [
        {"type": 10, "content": "### Table n° 1 : votre main"},
        {"type": 1, "components": [{"type": 3, "custom_id": "kg:m:1", "options": options,
                                    "placeholder": (LONG + " " + LONG)[:150]}]},
        {"type": 1, "components": [{"type": 3, "custom_id": "kg:m:2", "options": [
            dict(options[0], default=True), options[1]]}]}]}], flags=1 << 15)


def test_long_menu_texts_stay_within_a_phone(chromium_ready: None, tmp_path: Path) -> None:
    """A menu's placeholder or chosen option too long for the line ends with an ellipsis, as in
    Discord, instead of widening the message; its options, opened, wrap."""
    with planted("fr", _plant_long_menus) as url, chromium(WIDTH, 900) as page:
        driver = Driver(page, url)
        driver.open(1)
        page.locator("article.msg .select").first.wait_for()
        seen = [measure(driver)]
        page.locator("article.msg .select button[aria-haspopup]").first.click()
        seen.append(measure(driver))
        page.screenshot(path=str(tmp_path / "menus.png"))
    for moment in seen:
        assert moment["scroll"] <= WIDTH, moment["scroll"]
        assert moment["wide"] == [], moment["wide"][:5]


def test_a_window_picture_shows_every_message_from_its_top(chromium_ready: None,
                                                            tmp_path: Path) -> None:
    """A window too short for its messages is pictured taller: the first message's top shows,
    as does the message box under the last one (the tournament thread's picture showed its
    table message without its header)."""
    with PlaygroundProcess(tmp_path / "pg.sqlite3", ai_pace=0.05) as proc, \
            chromium(WIDTH, 300) as page:
        driver = Driver(page, proc.url)
        driver.open(1)
        driver.command("/goblin new")
        driver.settle()
        shot = tmp_path / "window.png"
        window_picture(driver, shot)
        first, scroller, box = page.evaluate("""() => [
            document.querySelector('article.msg').getBoundingClientRect().top,
            document.getElementById('scroller').getBoundingClientRect().top,
            document.getElementById('command-input').getBoundingClientRect().bottom]""")
        height = page.viewport_size["height"]
    assert height > 300
    assert first >= scroller, (first, scroller)
    assert box <= height, (box, height)
    assert shot.stat().st_size > 0
