"""The lobby message: who sits at the new table with which hero (and each AI seat's level), the
table's settings, the hero menu, the Join (but at a solo table) / Leave / Start / Cancel and AI
seat buttons, and a level menu under them for each AI seat. Every button and level menu carries
the lobby's revision, so a click on an older lobby is told apart from a click on this one."""

from __future__ import annotations

import discord

from bot.discord_side.ui.control import Control
from bot.discord_side.ui.custom_ids import HeroMenu, LevelMenu, LobbyButton
from bot.discord_side.ui.parts import GOLD, GREY, button, layout, menu, row, text_block
from bot.game.lobby import LOBBY_IDLE, idle_after, lapsed
from bot.game.people import person
from bot.game.seats import MAX_SEATS, heroes, solo
from bot.game.spans import span
from bot.game.texts import on_off, timer_text
from bot.storage.records import SeatInfo, TableRecord
from engine.agents import LEVELS
from i18n import msg, translate


def lobby_lines(record: TableRecord, locale: str) -> list[str]:
    """The lobby's text: title, seats, settings, host and what became of it."""
    lines = [f"### {translate(msg('bot.lobby.title', table=record.id), locale)}"]
    for i, s in enumerate(record.seats, start=1):
        who = person(s.user) if s.user else msg(
            "bot.lobby.ai_seat", level=msg(f"bot.level.{s.level}"))
        hero = msg(f"hero.{s.hero}.name") if s.hero else msg("bot.lobby.random_hero")
        lines.append(translate(msg("bot.lobby.seat", n=i, who=who, hero=hero), locale))
    abilities = msg("bot.lobby.on" if record.abilities else "bot.lobby.off")
    settings = msg("bot.lobby.settings", abilities=abilities, timer=timer_text(record.timer),
                   level=msg(f"bot.level.{record.ai_level}")) if len(record.seats) < MAX_SEATS \
        else msg("bot.lobby.settings_full", abilities=abilities, timer=timer_text(record.timer))
    lines += ["", translate(settings, locale)  # the next AI seat's level while one may come
              + " " + translate(msg("bot.undo.lobby", state=on_off(record.undo)), locale),
              translate(msg("bot.hint.lobby_auto" if record.hints is None else
                            "bot.hint.lobby_on" if record.hints else "bot.hint.lobby_off"),
                        locale),
              translate(msg("bot.lobby.host", who=person(record.host_id)), locale)]
    if record.status == "running":
        lines.append(translate(msg("bot.lobby.started"), locale))
    elif record.status != "lobby":
        idle = idle_after(record)
        lines.append(translate(msg("bot.lobby.cancelled") if not lapsed(record)
                               else msg("bot.lobby.lapsed") if idle <= LOBBY_IDLE
                               else msg("bot.lobby.lapsed_turn", span=span(int(idle))),
                               locale))
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
                translate(msg(f"bot.facts.ability.{h}") if record.abilities
                          else msg(f"hero.{h}.title"), locale))
               for h in heroes() if h not in taken]
    if options:
        box.add_item(row(menu(HeroMenu.id_for(t), translate(msg("bot.lobby.pick_hero"), locale),
                              options)))
    seats = len(record.seats)
    full = seats >= MAX_SEATS
    ai_seats = sum(1 for s in record.seats if s.ai)

    def label(op: str) -> str:
        return translate(msg(f"bot.lobby.{op}"), locale)

    def op(name: str) -> str:
        return LobbyButton.id_for(t, name, rev)

    # a solo table (in direct messages, or a guided match) has its one person seated already
    join = [] if solo(record) else [button(label("join"), op("join"), "success", full)]
    box.add_item(row(*join, button(label("leave"), op("leave")),
                     button(label("start"), op("start"), "primary", seats < 2),
                     button(label("cancel"), op("cancel"), "danger")))
    box.add_item(row(button(label("ai"), op("ai"), disabled=full),
                     button(label("unai"), op("unai"), disabled=ai_seats == 0)))
    for i, s in enumerate(record.seats):
        if s.ai:
            box.add_item(row(level_menu(record, i, s, locale)))
    return layout(box)


def level_menu(record: TableRecord, index: int, seat: SeatInfo, locale: str) -> Control:
    """The menu the host sets an AI seat's level with (the seat's level is the one shown)."""
    options = [(translate(msg("bot.lobby.level_choice", n=index + 1,
                              level=msg(f"bot.level.{level}")), locale), level,
                translate(msg(f"bot.level.{level}_about"), locale)) for level in LEVELS]
    return menu(LevelMenu.id_for(record.id, index, record.revision),
                translate(msg("bot.lobby.pick_level"), locale), options, seat.level)


__all__ = ["level_menu", "lobby_lines", "lobby_view", "solo"]
