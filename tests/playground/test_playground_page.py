"""The playground's page and server, without a browser: every text the page uses in every
language, no outside resources, the routes it serves, request validation said in one line,
and a busy port."""

from __future__ import annotations

import ast
import logging
import re
import socket
from pathlib import Path
from typing import Any

import pytest
from aiohttp import ClientSession
from shared_files import require_discord_api

import playground.app
from i18n import LOCALES, catalog
from playground.app import (
    CHANNEL_ID,
    DM_OFFSET,
    GUILD_ID,
    PEOPLE,
    STATIC,
    Playground,
    page_strings,
)

# ---------------------------------------------------------------------- the page's texts


def refusal_codes() -> set[str]:
    """Every code a :class:`loopback.LoopbackError` is raised with in loopback/ and playground/
    (the page shows each as ``refusal.<code>``)."""
    codes: set[str] = set()
    root = Path(playground.app.__file__).resolve().parents[1]
    for path in [*(root / "loopback").glob("*.py"), *(root / "playground").glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "LoopbackError"):
                continue
            given = [k.value for k in node.keywords if k.arg == "code"] + node.args[1:2]
            assert given and isinstance(given[0], ast.Constant), (
                f"{path.name}:{node.lineno}: a LoopbackError without a literal refusal code")
            codes.add(str(given[0].value))
    return codes


def test_every_text_the_page_uses_exists_in_every_language() -> None:
    script = "\n".join(p.read_text() for p in sorted(STATIC.glob("*.js")))
    used = set(re.findall(r"\bt(?:Html)?\(\"([\w.]+)\"", script))
    assert len(used) > 15
    codes = refusal_codes()
    assert {"no_component", "message_loading", "unknown_command", "bad_request"} <= codes
    used |= {f"refusal.{code}" for code in codes}  # translated by the page's refusal()
    english = page_strings("en")
    assert used <= set(english), sorted(used - set(english))
    assert set(english) <= used, f"unused page texts: {sorted(set(english) - used)}"
    for lc in LOCALES:
        texts = page_strings(lc)
        assert set(texts) == set(english)
        for key, text in texts.items():
            assert set(re.findall(r"\{(\w+)\}", text)) == set(
                re.findall(r"\{(\w+)\}", english[key])), (lc, key)
    # French typography is applied on the server, placeholders survive it
    assert page_strings("fr")["refused"] == "Discord refuserait cela\u00a0: {error}"


def test_page_names_the_commands_as_each_language_does() -> None:
    for lc in LOCALES:
        name = catalog(lc)["bot.cmd.name.new"]
        assert f"/goblin {name}" in page_strings(lc)["welcome"]


def test_the_page_has_no_outside_resources() -> None:
    for path in STATIC.iterdir():
        text = path.read_text()
        assert not re.search(r"(src|href)=\"(https?:)?//", text), path.name
        assert "@import" not in text and "cdn" not in text.lower(), path.name


# ---------------------------------------------------------------------- the server


async def test_routes_of_the_page() -> None:
    async with Playground(port=0, locale="en", validate=False) as pg, ClientSession() as http:
        base = pg.url
        assert base == f"http://127.0.0.1:{pg.lb.port}/"
        async with http.get(base) as r:
            html = await r.text()
            assert r.status == 200 and r.content_type == "text/html"
            assert re.search(r"/static/app\.js\?v=[0-9a-f]{10}", html)
        scripts = re.findall(r'<script src="/static/([a-z]+\.js)\?v=', html)
        assert {"message.js", "composer.js", "controls.js", "app.js"} <= set(scripts)
        for name, kind in ([(s, "javascript") for s in scripts]
                           + [("style.css", "css"), ("favicon.svg", "svg")]):
            async with http.get(base + "static/" + name) as r:
                assert r.status == 200 and kind in r.content_type
        async with http.get(base + "static/../app.py") as r:
            assert r.status in (403, 404)
        async with http.get(base + "play/config") as r:
            config: dict[str, Any] = await r.json()
        assert config["guild"] == str(GUILD_ID) and config["channel"] == str(CHANNEL_ID)
        assert [(u["id"], u["name"]) for u in config["users"]] == [
            (str(uid), name) for uid, name in PEOPLE]
        assert [u["admin"] for u in config["users"]] == [True, False, False, False]
        assert set(config["strings"]) == set(LOCALES)
        bob = config["users"][1]["id"]
        async with http.post(base + "play/locale", json={"user": bob, "locale": "cs"}) as r:
            assert r.status == 200 and (await r.json())["locale"] == "cs"
        assert pg.lb.user(bob).locale == "cs"
        for bad, code in (({"user": bob, "locale": "de"}, "unknown_locale"),
                          ({"user": "1", "locale": "fr"}, "no_user"), (["x"], "bad_request"),
                          ({"locale": "fr"}, "bad_request")):
            async with http.post(base + "play/locale", json=bad) as r:
                answer = await r.json()
                assert r.status == 400 and answer["code"] == code and answer["error"], answer
        # the stand-in's refusals carry a code and parameters the page translates
        async with http.post(base + "_loopback/command", json={
                "user": bob, "channel": str(CHANNEL_ID), "command": "dance"}) as r:
            answer = await r.json()
            assert r.status == 400 and answer["code"] == "unknown_command"
            assert answer["params"] == {"command": "dance"}
            text = page_strings("fr")["refusal." + answer["code"]]
            assert text.format(**answer["params"]) == "Il n'y a pas de commande /dance."
        assert pg.lb.user(bob).locale == "cs"
        # a person's direct messages closed to the bot, and open again
        assert [u["dms_open"] for u in config["users"]] == [True] * len(PEOPLE)
        async with http.post(base + "play/dms", json={"user": bob, "open": False}) as r:
            assert r.status == 200 and (await r.json())["dms_open"] is False
        assert pg.lb.user(bob).dms_open is False
        for bad, code in (({"user": bob, "open": "no"}, "bad_request"),
                          ({"user": "1", "open": True}, "no_user"), (["x"], "bad_request")):
            async with http.post(base + "play/dms", json=bad) as r:
                answer = await r.json()
                assert r.status == 400 and answer["code"] == code, answer
        async with http.post(base + "play/dms", json={"user": bob, "open": True}) as r:
            assert r.status == 200 and pg.lb.user(bob).dms_open is True
        # the clock control: the stand-in's clock and the bot's move on together
        assert config["clock"] == {"steps": [3600, 28800, 86400], "offset": 0.0}
        before, bot_before = pg.clock(), pg.bot_clock()
        async with http.post(base + "play/clock", json={"advance": 28800}) as r:
            assert r.status == 200 and (await r.json())["offset"] == 28800
        assert pg.clock() - before >= 28800 and pg.bot_clock() - bot_before >= 28800
        for bad in ({"advance": 5}, {"advance": -3600}, ["x"], {}):
            async with http.post(base + "play/clock", json=bad) as r:
                answer = await r.json()
                assert r.status == 400 and answer["code"] == "bad_request", answer
        assert pg.clock.offset == 28800


async def test_validation_off_is_said_in_one_line(monkeypatch: pytest.MonkeyPatch,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="karak.playground")
    monkeypatch.setattr(playground.app, "unavailable_reason",
                        lambda: "the jsonschema-rs package is not installed")
    assert Playground(port=0).validate is False
    lines = [r.getMessage() for r in caplog.records if r.name == "karak.playground"]
    assert len(lines) == 1 and "request validation is off" in lines[0]
    assert "jsonschema-rs package is not installed" in lines[0]
    caplog.clear()
    assert Playground(port=0, validate=False).validate is False  # asked for: nothing to say
    assert not [r for r in caplog.records if r.name == "karak.playground"]


async def test_validation_on_is_silent(caplog: pytest.LogCaptureFixture) -> None:
    require_discord_api("that the playground validates requests when it can, silently")
    caplog.set_level(logging.INFO, logger="karak.playground")
    assert Playground(port=0).validate is True
    assert not [r for r in caplog.records if r.name == "karak.playground"]


async def test_a_busy_port_falls_back_to_a_free_one() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        async with Playground(port=port, validate=False) as pg:
            assert pg.lb.port not in (0, port)


async def test_each_person_has_a_direct_message_channel_with_the_bot() -> None:
    async with Playground(port=0, locale="en", validate=False) as pg, ClientSession() as http:
        async with http.get(pg.url + "play/config") as r:
            config: dict[str, Any] = await r.json()
        ids = [str(uid) for uid, _ in PEOPLE]
        assert list(config["dms"]) == ids
        assert config["dms"] == {uid: str(int(uid) + DM_OFFSET) for uid in ids}  # fixed ids
        ann, bob = ids[0], ids[1]
        dm = pg.lb.channel(config["dms"][ann])
        assert dm.type == 1 and dm.guild_id is None and [u.name for u in dm.recipients] == ["Ann"]
        async with http.get(pg.url + f"_loopback/channels/{dm.id}/messages?user={ann}") as r:
            assert r.status == 200 and (await r.json())["messages"] == []
        async with http.post(pg.url + "_loopback/dm", json={"user": ann}) as r:
            assert (await r.json())["id"] == str(dm.id)  # the same channel again
        # only Ann acts in Ann's DM; the page says why in the user's language
        async with http.post(pg.url + "_loopback/command", json={
                "user": bob, "channel": str(dm.id), "command": "goblin new"}) as r:
            answer = await r.json()
            assert r.status == 400 and answer["code"] == "not_a_recipient"
            assert page_strings("fr")["refusal.not_a_recipient"].startswith("Seules")
        assert "/goblin apprendre" in page_strings("fr")["welcome_dm"]


async def test_the_moderator_routes_send_what_discord_sends() -> None:
    """``POST /play/moderate`` does what a moderator does through the stand-in (the bot hears
    THREAD_UPDATE, THREAD_DELETE, CHANNEL_UPDATE, CHANNEL_DELETE), ``GET /play/channel`` tells
    the channel shown, whom it is hidden from and who has a server nickname; what cannot be
    done is refused with a code the page translates."""
    async with Playground(port=0, locale="en", validate=False) as pg, ClientSession() as http:
        sent: list[str] = []
        broadcast = pg.lb.gateway.broadcast

        def announce(event: str, data: dict[str, Any]) -> None:
            sent.append(event)
            broadcast(event, data)

        pg.lb.state.announce = announce
        assert pg.channel is not None
        first = pg.channel
        thread = pg.lb.create_thread(first, "Karak · Ann and 1 AI")
        ann, bob = (str(uid) for uid, _ in PEOPLE[:2])

        async def moderate(body: Any) -> tuple[int, Any]:
            async with http.post(pg.url + "play/moderate", json=body) as r:
                return r.status, await r.json()

        for act, archived, locked in (("archive", True, False), ("unarchive", False, False),
                                      ("lock", True, True), ("unarchive", False, False)):
            assert (await moderate({"act": act, "thread": str(thread.id)}))[0] == 200
            assert (thread.archived, thread.locked) == (archived, locked), act
        assert sent == ["THREAD_CREATE"] + ["THREAD_UPDATE"] * 4
        status, shown = await moderate({"act": "hide", "user": bob})
        assert status == 200 and shown == {"id": str(CHANNEL_ID), "name": "goblin",
                                           "hidden": [bob], "bot_files": True,
                                           "nicknamed": [], "nicks": {}}
        async with http.post(pg.url + "_loopback/command", json={
                "user": bob, "channel": str(CHANNEL_ID), "command": "goblin new"}) as r:
            assert r.status == 400 and (await r.json())["code"] == "channel_hidden"
        assert (await moderate({"act": "show", "user": bob}))[1]["hidden"] == []
        # a server nickname: no event (the bot asks for no member updates), and the next
        # interaction of the person carries it
        sent.clear()
        nicked = (await moderate({"act": "nick", "user": bob}))[1]
        assert nicked["nicknamed"] == [bob] and nicked["nicks"] == {bob: "**Bob**"}
        assert pg.lb.user(bob).member()["nick"] == "**Bob**" and sent == []
        assert (await moderate({"act": "unnick", "user": bob}))[1]["nicknamed"] == []
        assert pg.lb.user(bob).member()["nick"] is None
        for bad, code in (({"act": "hide", "user": ann}, "sees_every_channel"),
                          ({"act": "archive", "thread": str(CHANNEL_ID)}, "no_thread"),
                          ({"act": "archive", "thread": "12"}, "no_channel"),
                          ({"act": "archive"}, "bad_request"), ({"act": "ban"}, "bad_request"),
                          ({"act": "delete_post"}, "no_post"),
                          ({"act": "delete_post", "thread": str(CHANNEL_ID)}, "no_thread"),
                          (["x"], "bad_request")):
            status, answer = await moderate(bad)
            assert status == 400 and answer["code"] == code, (bad, answer)
        assert (await moderate({"act": "delete_thread", "thread": str(thread.id)}))[0] == 200
        sent.clear()
        status, shown = await moderate({"act": "delete_channel"})
        # a new #goblin takes the deleted one's place: the page's config follows it
        assert status == 200 and shown["id"] != str(CHANNEL_ID) and shown["name"] == "goblin"
        assert sent == ["CHANNEL_DELETE", "CHANNEL_CREATE"]
        async with http.get(pg.url + "play/channel") as r:
            assert await r.json() == shown
        async with http.get(pg.url + "play/config") as r:
            assert (await r.json())["channel"] == shown["id"]
        assert first.id in pg.lb.state.deleted_channels
