"""The playground page draws a Components V2 message the way Discord's client does: a container
with its accent bar, text displays in Discord's markdown, a section with its button on the
right, a separator, a media gallery of uploaded pictures and an action row, at desktop and phone
widths. Runs in headless Chromium; skips without it (fails under ``CI=true``), like the other
browser test."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from planted_page import planted

from playground import browser
from playground.app import Playground
from playground.drive import Driver

CV2 = 1 << 15


def _png(colour: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (320, 200), colour).save(out, "PNG")
    return out.getvalue()


LAYOUT: list[dict[str, Any]] = [{"type": 17, "accent_color": 0xE67E22, "components": [
    {"type": 9, "components": [
        {"type": 10, "content": "## Table 1\n-# round 3, step 12"},
        {"type": 10, "content": "**Ann** plays *Horan*\n- a key\n- a curse\n> the gatekeeper "
                                "waits"}],
     "accessory": {"type": 2, "style": 1, "label": "My hand", "custom_id": "kg:hand:1"}},
    {"type": 14, "divider": True, "spacing": 2},
    {"type": 12, "items": [{"media": {"url": f"attachment://p{i}.png"}, "description": f"p{i}"}
                           for i in range(3)]},
    {"type": 1, "components": [
        {"type": 2, "style": 3, "label": "Fight", "custom_id": "kg:do:1:3:fight"},
        {"type": 2, "style": 2, "label": "End", "custom_id": "kg:do:1:3:end"}]}]}]


@pytest.fixture
def page_url() -> Iterator[str]:
    """A playground (no bot) in a thread of its own, holding one planted layout message."""

    def plant(pg: Playground) -> None:
        assert pg.channel is not None
        pg.lb.plant_message(pg.channel, LAYOUT, flags=CV2, files={
            f"p{i}.png": _png(c) for i, c in enumerate([(200, 60, 60), (60, 160, 60),
                                                        (60, 60, 200)])})

    with planted("en", plant) as url:
        yield url


def test_page_draws_a_components_v2_message(chromium_ready: None, page_url: str,
                                            tmp_path: Path) -> None:
    errors: list[str] = []
    for width in (1280, 390):
        with browser.chromium(width, 900) as page:
            page.on("pageerror", lambda e: errors.append(str(e)))
            Driver(page, page_url).open(1)
            box = page.locator("article.msg .layout > .container")
            box.wait_for()
            assert box.evaluate("e => getComputedStyle(e).borderLeftColor") == "rgb(230, 126, 34)"
            assert box.evaluate("e => getComputedStyle(e).borderTopLeftRadius") == "8px"
            assert box.locator(".text-display .h2").inner_text() == "Table 1"
            assert box.locator(".text-display .subtext").inner_text() == "round 3, step 12"
            assert box.locator(".text-display strong").inner_text() == "Ann"
            assert box.locator(".text-display em").inner_text() == "Horan"
            assert box.locator(".text-display li").all_inner_texts() == ["a key", "a curse"]
            assert box.locator(".text-display .quote").inner_text() == "the gatekeeper waits"
            hand = box.locator(".section .accessory button.btn[data-custom-id='kg:hand:1']")
            texts = box.locator(".section .texts").bounding_box()
            side = hand.bounding_box()
            assert texts is not None and side is not None and side["x"] >= texts["x"] + 100
            assert box.locator(".separator.line.s2").count() == 1
            pictures = box.locator(".gallery.n3 img")
            assert pictures.count() == 3
            page.wait_for_function("() => [...document.querySelectorAll('.gallery img')]"
                                   ".every(i => i.complete && i.naturalWidth === 320)")
            first, second = (pictures.nth(i).bounding_box() for i in range(2))
            assert first is not None and second is not None
            assert first["width"] > second["width"] * 1.5  # one large beside two small
            assert box.locator(".row button.btn").all_inner_texts() == ["Fight", "End"]
            assert page.evaluate("() => document.documentElement.scrollWidth") <= width
            page.screenshot(path=str(tmp_path / f"layout-{width}.png"))
    assert not errors, errors
