"""``python -m playground.screenshot [--out docs/images/playground.png] [--lesson]``: refresh
the README's pictures of the playground.

Starts ``scripts/dev.py run`` without a token (a throw-away database), opens the page in a headless
Chromium as Ann, opens a table with two AI seats, plays until Ann is in a battle with a card
played, and saves the window. With ``--lesson``, Ann opens her direct messages with the bot and
runs ``/goblin learn`` instead: the picture shows her hand with its first lesson; ``--fight``
and ``--channel`` take the scenes of :mod:`playground.scenes`. Needs
Chromium and Playwright (installed when missing, see :mod:`playground.browser`).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

from playground.browser import chromium
from playground.drive import Driver, PlaygroundProcess
from playground.scenes import channel_scene, fight_scene, frame

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "docs" / "images" / "playground.png"


def battle_scene(driver: Driver, rng: random.Random, tries: int = 60) -> bool:
    """Play Ann's seat until she is in a battle with at least one card played; True if so."""
    driver.command("/goblin new")
    driver.click(":ai")
    driver.click(":ai")
    driver.click(":start")
    opened = ""
    played = False
    for _ in range(tries):
        controls = driver.controls()
        if not controls:
            opened = driver.open_turn(opened)
            continue
        plays = [c for c in controls if c[2].startswith("play:")]
        fights = [c for c in controls if c[2].startswith("fight:") and "lord" not in c[2]]
        if played and any(c[1].endswith(":end") for c in controls):
            return True
        if plays:
            driver.act(*rng.choice(plays))
            played = True
        elif fights:
            driver.act(*min(fights, key=lambda c: c[2]))
        else:
            ends = [c for c in controls if c[1].endswith(":end")]
            driver.act(*(ends[0] if ends else rng.choice(controls)))
    return False


def lesson_scene(driver: Driver) -> bool:
    """Ann's direct messages with the bot, after /goblin learn: her hand with its first lesson
    (the learn command's name in the page's language); True when a lesson shows."""
    page = driver.page
    page.click(".place-tab[data-place='dm']")
    driver.settle()
    name = page.evaluate("() => document.documentElement.lang")
    learn = {"fr": "apprendre", "cs": "výuka"}.get(name, "learn")
    driver.command(f"/goblin {learn}")
    return bool(page.locator("article.msg:has-text('(R')").count() > 0)


def main(argv: list[str] | None = None) -> int:
    """Take the screenshot."""
    parser = argparse.ArgumentParser(prog="python -m playground.screenshot", description=__doc__)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--locale", default="en", choices=("en", "fr", "cs"))
    parser.add_argument("--width", type=int, default=1000)
    parser.add_argument("--height", type=int, default=1150)
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--lesson", action="store_true",
                        help="the first lesson of /goblin learn in Ann's direct messages")
    parser.add_argument("--fight", action="store_true",
                        help="the fight menu with a cursed monster, a reward card in hand")
    parser.add_argument("--channel", action="store_true",
                        help="the channel after a whole match, as a spectator sees it")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, \
            PlaygroundProcess(Path(tmp) / "pg.sqlite3", ai_pace=0.05,
                              locale=args.locale) as proc, \
            chromium(args.width, args.height) as page:
        driver = Driver(page, proc.url)
        driver.open(1)
        if args.lesson:
            if not lesson_scene(driver):
                print("no lesson shown; picture taken anyway", file=sys.stderr)
        elif args.fight or args.channel:
            scene = fight_scene if args.fight else channel_scene
            if not scene(driver, random.Random(args.seed)):
                print("the scene did not come up; picture taken anyway", file=sys.stderr)
        elif not battle_scene(driver, random.Random(args.seed)):
            print("could not reach a battle; picture taken anyway", file=sys.stderr)
        page.mouse.move(5, 5)  # no hover highlight on a message
        page.evaluate("() => { const s = document.getElementById('scroller');"
                      " s.scrollTop = s.scrollHeight; }")
        if args.fight or args.channel:
            frame(page, "fight" if args.fight else "channel")
        if args.lesson:  # the hand with its lesson at the top of the window
            page.evaluate("() => { const hands = [...document.querySelectorAll('article.msg')]"
                          ".filter((a) => a.querySelector('[data-custom-id^=\"kg:quit:\"]'));"
                          " if (hands.length) hands[hands.length - 1].scrollIntoView(); }")
        driver.settle()
        args.out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(args.out))
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
