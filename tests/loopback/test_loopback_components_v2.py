"""Components V2 messages on the stand-in: each of Discord's layout rules refused and accepted,
refusals answered with Discord's error tree, edits into and out of the layout, attachments the
layout shows, and nested buttons and menus that people click."""
from __future__ import annotations

from typing import Any

import pytest
from minibot import MiniBot, consumed

from loopback import Attachment, Loopback, Message, User
from loopback.limits import message_errors

CV2 = 1 << 15
PNG = b"\x89PNG\r\n\x1a\n" + b"\x01" * 40


def text(content: str = "Hello") -> dict[str, Any]:
    return {"type": 10, "content": content}


def button(cid: str, label: str = "Go") -> dict[str, Any]:
    return {"type": 2, "style": 1, "label": label, "custom_id": cid}


def row(*items: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(items)}


def container(*items: dict[str, Any], colour: int | None = 0x5865F2) -> dict[str, Any]:
    return {"type": 17, "accent_color": colour, "components": list(items)}


def section(*texts: dict[str, Any], accessory: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": 9, "components": list(texts)}
    if accessory is not None:
        out["accessory"] = accessory
    return out


def gallery(n: int) -> dict[str, Any]:
    return {"type": 12, "items": [{"media": {"url": f"https://example.org/{i}.png"}}
                                  for i in range(n)]}


def menu(cid: str) -> dict[str, Any]:
    return {"type": 3, "custom_id": cid, "options": [{"label": "A", "value": "a"},
                                                     {"label": "B", "value": "b"}]}


def cv2(*components: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"flags": CV2, "components": list(components), **extra}


THUMB = {"type": 11, "media": {"url": "https://example.org/t.png"}}

REFUSED = [
    (cv2(text(), content="hi"), "content cannot be used"),
    (cv2(text(), embeds=[{"description": "x"}]), "embeds cannot be used"),
    (cv2(*[text(str(i)) for i in range(41)]), "41 components in all"),
    (cv2(container(*[text(str(i)) for i in range(40)])), "41 components in all"),
    (cv2(text("x" * 2001), text("y" * 2000)), "4001 characters in all"),
    (cv2(container(section(text(), accessory=button("a"))), row(button("a"))), "used twice"),
    (cv2(dict(text(), id=7), dict(text(), id=7)), "id 7 used twice"),
    (cv2(container(row(*[button(f"b{i}") for i in range(6)]))), "6 buttons"),
    (cv2(row(menu("m"), button("b"))), "alone in its row"),
    (cv2(row()), "empty action row"),
    (cv2(section(*[text() for _ in range(4)], accessory=THUMB)), "1 to 3 text displays"),
    (cv2(section(accessory=THUMB)), "1 to 3 text displays"),
    (cv2(section(text())), "needs a button or thumbnail"),
    (cv2(section(text(), accessory=menu("m"))), "cannot sit here"),
    (cv2(section(button("x"), accessory=THUMB)), "cannot sit here"),
    (cv2(gallery(0)), "1 to 10 items, not 0"),
    (cv2(gallery(11)), "1 to 10 items, not 11"),
    (cv2(container(container(text()))), "cannot sit here"),
    (cv2(container()), "an empty container"),
    (cv2(THUMB), "cannot sit here"),
    (cv2(button("loose")), "cannot sit here"),
    (cv2({"type": 14, "spacing": 3}), "spacing is 1"),
    (cv2({"type": 13, "file": {"url": "https://example.org/rules.pdf"}}), "attachment://"),
    (cv2(text("")), "needs content"),
    ({"components": [container(text())]}, "not an action row"),
    ({"components": [text()]}, "not an action row"),
]

ACCEPTED = [
    cv2(text()),
    cv2(*[text(str(i)) for i in range(40)]),
    cv2(container(*[text(str(i)) for i in range(39)])),
    cv2(text("x" * 2000), text("y" * 2000)),
    cv2(container(section(text("# Title"), text("-# small"), text("b"), accessory=button("a")),
                  {"type": 14, "divider": True, "spacing": 2},
                  row(*[button(f"b{i}") for i in range(5)]), row(menu("m")), gallery(10)),
        container(section(text(), accessory=THUMB), colour=None)),
    cv2({"type": 14, "divider": False, "spacing": 1}, gallery(1), text(), content="",
        embeds=[]),
    {"components": [row(button("a"), button("b"))], "content": "legacy"},
]


@pytest.mark.parametrize("body, problem", REFUSED)
def test_layout_rules_refuse(body: dict[str, Any], problem: str) -> None:
    problems = [text for _, text in message_errors(body)]
    assert any(problem in p for p in problems), problems


@pytest.mark.parametrize("body", ACCEPTED)
def test_layout_rules_accept(body: dict[str, Any]) -> None:
    assert message_errors(body) == []


async def test_refusals_carry_discords_error_tree(lb: Loopback, client: MiniBot) -> None:
    channel = lb.create_channel(lb.create_guild())
    path = f"/channels/{channel.id}/messages"
    status, out, _ = await client.rest("POST", path, cv2(
        text("ok"), container(text("a"), row(menu("m"), button("b")))))
    assert status == 400 and out["code"] == 50035 and out["message"] == "Invalid Form Body"
    leaf = out["errors"]["components"]["1"]["components"]["1"]["_errors"]
    assert "alone in its row" in leaf[0]["message"]
    status, out, _ = await client.rest("POST", path, cv2(text(), content="also"))
    assert status == 400 and "content" in out["errors"]
    assert consumed(lb) == ["limits", "limits"]
    assert lb.messages_for(channel, lb.create_user("Ann")) == []  # nothing was stored


async def test_pictures_and_files_must_be_uploaded(lb: Loopback, client: MiniBot) -> None:
    channel = lb.create_channel(lb.create_guild())
    path = f"/channels/{channel.id}/messages"
    shown = cv2(container(text("Table"), {"type": 12, "items": [
        {"media": {"url": "attachment://table.png"}, "description": "the table"}]}),
        {"type": 13, "file": {"url": "attachment://table.png"}})
    status, out, _ = await client.rest("POST", path, shown)
    assert status == 400 and "table.png" in str(out["errors"])
    assert consumed(lb) == ["limits", "limits"]
    body = dict(shown, attachments=[{"id": "0", "filename": "table.png"}])
    status, out, _ = await client.rest("POST", path, body, files={"table.png": PNG})
    assert status == 200, out
    url = out["components"][0]["components"][1]["items"][0]["media"]["url"]
    assert url == out["attachments"][0]["url"]  # resolved to the served file
    message = lb.message(out["id"])
    assert message.images() == ["attachment://table.png"]
    assert "Table" in message.text() and "the table" in message.text()
    # an edit keeping the upload may go on showing it; one dropping it may not
    status, _, _ = await client.rest("PATCH", f"{path}/{out['id']}", {"components": [
        container(text("Still"), {"type": 12, "items": [
            {"media": {"url": "attachment://table.png"}}]})]})
    assert status == 200
    dropped = {"attachments": [], "components": [gallery(1), {"type": 12, "items": [
        {"media": {"url": "attachment://table.png"}}]}]}
    status, _, _ = await client.rest("PATCH", f"{path}/{out['id']}", dropped)
    assert status == 400 and consumed(lb) == ["limits"]


async def test_edits_into_and_out_of_components_v2(lb: Loopback, client: MiniBot) -> None:
    channel = lb.create_channel(lb.create_guild())
    path = f"/channels/{channel.id}/messages"
    _, old, _ = await client.rest("POST", path, {"content": "lobby", "embeds": [
        {"description": "open"}]})
    # into the layout: content and embeds must go in the same edit
    status, out, _ = await client.rest("PATCH", f"{path}/{old['id']}", cv2(container(text())))
    assert status == 400 and {"content", "embeds"} <= set(out["errors"])
    status, out, _ = await client.rest("PATCH", f"{path}/{old['id']}",
                                     cv2(container(text()), content="", embeds=[]))
    assert status == 200 and out["flags"] & CV2 and out["content"] == ""
    # the flag stays: an edit without flags is still judged as a layout...
    status, _, _ = await client.rest("PATCH", f"{path}/{old['id']}",
                                   {"components": [container(text("turn 2"))]})
    assert status == 200 and lb.message(old["id"]).components_v2
    status, _, _ = await client.rest("PATCH", f"{path}/{old['id']}", {"content": "back"})
    assert status == 400
    # ...and it cannot be taken away
    status, out, _ = await client.rest("PATCH", f"{path}/{old['id']}", {
        "flags": 0, "content": "legacy", "components": []})
    assert status == 400 and "flags" in out["errors"]
    assert consumed(lb) == ["limits", "limits", "limits", "limits"]
    assert lb.message(old["id"]).text() == "turn 2"


async def test_people_click_nested_buttons_and_menus(lb: Loopback, client: MiniBot) -> None:
    guild = lb.create_guild()
    channel = lb.create_channel(guild)
    ann = lb.create_user("Ann")
    ix = await lb.command(ann, channel, "goblin new")
    data = await client.interaction()
    layout = cv2(container(
        section(text("## Table 1"), text("Ann's turn"), accessory=button("kg:hand:1", "My hand")),
        {"type": 14},
        row(menu("kg:hero:1")),
        row(button("kg:lobby:1:start", "Start"), {"type": 2, "style": 5, "label": "Rules",
                                                  "url": "https://example.org"})))
    status, _ = await client.respond(data, {"type": 4, "data": layout})
    assert status == 200
    await ix.done()
    table = lb.messages_for(channel, ann)[-1]
    assert table.custom_ids() == ["kg:hand:1", "kg:hero:1", "kg:lobby:1:start"]
    assert "Ann's turn" in table.text() and "My hand" in table.text()
    pick = await lb.select(ann, table, "kg:hero:1", ["b"])
    pdata = await client.interaction()
    assert pdata["data"] == {"custom_id": "kg:hero:1", "component_type": 3, "values": ["b"]}
    await client.respond(pdata, {"type": 6})
    await pick.answered()
    click = await lb.click(ann, table, "kg:hand:1")
    cdata = await client.interaction()
    assert cdata["data"] == {"custom_id": "kg:hand:1", "component_type": 2}
    assert cdata["message"]["flags"] & CV2
    await client.respond(cdata, {"type": 7, "data": {"components": [container(
        section(text("## Table 1"), accessory=dict(button("kg:hand:1", "My hand"),
                                                   disabled=True)))]}})
    await click.done()
    assert lb.message(table.id).components_v2 and lb.message(table.id).custom_ids() == [
        "kg:hand:1"]
    with pytest.raises(Exception, match="disabled"):
        await lb.click(ann, lb.message(table.id), "kg:hand:1")


def test_message_accessors_read_both_shapes() -> None:
    ann = User(1, "Ann")
    picture = Attachment(2, "hand.png", 9, "image/png", None, "s")
    extra = Attachment(3, "table.png", 9, "image/png", None, "s", description="the table")
    legacy = Message(10, 1, 1, ann, content="turn", embeds=[
        {"title": "Table 1", "description": "**Ann**", "image": {"url": "attachment://hand.png"}}],
        components=[row(button("kg:hand:1", "My hand"))], attachments=[picture, extra])
    assert legacy.images() == ["attachment://hand.png", "attachment://table.png"]
    assert legacy.custom_ids() == ["kg:hand:1"]
    assert all(s in legacy.text() for s in ("turn", "Table 1", "**Ann**", "My hand", "the table"))
    layout = Message(11, 1, 1, ann, flags=CV2, attachments=[picture, extra], components=[
        container(section(text("## Table 1"), accessory={"type": 11, "media": {
            "url": "attachment://hand.png"}, "description": "your hand"}),
            row(menu("kg:hero:1")))])
    assert layout.images() == ["attachment://hand.png"]  # a layout shows only what it names
    assert layout.custom_ids() == ["kg:hero:1"] and layout.component("kg:hero:1") is not None
    assert all(s in layout.text() for s in ("## Table 1", "your hand", "A", "B"))
