"""The playground shows Discord's timestamp markup as Discord's client does: ``<t:…:f>`` as a date
and time, ``<t:…:R>`` as a time from now, in the viewer's language, never the raw markup; and the
replay's ⏮ ⏭ and a tournament's 🏆 as icons that need no emoji font. Runs in headless
Chromium; skips without it (fails under ``CI=true``)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from planted_page import planted

from playground import browser
from playground.app import Playground
from playground.drive import Driver

#: 14 November 2023, 12:13:20 UTC (the same day in every time zone from UTC-11 to UTC+11).
WHEN = 1_699_964_000
#: What each language shows (the page runs in UTC): the date of <t:…:f>, the relative time.
SHOWN = {
    "en": ("November 14, 2023", "in 2 hours"),
    "fr": ("14 novembre 2023", "dans 2 heures"),
    "cs": ("14. listopadu 2023", "za 2 hodiny"),
}


def _plant(pg: Playground) -> None:
    """A message with two timestamps, one with the replay's buttons."""
    assert pg.channel is not None
    soon = int(time.time()) + 2 * 3600 + 60
    pg.lb.plant_message(pg.channel, [], f"🏆 Finished <t:{WHEN}:f>. Lapses <t:{soon}:R>.")
    pg.lb.plant_message(pg.channel, [{"type": 1, "components": [
        {"type": 2, "style": 2, "label": label, "custom_id": f"kg:x:{i}"}
        for i, label in enumerate(("⏮ Start", "◀ Previous", "Next ▶", "End ⏭"))]}])


@pytest.fixture(params=sorted(SHOWN))
def page_url(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    """A playground in the language of the test holding those messages."""
    with planted(request.param, _plant) as url:
        yield request.param, url


def test_timestamps_and_replay_icons(chromium_ready: None,
                                     page_url: tuple[str, str]) -> None:
    locale, url = page_url
    date, soon = SHOWN[locale]
    errors: list[str] = []
    with browser.chromium(390, 900) as page:
        page.on("pageerror", lambda e: errors.append(str(e)))
        Driver(page, url).open(1)
        stamps = page.locator("article.msg time.timestamp")
        stamps.first.wait_for()
        text = page.locator("article.msg").first.inner_text()
        assert "<t:" not in text and "🏆" not in text, text
        trophy = page.locator("article.msg").first.locator("svg.emoji[aria-label='🏆']")
        assert trophy.count() == 1  # the tournament's trophy, drawn as an icon too
        assert stamps.count() == 2
        shown = stamps.all_inner_texts()
        assert shown[0].startswith(date) and ":13" in shown[0], shown
        assert shown[1] == soon, shown
        assert stamps.first.get_attribute("datetime") == "2023-11-14T12:13:20.000Z"
        buttons = page.locator("article.msg button.btn[data-custom-id^='kg:x:']")
        first, last = buttons.nth(0), buttons.nth(3)
        for button, emoji in ((first, "⏮"), (last, "⏭")):
            icon = button.locator("svg.emoji")
            assert icon.get_attribute("aria-label") == emoji
            box = icon.bounding_box()
            assert box is not None and box["width"] >= 12
            assert emoji not in button.inner_text()
        assert first.inner_text().strip() == "Start" and last.inner_text().strip() == "End"
    assert not errors, errors
