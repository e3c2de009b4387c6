"""Refusals and faults the stand-in produces on its clock or schedule: the edit limit of
messages older than an hour (JSON code 30046)."""
from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from minibot import GOBLIN, MiniBot

from loopback import Loopback, ManualClock


@pytest.fixture
async def mini(lb: Loopback) -> AsyncIterator[MiniBot]:
    bot = MiniBot(lb)
    await bot.connect("zlib-stream")
    await bot.next_op(0, "READY")
    await bot.register([GOBLIN])
    yield bot
    await bot.close()


async def test_messages_older_than_an_hour_take_few_edits(lb: Loopback, mini: MiniBot,
                                                          clock: ManualClock) -> None:
    channel = lb.create_channel(lb.create_guild())
    path = f"/channels/{channel.id}/messages"
    _, old, _ = await mini.rest("POST", path, {"content": "table"})
    for i in range(10):  # a young message: edits are free
        assert (await mini.rest("PATCH", f"{path}/{old['id']}", {"content": f"v{i}"}))[0] == 200
    clock.advance(3601)
    for i in range(lb.old_message_edits):
        assert (await mini.rest("PATCH", f"{path}/{old['id']}", {"content": f"w{i}"}))[0] == 200
        clock.advance(60)
    status, out, headers = await mini.rest("PATCH", f"{path}/{old['id']}", {"content": "late"})
    assert status == 429 and out["code"] == 30046 and "older than 1 hour" in out["message"]
    assert out["retry_after"] == pytest.approx(3600 - 3 * 60, abs=1)
    assert "Via" not in headers  # not a bucket limit: clients raise it instead of waiting
    assert lb.message(old["id"]).content == f"w{lb.old_message_edits - 1}"
    assert [b.rule for b in lb.breaches] == ["old-edit"]
    lb.breaches.clear()
    # a new message of the same channel is young again; the old one recovers after an hour
    _, new, _ = await mini.rest("POST", path, {"content": "table 2"})
    assert (await mini.rest("PATCH", f"{path}/{new['id']}", {"content": "x"}))[0] == 200
    clock.advance(3600)
    assert (await mini.rest("PATCH", f"{path}/{old['id']}", {"content": "again"}))[0] == 200


async def test_an_update_response_counts_as_an_edit(lb: Loopback, mini: MiniBot,
                                                    clock: ManualClock) -> None:
    channel = lb.create_channel(lb.create_guild())
    ann = lb.create_user("Ann")
    row = [{"type": 1, "components": [{"type": 2, "style": 1, "label": "Go",
                                       "custom_id": "kg:go"}]}]
    lobby = lb.plant_message(channel, row, "lobby")
    clock.advance(2 * 3600)
    for i in range(lb.old_message_edits + 1):
        click = await lb.click(ann, lb.message(lobby.id), "kg:go")
        data = await mini.interaction()
        status, out = await mini.respond(data, {"type": 7, "data": {"content": f"n{i}"}})
        if i < lb.old_message_edits:
            assert status == 200
            await click.done()
    assert status == 429 and out["code"] == 30046
    assert [b.rule for b in lb.breaches] == ["old-edit"]
    lb.breaches.clear()
    clock.advance(4)  # the refused click was never answered: it fails, as on Discord
    lb.check_deadlines()
    assert click.failed and [b.rule for b in lb.breaches] == ["late"]
    lb.breaches.clear()
