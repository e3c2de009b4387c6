"""The one place that knows the custom_id format of the bot's buttons and menus.

Every custom_id is ``kg:<kind>:<table>[:...]`` and carries what the click needs (table id, state
version or lobby revision, move notation), never more than 100 characters, so a click works after
a restart and after any time. Discord hands the clicked custom_id to
:meth:`GoblinItem.from_custom_id`, which parses it once into a typed target; a damaged or forged
id becomes :class:`Unreadable`, which still gets a polite answer.
"""

from __future__ import annotations

import re
from typing import Any, Protocol, cast

import discord

from bot.discord_side.ui.targets import (
    PAST,
    Abandon,
    Back,
    BoardPage,
    HeroPick,
    HintAsk,
    HistoryPage,
    LevelPick,
    LobbyOp,
    Move,
    OpenHand,
    Pick,
    Quit,
    RematchOp,
    ReplayGo,
    ReplaySeek,
    ReplayShare,
    ShowLog,
    Sure,
    Target,
    Unreadable,
)
from bot.game.seats import MAX_SEATS

PREFIX = "kg"
MAX_CUSTOM_ID = 100
LOBBY_OPS = ("join", "leave", "ai", "unai", "start", "cancel")
#: The buttons of a replay message: where each leads from the step shown.
REPLAY_OPS = ("open", "first", "prev", "next", "last", "pturn", "nturn", "flip")
REMATCH_OPS = ("offer", "ready", "start")
_TEMPLATE = re.compile(r"kg:.*", re.DOTALL)


#: The kind of component each target is drawn as.
_COMPONENT: dict[type, type[discord.ui.Item[Any]]] = {
    OpenHand: discord.ui.Button, ShowLog: discord.ui.Button, Move: discord.ui.Button,
    LobbyOp: discord.ui.Button, Sure: discord.ui.Button, Back: discord.ui.Button,
    Quit: discord.ui.Button, Abandon: discord.ui.Button, BoardPage: discord.ui.Button,
    HintAsk: discord.ui.Button,
    Pick: discord.ui.Select, HeroPick: discord.ui.Select, LevelPick: discord.ui.Select,
    HistoryPage: discord.ui.Button, ReplayGo: discord.ui.Button, ReplayShare: discord.ui.Button,
    RematchOp: discord.ui.Button, ReplaySeek: discord.ui.Select,
}


def _join(*parts: object) -> str:
    text = ":".join(str(p) for p in (PREFIX, *parts))
    if len(text) > MAX_CUSTOM_ID:
        raise ValueError(f"custom_id too long: {text!r}")
    return text


def hand_id(table: int) -> str:
    """The custom_id of a table's "My hand" button."""
    return _join("hand", table)


def log_id(table: int) -> str:
    """The custom_id of a table's "Log" button."""
    return _join("log", table)


def move_id(table: int, version: int, notation: str) -> str:
    """The custom_id of a move button."""
    return _join("do", table, version, notation)


def sure_id(table: int, version: int, notation: str) -> str:
    """The custom_id of the button confirming a move easy to regret."""
    return _join("sure", table, version, notation)


def back_id(table: int) -> str:
    """The custom_id of the button going back from that question to the hand."""
    return _join("back", table)


def hint_id(table: int, version: int) -> str:
    """The custom_id of a hand message's Hint button."""
    return _join("hint", table, version)


def pick_id(table: int, version: int, menu: str) -> str:
    """The custom_id of a move menu (``menu`` tells the menus of one message apart)."""
    return _join("pick", table, version, menu)


def lobby_id(table: int, op: str, revision: int) -> str:
    """The custom_id of a lobby button."""
    return _join("lobby", table, op, revision)


def hero_id(table: int) -> str:
    """The custom_id of a lobby's hero menu."""
    return _join("hero", table)


def level_id(table: int, seat: int, revision: int) -> str:
    """The custom_id of the level menu of AI seat ``seat`` (counted from 0) of a lobby."""
    return _join("level", table, seat, revision)


def abandon_id(table: int) -> str:
    """The custom_id of the button that confirms abandoning table ``table``."""
    return _join("abandon", table)


def history_id(anchor: int, way: str, player: int | None) -> str:
    """The custom_id of a ``/goblin history`` page button."""
    return _join("hist", anchor, way, player or 0)


def replay_id(table: int, step: int, reveal: bool, op: str) -> str:
    """The custom_id of a replay button drawn at ``step``."""
    return _join("rp", table, step, f"{'r' if reveal else 'h'}.{op}")


def seek_id(table: int, reveal: bool) -> str:
    """The custom_id of a replay's bookmark menu."""
    return _join("rs", table, "r" if reveal else "h")


def share_id(table: int) -> str:
    """The custom_id of a replay's Share button."""
    return _join("rsh", table)


def rematch_id(table: int, op: str) -> str:
    """The custom_id of a Rematch, Ready or Start button."""
    return _join("rm", table, op)


def quit_id(table: int, sure: bool = False) -> str:
    """The custom_id of a solo table's Leave button (``sure``: of the button confirming it)."""
    return _join("quit", table, "y") if sure else _join("quit", table)


def board_id(guild: int, page: int) -> str:
    """The custom_id of a leaderboard page button (the server and the page it shows)."""
    return _join("board", guild, page)


def _number(text: str, least: int) -> int:
    if not text.isdigit():
        raise ValueError(text)
    value = int(text)
    if value < least:
        raise ValueError(text)
    return value


def is_ours(custom_id: str) -> bool:
    """True for a custom_id in the bot's format (its items claim it, even a damaged one)."""
    return _TEMPLATE.fullmatch(custom_id) is not None


def parse(custom_id: str) -> Target:
    """The target of one of our custom_ids (never raises)."""
    parts = custom_id.split(":", 4)
    try:
        if parts[0] != PREFIX or len(custom_id) > MAX_CUSTOM_ID:
            raise ValueError(custom_id)
        kind, table = parts[1], _number(parts[2], 1)
        rest = parts[3:]
        match kind, rest:
            case "hand", []:
                return OpenHand(table)
            case "log", []:
                return ShowLog(table)
            case "quit", []:
                return Quit(table)
            case "quit", ["y"]:
                return Quit(table, sure=True)
            case "abandon", []:
                return Abandon(table)
            case "hero", [] | [_]:  # an older bot's menu carried the lobby's size
                return HeroPick(table)
            case "lobby", [op] if op in LOBBY_OPS:
                return LobbyOp(table, op)
            case "lobby", [op, revision] if op in LOBBY_OPS:
                return LobbyOp(table, op, _number(revision, 0))
            case "level", [seat, revision] if _number(seat, 0) < MAX_SEATS:
                return LevelPick(table, int(seat), _number(revision, 0))
            case "do", [version, notation] if notation:
                return Move(table, _number(version, 0), notation)
            case "sure", [version, notation] if notation:
                return Sure(table, _number(version, 0), notation)
            case "back", []:
                return Back(table)
            case "hint", [version]:
                return HintAsk(table, _number(version, 0))
            case "board", [page]:
                return BoardPage(table, _number(page, 0))
            case "pick", [version, menu] if menu:
                return Pick(table, _number(version, 0), menu)
            case "hist", [way, player] if way in ("o", "n"):
                return HistoryPage(table, way, _number(player, 0))
            case "rp", [step, code] if code[:2] in ("h.", "r.") and code[2:] in REPLAY_OPS:
                return ReplayGo(table, _number(step, 0), code[0] == "r", code[2:])
            case "rs", [mode] if mode in ("h", "r"):
                return ReplaySeek(table, mode == "r")
            case "rsh", []:
                return ReplayShare(table)
            case "rm", [op] if op in REMATCH_OPS:
                return RematchOp(table, op)
    except (IndexError, ValueError):
        pass
    return Unreadable(custom_id[:MAX_CUSTOM_ID])


class Clicks(Protocol):
    """What answers a click (:class:`bot.discord_side.interactions.Interactions`)."""

    async def on_click(self, interaction: discord.Interaction[Any], target: Target,
                       values: list[str]) -> None:
        """Answer one click on ``target`` (``values``: a menu's picked values)."""
        ...


class HasClicks(Protocol):
    """The client, as the items see it: it knows who answers clicks."""

    clicks: Clicks


class GoblinItem(discord.ui.DynamicItem[discord.ui.Item[Any]], template=_TEMPLATE):
    """Every button and menu of the bot, rebuilt from its custom_id when clicked."""

    def __init__(self, item: discord.ui.Item[Any], target: Target | None = None) -> None:
        super().__init__(item)
        self.target = target if target is not None else parse(
            str(getattr(item, "custom_id", "")))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /) -> GoblinItem:
        """Wrap the clicked component with its parsed target; a target sent through a kind of
        component it never belongs to (a move button's id from a menu) is unreadable."""
        target = parse(match.string)
        if not isinstance(item, _COMPONENT.get(type(target), discord.ui.Item)):
            target = Unreadable(match.string[:MAX_CUSTOM_ID])
        return cls(item, target)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Hand the click to whoever answers clicks."""
        values = [str(v) for v in getattr(self.item, "values", None) or []]
        client = cast(HasClicks, interaction.client)
        await client.clicks.on_click(interaction, self.target, values)


__all__ = [
    "Abandon", "Back", "BoardPage", "GoblinItem", "HeroPick", "HintAsk", "HistoryPage", "LevelPick",
    "LobbyOp", "Move", "OpenHand", "PAST", "Pick", "Quit", "RematchOp", "ReplayGo", "ReplaySeek",
    "ReplayShare", "ShowLog", "Sure", "Target", "Unreadable", "abandon_id", "back_id", "board_id",
    "hand_id", "hero_id", "hint_id", "history_id", "is_ours", "level_id", "lobby_id", "log_id",
    "move_id", "parse", "pick_id", "quit_id", "rematch_id", "replay_id", "seek_id", "share_id",
    "sure_id",
]
