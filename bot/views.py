"""Discord components: one persistent dynamic item for every button and menu, and the builders
of the lobby, table and hand views.

Every custom_id starts with ``kg:`` and carries what the click needs (table id, state version,
move notation), never more than 100 characters, so a click works after a restart and after any
time. The views hold no game state: a click is routed to :class:`bot.controller.Controller`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord

from bot.present import Controls
from bot.service import MAX_SEATS, heroes
from i18n import msg, translate

if TYPE_CHECKING:
    from bot.client import KarakBot

PREFIX = "kg:"
MAX_CUSTOM_ID = 100
_TEMPLATE = re.compile(r"kg:(?P<body>.*)", re.DOTALL)
STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}
LOBBY_OPS = ("join", "leave", "ai", "unai", "start", "cancel")


@dataclass(frozen=True, slots=True)
class Target:
    """What a custom_id asks for: ``kind`` (hand, do, pick, lobby, hero), the table, a version,
    and the move notation or lobby operation."""

    kind: str
    table: int
    version: int | None = None
    arg: str = ""


class BadCustomId(ValueError):
    """A custom_id of ours that does not parse (damaged, forged or from an older bot)."""


def parse_custom_id(body: str) -> Target:
    """Read the part after ``kg:``; raises :class:`BadCustomId`."""
    parts = body.split(":", 3)
    try:
        kind = parts[0]
        table = int(parts[1])
        if table <= 0:
            raise ValueError
        if kind == "hand" and len(parts) == 2:
            return Target("hand", table)
        if kind == "hero" and len(parts) == 2:
            return Target("hero", table)
        if kind == "lobby" and len(parts) == 3 and parts[2] in LOBBY_OPS:
            return Target("lobby", table, arg=parts[2])
        if kind == "lobby" and len(parts) == 4 and parts[2] in LOBBY_OPS:
            seats = int(parts[3])  # the lobby's seat count when the button was drawn
            if seats < 0:
                raise ValueError
            return Target("lobby", table, seats, parts[2])
        if kind in ("do", "pick") and len(parts) == 4:
            version = int(parts[2])
            if version < 0 or not parts[3]:
                raise ValueError
            return Target(kind, table, version, parts[3])
    except (IndexError, ValueError):
        pass
    raise BadCustomId(body[:80])


def custom_id(kind: str, table: int, *rest: object) -> str:
    """Build a custom_id (at most 100 characters)."""
    text = ":".join(["kg", kind, str(table), *(str(r) for r in rest)])
    if len(text) > MAX_CUSTOM_ID:
        raise ValueError(f"custom_id too long: {text!r}")
    return text


class GoblinItem(discord.ui.DynamicItem[discord.ui.Item[Any]], template=_TEMPLATE):
    """Every button and menu of the bot, rebuilt from its custom_id when clicked."""

    def __init__(self, item: discord.ui.Item[Any], body: str = "") -> None:
        super().__init__(item)
        self.body = body

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /) -> GoblinItem:
        """Wrap the clicked component; parsing waits for the callback so errors get a reply."""
        return cls(item, match["body"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Hand the click to the controller."""
        bot: KarakBot = interaction.client
        values = list(getattr(self.item, "values", []) or [])
        await bot.controller.on_component(interaction, self.body, values)


def _button(label: str, cid: str, style: discord.ButtonStyle, row: int | None = None,
            disabled: bool = False) -> GoblinItem:
    return GoblinItem(discord.ui.Button(label=label[:80], custom_id=cid, style=style, row=row,
                                        disabled=disabled))


def _text(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def table_view(table: int, locale: str) -> discord.ui.View:
    """The public table message's view: the "My hand" button."""
    view = discord.ui.View(timeout=None)
    view.add_item(_button(translate(msg("bot.table.my_hand"), locale), custom_id("hand", table),
                          discord.ButtonStyle.primary))
    return view


def lobby_view(table: int, taken: set[str], seats: int, locale: str,
               ai_seats: int = 0) -> discord.ui.View:
    """The lobby's hero menu, its Join / Leave / Start / Cancel buttons and, on a second row,
    Add AI seat / Remove AI seat.

    The Remove AI seat button carries the number of seats (the lobby's version), so a double
    click removes one seat; an Add AI seat click is checked against the same number, read from
    the clicked message.
    """
    view = discord.ui.View(timeout=None)
    options = [discord.SelectOption(label=_text(translate(msg(f"hero.{h}.name"), locale), 100),
                                    value=h,
                                    description=_text(translate(msg(f"hero.{h}.title"), locale),
                                                      100))
               for h in heroes() if h not in taken]
    if options:
        view.add_item(GoblinItem(discord.ui.Select(
            custom_id=custom_id("hero", table), options=options, row=0,
            placeholder=translate(msg("bot.lobby.pick_hero"), locale))))
    full = seats >= MAX_SEATS
    buttons = (("join", discord.ButtonStyle.success, 1, full, ()),
               ("leave", discord.ButtonStyle.secondary, 1, False, ()),
               ("start", discord.ButtonStyle.primary, 1, seats < 2, ()),
               ("cancel", discord.ButtonStyle.danger, 1, False, ()),
               ("ai", discord.ButtonStyle.secondary, 2, full, ()),
               ("unai", discord.ButtonStyle.secondary, 2, ai_seats == 0, (seats,)))
    for op, style, row, disabled, rest in buttons:
        view.add_item(_button(translate(msg(f"bot.lobby.{op}"), locale),
                              custom_id("lobby", table, op, *rest), style, row=row,
                              disabled=disabled))
    return view


def moves_view(table: int, version: int, controls: Controls, locale: str) -> discord.ui.View:
    """The buttons and menus of one decision, each carrying the table version."""
    view = discord.ui.View(timeout=None)
    row = 0
    for i, menu in enumerate(controls.menus):
        options = [discord.SelectOption(
            label=_text(translate(c.label, locale), 100), value=c.notation,
            description=_text(translate(c.description, locale), 100) if c.description else None)
            for c in menu.choices]
        view.add_item(GoblinItem(discord.ui.Select(
            custom_id=custom_id("pick", table, version, f"{menu.kind}{i}"), options=options,
            placeholder=_text(translate(menu.placeholder, locale), 150), row=row)))
        row += 1
    for buttons in controls.buttons:
        for choice in buttons:
            view.add_item(_button(translate(choice.label, locale),
                                  custom_id("do", table, version, choice.notation),
                                  STYLES[choice.style], row=row))
        row += 1
    return view
