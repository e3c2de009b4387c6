"""Playing the playground through its web page, by clicking like a person (tests, screenshots,
and ``python -m playground.drive``, which plays a whole match against AI seats and reports).

:class:`PlaygroundProcess` starts the launcher of ``scripts/dev.py run`` without a token (what a
newcomer runs) and reads the page's address from its one line; :class:`Driver` acts on a
Playwright page: slash commands typed into the command box, buttons and menus clicked, the user
switch.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any

from bot.discord_side.ui.custom_ids import (
    HandButton,
    LobbyButton,
    Move,
    MoveButton,
    MoveMenu,
    Pick,
    Sure,
    SureButton,
    parse,
)

ROOT = Path(__file__).resolve().parents[1]
EPHEMERAL = "article[data-ephemeral='1']"
#: A table message's "My hand" button.
HAND = f"[data-custom-id^='{HandButton.prefix}']"


class PlaygroundProcess:
    """``scripts/dev.py run`` with no ``DISCORD_TOKEN``, its own database and a free port."""

    def __init__(self, db: Path, *, ai_pace: float = 0.2, locale: str = "en",
                 timeout: float = 60.0) -> None:
        self.db = db
        self.ai_pace = ai_pace
        self.locale = locale
        self.timeout = timeout
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""
        self.lines: list[str] = []

    def env(self) -> dict[str, str]:
        """This machine's environment without any bot setting, plus the playground's."""
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("KARAK_") and k != "DISCORD_TOKEN"}
        env.update({"KARAK_PLAYGROUND_DB": str(self.db), "KARAK_PLAYGROUND_PORT": "0",
                    "KARAK_PLAYGROUND_LOCALE": self.locale, "KARAK_AI_PACE": f"{self.ai_pace:g}",
                    "PYTHONUNBUFFERED": "1"})
        # this checkout's code, even where the venv's editable install points to another one
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH"))
                                            if p)
        return env

    def start(self) -> str:
        """Start it and wait for the line with the page's address; the address."""
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "scripts" / "dev.py"), "launch", "--env-file",
             os.devnull], cwd=ROOT, env=self.env(),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True)
        found: list[str] = []

        def read() -> None:
            assert self.proc is not None and self.proc.stdout is not None
            for line in self.proc.stdout:
                self.lines.append(line.rstrip("\n"))
                match = re.search(r"http://[^/\s]+:\d+/", line)  # not a link the log names
                if match and not found:
                    found.append(match.group(0))

        threading.Thread(target=read, daemon=True).start()
        deadline = time.monotonic() + self.timeout
        while not found:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the playground did not start:\n" + "\n".join(self.lines))
            time.sleep(0.05)
        self.url = found[0]
        return self.url

    def stop(self) -> int | None:
        """Ctrl-C (SIGINT), as a person stops it; SIGKILL if it lingers past the timeout (a busy
        machine slows the shutdown, not only the start). The exit status."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(self.timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def __enter__(self) -> PlaygroundProcess:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


class Driver:
    """Acts on the playground's page (a ``playwright.sync_api.Page``) like a person would."""

    def __init__(self, page: Any, url: str, *, timeout: float = 20.0) -> None:
        self.page = page
        self.url = url
        self.timeout_ms = timeout * 1000
        page.set_default_timeout(self.timeout_ms)

    def open(self, user: int = 1) -> None:
        """Load the page acting as user number ``user`` (1-4)."""
        self.page.goto(f"{self.url}?as={user}")
        self.page.wait_for_selector("body[data-ready='1']")

    def act_as(self, user: int) -> None:
        """Click the user switch."""
        self.page.click(f".user-tab[data-index='{user}']")
        self.page.wait_for_selector(f".user-tab[data-index='{user}'][aria-selected='true']")
        self.page.wait_for_selector("body:not([data-switching])", state="attached")
        self.settle()

    def settle(self, quiet: float = 0.4) -> None:
        """Wait until no click is pending, no message is "thinking", the page is not drawing
        messages (it waits for their pictures before showing them), every interaction the
        stand-in saw has its visible result, and the page showed nothing new for ``quiet``
        seconds (the bot is idle)."""
        deadline = time.monotonic() + self.timeout_ms / 1000
        last = None
        stable_since = time.monotonic()
        while time.monotonic() < deadline:
            shown, pending = self.page.evaluate(
                "async () => [[...document.querySelectorAll('article.msg')].map(a => a.id + ':'"
                " + a.outerHTML.length).join(','),"
                " document.querySelectorAll('.busy, .loading, body[data-rendering]').length"
                " + (await (await fetch('/_loopback/')).json()).unfinished]")
            if shown != last or pending:
                last = shown
                stable_since = time.monotonic()
            elif time.monotonic() - stable_since >= quiet:
                return
            time.sleep(0.1)

    def command(self, text: str, **options: str) -> None:
        """Type a slash command (``/goblin new``), fill its options, send it."""
        self.page.fill("#command-input", text)
        self.page.keyboard.press("Enter")
        for name, label in options.items():
            self.page.select_option(f"#command-options [data-option='{name}']", label=label)
        if self.page.is_visible("#command-chip"):
            self.page.click("#send")
        self.settle()

    def click(self, custom_id_end: str) -> None:
        """Click the newest enabled button whose custom_id ends with ``custom_id_end`` (a lobby
        button's custom_id goes on with the lobby's revision)."""
        button = self.page.locator(
            f"button.btn[data-custom-id$='{custom_id_end}']:not([disabled]), "
            f"button.btn[data-custom-id*='{custom_id_end}:']"
            f"[data-custom-id^='{LobbyButton.prefix}']:not([disabled])").last
        button.click()
        self.settle()

    def start(self) -> None:
        """Click the lobby's Start and follow the match: when it moves to a thread of its own
        (the lobby message then links to the thread), open that thread, as a person clicks the
        link under the lobby message; when it stays in the channel, stay."""
        counted = ("(hand) => document.querySelectorAll('article.msg .thread-link').length"
                   " + document.querySelectorAll('article.msg ' + hand).length")
        before = self.page.evaluate(counted, HAND)
        links = self.page.locator("article.msg .thread-link").count()
        self.click(":start")
        # the visible result of Start: a new thread's link, or the table message with My hand
        self.page.wait_for_function(f"([hand, before]) => ({counted})(hand) > before",
                                    arg=[HAND, before])
        if self.page.locator("article.msg .thread-link").count() > links:
            self.open_thread(self.page.locator("article.msg .thread-link").last)

    def open_thread(self, link: Any) -> None:
        """Click ``link`` (a thread's link under its starter message, or a tab of the thread
        list) and wait until the page shows that thread."""
        thread = link.get_attribute("data-thread")
        link.click()
        self.page.wait_for_selector(f".thread-tab[data-thread='{thread}'][aria-selected='true']")
        self.settle()

    def thread(self) -> str:
        """The id of the thread the page shows, ``""`` when it shows a channel."""
        shown: str = self.page.evaluate(
            "() => document.querySelector(\".thread-tab[aria-selected='true']\")"
            "?.dataset.thread || ''")
        return shown

    def choose(self, message: Any, custom_id: str, value: str) -> None:
        """Open a menu of ``message`` and pick the option ``value`` (without waiting)."""
        menu = message.locator(f".select[data-custom-id='{custom_id}']")
        menu.locator("button[aria-haspopup]").click()
        menu.locator(f".option[data-value='{value}']").click()

    def open_turn(self, opened: str) -> str:
        """Wait for the newest message pinging the user to play and click its My hand button,
        unless it is ``opened`` (the id of the one clicked last); returns its id."""
        turn = self.page.locator(f"article.msg.pinged:has({HAND})").last
        turn.wait_for(timeout=30_000)
        mid: str = turn.get_attribute("data-message-id") or ""
        if mid == opened:
            self.settle(0.3)
            return mid
        turn.locator(HAND).click()
        self.settle()
        return mid

    def describe(self) -> str:
        """The channel as the page shows it now, one line per message (for failure reports)."""
        text: str = self.page.evaluate(
            """() => [...document.querySelectorAll('article.msg')].map(a =>
                 (a.dataset.ephemeral ? 'private ' : 'public ') + a.id + ': '
                 + a.innerText.replace(/\\s+/g, ' ').slice(0, 160) + ' ['
                 + [...a.querySelectorAll('[data-custom-id]')].map(c => c.dataset.customId
                   + (c.disabled || c.querySelector(':scope > button:disabled') ? '(off)' : ''))
                   .join(' ') + ']').join('\\n')""")
        return text

    def hand(self) -> Any:
        """The newest private message (the hand), as a locator."""
        return self.page.locator(EPHEMERAL).last

    def controls(self) -> list[tuple[str, str, str]]:
        """The enabled controls of the newest private message: (kind, custom_id, value) for
        each button (value ``""``) and each option of each menu."""
        found: list[tuple[str, str, str]] = self.page.evaluate(
            """(sel) => {
              const all = document.querySelectorAll(sel);
              const m = all[all.length - 1];
              if (!m) return [];
              const out = [];
              for (const b of m.querySelectorAll('.btn[data-custom-id]:not([disabled])'))
                out.push(['button', b.dataset.customId, '']);
              for (const s of m.querySelectorAll('.select')) {
                if (s.querySelector(':scope > button').disabled) continue;
                for (const o of s.querySelectorAll('.option'))
                  out.push(['select', s.dataset.customId, o.dataset.value]);
              }
              return out;
            }""", EPHEMERAL)
        return found

    def act(self, kind: str, custom_id: str, value: str) -> None:
        """Use one control (from :meth:`controls`) of the private messages; AssertionError
        describing the channel when the page does not offer it."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        owner = self.page.locator(EPHEMERAL).filter(
            has=self.page.locator(f"[data-custom-id='{custom_id}']")).last
        try:
            if kind == "button":
                owner.locator(f".btn[data-custom-id='{custom_id}']").click()
            else:
                self.choose(owner, custom_id, value)
        except PlaywrightTimeout:
            raise AssertionError(f"the page does not offer {kind} {custom_id} {value}; "
                                 f"it shows:\n{self.describe()}") from None
        self.wait_moved_past(custom_id)
        self.settle()

    def wait_moved_past(self, custom_id: str) -> None:
        """After a move control (a move button or menu, or a move's Confirm) of table ``T``
        drawn at version ``V`` was used, wait until the newest private message no longer offers
        controls of table ``T`` at version ``V``: the bot has answered the move, however slowly
        it drew the new hand. A quiet page alone does not prove that on a loaded machine."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        target = parse(custom_id)
        if not isinstance(target, Move | Pick | Sure):
            return
        # a move may be answered by a question, whose Confirm carries that version
        kinds = (MoveButton, MoveMenu, SureButton) if isinstance(target, Sure) \
            else (MoveButton, MoveMenu)
        stale = [kind.start(target.table, target.version) for kind in kinds]
        try:
            self.page.wait_for_function(
                """([sel, stale]) => {
                  const all = document.querySelectorAll(sel);
                  const m = all[all.length - 1];
                  if (!m) return true;
                  return ![...m.querySelectorAll('[data-custom-id]')].some(
                    c => stale.some(p => c.dataset.customId.startsWith(p)));
                }""", arg=[EPHEMERAL, stale])
        except PlaywrightTimeout:
            raise AssertionError(f"the bot never answered {custom_id}; the page shows:\n"
                                 f"{self.describe()}") from None

    def ending(self) -> str:
        """The text of the game-over message (a public message with a table picture, a text,
        and no "My hand" button; embeds or a Components V2 layout), or ``""`` while the game
        goes on."""
        text: str = self.page.evaluate(
            """(hand) => ([...document.querySelectorAll('article.msg:not([data-ephemeral])')]
              .filter(a => a.querySelector('.embed .image img, .gallery img, .thumbnail img')
                      && (a.querySelector('.content, .layout')?.innerText.trim() || '') !== ''
                      && !a.querySelector(hand))
              .map(a => a.querySelector('.content, .layout').innerText.trim()).pop() || '')""",
            HAND)
        return text

    def over(self) -> bool:
        """True once the game-over message is in the channel."""
        return self.ending() != ""


def hook(url: str, path: str, body: dict[str, Any] | None = None) -> Any:
    """One call to the stand-in's HTTP hooks (``_loopback/...``): a POST of ``body`` as JSON,
    or a GET without one; the JSON answer."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url + path, data, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as answer:
        return json.loads(answer.read())


def command_as(url: str, user: int, channel: int, command: str, **options: Any) -> Any:
    """Run the slash command ``command`` (``"goblin tournament new"``) as the person with id
    ``user`` in ``channel``, waiting until the bot is done with it; the interaction."""
    return hook(url, "_loopback/command", {"user": str(user), "channel": str(channel),
                                           "command": command, "options": options,
                                           "wait": "done"})


def click_as(url: str, user: int, message: str, custom_id: str) -> Any:
    """Click the button ``custom_id`` of message ``message`` as the person with id ``user``,
    waiting until the bot is done with it; the interaction."""
    return hook(url, "_loopback/click", {"user": str(user), "message": message,
                                         "custom_id": custom_id, "wait": "done"})


def prefer(controls: list[tuple[str, str, str]], rng: random.Random) -> tuple[str, str, str]:
    """A sensible move among the controls (cards before ending a battle, fights before the
    merchant), with some randomness so matches differ."""
    def rank(c: tuple[str, str, str]) -> int:
        kind, cid, value = c
        move = value or cid.rsplit(":", 1)[-1]
        order = ("play:", "fight:", "reward:", "keep:", "discard:", "stack:", "heal", "revive",
                 "strength:", "counter:", "end", "buy:", "pay:", "leave", "cancel", "merchant")
        for i, prefix in enumerate(order):
            if move.startswith(prefix):
                return i
        return len(order)
    best = min(rank(c) for c in controls)
    return rng.choice([c for c in controls if rank(c) == best])


def play_match(driver: Driver, rng: random.Random, *, ai_seats: int = 1,
               max_clicks: int = 2000, log: Any = None) -> dict[str, Any]:
    """Open a table as user 1, add ``ai_seats`` AI seats, start (following the match into its
    thread), and play user 1's seat by clicking until the game is over; returns figures
    (clicks, seconds)."""
    start = time.monotonic()
    driver.command("/goblin new")
    for _ in range(ai_seats):
        driver.click(":ai")
    driver.start()
    clicks = 0
    opened_for = ""
    while clicks < max_clicks:
        if driver.over():
            break
        controls = driver.controls()
        if controls:
            move = prefer(controls, rng)
            if log:
                log(f"click {clicks}: {move[2] or move[1]}")
            driver.act(*move)
            clicks += 1
            continue
        turn = driver.page.locator(f"article.msg.pinged:has({HAND})").last
        if turn.count():
            mid = turn.get_attribute("data-message-id") or ""
            if mid != opened_for:
                opened_for = mid
                turn.locator(HAND).click()
                driver.settle()
                continue
        time.sleep(0.2)
        driver.settle(0.2)
    return {"clicks": clicks, "seconds": round(time.monotonic() - start, 1),
            "over": driver.over(), "ending": driver.ending()}


def main(argv: list[str] | None = None) -> int:
    """``python -m playground.drive``: start the playground, play a whole match in a headless
    Chromium against AI seats, and print what it took."""
    from playground.browser import chromium

    parser = argparse.ArgumentParser(prog="python -m playground.drive", description=__doc__)
    parser.add_argument("--ai", type=int, default=1, help="AI seats (1-3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pace", type=float, default=0.1, help="seconds between AI moves")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, \
            PlaygroundProcess(Path(tmp) / "pg.sqlite3", ai_pace=args.pace) as proc, \
            chromium() as page:
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        driver = Driver(page, proc.url)
        driver.open(1)
        result = play_match(driver, random.Random(args.seed), ai_seats=args.ai,
                            log=print if args.verbose else None)
        breaches = driver.page.evaluate("() => fetch('/_loopback/breaches').then(r => r.json())")
        result.update(page_errors=errors, breaches=breaches)
        print(result)
        return 0 if result["over"] and not errors and not breaches["breaches"] else 1


if __name__ == "__main__":
    sys.exit(main())
