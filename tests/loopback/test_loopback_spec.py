"""The request validator holds a body to Discord's OpenAPI description: a Components V2 message
and a thread's edit pass, and a wrong type, a missing field or an unknown endpoint is
refused with where it is wrong."""
from __future__ import annotations

from typing import Any

import pytest
from shared_files import require_discord_api

from loopback.spec import spec

ROUTE = "/channels/1/messages"


def message() -> dict[str, Any]:
    """A Components V2 table message as the bot posts it: a container with text and a button."""
    return {"flags": 1 << 15, "components": [{"type": 17, "components": [
        {"type": 10, "content": "**Table #7** · Ann to move"},
        {"type": 1, "components": [
            {"type": 2, "style": 1, "label": "Your hand", "custom_id": "kg:hand:7"}]}]}]}


@pytest.fixture(autouse=True)
def _needs_the_description() -> None:
    require_discord_api("the request validator against Discord's API schema")


def test_a_well_formed_message_and_thread_pass() -> None:
    assert spec().problems("POST", ROUTE, message()) == (
        "/channels/{channel_id}/messages", [])
    assert spec().schema_problems("UpdateThreadRequestPartial", {"archived": False}) == []
    assert spec().check("DELETE", "/channels/1/messages/2", None) == (
        "/channels/{channel_id}/messages/{message_id}")


@pytest.mark.parametrize(("damage", "where"), [
    (lambda b: b.update(flags="lots"), "['flags']"),
    (lambda b: b["components"][0]["components"][1]["components"][0].update(style="blue"),
     "['components', 0"),
    (lambda b: b["components"][0]["components"][0].update(content=7), "['components', 0"),
])
def test_a_damaged_message_is_refused_and_the_fault_located(damage: Any, where: str) -> None:
    body = message()
    damage(body)
    _, problems = spec().problems("POST", ROUTE, body)
    assert len(problems) == 1 and "violates the Discord API schema" in problems[0]
    assert where in problems[0], problems[0]
    with pytest.raises(AssertionError):
        spec().check("POST", ROUTE, body)


def test_unknown_endpoints_and_stray_bodies_are_refused() -> None:
    assert spec().problems("POST", "/nowhere", {})[1] == [
        "POST /nowhere is not an endpoint of the Discord API"]
    assert spec().problems("DELETE", "/channels/1/messages/2", {"x": 1})[1]
    assert spec().schema_problems("UpdateThreadRequestPartial", {"archived": "no"})
