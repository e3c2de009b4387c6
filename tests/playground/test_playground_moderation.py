"""The playground's moderator menu, in headless Chromium with the real bot: what a moderator of
the server does to a match's thread (archive it, lock it, delete it) and to the channel (hide it
from a person, delete it), sent to the bot as Discord's gateway events, and the bot's answer to
each: an archived thread is unarchived by its next move, a locked one too (the bot may manage
threads) and it stays locked, a deleted thread's match ends as abandoned (its channel line says
so), a person the channel is hidden from can neither see it nor act in it, and a deleted
channel's running match is closed while a new #goblin takes its place. At desktop and phone
widths; skips without Chromium (fails under ``CI=true``), like the other browser tests."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

from bot.discord_side.ui.custom_ids import ShareButton
from bot.storage.choice import open_storage
from playground import browser
from playground.app import CHANNEL_ID, PEOPLE
from playground.drive import EPHEMERAL, HAND, Driver, PlaygroundProcess, prefer

BOB = str(PEOPLE[1][0])


def watch_errors(page: Any) -> list[str]:
    """The page's script errors, collected as they happen."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def moderate(d: Driver, act: str, user: str = "", *, confirm: bool = False) -> None:
    """Open the moderator menu and press ``act`` (for ``user``), twice for a deletion."""
    page = d.page
    page.click("#mod")
    item = page.locator(f"#mod-menu .mod-item[data-act='{act}']"
                        + (f"[data-user='{user}']" if user else ""))
    item.click()
    if confirm:
        page.locator("#mod-menu .mod-item.armed").wait_for()
        assert item.locator(".label").inner_text() == "Press again to confirm"
        item.click()
    page.wait_for_selector("#mod-menu", state="hidden")
    d.settle()


def thread_state(page: Any, thread: str) -> tuple[bool, bool]:
    """Whether the stand-in holds ``thread`` archived, and locked."""
    listed = page.evaluate(f"() => fetch('/_loopback/channels/{CHANNEL_ID}/threads')"
                           ".then(r => r.json())")
    found = next(t for t in listed["threads"] if t["id"] == thread)
    return found["archived"], found["locked"]


def started(d: Driver) -> tuple[str, str]:
    """Ann opens a table with two AI seats and starts it; the page follows the match into its
    thread and waits for its table message. The lobby message's id and the thread's."""
    d.command("/goblin new")
    lobby = d.page.locator("article.msg").last.get_attribute("data-message-id") or ""
    d.click(":ai")
    d.click(":ai")
    d.start()
    thread = d.thread()
    assert lobby and thread
    # the thread opens before the game's first table message is posted in it: wait for that
    # message, so what a moderator does next acts on a match already shown
    d.page.locator(f"article.msg:has({HAND})").first.wait_for(timeout=30_000)
    return lobby, thread


def move(d: Driver, rng: random.Random) -> None:
    """Ann opens her hand at her turn and makes one move."""
    d.open_turn("")
    controls = d.controls()
    assert controls, d.describe()
    d.act(*prefer(controls, rng))


def status_of(db: Path, table: int) -> str:
    """The stored status of table ``table`` (read once the playground stopped)."""

    async def read() -> str:
        store = await open_storage(db)
        try:
            record = await store.get(table)
        finally:
            await store.close()
        assert record is not None
        return record.status

    return asyncio.run(read())


def test_a_moderator_archives_locks_and_deletes_a_matchs_thread(chromium_ready: None,
                                                                 tmp_path: Path) -> None:
    rng = random.Random(3)
    with PlaygroundProcess(tmp_path / "pg.sqlite3", ai_pace=0.05) as proc, \
            browser.chromium(1280, 900) as page:
        errors = watch_errors(page)
        d = Driver(page, proc.url)
        d.open(1)
        lobby, thread = started(d)
        d.open_turn("")
        # the menu acts on the thread shown
        page.click("#mod")
        items = page.locator("#mod-menu .mod-item .label").all_inner_texts()
        assert items == ["Archive thread", "Lock thread", "Delete thread",
                         "Delete the bot's newest post here"]
        page.screenshot(path=str(tmp_path / "moderator-thread-1280.png"))
        page.keyboard.press("Escape")
        page.wait_for_selector("#mod-menu", state="hidden")

        # archived (as Discord does after a day without messages): the next move unarchives it
        moderate(d, "archive")
        note = page.locator("#welcome .thread-note")
        note.wait_for()
        assert "archived" in note.inner_text()
        assert thread_state(page, thread) == (True, False)
        move(d, rng)
        note.wait_for(state="detached")
        assert thread_state(page, thread) == (False, False)

        # locked: no one but moderators may write there, so its match ends as abandoned
        moderate(d, "lock")
        page.wait_for_function("() => (document.querySelector('#welcome .thread-note')"
                               "?.textContent || '').includes('locked')")
        assert thread_state(page, thread) == (True, True)
        page.click("#mod")
        assert page.locator("#mod-menu .mod-item .label").all_inner_texts() == [
            "Unlock thread", "Delete thread", "Delete the bot's newest post here"]
        page.keyboard.press("Escape")
        moderate(d, "unarchive")  # unlocked
        note.wait_for(state="detached")

        # deleted: the page goes back to the channel, whose line still tells why the match ended
        page.click("#mod")
        page.locator("#mod-menu .mod-item[data-act='delete_thread']").click()
        page.screenshot(path=str(tmp_path / "moderator-armed-1280.png"))
        page.locator("#mod-menu .mod-item[data-act='delete_thread']").click()
        page.wait_for_function("() => document.querySelector('#channel-name').textContent"
                               " === 'goblin'")
        page.wait_for_function(
            "(id) => (document.getElementById(id)?.innerText || '').includes('locked')",
            arg=f"m-{lobby}")
        assert ("The match between Ann and 2 AI was abandoned: a moderator locked its thread. "
                "Its log is kept") in page.locator(f"#m-{lobby}").inner_text()
        assert page.locator(".thread-tab").count() == 0
        breaches = page.evaluate("() => fetch('/_loopback/breaches').then(r => r.json())")
        assert breaches == {"breaches": [], "orphaned": []}
    assert status_of(tmp_path / "pg.sqlite3", 1) == "abandoned"
    assert not errors, errors


def test_a_moderator_hides_the_channel_from_a_person_then_deletes_it(chromium_ready: None,
                                                                      tmp_path: Path) -> None:
    width = 390
    with PlaygroundProcess(tmp_path / "pg.sqlite3", ai_pace=0.05) as proc, \
            browser.chromium(width, 844) as page:
        errors = watch_errors(page)
        d = Driver(page, proc.url)
        d.open(1)
        started(d)
        page.click(".place-tab[data-place='server']")
        d.settle()

        # hidden from Bob: he sees neither the channel's messages nor its threads, and Discord
        # refuses his commands there
        moderate(d, "hide", BOB)
        page.click("#mod")
        shown = page.locator(f".mod-item[data-act='show'][data-user='{BOB}'] .label")
        assert shown.inner_text() == "Let Bob see #goblin again"
        box = page.locator("#mod-menu").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(tmp_path / "moderator-channel-390.png"))
        page.keyboard.press("Escape")
        d.act_as(2)
        page.locator("#welcome .hidden-note").wait_for()
        assert page.locator("article.msg").count() == 0
        assert page.locator(".thread-tab").count() == 0
        page.fill("#command-input", "/goblin new")
        page.keyboard.press("Enter")
        if page.is_visible("#command-chip"):
            page.click("#send")
        page.locator("#toast").wait_for()
        assert page.locator("#toast").inner_text() == (
            "Discord would refuse that: You cannot view that channel.")
        page.screenshot(path=str(tmp_path / "moderator-hidden-390.png"))
        # shown to him again: the channel and the match's thread are back
        moderate(d, "show", BOB)
        page.locator("article.msg").first.wait_for()
        assert page.locator(".thread-tab").count() == 1

        # deleted with its running match: a new, empty #goblin takes its place, the match is
        # closed, and the bot plays on in the new channel
        d.act_as(1)
        moderate(d, "delete_channel", confirm=True)
        page.wait_for_function("(old) => fetch('/play/channel').then(r => r.json())"
                               ".then(c => c.id !== old)", arg=str(CHANNEL_ID))
        page.wait_for_selector("article.msg", state="detached")
        assert page.locator(".thread-tab").count() == 0
        assert page.locator("#channel-name").inner_text() == "goblin"
        d.command("/goblin new")
        assert "table #2" in page.locator("article.msg").last.inner_text()
        assert page.locator(f"article.msg:has({HAND})").count() == 0
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        page.wait_for_selector("#toast", state="hidden")  # Bob's refusal, said a while ago
        page.screenshot(path=str(tmp_path / "moderator-new-channel-390.png"))
        breaches = page.evaluate("() => fetch('/_loopback/breaches').then(r => r.json())")
        assert breaches == {"breaches": [], "orphaned": []}
    assert status_of(tmp_path / "pg.sqlite3", 1) == "abandoned"
    assert not errors, errors


def test_a_moderator_takes_the_bots_attach_files_and_the_mover_is_told(chromium_ready: None,
                                                                      tmp_path: Path) -> None:
    """The channel's menu takes the bot's Attach Files (in the channel and its threads) and
    gives it back: Ann's move is still played, and her hand says once, on a phone's width, that
    the table cannot be updated and which permission to ask an admin for."""
    width = 390
    rng = random.Random(5)
    with PlaygroundProcess(tmp_path / "pg.sqlite3", ai_pace=0.05) as proc, \
            browser.chromium(width, 844) as page:
        errors = watch_errors(page)
        d = Driver(page, proc.url)
        d.open(1)
        _, thread = started(d)
        page.click(".place-tab[data-place='server']")
        d.settle()
        moderate(d, "take_files")
        page.click("#mod")
        assert page.locator("#mod-menu .mod-item[data-act='give_files'] .label").inner_text() \
            == "Give the bot Attach Files in #goblin again"
        page.keyboard.press("Escape")
        d.open_thread(page.locator(f".thread-tab[data-thread='{thread}']"))
        move(d, rng)
        told = page.locator("article[data-ephemeral='1']:has-text('Attach Files')")
        told.last.wait_for()
        text = told.last.inner_text()
        assert "I lack this permission there: Attach Files. Ask an admin" in text, text
        box = told.last.bounding_box()
        assert box is not None and box["x"] + box["width"] <= width
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        told.last.evaluate("(a) => a.scrollIntoView()")
        page.screenshot(path=str(tmp_path / "moderator-files-390.png"))
        page.click(".place-tab[data-place='server']")
        d.settle()
        moderate(d, "give_files")
        page.click("#mod")
        assert page.locator("#mod-menu .mod-item[data-act='take_files']").count() == 1
        page.keyboard.press("Escape")
        breaches = page.evaluate("() => fetch('/_loopback/breaches').then(r => r.json())")
        assert breaches == {"breaches": [], "orphaned": []}
    assert not errors, errors


def test_a_moderator_gives_a_person_a_nickname_with_markdown(chromium_ready: None,
                                                            tmp_path: Path) -> None:
    """The channel's menu gives Bob the nickname **Bob** (and clears it): the table he opens
    then shows his name as he typed it, asterisks and all, in its channel line, its table
    message and the mention that pings him, never as bold text; at a phone's width."""
    width = 390
    with PlaygroundProcess(tmp_path / "pg.sqlite3", ai_pace=0.05) as proc, \
            browser.chromium(width, 844) as page:
        errors = watch_errors(page)
        d = Driver(page, proc.url)
        d.open(2)
        page.click("#mod")
        item = page.locator(f"#mod-menu .mod-item[data-act='nick'][data-user='{BOB}']")
        assert item.locator(".label").inner_text() == "Give Bob the nickname **Bob**"
        page.keyboard.press("Escape")
        moderate(d, "nick", BOB)
        d.command("/goblin new")
        d.click(":ai")
        d.start()
        # the table message of Bob's turn (the AI may play first): its ping shows his
        # nickname, as Discord shows a mention in a server
        table = page.locator(f"article.msg:has({HAND}):has(.mention:text-is('@**Bob**'))")
        table.first.wait_for(timeout=30_000)
        assert "**Bob**" in table.first.inner_text(), table.first.inner_text()
        assert table.first.locator("strong:text-is('Bob'), b:text-is('Bob')").count() == 0
        page.click(".place-tab[data-place='server']")
        d.settle()
        line = page.locator("article.msg:has(.thread-link)").last
        assert "**Bob** and 1 AI are playing" in line.inner_text(), line.inner_text()
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(tmp_path / "moderator-nick-390.png"))
        page.click("#mod")
        assert page.locator(f"#mod-menu .mod-item[data-act='unnick'][data-user='{BOB}'] "
                            ".label").inner_text() == "Clear Bob's nickname"
        page.keyboard.press("Escape")
        moderate(d, "unnick", BOB)
        page.click("#mod")
        assert page.locator(f"#mod-menu .mod-item[data-act='nick'][data-user='{BOB}']").count()
        page.keyboard.press("Escape")
        breaches = page.evaluate("() => fetch('/_loopback/breaches').then(r => r.json())")
        assert breaches == {"breaches": [], "orphaned": []}
    assert not errors, errors



#: How many posts of a match's animation the page shows.
POSTS = ("() => [...document.querySelectorAll('article.msg:not([data-ephemeral])')]"
         ".filter((a) => a.innerText.includes('from the first move to the last')).length")


def test_a_moderator_deletes_a_shared_animation_and_share_posts_it_again(
        chromium_ready: None, tmp_path: Path) -> None:
    """The menu deletes the bot's newest post where the page is: a match's animation just
    shared there. Share, within the ten minutes it links to a post instead of posting again,
    then posts it again."""
    from playground.screenshot import replay_scene

    with PlaygroundProcess(tmp_path / "pg.sqlite3", ai_pace=0.02) as proc, \
            browser.chromium(1280, 900) as page:
        errors = watch_errors(page)
        d = Driver(page, proc.url)
        d.open(1)
        assert replay_scene(d) is not None, d.describe()
        share = page.locator(f"{EPHEMERAL} .btn[data-custom-id^='{ShareButton.prefix}']")

        def posted() -> str:
            """Share clicked; its answer once the animation is in the channel."""
            before = page.evaluate(POSTS)
            share.last.click()
            page.wait_for_function(f"(n) => ({POSTS})() > n", arg=before, timeout=120_000)
            d.settle()
            return page.locator(EPHEMERAL).last.inner_text()

        assert "is posted" in posted()
        share.last.click()
        d.settle()
        assert "was already posted" in page.locator(EPHEMERAL).last.inner_text()
        assert page.evaluate(POSTS) == 1
        moderate(d, "delete_post", confirm=True)
        page.wait_for_function(f"() => ({POSTS})() === 0")
        assert "is posted" in posted()
        breaches = page.evaluate("() => fetch('/_loopback/breaches').then(r => r.json())")
        assert breaches == {"breaches": [], "orphaned": []}
    assert not errors, errors
