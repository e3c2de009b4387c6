"""More scenes for :mod:`playground.screenshot`: the fight menu with a cursed monster while the
hand holds a reward card (``--fight``), the match after a whole match (``--channel``: its
thread), and the channel's lines of matches played in threads (``--threads``)."""

from __future__ import annotations

import random
from typing import Any

from playground.drive import Driver, play_match, prefer

#: How the hand message says that a reward card can pay the merchant, in each language.
PAYABLE = ("pay the merchant with", "payer le marchand", "Obchodníkovi můžete zaplatit")
#: How a fight option names a monster's curses, in each language.
CURSES = ("curses:", "malédictions", "kletby:")


def _fight_menu(driver: Driver) -> bool:
    """True when the newest hand offers a fight against a cursed monster while it holds a
    reward card (its menu is then opened)."""
    hand = driver.hand()
    text = hand.evaluate("(a) => a.textContent")
    menus = hand.locator(".select:has(.option[data-value^='fight:'])")
    if not any(p in text for p in PAYABLE) or menus.count() == 0:
        return False
    options = menus.last.evaluate("(s) => s.textContent")
    if not any(c in options for c in CURSES):
        return False
    menus.last.locator("button[aria-haspopup]").click()
    driver.page.wait_for_timeout(300)
    return True


def fight_scene(driver: Driver, rng: random.Random, tries: int = 600) -> bool:
    """Play Ann's seat against one AI seat until her hand, holding a reward card, offers a
    fight against a cursed monster; the fight menu is left open. True if so."""
    driver.command("/goblin new")
    driver.click(":ai")
    driver.start()
    opened = ""
    for _ in range(tries):
        if driver.over():
            return False
        controls = driver.controls()
        if not controls:
            opened = driver.open_turn(opened)
            continue
        if _fight_menu(driver):
            return True
        driver.act(*prefer(controls, rng))
    return False


def channel_scene(driver: Driver, rng: random.Random) -> bool:
    """Ann plays a whole match against one AI seat; then the match is shown as Bob, who did
    not play, sees it (no private message of Ann's): in its thread, opened from the channel,
    when it was played in one. True when the match ended."""
    result = play_match(driver, rng, ai_seats=1)
    thread = driver.thread()
    driver.open(2)
    if thread:
        driver.open_thread(driver.page.locator(f".thread-link[data-thread='{thread}']"))
    driver.settle()
    return bool(result["over"])


def frame(page: Any, scene: str) -> None:
    """Scroll the channel for the picture of ``scene``: the newest hand's picture at the top
    (``fight``, its menu open below it), or the channel's first message (``channel``)."""
    page.evaluate("""(scene) => {
        const all = [...document.querySelectorAll('article.msg')];
        const hands = all.filter((a) => a.dataset.ephemeral && a.querySelector('img'));
        const target = scene === 'fight' && hands.length
            ? hands[hands.length - 1].querySelector('img') : all[0];
        if (target) target.scrollIntoView();
    }""", scene)


__all__ = ["channel_scene", "fight_scene", "frame"]
