"""Opening a table as people do (/goblin new, Join, Add AI, Start), also while the bot may die
at any moment, and waiting for the stand-in to show a change."""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from bot.discord_side.ui.custom_ids import AbandonButton, HandButton, LobbyButton
from loopback import Channel, Interaction, InteractionFailed, Loopback, Message, User

from .messages import hand_button, lobby_button, lobby_table
from .oracle import Oracle


async def open_table(lb: Loopback, channel: Channel, host: User, others: list[User],
                     ai: int = 0, **options: Any) -> int:
    """Open a lobby with /goblin new (with ``options``, e.g. ``ai_level="hard"``), let the
    others join, add AI seats and start."""
    ix = await lb.command(host, channel, "goblin new", **options)
    await ix.done()
    lobby = lb.message(ix.original_id or 0)
    tid = lobby_table(lobby)
    for who, op in [(u, "join") for u in others] + [(host, "ai")] * ai + [(host, "start")]:
        current = lb.message(lobby.id)
        ix = await lb.click(who, current, lobby_button(current, tid, op))
        await ix.done()
    await until(lb, lambda: any(hand_button(m) == HandButton.id_for(tid)
                                for m in lb.messages_for(channel, host)))
    return tid


async def settle(ix: Interaction, timeout: float = 15) -> bool:
    """Wait for an interaction's answer; False when it was lost (the bot died under it)."""
    try:
        await ix.done(timeout)
    except InteractionFailed:
        return False
    return True


def lobby_message(lb: Loopback, channel: Channel, host: User, tid: int) -> Message | None:
    """The newest message of the channel holding table ``tid``'s lobby buttons."""
    found = [m for m in lb.messages_for(channel, host)
             if any(c.startswith(LobbyButton.start(tid)) for c in m.custom_ids())]
    return found[-1] if found else None


async def open_table_despite_crashes(lb: Loopback, oracle: Oracle, channel: Channel, host: User,
                                     others: list[User], ai: int = 0, tries: int = 60) -> int:
    """:func:`open_table` while the bot may die at any moment: every step is checked in the
    database and done again if it was lost, as people would (AI seats first: a lobby message
    whose last edit was lost refuses Add AI once it shows fewer seats than there are). A lobby
    whose message was never posted is abandoned with /goblin abandon and opened again."""
    tid: int | None = None
    for _ in range(tries):
        await until(lb, lambda: lb.gateway.connected(), 90)
        if tid is None:
            await settle(await lb.command(host, channel, "goblin new"))
            tid = oracle.active_in(channel.id)
            if tid is None:
                continue
        rec = oracle.table(tid)
        if rec.status == "running":
            break
        lobby = lobby_message(lb, channel, host, tid)
        if rec.status != "lobby" or lobby is None:
            if rec.status == "lobby":  # the bot died before posting the lobby: start again
                await settle(await lb.command(host, channel, "goblin abandon"))
            tid = None
            continue
        missing = [u for u in others if rec.seat_of(u.id) is None]
        if sum(s.ai for s in rec.seats) < ai:
            who, op = host, "ai"
        elif missing:
            who, op = missing[0], "join"
        else:
            who, op = host, "start"
        await settle(await lb.click(who, lobby, lobby_button(lobby, tid, op)))
    else:
        raise AssertionError("the table could not be opened")
    assert tid is not None
    await until(lb, lambda: any(hand_button(m) == HandButton.id_for(tid)
                                for m in lb.messages_for(channel, host)), 90)
    return tid


async def until(lb: Loopback, predicate: Callable[[], bool], timeout: float = 20) -> None:
    """Wait until ``predicate()`` holds, re-checking whenever the stand-in changes."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("the expected change never came")
        await lb.changed(lb.version, 0.5)


async def abandon_confirmed(lb: Loopback, channel: Channel, user: User) -> Interaction:
    """``user`` runs /goblin abandon and confirms when asked (a running match); the last
    interaction (the confirmation's click, or the command)."""
    asked = await lb.command(user, channel, "goblin abandon")
    await asked.done(10)
    question = lb.messages.get(asked.original_id or 0)
    buttons = [c for c in question.custom_ids() if c.startswith(AbandonButton.prefix)] \
        if question is not None else []
    if not buttons:
        return asked
    return await lb.click(user, question, buttons[0])
