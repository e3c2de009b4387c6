"""The battle picture: the monster, the chain of cards played, the running totals and the outcome.

Everything drawn is public (the battle is fought face up), so every viewer gets the same picture.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from engine.battle import Totals
from engine.catalog import tables
from engine.names import card_name, monster_name, word
from engine.observe import BattleView, Observation
from i18n import msg, translate
from render.cards import EFFECTS, card_height, icon_symbol, monster_card
from render.icons import colour_badge, curse_icon, icon, paste
from render.style import (
    BAD,
    BG,
    COLOURS,
    DARK,
    GOOD,
    INK,
    LINE,
    MUTED,
    ON_COLOUR,
    PANEL,
    PANEL_HI,
    RGB,
    draw_text,
    new_canvas,
    panel,
    text_width,
)
from render.table import hearts, name_text

WIDTH = 1200
MARGIN = 20
HEADER_H = 70
MONSTER_W = 280
RIGHT_X = MARGIN + MONSTER_W + 24
RIGHT_W = WIDTH - MARGIN - RIGHT_X
STRIP_H = 58  # one played card: a strip across the right column
STRIP_GAP = 8
NAME_SIZE = 30
TRI_W = 40


def _strip(img: Image.Image, d: ImageDraw.ImageDraw, card: str, index: int, y: int,
           marks: list[Image.Image], locale: str) -> None:
    """A played card as a strip, read left to right: its place in the chain, colour badge,
    name, effects, what boosted it (potion, ability) and the colours allowed after it."""
    info = tables().actions[card]
    x0, x1 = RIGHT_X, WIDTH - MARGIN
    cy = y + STRIP_H // 2
    colour = COLOURS[info.colour]
    d.rounded_rectangle((x0, y, x1, y + STRIP_H), radius=12, fill=PANEL, outline=colour,
                        width=4)
    d.rounded_rectangle((x0, y, x0 + 48, y + STRIP_H), radius=12, fill=colour)
    draw_text(d, (x0 + 24, cy), str(index), 30, fill=ON_COLOUR[info.colour], anchor="mm")
    paste(img, colour_badge(info.colour, 44), (x0 + 56, cy - 22))
    # From the right: next colours, marks, effects; the name takes what is left.
    nexts = [c for c in COLOURS if c in info.next]
    right = x1 - 10
    tx = right - len(nexts) * (TRI_W + 4)
    for i, c in enumerate(nexts):
        tx0 = tx + i * (TRI_W + 4)
        d.polygon([(tx0, cy - 17), (tx0 + TRI_W, cy - 17), (tx0 + TRI_W // 2, cy + 19)],
                  fill=COLOURS[c], outline=DARK, width=2)
        sym = icon_symbol(c, 16)
        paste(img, sym, (tx0 + (TRI_W - 16) // 2, cy - 15))
    right = tx - 14
    for mark in reversed(marks):
        right -= mark.width
        paste(img, mark, (right, cy - mark.height // 2))
        right -= 6
    values = [(e, info.effect(e)) for e in EFFECTS if info.effect(e)]
    widths = [34 + 4 + text_width(str(v), 32) for _, v in values]
    ex = right - 8 - sum(widths) - 14 * (len(values) - 1)
    x = ex
    for (effect, value), w in zip(values, widths, strict=True):
        paste(img, icon(effect, 34), (x, cy - 17))
        draw_text(d, (x + 38, cy), str(value), 32, anchor="lm")
        x += w + 14
    name = translate(card_name(card), locale)
    draw_text(d, (x0 + 110, cy), name, NAME_SIZE, anchor="lm", condensed=True,
              max_width=ex - 16 - (x0 + 110))


def _mark(kind: str) -> Image.Image:
    """A mark beside a played card: a strength potion doubled it, or the ability unlocked it."""
    if kind == "boost":
        return icon("potion.strength", 44)
    return icon("spark", 40)


def _chain(img: Image.Image, d: ImageDraw.ImageDraw, b: BattleView, y: int,
           locale: str) -> int:
    """The played cards in order, one strip each; returns the y below them."""
    draw_text(d, (RIGHT_X, y + 16), translate("render.battle.chain", locale), 28, fill=MUTED,
              anchor="lm")
    y += 38
    if not b.chain:
        panel(d, (RIGHT_X, y, WIDTH - MARGIN, y + 100), fill=PANEL)
        draw_text(d, (RIGHT_X + RIGHT_W // 2, y + 50), translate("render.battle.no_cards", locale),
                  30, fill=LINE, anchor="mm", max_width=RIGHT_W - 20)
        return y + 110
    boosted = {i for i, _ in b.boosted}
    unlocked = {i for i, _ in b.unlocked}
    for i, card in enumerate(b.chain):
        marks = ([_mark("boost")] if i in boosted else []) + \
            ([_mark("spark")] if i in unlocked else [])
        _strip(img, d, card, i + 1, y, marks, locale)
        y += STRIP_H + STRIP_GAP
    return y + 4


def _total_line(img: Image.Image, d: ImageDraw.ImageDraw, y: int, kind: str, total: int,
                parts: list[tuple[str, str, int]], target: tuple[str, int], ok: bool,
                locale: str) -> None:
    """One line of totals: icon, big total with a check or a cross (enough or not: never by
    colour alone), its split by source, and the monster's figure."""
    panel(d, (RIGHT_X, y, WIDTH - MARGIN, y + 96), fill=PANEL)
    paste(img, icon(kind, 60), (RIGHT_X + 10, y + 18))
    tw = draw_text(d, (RIGHT_X + 78, y + 48), str(total), 64, fill=GOOD if ok else BAD,
                   anchor="lm")
    paste(img, icon("check" if ok else "cross", 36), (RIGHT_X + 82 + tw, y + 30))
    x = RIGHT_X + 196
    pitch = 162
    for ic, label, value in parts:
        paste(img, icon(ic, 36), (x, y + 10))
        draw_text(d, (x + 42, y + 29), str(value), 34, anchor="lm")
        draw_text(d, (x, y + 72), label, 26, fill=MUTED, anchor="lm", bold=False,
                  max_width=pitch - 16)
        x += pitch
    # What the total is measured against: the monster's hit points or attack, with what it
    # means written under it (as the parts are), so a longer language has the room it needs.
    target_icon, value = target
    right = WIDTH - MARGIN - 14
    vw = draw_text(d, (right, y + 34), str(value), 50, anchor="rm")
    tx = right - vw - 50
    paste(img, icon(target_icon, 44), (tx, y + 12))
    label = translate("render.battle.needed" if kind == "attack" else "render.battle.against",
                      locale)
    draw_text(d, (right, y + 74), label, 26, fill=MUTED, anchor="rm", bold=False,
              max_width=right - x + 4)


def _outcome(img: Image.Image, d: ImageDraw.ImageDraw, t: Totals, y: int, locale: str) -> int:
    """What happens if the battle ends now: win or not, hits taken, healing, HP after."""
    heal = t.heal_after if not t.knocked_out else 0
    box_h = 190 if heal else 160
    colour: RGB = GOOD if t.win else BAD
    panel(d, (RIGHT_X, y, WIDTH - MARGIN, y + box_h), fill=PANEL_HI, outline=colour, width=5)
    x = RIGHT_X + 440
    draw_text(d, (RIGHT_X + 18, y + 28), translate("render.battle.if_end", locale), 26,
              fill=MUTED, anchor="lm", bold=False, max_width=x - RIGHT_X - 30)
    mid = y + 28 + (box_h - 28) // 2
    paste(img, icon("trophy" if t.win else "ban", 64), (RIGHT_X + 18, mid - 32))
    verdict = translate("render.battle.win" if t.win else "render.battle.lose", locale)
    draw_text(d, (RIGHT_X + 94, mid), verdict, 46, fill=colour, anchor="lm",
              max_width=x - RIGHT_X - 110, min_size=26)
    width = WIDTH - MARGIN - x - 12
    if t.damage:
        hits = translate(msg("render.battle.hits", count=t.damage), locale)
    else:
        hits = translate("render.battle.no_hits", locale)
    ly = y + 28
    draw_text(d, (x, ly), hits, 28, fill=BAD if t.damage else INK, anchor="lm",
              max_width=width)
    if heal:
        ly += 34
        paste(img, icon("heal", 28), (x, ly - 14))
        draw_text(d, (x + 34, ly), translate(msg("render.battle.heals", count=heal), locale),
                  28, fill=GOOD, anchor="lm", max_width=width - 34)
    hearts(img, t.hp_after, x, ly + 22, 44)
    after = translate(msg("render.battle.hp_after", hp=t.hp_after), locale)
    if t.knocked_out:
        after = translate(msg("render.battle.knocked_out", hp_after=after), locale)
    draw_text(d, (x, ly + 96), after, 26, fill=MUTED, anchor="lm", bold=False, max_width=width)
    return y + box_h


def _monster_column(img: Image.Image, d: ImageDraw.ImageDraw, b: BattleView, y: int,
                    locale: str) -> int:
    paste(img, monster_card(b.monster, MONSTER_W, locale), (MARGIN, y))
    y += card_height(MONSTER_W) + 14
    for curse in b.curses:
        countered = curse == b.countered
        paste(img, curse_icon(curse, 48), (MARGIN, y))
        label = translate(word("curse", curse), locale)
        fill = LINE if countered else INK
        w = draw_text(d, (MARGIN + 58, y + 24), label, 26, fill=fill, anchor="lm",
                      max_width=MONSTER_W - 60)
        if countered:
            d.line((MARGIN + 56, y + 24, MARGIN + 60 + w, y + 24), fill=BAD, width=4)
            paste(img, icon("potion.countercurse", 34), (MARGIN + 58, y + 40))
            draw_text(d, (MARGIN + 96, y + 58), translate("render.battle.countered", locale),
                      26, fill=GOOD, anchor="lm", max_width=MONSTER_W - 100)
            y += 34
        y += 58
    return y


def _potions(img: Image.Image, d: ImageDraw.ImageDraw, b: BattleView, y: int,
             locale: str) -> int:
    draw_text(d, (RIGHT_X, y + 20), translate("render.battle.potions", locale), 26, fill=MUTED,
              anchor="lm")
    x = RIGHT_X + 260
    drunk = False
    for idx, effect in b.boosted:
        paste(img, icon("potion.strength", 44), (x, y - 2))
        paste(img, icon(effect, 30), (x + 46, y + 6))
        label = translate(msg("render.battle.boosted", index=idx + 1), locale)
        w = draw_text(d, (x + 80, y + 20), label, 26, anchor="lm")
        x += 100 + w
        drunk = True
    if b.countered is not None:
        paste(img, icon("potion.countercurse", 44), (x, y - 2))
        paste(img, curse_icon(b.countered, 36), (x + 48, y + 2))
        x += 100
        drunk = True
    if not drunk:
        draw_text(d, (x, y + 20), translate("render.battle.no_potions", locale), 26, fill=LINE,
                  anchor="lm")
    return y + 50


def draw_battle(obs: Observation, locale: str) -> Image.Image:
    """The battle picture of ``obs`` (which must have a battle) as an RGB image."""
    b = obs.battle
    if b is None:
        raise ValueError("battle_image needs an observation with a battle in progress")
    t = b.totals
    seat = obs.seats[b.seat]
    height = 1400  # drawn tall, cropped to what is used
    img, d = new_canvas(WIDTH, height, BG)
    who = name_text(seat.name, locale)
    title = translate(msg("render.battle.title", who=who, monster=monster_name(b.monster)),
                      locale)
    paste(img, icon("attack", 48), (MARGIN, 11))
    rnd = translate(msg("render.round", round=obs.round), locale)
    w = draw_text(d, (WIDTH - MARGIN, HEADER_H // 2), rnd, 30, fill=MUTED, anchor="rm")
    draw_text(d, (MARGIN + 60, HEADER_H // 2), title, 38, anchor="lm",
              max_width=WIDTH - 2 * MARGIN - 90 - w, min_size=22)
    y = HEADER_H + 6
    bottom_left = _monster_column(img, d, b, y, locale)
    y = _chain(img, d, b, y, locale) + 10
    cards = translate("render.battle.cards", locale)
    equip = translate("render.battle.equipment", locale)
    ability = translate("render.battle.ability", locale)
    att_parts = [("hand", cards, t.attack_cards), ("weapon", equip, t.attack_equipment)]
    if obs.abilities:
        att_parts.append(("spark", ability, t.attack_ability))
    _total_line(img, d, y, "attack", t.attack, att_parts, ("heart", t.monster_hp),
                t.attack >= t.monster_hp, locale)
    y += 106
    _total_line(img, d, y, "defence", t.defence,
                [("hand", cards, t.defence_cards), ("armour", equip, t.defence_equipment)],
                ("attack", t.monster_attack), t.defence >= t.monster_attack, locale)
    y += 106
    y = _potions(img, d, b, y, locale) + 6
    y = _outcome(img, d, t, y, locale) + MARGIN
    return img.crop((0, 0, WIDTH, min(height, max(y, bottom_left + MARGIN))))
