"""The playground in a real headless Chromium (Debian's ``chromium`` driven by Playwright): a
newcomer's first turn, by clicking, in the thread the match moved to, and a private hand only its
owner sees.

Chromium and Playwright are installed when missing (apt-get as root or with ``sudo -n``, pip
from the dev extra). When that is impossible the test fails with the reason under CI (the ``CI``
environment variable set, e.g. ``CI=true``) and skips, saying why, elsewhere. The screenshot goes
to a temporary folder; ``python -m playground.screenshot`` refreshes docs/images/playground.png.
"""

from __future__ import annotations

import random
from pathlib import Path

from bot.discord_side.ui.custom_ids import LobbyButton, SureButton
from playground import browser
from playground.app import PEOPLE
from playground.drive import EPHEMERAL, HAND, Driver, PlaygroundProcess, prefer


def test_a_turn_by_clicking_and_a_private_hand(chromium_ready: None, tmp_path: Path) -> None:
    errors: list[str] = []
    with PlaygroundProcess(tmp_path / "pg.sqlite3", ai_pace=0.05) as proc, \
            browser.chromium(1280, 900) as page:
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(f"{m.text} {m.location}") if (
            m.type == "error" and "/_loopback/attachments/" not in str(m.location)) else None)
        d = Driver(page, proc.url)
        d.open(1)
        assert page.locator(".user-tab").count() == len(PEOPLE)
        assert page.locator(".user-tab[aria-selected='true'] .name").inner_text().strip() == "Ann"

        # a table, typed into the command box; two AI seats; start
        d.command("/goblin new")
        lobby = page.locator("article.msg").last
        assert "Ann used /goblin new" in lobby.inner_text()
        assert "table #1" in lobby.inner_text()
        d.click(":ai")
        d.click(":ai")
        assert lobby.inner_text().count("AI (normal):") == 2
        d.start()

        # the match moved to a thread of its own, named after the table, and the page followed
        # it there from the link under the lobby message, which now names who plays
        thread = d.thread()
        assert thread and page.locator("#channel-name").inner_text() == "Karak · Ann and 2 AI"
        page.click(".place-tab[data-place='server']")
        line = page.locator(f"#m-{lobby.get_attribute('data-message-id')}")
        line.locator(".thread-mention").wait_for()
        assert "Ann and 2 AI are playing →\u00a0Karak · Ann and 2 AI" in line.inner_text()
        line.locator(".thread-mention").click()  # the mention in the line opens the thread too
        page.wait_for_selector(f".thread-tab[data-thread='{thread}'][aria-selected='true']")
        d.settle()

        # the AI seats play until it is Ann's turn: a message that mentions her
        turn = page.locator(f"article.msg.pinged:has({HAND})").last
        turn.wait_for(timeout=30_000)
        # the table message carries the game on: no lobby button is left
        page.wait_for_function("(lobby) => !document.querySelector(lobby)",
                               arg=f"[data-custom-id^='{LobbyButton.prefix}']")
        turn.locator(HAND).click()
        d.settle()
        hand = d.hand()
        hand_id = hand.get_attribute("data-message-id")
        assert hand.locator(".note").inner_text().strip() == "Only you can see this"
        assert hand.locator(".embed .image img, .gallery img, .thumbnail img").count() >= 1
        assert page.evaluate("(id) => document.querySelector(`#m-${id} img`).naturalWidth",
                             hand_id) > 100

        # a turn by clicking: fight a monster, play cards, end the battle
        moves: list[tuple[str, str, str]] = []
        rng = random.Random(5)
        for _ in range(40):
            controls = d.controls()
            assert controls, f"no move offered after {moves}"
            move = prefer(controls, rng)
            d.act(*move)
            moves.append(move)
            asked = any(c[1].startswith(SureButton.prefix) for c in d.controls())
            if move[1].endswith(":end") and not asked:  # a lost battle is confirmed first
                break
        notations = [value or cid.split(":", 4)[-1] for _, cid, value in moves]
        assert any(n.startswith("fight:") for n in notations), notations
        assert notations[-1] == "end", notations
        shot = tmp_path / "playground.png"
        page.screenshot(path=str(shot))
        assert shot.stat().st_size > 20_000

        # the hand is Ann's alone: Bob sees the thread without it, and cannot fetch its image
        images = page.evaluate(
            "(sel) => [...document.querySelectorAll(sel + ' img')].map(i => i.src)", EPHEMERAL)
        assert images
        d.act_as(2)
        assert page.locator(".user-tab[aria-selected='true'] .name").inner_text().strip() == "Bob"
        assert d.thread() == thread
        # Bob's view of the thread is fetched and drawn after the switch: wait for the table
        page.locator(f"article.msg:has({HAND})").last.wait_for()
        assert page.locator(EPHEMERAL).count() == 0
        assert page.locator(f"#m-{hand_id}").count() == 0
        bob = str(PEOPLE[1][0])
        ids = page.evaluate(
            """async ([bob, thread]) => {
                 const r = await fetch(`/_loopback/channels/${thread}/messages?user=${bob}`);
                 return (await r.json()).messages.map(m => m.id);
               }""", [bob, thread])
        assert ids and hand_id not in ids
        for src in images:
            aid = src.split("/attachments/")[1].split("/")[0]
            status = page.evaluate(
                "([a, u]) => fetch(`/_loopback/attachments/${a}?user=${u}`).then(r => r.status)",
                [aid, bob])
            assert status == 404

        # back to Ann, in French: the hand is there, with Discord's hint in her language
        d.act_as(1)
        assert page.locator(f"#m-{hand_id}").count() == 1
        page.select_option("#language", "fr")
        page.wait_for_function("() => document.documentElement.lang === 'fr'")
        d.settle()
        note = page.locator(f"#m-{hand_id} .note").inner_text().strip()
        assert note == "Visible uniquement par vous"
        assert page.get_attribute("#command-input", "placeholder") == "Tapez / pour les commandes"

        # narrow phone screen: nothing wider than the screen
        page.set_viewport_size({"width": 390, "height": 844})
        d.settle()
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390

        breaches = page.evaluate("() => fetch('/_loopback/breaches').then(r => r.json())")
        assert breaches == {"breaches": [], "orphaned": []}
    assert not errors, errors


def test_a_guided_match_in_the_direct_messages_with_the_bot(chromium_ready: None,
                                                            tmp_path: Path) -> None:
    errors: list[str] = []
    with PlaygroundProcess(tmp_path / "pg.sqlite3", ai_pace=0.05) as proc, \
            browser.chromium(400, 900) as page:
        page.on("pageerror", lambda e: errors.append(str(e)))
        d = Driver(page, proc.url)
        d.open(1)
        page.click(".place-tab[data-place='dm']")
        d.settle()
        assert page.locator(".place-tab[data-place='dm']").get_attribute(
            "aria-selected") == "true"
        assert "direct message conversation" in page.locator("#welcome").inner_text()
        d.command("/goblin learn")
        hand = d.hand()
        assert hand.locator(".note").inner_text().strip() == "Only you can see this"
        assert "Lesson (R10)" in hand.inner_text()
        assert hand.locator("button.btn.s1[data-custom-id*=':fight:']").count() >= 5
        # the server's channel holds none of it
        page.click(".place-tab[data-place='server']")
        d.settle()
        assert "Lesson" not in page.locator("#messages").inner_text()
    assert not errors, errors
