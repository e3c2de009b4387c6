"""The battle picture: the monster, the chain of cards played, the running totals and the outcome.

Everything drawn is public (the battle is fought face up), so every viewer gets the same picture.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from engine.battle import Totals
from engine.names import monster_name, word
from engine.observe import BattleView, Observation
from i18n import msg, translate
from render.cards import action_card, card_height, monster_card
from render.icons import curse_icon, icon, paste
from render.style import (
    BAD,
    BG,
    GOOD,
    INK,
    LINE,
    MUTED,
    PANEL,
    PANEL_HI,
    RGB,
    draw_text,
    new_canvas,
    panel,
)
from render.table import hearts, name_text

WIDTH = 1200
MARGIN = 20
HEADER_H = 70
MONSTER_W = 300
RIGHT_X = MARGIN + MONSTER_W + 30
RIGHT_W = WIDTH - MARGIN - RIGHT_X
CHAIN_MAX_W = 170


def _chain(img: Image.Image, d: ImageDraw.ImageDraw, b: BattleView, y: int,
           locale: str) -> int:
    """The played cards in order, left to right, wrapping; returns the y below them."""
    draw_text(d, (RIGHT_X, y + 16), translate("render.battle.chain", locale), 28, fill=MUTED,
              anchor="lm")
    y += 38
    n = len(b.chain)
    if n == 0:
        panel(d, (RIGHT_X, y, WIDTH - MARGIN, y + 120), fill=PANEL)
        draw_text(d, (RIGHT_X + RIGHT_W // 2, y + 60), translate("render.battle.no_cards", locale),
                  30, fill=LINE, anchor="mm")
        return y + 130
    gap = 26
    per_row = max(1, min(n, 6))
    w = min(CHAIN_MAX_W, (RIGHT_W - (per_row - 1) * gap) // per_row)
    if n > per_row:
        per_row = max(per_row, -(-n // 2))
        w = min(CHAIN_MAX_W, (RIGHT_W - (per_row - 1) * gap) // per_row)
    h = card_height(w)
    boosted = {i for i, _ in b.boosted}
    unlocked = {i for i, _ in b.unlocked}
    for i, card in enumerate(b.chain):
        row, col = divmod(i, per_row)
        x = RIGHT_X + col * (w + gap)
        yy = y + row * (h + 16)
        paste(img, action_card(card, w, locale), (x, yy))
        badge = max(30, w // 3)
        if i in boosted:  # at the foot of the card, never over its name
            paste(img, icon("potion.strength", badge), (x + w - badge + 6, yy + h - badge + 8))
        if i in unlocked:
            paste(img, icon("spark", badge), (x - 6, yy - 8))
        draw_text(d, (x + 6, yy + h - 4), str(i + 1), 20, fill=INK, anchor="lb",
                  outline=(0, 0, 0))
        if col < per_row - 1 and i < n - 1:
            paste(img, icon("chevron", gap - 4, MUTED), (x + w + 2, yy + h // 2 - gap // 2))
    rows = -(-n // per_row)
    return y + rows * (h + 16)


def _total_line(img: Image.Image, d: ImageDraw.ImageDraw, y: int, kind: str, total: int,
                parts: list[tuple[str, str, int]], target: tuple[str, int], ok: bool,
                locale: str) -> None:
    """One line of totals: icon, big total, its split by source, and the monster's figure."""
    panel(d, (RIGHT_X, y, WIDTH - MARGIN, y + 92), fill=PANEL)
    paste(img, icon(kind, 64), (RIGHT_X + 12, y + 14))
    draw_text(d, (RIGHT_X + 90, y + 46), str(total), 64, fill=GOOD if ok else BAD, anchor="lm")
    x = RIGHT_X + 180
    for ic, label, value in parts:
        paste(img, icon(ic, 36), (x, y + 8))
        draw_text(d, (x + 42, y + 27), str(value), 34, anchor="lm")
        draw_text(d, (x, y + 70), label, 22, fill=MUTED, anchor="lm", bold=False,
                  max_width=128, min_size=14)
        x += 136
    # What the total is measured against: the monster's hit points or attack, with what it
    # means written under it (as the parts are), so a longer language has the room it needs.
    target_icon, value = target
    right = WIDTH - MARGIN - 16
    vw = draw_text(d, (right, y + 36), str(value), 50, anchor="rm")
    tx = right - vw - 50
    paste(img, icon(target_icon, 44), (tx, y + 14))
    label = translate("render.battle.needed" if kind == "attack" else "render.battle.against",
                      locale)
    draw_text(d, (right, y + 72), label, 22, fill=MUTED, anchor="rm", bold=False,
              max_width=right - x, min_size=14)


def _outcome(img: Image.Image, d: ImageDraw.ImageDraw, t: Totals, hp_before: int, y: int,
             locale: str) -> int:
    box_h = 150
    colour: RGB = GOOD if t.win else BAD
    panel(d, (RIGHT_X, y, WIDTH - MARGIN, y + box_h), fill=PANEL_HI, outline=colour, width=5)
    draw_text(d, (RIGHT_X + 18, y + 26), translate("render.battle.if_end", locale), 24,
              fill=MUTED, anchor="lm", bold=False)
    paste(img, icon("trophy" if t.win else "ban", 64), (RIGHT_X + 18, y + 56))
    verdict = translate("render.battle.win" if t.win else "render.battle.lose", locale)
    draw_text(d, (RIGHT_X + 94, y + 88), verdict, 46, fill=colour, anchor="lm", max_width=330,
              min_size=24)
    x = RIGHT_X + 440
    if t.damage:
        hits = translate(msg("render.battle.hits", count=t.damage), locale)
    else:
        hits = translate("render.battle.no_hits", locale)
    draw_text(d, (x, y + 26), hits, 26, anchor="lm", max_width=WIDTH - MARGIN - x - 12)
    hearts(img, t.hp_after, x, y + 50, 44)
    after = translate(msg("render.battle.hp_after", hp=t.hp_after), locale)
    if t.knocked_out:
        after = translate(msg("render.battle.knocked_out", hp_after=after), locale)
    draw_text(d, (x, y + 124), after, 24, fill=MUTED, anchor="lm", bold=False,
              max_width=WIDTH - MARGIN - x - 12)
    _ = hp_before
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
        w = draw_text(d, (MARGIN + 58, y + 24), label, 24, fill=fill, anchor="lm",
                      max_width=MONSTER_W - 60, min_size=14)
        if countered:
            d.line((MARGIN + 56, y + 24, MARGIN + 60 + w, y + 24), fill=BAD, width=4)
            paste(img, icon("potion.countercurse", 34), (MARGIN + 58, y + 40))
            draw_text(d, (MARGIN + 96, y + 58), translate("render.battle.countered", locale),
                      22, fill=GOOD, anchor="lm", max_width=MONSTER_W - 100, min_size=14)
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
    y += 102
    _total_line(img, d, y, "defence", t.defence,
                [("hand", cards, t.defence_cards), ("armour", equip, t.defence_equipment)],
                ("attack", t.monster_attack), t.defence >= t.monster_attack, locale)
    y += 102
    y = _potions(img, d, b, y, locale) + 6
    y = _outcome(img, d, t, seat.hp, y, locale) + MARGIN
    return img.crop((0, 0, WIDTH, min(height, max(y, bottom_left + MARGIN))))
