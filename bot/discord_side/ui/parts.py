"""Small pieces shared by the message layouts: button styles, cut texts, buttons and menus that
carry our custom_ids, a picture, and Discord's size limits of a Components V2 message."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import discord

from bot.discord_side.ui.control import Control
from bot.discord_side.ui.custom_ids import control

STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}
#: The button style (in :data:`STYLES`) of each emphasis the game gives a move.
BY_EMPHASIS = {"main": "primary", "plain": "secondary", "good": "success", "risky": "danger"}
#: Discord's most options in one select menu (a longer list is split into several menus).
MAX_OPTIONS = 25
#: Discord's limits of one Components V2 message: components in all, characters of text,
#: buttons in a row.
MAX_COMPONENTS = 40
MAX_TEXT = 4000
ROW_BUTTONS = 5
#: The accent of lobbies and of tables nobody plays any more.
GOLD = 0xC8A951
GREY = 0x80848E


def cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters at a word's end (an ellipsis marks the cut; a text
    whose first words are longer than half the limit is cut within a word). A no-break space
    joins what it stands between ("5 HP", "n° 12"), which a cut never parts."""
    if len(text) <= limit:
        return text
    head = text[:limit - 1]
    if not text[limit - 1].isspace() or text[limit - 1] == "\u00a0":
        space = head.rfind(" ")
        if space >= limit // 2:
            head = head[:space]
    return head.rstrip(" ·,;:–-") + "…"


def button(label: str, custom_id: str, style: str = "secondary",
           disabled: bool = False) -> Control:
    """A button of ours (its click is routed by its custom_id)."""
    return control(discord.ui.Button(label=cut(label, 80), custom_id=custom_id,
                                        style=STYLES[style], disabled=disabled))


def menu(custom_id: str, placeholder: str, options: Sequence[tuple[str, str, str | None]],
         chosen: str | None = None) -> Control:
    """A select menu of ours: ``options`` are (label, value, description); the option whose
    value is ``chosen`` shows as picked."""
    return control(discord.ui.Select(
        custom_id=custom_id, placeholder=cut(placeholder, 150),
        options=[discord.SelectOption(label=cut(label, 100), value=value,
                                      description=cut(desc, 100) if desc else None,
                                      default=value == chosen)
                 for label, value, desc in options]))


def row(*items: discord.ui.Item[Any]) -> discord.ui.ActionRow[Any]:
    """An action row holding ``items``."""
    return discord.ui.ActionRow(*items)


def picture(filename: str, description: str) -> discord.ui.MediaGallery[Any]:
    """An uploaded picture of the message (``attachment://filename``)."""
    return discord.ui.MediaGallery(discord.MediaGalleryItem(
        f"attachment://{filename}", description=cut(description, 1024)))


def text_block(content: str) -> discord.ui.TextDisplay[Any]:
    """A block of markdown text."""
    return discord.ui.TextDisplay(cut(content, MAX_TEXT))


def layout(container: discord.ui.Container[Any]) -> discord.ui.LayoutView:
    """A message holding one container. The view is finished at once: the persistent dynamic
    items answer its clicks, so discord.py keeps nothing per message (no view, no timer)."""
    view = discord.ui.LayoutView(timeout=None)
    view.add_item(container)
    view.stop()
    return view


def text_length(view: discord.ui.LayoutView) -> int:
    """The characters of text the message shows (Discord allows :data:`MAX_TEXT`)."""
    return sum(len(item.content) for item in view.walk_children()
               if isinstance(item, discord.ui.TextDisplay))


def nested(components: Sequence[discord.Component]) -> Iterator[discord.Component]:
    """Every component of ``components``, those nested in rows, containers, sections and
    labels included."""
    for component in components:
        yield component
        yield from nested(getattr(component, "children", ()))
        for inner in (getattr(component, "accessory", None), getattr(component, "component", None)):
            if isinstance(inner, discord.Component):
                yield from nested((inner,))


__all__ = ["GOLD", "GREY", "MAX_COMPONENTS", "MAX_TEXT", "ROW_BUTTONS", "STYLES", "button",
           "cut", "layout", "menu", "nested", "picture", "row", "text_block", "text_length"]
