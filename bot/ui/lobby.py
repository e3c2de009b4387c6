"""The lobby message: who sits at the new table with which hero, the table's settings, the hero
menu and the Join / Leave / Start / Cancel and AI seat buttons. Every button carries the lobby's
revision, so a click on an older lobby is told apart from a click on this one."""

from __future__ import annotations

import discord

from bot.lobby import MAX_SEATS, heroes
from bot.present import timer_text
from bot.records import TableRecord
from bot.ui.custom_ids import hero_id, lobby_id
from bot.ui.parts import GOLD, GREY, button, layout, menu, row, text_block
from i18n import Msg, msg, translate


def lobby_lines(record: TableRecord, locale: str) -> list[str]:
    """The lobby's text: title, seats, settings, host and what became of it."""
    lines = [f"### {translate(msg('bot.lobby.title', table=record.id), locale)}"]
    for i, s in enumerate(record.seats, start=1):
        who: str | Msg = f"<@{s.user}>" if s.user else msg("bot.lobby.ai_name")
        hero = msg(f"hero.{s.hero}.name") if s.hero else msg("bot.lobby.random_hero")
        lines.append(translate(msg("bot.lobby.seat", n=i, who=who, hero=hero), locale))
    lines += ["", translate(msg("bot.lobby.settings",
                                abilities=msg("bot.lobby.on" if record.abilities
                                              else "bot.lobby.off"),
                                timer=timer_text(record.timer)), locale),
              translate(msg("bot.lobby.host", who=f"<@{record.host_id}>"), locale)]
    if record.status == "running":
        lines.append(translate(msg("bot.lobby.started"), locale))
    elif record.status != "lobby":
        lines.append(translate(msg("bot.lobby.cancelled"), locale))
    return lines


def lobby_view(record: TableRecord, locale: str) -> discord.ui.LayoutView:
    """The lobby message (buttons only while the lobby is open)."""
    box = discord.ui.Container[discord.ui.LayoutView](
        text_block("\n".join(lobby_lines(record, locale))),
        accent_colour=GOLD if record.status == "lobby" else GREY)
    if record.status != "lobby":
        return layout(box)
    t, rev = record.id, record.revision
    taken = {s.hero for s in record.seats if s.hero}
    options = [(translate(msg(f"hero.{h}.name"), locale), h,
                translate(msg(f"hero.{h}.title"), locale)) for h in heroes() if h not in taken]
    if options:
        box.add_item(row(menu(hero_id(t), translate(msg("bot.lobby.pick_hero"), locale),
                              options)))
    seats = len(record.seats)
    full = seats >= MAX_SEATS
    ai_seats = sum(1 for s in record.seats if s.ai)

    def label(op: str) -> str:
        return translate(msg(f"bot.lobby.{op}"), locale)

    box.add_item(row(button(label("join"), lobby_id(t, "join", rev), "success", full),
                     button(label("leave"), lobby_id(t, "leave", rev)),
                     button(label("start"), lobby_id(t, "start", rev), "primary", seats < 2),
                     button(label("cancel"), lobby_id(t, "cancel", rev), "danger")))
    box.add_item(row(button(label("ai"), lobby_id(t, "ai", rev), disabled=full),
                     button(label("unai"), lobby_id(t, "unai", rev), disabled=ai_seats == 0)))
    return layout(box)


__all__ = ["lobby_lines", "lobby_view"]
