"""The playground page shows threads as Discord does: the channel's active threads listed under it,
a thread's starter message with a link naming the thread and counting its messages, the thread's
own view (its messages, who started it, whether it is archived) opened from the link or the list,
and back to the channel when the thread is deleted; at desktop and phone widths. The stand-in of
the playground has no bot here: the threads are made through the stand-in's API. Runs in
headless Chromium; skips without it (fails under ``CI=true``), like the other browser tests."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from planted_page import planted

from playground import browser
from playground.app import Playground
from playground.drive import Driver


@pytest.fixture
def page_url() -> Iterator[str]:
    """A playground (no bot) whose channel holds a lobby message with a thread of two
    messages."""

    def plant(pg: Playground) -> None:
        assert pg.channel is not None
        lobby = pg.lb.plant_message(pg.channel, [], "Lobby of table #1: Ann, Bob. Started!")
        thread = pg.lb.create_thread(pg.channel, "Table #1", message=lobby)
        pg.lb.plant_message(thread, [], "Round 1: **Ann** plays first.")
        pg.lb.plant_message(thread, [], "Bob fights the gatekeeper and wins a key.")
        pg.lb.plant_message(pg.channel, [], "Anyone for a second table?")

    with planted("en", plant) as url:
        yield url


def control(page: Any, path: str, body: dict[str, Any] | None = None) -> Any:
    """POST (or GET, without ``body``) the stand-in's control API from the page."""
    return page.evaluate("""async ([path, body]) => {
        const init = body === null ? {} : {method: 'POST', body: JSON.stringify(body),
                                            headers: {'Content-Type': 'application/json'}};
        const r = await fetch('/_loopback/' + path, init);
        return [r.status, await r.json()];
    }""", [path, body])


def test_the_page_shows_threads_as_discord_does(chromium_ready: None, page_url: str,
                                                tmp_path: Path) -> None:
    errors: list[str] = []
    for width in (1280, 390):
        with browser.chromium(width, 800) as page:
            page.on("pageerror", lambda e: errors.append(str(e)))
            d = Driver(page, page_url)
            d.open(1)
            config = page.evaluate("() => fetch('/play/config').then(r => r.json())")
            channel = config["channel"]
            # the starter message links to its thread, which the list under the channel shows
            link = page.locator("article.msg .thread-link")
            link.wait_for()
            assert link.locator(".thread-name").inner_text() == "Table #1"
            assert link.locator(".thread-count").inner_text() == "Messages: 2"
            tabs = page.locator("#threads .thread-tab")
            assert tabs.all_inner_texts() == ["Table #1"]
            # a person starts a second thread, without a message, through the stand-in's API
            status, made = control(page, "threads", {"channel": channel, "name": "Rules talk",
                                                     "user": config["users"][1]["id"]})
            assert status == 200, made
            page.wait_for_function("() => document.querySelectorAll('.thread-tab').length === 2")
            assert tabs.all_inner_texts() == ["Table #1", "Rules talk"]
            page.screenshot(path=str(tmp_path / f"threads-channel-{width}.png"))
            # the link opens the thread: its messages, its name in the header, who started it
            link.click()
            page.wait_for_function(
                "() => document.querySelector('#channel-name').textContent === 'Table #1'")
            d.settle()
            shown = page.locator("article.msg .content").all_inner_texts()
            assert shown == ["Round 1: Ann plays first.",
                             "Bob fights the gatekeeper and wins a key."]
            assert page.locator("#guild-name").inner_text() == "#goblin"
            assert page.locator("#welcome").inner_text().splitlines()[-1] == "Started by Ann."
            selected = page.locator(".thread-tab[aria-selected='true']")
            assert selected.inner_text() == "Table #1"
            page.screenshot(path=str(tmp_path / f"threads-thread-{width}.png"))
            # archived: the thread says so, and leaves the list once one goes back to the channel
            status, _ = control(page, f"threads/{made['id']}/archive", {})
            assert status == 200
            status, _ = control(page, f"threads/{lobby_thread(page, channel)}/archive", {})
            assert status == 200
            page.locator("#welcome .thread-note").wait_for()
            assert "archived" in page.locator("#welcome .thread-note").inner_text()
            page.click(".place-tab[data-place='server']")
            page.wait_for_function("() => document.querySelector('#channel-name').textContent"
                                   " === 'goblin'")
            page.wait_for_selector("#threads", state="hidden")
            # the list takes the thread back when it is active again; the tab opens it
            status, _ = control(page, f"threads/{made['id']}/unarchive", {})
            assert status == 200
            page.click(".thread-tab")
            page.wait_for_function(
                "() => document.querySelector('#channel-name').textContent === 'Rules talk'")
            # a moderator deletes the thread shown: the page goes back to the channel
            status, _ = control(page, f"threads/{made['id']}/delete", {})
            assert status == 200
            page.wait_for_function("() => document.querySelector('#channel-name').textContent"
                                   " === 'goblin'")
            assert page.evaluate("() => document.documentElement.scrollWidth") <= width
            # undo for the next width: the second thread goes, the first is active again
            status, _ = control(page, f"threads/{lobby_thread(page, channel)}/unarchive", {})
            assert status == 200
    named = os.environ.get("KARAK_THREAD_SHOTS")  # a folder to keep the pictures in
    if named:
        folder = Path(named)
        for shot in tmp_path.glob("threads-*.png"):
            shutil.copy(shot, folder / shot.name)
    assert not errors, errors


def lobby_thread(page: Any, channel: str) -> str:
    """The id of the thread started from the lobby message (the first thread)."""
    status, listed = control(page, f"channels/{channel}/threads")
    assert status == 200
    return str(listed["threads"][0]["id"])
