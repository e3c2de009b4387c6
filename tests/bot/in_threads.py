"""Playing a match in its thread on the stand-in: its table message, its players, its link,
and a match started into a new thread."""
from __future__ import annotations

from live_bot import GUILD, LiveBot, table_id
from players import ANN, Players

from bot.discord_side.ui.custom_ids import HandButton, LobbyButton
from loopback import Channel, Message


def table_message(h: LiveBot, where: Channel) -> Message:
    """The newest table message in ``where`` (a channel or a thread)."""
    return next(m for m in reversed(h.public(where))
                if any(c.startswith(HandButton.prefix) for c in m.custom_ids()))


class ThreadPlayers(Players):
    """Players of a match played in ``thread``."""

    def __init__(self, h: LiveBot, tid: int, users: list[object], thread: Channel) -> None:
        super().__init__(h, tid, users)  # type: ignore[arg-type]
        self.thread = thread

    async def open_hand(self, user: object) -> Message:
        ix = await self.h.click(user, table_message(self.h, self.thread),  # type: ignore[arg-type]
                                HandButton.id_for(self.tid))
        hand = self.h.reply(ix)
        self.hand_msgs[user.id] = hand.id  # type: ignore[attr-defined]
        return hand


def link(thread: Channel) -> str:
    """The link that opens ``thread``."""
    return f"https://discord.com/channels/{GUILD}/{thread.id}"


async def started(h: LiveBot, host: object = ANN, ai: int = 1,
                  channel: Channel | None = None) -> tuple[int, Channel]:
    """``host`` opens a match with ``ai`` AI seats in ``channel`` and starts it; its id and
    the thread it moved to."""
    where = channel or h.channel
    before = {t.id for t in h.lb.threads_of(where)}
    await h.command(host, "new", channel=where)  # type: ignore[arg-type]
    tid = await start_lobby(h, h.public(where)[-1], host, ai)
    thread = next(t for t in h.lb.threads_of(where) if t.id not in before)
    return tid, thread


async def start_lobby(h: LiveBot, lobby: Message, host: object = ANN, ai: int = 1) -> int:
    """``host`` adds ``ai`` AI seats to ``lobby`` and starts its match; the table's id."""
    tid = table_id(lobby)
    for _ in range(ai):
        await h.click(host, lobby, LobbyButton.id_for(tid, "ai", None))  # type: ignore[arg-type]
    await h.click(host, lobby, LobbyButton.id_for(tid, "start", None))  # type: ignore[arg-type]
    return tid
