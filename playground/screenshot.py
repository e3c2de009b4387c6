"""``python -m playground.screenshot [--out docs/images/playground.png] [--lesson | --final |
--replay | --hint]``: refresh the README's pictures of the playground.

Starts ``scripts/dev.py run`` without a token (a throw-away database), opens the page in a headless
Chromium as Ann, opens a table with two AI seats, plays until Ann is in a battle with a card
played, and saves the window. With ``--lesson``, Ann opens her direct messages with the bot and
runs ``/goblin learn`` instead: the picture shows her hand with its first lesson. With
``--final``, Ann opens a table with two AI seats, starts it and leaves (the AI takes her seat and
plays the match out); the picture is the end-of-game message alone (summary chart, Replay and
Rematch). ``--replay`` does the same, then runs ``/goblin replay id:1`` and pictures the replay
message; ``--hint`` opens Ann's hand on her first turn and pictures the answer to its Hint button.
``--fight`` and ``--channel`` take the scenes of :mod:`playground.scenes`; ``--threads`` pictures
the channel after one match played out in its thread and another started in its own: the
lines the bot leaves in the channel and the thread list. ``--tournament`` plays a small server
tournament on the page's fake clock and saves its sign-up message, a match's thread, the
standings, the champion and ``/goblin history tournament:`` at 390 and 1280 px wide into the
directory ``--out``.
Needs Chromium and Playwright (installed when missing, see :mod:`playground.browser`); the
replay's ⏮ ⏭ are drawn as icons by the page, no emoji font needed.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bot.discord_side.ui.custom_ids import (
    HintButton,
    HistoryButton,
    QuitButton,
    RematchButton,
    ReplayButton,
    TournamentButton,
)
from loopback.components import interactive
from playground.app import CHANNEL_ID, PEOPLE
from playground.browser import chromium
from playground.drive import EPHEMERAL, HAND, Driver, PlaygroundProcess, click_as, command_as, hook
from playground.scenes import channel_scene, fight_scene, frame

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "docs" / "images" / "playground.png"


def open_table(driver: Driver) -> None:
    """``/goblin new`` as Ann, two AI seats added, started."""
    driver.command("/goblin new")
    driver.click(":ai")
    driver.click(":ai")
    driver.start()


def battle_scene(driver: Driver, rng: random.Random, tries: int = 60) -> bool:
    """Play Ann's seat until she is in a battle with at least one card played; True if so."""
    open_table(driver)
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


FINAL = f"article.msg:not([data-ephemeral]):has([data-custom-id^='{RematchButton.prefix}'])"


def final_scene(driver: Driver, wait: float = 600.0) -> Any:
    """A table of Ann and two AI seats, started, then left by Ann so the AI plays it out; the
    end-of-game message (a locator) once it shows, None if it never does within ``wait``
    seconds."""
    open_table(driver)
    driver.command("/goblin leave")
    deadline = time.monotonic() + wait
    final = driver.page.locator(FINAL).last
    while time.monotonic() < deadline:
        if final.count():
            driver.settle()
            return final
        time.sleep(1.0)
    return None


def threads_scene(driver: Driver) -> bool:
    """The channel's lines of matches played in threads: a match of Ann and two AI seats played
    out by the AI (:func:`final_scene`: its line tells who won), then a match of Ann and one AI
    seat started (its line says who plays); the thread list names both. True when both lines
    show."""
    page = driver.page
    if final_scene(driver) is None:
        return False
    page.click(".place-tab[data-place='server']")
    driver.settle()
    driver.command("/goblin new")
    driver.click(":ai")
    driver.start()
    page.click(".place-tab[data-place='server']")
    driver.settle()
    return bool(page.locator("article.msg .thread-mention").count() == 2)


def replay_scene(driver: Driver) -> Any:
    """After :func:`final_scene`: ``/goblin replay id:1``; the replay message (a locator)."""
    page = driver.page
    if final_scene(driver) is None:
        return None
    page.fill("#command-input", "/goblin replay")
    page.keyboard.press("Enter")
    page.fill("#command-options input", "1")
    page.click("#send")
    driver.settle()
    shown = page.locator(f"{EPHEMERAL}:has([data-custom-id^='{ReplayButton.prefix}'])").last
    return shown if shown.count() else None


def hint_scene(driver: Driver, tries: int = 60) -> Any:
    """A table of Ann and two AI seats (hints on by default); Ann's hand on her first turn and
    its Hint button; the private answer (a locator), None if there was none."""
    page = driver.page
    open_table(driver)
    for _ in range(tries):
        hint = page.locator(
            f"{EPHEMERAL} [data-custom-id^='{HintButton.prefix}']:not([disabled])").last
        if hint.count():
            before = page.locator(EPHEMERAL).count()
            hint.click()
            driver.settle()
            answers = page.locator(EPHEMERAL)
            return answers.last if answers.count() > before else None
        turn = page.locator(f"article.msg.pinged:has({HAND})").last
        turn.wait_for(timeout=60_000)
        turn.locator(HAND).click()
        driver.settle()
    return None


#: The tournament's name in each language of the pictures.
CUP = {"en": "Spring Cup", "fr": "Coupe de printemps", "cs": "Jarní pohár"}
#: The pictures of ``--tournament``, in the order they are taken.
TOURNAMENT_SHOTS = ("signup", "thread", "standings", "champion", "history")


def _newest_picture_post(driver: Driver, before: int, wait: float = 120.0) -> Any:
    """The newest public message with a picture in the channel once there are more than
    ``before`` of them (a locator), None if none comes within ``wait`` seconds."""
    page = driver.page
    posts = page.locator("article.msg:not([data-ephemeral]):has(.gallery img, .image img)")
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if posts.count() > before:
            driver.settle()
            return posts.last
        time.sleep(1.0)
    return None


def tournament_scene(driver: Driver, locale: str, out: Path, widths: tuple[int, ...]) -> bool:
    """A small server tournament: Ann (the server's admin) opens it (2 rounds, tables of 3, easy
    AI seats fill the short tables, 1 hour a round), the four people join, Ann starts it, the
    clock control moves the clock 8 hours on twice (each round decided at its deadline by the
    timer pass), then Ann runs ``/goblin history tournament:``. Pictures
    ``out/{shot}-{width}.png`` of the sign-up message with its entrants, the first match's
    thread, the standings after round 1, the champion and Ann's private page of the
    tournament's matches; True when all five were taken."""
    page, url = driver.page, driver.url
    ann = PEOPLE[0][0]
    command_as(url, ann, CHANNEL_ID, "goblin tournament new", name=CUP[locale], rounds=2,
               table_size=3, ai_level="easy", round_hours=1)
    messages = hook(url, f"_loopback/channels/{CHANNEL_ID}/messages?user={ann}")["messages"]
    signup = next(m for m in reversed(messages)
                  if any(c["custom_id"].startswith(TournamentButton.prefix)
                         for c in interactive(m["components"])))
    join = next(c["custom_id"] for c in interactive(signup["components"])
                if c["custom_id"].endswith(":join"))
    for uid, _name in PEOPLE:
        click_as(url, uid, signup["id"], join)
    driver.settle()
    shots: dict[str, Any] = {}

    def take(shot: str, message: Any) -> None:
        for width in widths:
            page.set_viewport_size({"width": width, "height": 900})
            driver.settle()
            page.mouse.move(1, 1)
            path = out / f"{shot}-{width}.png"
            if message is None:
                window_picture(driver, path)
            else:
                message_picture(driver, message, path)
            print(path)
        shots[shot] = True

    take("signup", page.locator(f"article.msg:has-text('{CUP[locale]}')").first)
    before = page.locator("article.msg:not([data-ephemeral]):has(.gallery img, .image img)")
    command_as(url, ann, CHANNEL_ID, "goblin tournament start")
    driver.settle()
    link = page.locator("article.msg .thread-link").first
    link.wait_for(timeout=60_000)
    driver.open_thread(link)
    take("thread", None)
    page.click(".place-tab[data-place='server']")
    driver.settle()
    for shot in ("standings", "champion"):
        count = before.count()
        hook(url, "play/clock", {"advance": 8 * 3600})
        post = _newest_picture_post(driver, count)
        if post is None:
            print(f"no {shot} post:\n{driver.describe()}", file=sys.stderr)
            return False
        take(shot, post)
    command_as(url, ann, CHANNEL_ID, "goblin history", tournament=CUP[locale])
    driver.settle()
    take("history", page.locator(
        f"{EPHEMERAL}:has([data-custom-id^='{HistoryButton.prefix}'])").last)
    return len(shots) == len(TOURNAMENT_SHOTS)


def window_picture(driver: Driver, out: Path) -> None:
    """Save the whole window, made taller when the messages overflow it, so that every
    message shows from its top (a thread's table message with its header and ping) down to the
    message box."""
    page = driver.page
    overflow = int(page.evaluate("() => { const s = document.getElementById('scroller');"
                                 " return s.scrollHeight - s.clientHeight; }"))
    if overflow > 0:
        size = page.viewport_size
        page.set_viewport_size({"width": size["width"], "height": size["height"] + overflow})
        driver.settle()
    page.evaluate("() => { const s = document.getElementById('scroller');"
                  " s.scrollTop = s.scrollHeight; }")
    driver.settle()
    page.screenshot(path=str(out))


def message_picture(driver: Driver, message: Any, out: Path) -> None:
    """Save one message alone: the window made tall enough to show all of it below the page's
    header and above its message box, the message scrolled to the middle, clipped to it."""
    page = driver.page
    size = page.viewport_size
    height = int(message.bounding_box()["height"])
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], height + 600)})
    message.evaluate("(m) => m.scrollIntoView({block: 'center'})")
    driver.settle()
    page.screenshot(path=str(out), clip=message.bounding_box())


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
    scenes = {"final": final_scene, "replay": replay_scene, "hint": hint_scene}
    parser.add_argument("--final", dest="scene", action="store_const", const="final",
                        help="only the end-of-game message of a match the AI played out")
    parser.add_argument("--replay", dest="scene", action="store_const", const="replay",
                        help="only the /goblin replay message of that finished match")
    parser.add_argument("--hint", dest="scene", action="store_const", const="hint",
                        help="only the private answer to the Hint button of Ann's hand")
    parser.add_argument("--fight", action="store_true",
                        help="the fight menu with a cursed monster, a reward card in hand")
    parser.add_argument("--channel", action="store_true",
                        help="a whole match's thread afterwards, as a spectator sees it")
    parser.add_argument("--threads", action="store_true",
                        help="the channel's lines of a finished and a running match")
    parser.add_argument("--tournament", action="store_true",
                        help="a small server tournament: pictures of its sign-up, a match's "
                             "thread, its standings, its champion and its history at 390 and "
                             "1280 px wide, into the directory --out")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, \
            PlaygroundProcess(Path(tmp) / "pg.sqlite3", ai_pace=0.05,
                              locale=args.locale) as proc, \
            chromium(args.width, args.height) as page:
        driver = Driver(page, proc.url)
        driver.open(1)
        if args.tournament:
            args.out.mkdir(parents=True, exist_ok=True)
            return 0 if tournament_scene(driver, args.locale, args.out, (390, 1280)) else 1
        if args.scene:
            shown = scenes[args.scene](driver)
            if shown is None:
                print(f"no {args.scene} message shown:\n{driver.describe()}", file=sys.stderr)
                return 1
            page.mouse.move(5, 5)
            args.out.parent.mkdir(parents=True, exist_ok=True)
            message_picture(driver, shown, args.out)
            print(args.out)
            return 0
        if args.lesson:
            if not lesson_scene(driver):
                print("no lesson shown; picture taken anyway", file=sys.stderr)
        elif args.threads:
            if not threads_scene(driver):
                print("the scene did not come up; picture taken anyway", file=sys.stderr)
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
            page.evaluate("(quit) => { const hands = [...document.querySelectorAll('article.msg')]"
                          ".filter((a) => a.querySelector(quit));"
                          " if (hands.length) hands[hands.length - 1].scrollIntoView(); }",
                          f"[data-custom-id^='{QuitButton.prefix}']")
        driver.settle()
        args.out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(args.out))
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
