"""Refusals and faults the stand-in produces on its clock or schedule: the edit limit of
messages older than an hour (JSON code 30046), 429s on a seeded schedule with the record of each
retry, and damaged component interactions on the gateway."""
from __future__ import annotations

import argparse

import pytest
from minibot import MiniBot

from loopback import FAKE_TOKEN, GlobalLimit, Loopback, ManualClock, Schedule, World
from loopback.__main__ import schedule


async def test_messages_older_than_an_hour_take_few_edits(lb: Loopback, client: MiniBot,
                                                          clock: ManualClock) -> None:
    channel = lb.create_channel(lb.create_guild())
    path = f"/channels/{channel.id}/messages"
    _, old, _ = await client.rest("POST", path, {"content": "table"})
    for i in range(10):  # a young message: edits are free
        assert (await client.rest("PATCH", f"{path}/{old['id']}", {"content": f"v{i}"}))[0] == 200
    clock.advance(3601)
    for i in range(lb.old_message_edits):
        assert (await client.rest("PATCH", f"{path}/{old['id']}", {"content": f"w{i}"}))[0] == 200
        clock.advance(60)
    status, out, headers = await client.rest("PATCH", f"{path}/{old['id']}", {"content": "late"})
    assert status == 429 and out["code"] == 30046 and "older than 1 hour" in out["message"]
    assert out["retry_after"] == pytest.approx(3600 - 3 * 60, abs=1)
    assert "Via" not in headers  # not a bucket limit: clients raise it instead of waiting
    assert lb.message(old["id"]).content == f"w{lb.old_message_edits - 1}"
    assert [b.rule for b in lb.breaches] == ["old-edit"]
    lb.breaches.clear()
    # a new message of the same channel is young again; the old one recovers after an hour
    _, new, _ = await client.rest("POST", path, {"content": "table 2"})
    assert (await client.rest("PATCH", f"{path}/{new['id']}", {"content": "x"}))[0] == 200
    clock.advance(3600)
    assert (await client.rest("PATCH", f"{path}/{old['id']}", {"content": "again"}))[0] == 200


async def test_an_update_response_counts_as_an_edit(lb: Loopback, client: MiniBot,
                                                    clock: ManualClock) -> None:
    channel = lb.create_channel(lb.create_guild())
    ann = lb.create_user("Ann")
    row = [{"type": 1, "components": [{"type": 2, "style": 1, "label": "Go",
                                       "custom_id": "kg:go"}]}]
    lobby = lb.plant_message(channel, row, "lobby")
    clock.advance(2 * 3600)
    for i in range(lb.old_message_edits + 1):
        click = await lb.click(ann, lb.message(lobby.id), "kg:go")
        data = await client.interaction()
        status, out = await client.respond(data, {"type": 7, "data": {"content": f"n{i}"}})
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


async def _post_many(world: World, channel_id: int, n: int) -> list[int]:
    """POST ``n`` messages straight to the world; the statuses, waiting out each 429."""
    statuses = []
    for i in range(n):
        reply = await world.rest("POST", f"/channels/{channel_id}/messages", {},
                                 f"Bot {FAKE_TOKEN}", {"content": f"m{i}"}, [])
        statuses.append(reply.status)
        if reply.status == 429:
            assert isinstance(world.clock, ManualClock)
            world.clock.advance(reply.body["retry_after"])
    return statuses


def _world(seed: int) -> World:
    return World(clock=ManualClock(), validate=False, token=FAKE_TOKEN,
                 rate_limits=Schedule(seed=seed, rate=0.3, retry_after=0.5, global_share=0.5))


async def test_scheduled_429s_follow_their_seed() -> None:
    worlds = [_world(11), _world(11), _world(12)]
    runs = []
    for world in worlds:
        channel = world.create_channel(world.create_guild())
        runs.append(await _post_many(world, channel.id, 60))
    assert runs[0] == runs[1] != runs[2]
    assert 5 <= runs[0].count(429) <= 35 and runs[0].count(200) + runs[0].count(429) == 60
    assert worlds[0].limiter.scheduled == runs[0].count(429)
    # every wait was honoured: each retry is recorded, none early, no breach
    assert worlds[0].limiter.retries and worlds[0].limiter.early == 0
    assert worlds[0].breaches == []
    assert World(validate=False).limiter.schedule is None  # off by default


async def test_scheduled_429s_look_like_discords_and_early_retries_count() -> None:
    world = World(clock=ManualClock(), validate=False, token=FAKE_TOKEN,
                  rate_limits=Schedule(seed=3, rate=1.0, retry_after=0.5, global_share=0.0))
    channel = world.create_channel(world.create_guild())
    path = f"/channels/{channel.id}/messages"
    first = await world.rest("POST", path, {}, f"Bot {FAKE_TOKEN}", {"content": "a"}, [])
    assert first.status == 429 and first.body == {
        "message": "You are being rate limited.", "retry_after": 0.5, "global": False}
    assert first.headers["X-RateLimit-Scope"] == "user" and "X-RateLimit-Global" not in (
        first.headers)
    assert first.headers["X-RateLimit-Reset-After"] == "0.500" and first.headers["Via"]
    await world.rest("POST", path, {}, f"Bot {FAKE_TOKEN}", {"content": "a"}, [])  # too soon
    assert world.limiter.early == 1 and [b.rule for b in world.breaches] == ["retry"]
    world.breaches.clear()
    assert isinstance(world.clock, ManualClock)
    world.clock.advance(0.5)
    await world.rest("POST", path, {}, f"Bot {FAKE_TOKEN}", {"content": "a"}, [])  # on time
    assert [r.honoured for r in world.limiter.retries] == [False, True]
    # a global 429 holds every route back
    glob = World(clock=ManualClock(), validate=False, token=FAKE_TOKEN,
                 rate_limits=Schedule(seed=3, rate=1.0, retry_after=2.0, global_share=1.0))
    channel = glob.create_channel(glob.create_guild())
    reply = await glob.rest("POST", f"/channels/{channel.id}/messages", {}, f"Bot {FAKE_TOKEN}",
                            {"content": "a"}, [])
    assert reply.body["global"] is True and reply.headers["X-RateLimit-Global"] == "true"
    await glob.rest("GET", f"/channels/{channel.id}", {}, f"Bot {FAKE_TOKEN}", None, [])
    assert glob.limiter.early == 1 and glob.limiter.retries[0].global_
    glob.breaches.clear()


@pytest.mark.parametrize("how, expected", [
    ("no_custom_id", {"component_type": 2}),
    ("int_custom_id", {"custom_id": 1234567890, "component_type": 2}),
    ("no_component_type", {"custom_id": "kg:go"}),
])
async def test_malformed_component_events_on_demand(lb: Loopback, client: MiniBot, how: str,
                                                    expected: dict[str, object]) -> None:
    channel = lb.create_channel(lb.create_guild())
    ann = lb.create_user("Ann")
    row = [{"type": 1, "components": [{"type": 2, "style": 1, "label": "Go",
                                       "custom_id": "kg:go"}]}]
    message = lb.plant_message(channel, row, "lobby")
    lb.send_malformed(how)
    click = await lb.click(ann, message, "kg:go")
    data = await client.interaction()
    assert data["data"] == expected
    assert click.data == {"custom_id": "kg:go", "component_type": 2}  # what Ann did
    await client.respond(data, {"type": 6})
    await click.answered()
    lb.send_malformed(None)
    await lb.click(ann, message, "kg:go")
    assert (await client.interaction())["data"] == {"custom_id": "kg:go", "component_type": 2}
    with pytest.raises(ValueError, match="unknown damage"):
        lb.send_malformed("no_values")
    lb.breaches.clear()  # the second click was left unanswered on purpose


def test_the_command_line_turns_the_schedule_on() -> None:
    assert schedule("7:0.05") == Schedule(7, 0.05)
    for bad in ("7", "x:0.1", "7:1.5"):
        with pytest.raises(argparse.ArgumentTypeError):
            schedule(bad)


async def test_interaction_routes_are_outside_the_global_limit() -> None:
    world = World(clock=ManualClock(), validate=False, token=FAKE_TOKEN,
                  rate_limits=Schedule(seed=3, rate=1.0, retry_after=2.0, global_share=1.0))
    channel = world.create_channel(world.create_guild())
    reply = await world.rest("POST", f"/channels/{channel.id}/messages", {}, f"Bot {FAKE_TOKEN}",
                             {"content": "a"}, [])
    assert reply.body["global"] is True
    # an interaction's callback and webhook: limited per token only, never globally, and not
    # held back by the global 429 just answered
    for method, path in (("POST", "/interactions/1/tok/callback"),
                         ("PATCH", "/webhooks/1/tok/messages/@original")):
        reply = await world.rest(method, path, {}, None, {"type": 6}, [])
        assert reply.status == 429 and reply.body["global"] is False
        assert "X-RateLimit-Global" not in reply.headers
    assert world.limiter.retries == [] and world.breaches == []


async def test_the_global_limit_counts_every_route_but_the_interactions() -> None:
    clock = ManualClock()
    world = World(clock=clock, validate=False, token=FAKE_TOKEN,
                  global_limit=GlobalLimit(limit=3, period=1.0))
    guild = world.create_guild()
    channels = [world.create_channel(guild) for _ in range(4)]

    async def post(n: int) -> int:
        reply = await world.rest("POST", f"/channels/{channels[n].id}/messages", {},
                                 f"Bot {FAKE_TOKEN}", {"content": "a"}, [])
        return reply.status

    assert [await post(n) for n in range(3)] == [200, 200, 200]  # three channels, one limit
    clock.advance(0.4)
    # an interaction's callback is outside the limit: answered as usual (here: unknown)
    callback = await world.rest("POST", "/interactions/1/tok/callback", {}, None,
                                {"type": 6}, [])
    assert callback.status != 429
    assert [b.rule for b in world.breaches] == ["unknown"]
    world.breaches.clear()
    reply = await world.rest("POST", f"/channels/{channels[3].id}/messages", {},
                             f"Bot {FAKE_TOKEN}", {"content": "a"}, [])
    assert reply.status == 429 and reply.body["global"] is True
    assert reply.headers["X-RateLimit-Global"] == "true"
    assert reply.body["retry_after"] == pytest.approx(0.6, abs=0.002)
    clock.advance(0.6)  # the first three left the window
    assert await post(3) == 200
    assert world.limiter.global_limited == 1 and world.limiter.busiest == 3
    assert world.breaches == []
