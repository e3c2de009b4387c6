"""A link to a message in the playground leads where Discord's client takes it: ``/goblin turns``
lists a person's running matches, each with a link to its table message, one in a thread of the
server's channel and one in their direct messages with the bot (``discord.com/channels/@me/…``);
clicking a link opens that thread, or those direct messages, at the table message. Runs the real
bot in headless Chromium; skips without it (fails under ``CI=true``), like the other browser
tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from loopback.components import interactive
from playground import browser
from playground.app import CHANNEL_ID, DM_OFFSET, PEOPLE
from playground.drive import HAND, Driver, PlaygroundProcess, click_as, command_as, hook


def _lobby_click(url: str, user: int, op: str) -> None:
    """Click the lobby button ``op`` (join, start) of the channel's newest message as ``user``."""
    lobby = hook(url, f"_loopback/channels/{CHANNEL_ID}/messages?user={user}")["messages"][-1]
    cid = next(c["custom_id"] for c in interactive(lobby["components"])
               if c["custom_id"].split(":")[3:4] == [op])
    assert click_as(url, user, lobby["id"], cid)["status"] == "done"


def _shown(page: Any, message: str) -> None:
    """Wait until message ``message`` is on the page and within the window."""
    page.wait_for_function("""(id) => {
        const el = document.getElementById('m-' + id);
        if (!el) return false;
        const box = el.getBoundingClientRect();
        return box.bottom > 0 && box.top < window.innerHeight;
    }""", arg=message)


def test_a_tables_link_opens_its_thread_or_the_direct_messages(chromium_ready: None,
                                                               tmp_path: Path) -> None:
    errors: list[str] = []
    ann, bob = PEOPLE[0][0], PEOPLE[1][0]
    dm = str(ann + DM_OFFSET)
    with PlaygroundProcess(tmp_path / "pg.sqlite3", ai_pace=0.05) as proc, \
            browser.chromium(1280, 900) as page:
        page.on("pageerror", lambda e: errors.append(str(e)))
        # a guided match in Ann's direct messages; Ann and Bob at a table in the channel, which
        # moves to a thread of its own (two people: nothing moves until one of them clicks)
        assert command_as(proc.url, ann, int(dm), "goblin learn")["status"] == "done"
        assert command_as(proc.url, ann, CHANNEL_ID, "goblin new")["status"] == "done"
        _lobby_click(proc.url, bob, "join")
        _lobby_click(proc.url, ann, "start")
        d = Driver(page, proc.url)
        d.open(1)
        d.settle()  # the match's thread opened and its table message posted there
        d.command("/goblin turns")
        links = d.hand().locator("a[data-jump]")
        assert links.count() == 2, d.describe()
        places = {links.nth(i).get_attribute("data-channel"): links.nth(i) for i in range(2)}
        thread = page.locator("article.msg .thread-link").last.get_attribute("data-thread")
        assert set(places) == {dm, thread}, places

        # the link to the match in the thread opens the thread, at the table message
        target = places[thread].get_attribute("data-jump")
        places[thread].click()
        page.wait_for_selector(f".thread-tab[data-thread='{thread}'][aria-selected='true']")
        _shown(page, target)
        assert page.locator(f"#m-{target} {HAND}").count() == 1

        # back in the channel, the link to the solo table opens the direct messages there
        page.click(".place-tab[data-place='server']")
        d.settle()
        link = page.locator(f"a[data-jump][data-channel='{dm}']").last
        target = link.get_attribute("data-jump")
        link.click()
        page.wait_for_selector(".place-tab[data-place='dm'][aria-selected='true']")
        _shown(page, target)
        assert page.locator(f"#m-{target} {HAND}").count() == 1
    assert not errors, errors
