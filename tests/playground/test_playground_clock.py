"""A slow match in the playground over a fake day, in a real headless Chromium: two people who
asked for reminders start a match with a 1-day turn timer; the page's clock control moves the
clock on by 8 hours (the stand-in's and the bot's); the person whose turn waits finds the bot's
reminder in their direct messages with the bot, with the time left counted from the moved clock,
and its link opens the match's thread at the table message. The other person closed their direct
messages to the bot on the page: their reminder is refused, and ``/goblin notify`` says so.
Chromium is installed when missing, else the test skips (fails under CI), as
``test_playground_browser.py`` says."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from loopback.components import interactive
from playground import browser
from playground.app import CHANNEL_ID, PEOPLE
from playground.drive import HAND, Driver, PlaygroundProcess, click_as, command_as, hook


def _command(url: str, user: str, command: str, **options: Any) -> None:
    done = command_as(url, int(user), CHANNEL_ID, command, **options)
    assert done["status"] == "done", done


def _click(url: str, user: str, message: dict[str, Any], op: str) -> None:
    cid = next(c["custom_id"] for c in interactive(message["components"])
               if c["custom_id"].split(":")[3:4] == [op])
    done = click_as(url, int(user), message["id"], cid)
    assert done["status"] == "done", done


def _lobby(url: str, user: str) -> Any:
    return hook(url, f"_loopback/channels/{CHANNEL_ID}/messages?user={user}")["messages"][-1]


def test_a_slow_match_over_a_fake_day_reminds_in_direct_messages(chromium_ready: None,
                                                                  tmp_path: Path) -> None:
    errors: list[str] = []
    ann, bob = str(PEOPLE[0][0]), str(PEOPLE[1][0])
    with PlaygroundProcess(tmp_path / "pg.sqlite3", ai_pace=0.05) as proc, \
            browser.chromium(1280, 900) as page:
        page.on("pageerror", lambda e: errors.append(str(e)))
        for who in (ann, bob):
            _command(proc.url, who, "goblin notify", state="on")
        _command(proc.url, ann, "goblin new", timer=86400)
        lobby = _lobby(proc.url, ann)
        _click(proc.url, bob, lobby, "join")
        lobby = _lobby(proc.url, ann)
        _click(proc.url, ann, lobby, "start")
        d = Driver(page, proc.url)
        d.open(1)
        d.open_thread(page.locator("article.msg .thread-link").last)  # the match's own thread
        # the table message (the one with My hand) names who plays; the lobby above it names
        # both seats, so it alone would seem to ping Ann whoever plays first
        table = page.locator(f"article.msg:has({HAND})").last
        table.wait_for(timeout=30_000)
        mover = 1 if "pinged" in (table.get_attribute("class") or "").split() else 2
        d.act_as(mover)
        page.click(".clock-step[data-seconds='28800']")
        page.wait_for_selector(".clock-ahead:has-text('Clock: +8 h')")
        page.click(".place-tab[data-place='dm']")
        reminder = page.locator("article.msg:has-text('Your turn is waiting at table #1')")
        reminder.last.wait_for(timeout=60_000)  # the clock's jump wakes the reminders' loop
        text = reminder.last.inner_text()
        assert "15\u00a0h" in text or "16\u00a0h" in text, text  # a 1-day turn, 8 hours on
        # its link opens the match's thread at the table message, as Discord's does
        link = reminder.last.locator("a[data-jump]")
        target = link.get_attribute("data-jump")
        link.click()
        page.wait_for_selector(".thread-tab[aria-selected='true']")
        page.locator(f"#m-{target}:has({HAND})").wait_for()

        # the other person closes their direct messages to the bot, on the page; the mover
        # revives (a move that ends the turn): 8 hours into the other's turn, their reminder
        # is refused, and /goblin notify tells them so; they open their direct messages again
        other = 3 - mover
        d.act_as(other)
        page.click(".place-tab[data-place='dm']")
        page.click(".dms-toggle")
        page.wait_for_selector("#welcome .dms.closed")
        d.act_as(mover)
        page.click(".place-tab[data-place='server']")
        d.open_thread(page.locator(".thread-tab").last)
        d.open_turn("")
        revive = next(c for c in d.controls() if c[1].endswith(":revive"))
        d.act(*revive)
        page.locator(f"article.msg.pinged:has({HAND})").last.wait_for(state="detached")
        page.click(".clock-step[data-seconds='28800']")
        page.wait_for_selector(".clock-ahead:has-text('Clock: +16 h')")
        d.act_as(other)
        page.click(".place-tab[data-place='dm']")
        for _ in range(40):  # until the reminders' loop has tried
            d.command("/goblin notify")
            if "looked closed" in d.hand().inner_text():
                break
        assert "looked closed" in d.hand().inner_text(), d.describe()
        assert page.locator("article.msg:has-text('Your turn is waiting')").count() == 0
        page.click(".dms-toggle")
        page.wait_for_selector("#welcome .dms:not(.closed)")
        config = page.evaluate("() => fetch('/play/config').then(r => r.json())")
        assert all(u["dms_open"] for u in config["users"])
        breaches = page.evaluate("() => fetch('/_loopback/breaches').then(r => r.json())")
        assert breaches == {"breaches": [], "orphaned": []}
    assert not errors, errors
