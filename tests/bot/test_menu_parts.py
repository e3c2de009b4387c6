"""A menu the game offers is one list however long; the Discord side shows it in parts of
Discord's size, and a pick from any part of it is checked against the menu's kind and group."""

from __future__ import annotations

from bot.discord_side.ui.parts import MAX_OPTIONS
from bot.game.texts import Choice, Controls, Group, Menu, menu_key
from i18n import msg


def _controls(moves: int) -> Controls:
    plays = tuple(Choice(f"p{i}", msg("bot.move.other", notation=f"p{i}"))
                  for i in range(moves))
    fights = (Choice("f1", msg("bot.move.other", notation="f1")),
              Choice("f2", msg("bot.move.other", notation="f2")))
    return Controls((
        Group("fight", msg("bot.group.fight"), (Menu("fight", msg("bot.menu.fight"), fights),),
              ()),
        Group("cards", msg("bot.group.cards"), (Menu("play", msg("bot.menu.play"), plays),), ()),
    ))


def test_a_pick_from_any_part_of_a_long_menu_is_in_that_menu() -> None:
    ctrls = _controls(MAX_OPTIONS + 5)
    last = f"p{MAX_OPTIONS + 4}"
    assert ctrls.in_menu(menu_key("play", 1, 1), last)  # the second part shows it
    assert ctrls.in_menu(menu_key("play", 1, 0), "p0")
    assert not ctrls.in_menu(menu_key("play", 0, 0), "p0")  # another group
    assert not ctrls.in_menu(menu_key("fight", 1, 0), "p0")  # another kind
    assert not ctrls.in_menu(menu_key("fight", 0, 0), "p0")
    assert not ctrls.in_menu("play91", "p0") and not ctrls.in_menu("nonsense", "p0")
    assert ctrls.menus() == {menu_key("fight", 0, 0): {"f1", "f2"},
                             menu_key("play", 1, 0): {f"p{i}" for i in range(MAX_OPTIONS + 5)}}
