"""The battle picture: the monster and its curses, the fighter's hit points and cards, the chain of
cards played, the running totals and the outcome, laid out for a phone.

Everything drawn is public (the battle is fought face up), so every viewer gets the same picture.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine.battle import Totals
from engine.catalog import tables
from engine.names import card_name, monster_name, word
from engine.observe import BattleView, Observation
from i18n import msg, translate
from render.bands import Band, band
from render.cards import EFFECTS, icon_symbol, monster_card, monster_height
from render.icons import colour_badge, curse_icon, icon, paste
from render.layout import (
    BANDS,
    LINE_H,
    draw_lines,
    lines_of,
    name_text,
    shortenable,
    title_band,
)
from render.seats import hearts
from render.style import (
    BAD,
    BG,
    COLOURS,
    DARK,
    GOOD,
    INK,
    LINE,
    MIN_TEXT,
    MUTED,
    ON_COLOUR,
    PANEL,
    PANEL_HI,
    RGB,
    WIDTH,
    draw_text,
    new_canvas,
    panel,
    remembered,
    text_width,
)

MARGIN = 10
MONSTER_W = 176
SIDE_X = MARGIN + MONSTER_W + 14
SIDE_W = WIDTH - MARGIN - SIDE_X
STRIP_H = 44  # one played card whose name takes one line
STRIP_GAP = 5
TRI_W = 34
NAME_X = 84  # where a strip's name starts, from the strip's left


def _strip_right(card: str, marks: int) -> tuple[int, list[str], list[tuple[str, int]]]:
    """Where a strip's effects start (from the strip's right end, as a width), its next colours
    and its effects."""
    info = tables().actions[card]
    nexts = [c for c in COLOURS if c in info.next]
    values = [(e, info.effect(e)) for e in EFFECTS if info.effect(e)]
    used = 8 + len(nexts) * (TRI_W + 4) + 8 + marks * 38
    used += sum(26 + 3 + text_width(str(v), MIN_TEXT) + 10 for _, v in values)
    return used, nexts, values


def strip_lines(card: str, marks: int, locale: str) -> list[str]:
    """The lines of a played card's name in its strip (two when one does not hold it)."""
    used, _, _ = _strip_right(card, marks)
    room = WIDTH - 2 * MARGIN - NAME_X - used - 6
    return lines_of(translate(card_name(card), locale), room, max_lines=2, condensed=True)


MARKS = {"boost": ("potion.strength", 34), "spark": ("spark", 32)}


@remembered(BANDS)
def _strip(card: str, index: int, kinds: tuple[str, ...], locale: str) -> Band:
    """A played card as a strip, read left to right: its place in the chain, colour badge,
    name, then effects, what boosted it (potion, ability) and the colours allowed after it."""
    info = tables().actions[card]
    marks = [icon(*MARKS[k]) for k in kinds]
    lines = strip_lines(card, len(marks), locale)
    h = STRIP_H + (len(lines) - 1) * 30
    img, d = new_canvas(WIDTH, h + STRIP_GAP, BG)
    y = 0
    x0, x1 = MARGIN, WIDTH - MARGIN
    cy = y + h // 2
    colour = COLOURS[info.colour]
    d.rounded_rectangle((x0, y, x1, y + h), radius=10, fill=PANEL, outline=colour, width=3)
    d.rounded_rectangle((x0, y, x0 + 38, y + h), radius=10, fill=colour)
    draw_text(d, (x0 + 19, cy), str(index), MIN_TEXT, fill=ON_COLOUR[info.colour], anchor="mm")
    paste(img, colour_badge(info.colour, 34), (x0 + 44, cy - 17))
    draw_lines(d, x0 + NAME_X, cy - 15 * (len(lines) - 1), lines, fill=INK, condensed=True,
               pitch=30)
    _, nexts, values = _strip_right(card, len(marks))
    tx = x1 - 8 - len(nexts) * (TRI_W + 4) + 4
    for c in nexts:
        d.polygon([(tx, cy - 15), (tx + TRI_W, cy - 15), (tx + TRI_W // 2, cy + 17)],
                  fill=COLOURS[c], outline=DARK, width=2)
        paste(img, icon_symbol(c, 15), (tx + (TRI_W - 15) // 2, cy - 13))
        tx += TRI_W + 4
    right = x1 - 8 - len(nexts) * (TRI_W + 4) - 8
    for mark in reversed(marks):
        right -= mark.width
        paste(img, mark, (right, cy - mark.height // 2))
        right -= 38 - mark.width
    x = right - sum(26 + 3 + text_width(str(v), MIN_TEXT) + 10 for _, v in values)
    for effect, value in values:
        paste(img, icon(effect, 26), (x, cy - 13))
        x += 29 + draw_text(d, (x + 29, cy), str(value), MIN_TEXT, anchor="lm") + 10
    return band(img)


@remembered(BANDS)
def _chain_head(locale: str, empty: bool) -> Band:
    """The chain's label, and a panel saying no card was played yet when ``empty``."""
    img, d = new_canvas(WIDTH, 34 + (64 if empty else 0), BG)
    draw_text(d, (MARGIN, 18), translate("render.battle.chain", locale), MIN_TEXT,
              fill=MUTED, anchor="lm", max_width=WIDTH - 2 * MARGIN)
    if empty:
        panel(d, (MARGIN, 34, WIDTH - MARGIN, 90), fill=PANEL, radius=10)
        draw_text(d, (WIDTH // 2, 62), translate("render.battle.no_cards", locale),
                  MIN_TEXT, fill=LINE, anchor="mm", max_width=WIDTH - 2 * MARGIN - 20)
    return band(img)


def _chain(b: BattleView, locale: str) -> list[Band]:
    """The played cards in order, one strip each, under their label."""
    boosted = {i for i, _ in b.boosted}
    unlocked = {i for i, _ in b.unlocked}
    bands = [_chain_head(locale, not b.chain)]
    for i, card in enumerate(b.chain):
        kinds = (("boost",) if i in boosted else ()) + (("spark",) if i in unlocked else ())
        bands.append(_strip(card, i + 1, kinds, locale))
    return bands


@remembered(BANDS)
def _total_line(kind: str, total: int, parts: tuple[tuple[str, int], ...],
                target: tuple[str, int], ok: bool, locale: str) -> Band:
    """One panel of totals: icon, big total with a check or a cross (enough or not: never by
    colour alone) and the monster's figure it is measured against; under them, the total's
    split by source (cards, equipment, ability) and what the figure means."""
    img, d = new_canvas(WIDTH, 80, BG)
    y = 0
    panel(d, (MARGIN, y, WIDTH - MARGIN, y + 75), fill=PANEL, radius=10)
    cy = y + 22
    paste(img, icon(kind, 36), (MARGIN + 10, cy - 18))
    tw = draw_text(d, (MARGIN + 54, cy), str(total), 40, fill=GOOD if ok else BAD, anchor="lm")
    paste(img, icon("check" if ok else "cross", 28), (MARGIN + 60 + tw, cy - 14))
    target_icon, value = target
    right = WIDTH - MARGIN - 12
    vw = draw_text(d, (right, cy), str(value), 40, anchor="rm")
    paste(img, icon(target_icon, 32), (right - vw - 38, cy - 16))
    cy = y + 55
    x = MARGIN + 12
    for ic, part in parts:
        paste(img, icon(ic, 24), (x, cy - 12))
        x += 28 + draw_text(d, (x + 28, cy), str(part), MIN_TEXT, anchor="lm") + 16
    label = translate("render.battle.needed" if kind == "attack" else "render.battle.against",
                      locale)
    draw_text(d, (right, cy), label, MIN_TEXT, fill=MUTED, anchor="rm", max_width=right - x)
    return band(img)


@remembered(BANDS)
def _outcome(t: Totals, locale: str) -> Band:
    """What happens if the battle ends now: win or not, hits taken, healing, HP after."""
    heal = t.heal_after if not t.knocked_out else 0
    colour: RGB = GOOD if t.win else BAD
    inner = WIDTH - 2 * MARGIN - 28
    head = lines_of(translate("render.battle.if_end", locale), inner)
    verdict = translate("render.battle.win" if t.win
                        else "render.battle.knocked" if t.knocked_out and t.attack >= t.monster_hp
                        else "render.battle.lose", locale)  # R24: enough attack, last HP lost
    if t.damage:
        hits = translate(msg("render.battle.hits", count=t.damage), locale)
    else:
        hits = translate("render.battle.no_hits", locale)
    after = translate(msg("render.battle.hp_after", hp=t.hp_after), locale)
    if t.knocked_out:
        after = translate(msg("render.battle.knocked_out", hp_after=after), locale)
    heal_lines = lines_of(translate(msg("render.battle.heals", count=heal), locale),
                          inner - 34) if heal else []
    after_lines = lines_of(after, inner - 165)
    # The hits go beside the verdict when both fit on one line.
    beside = 50 + text_width(verdict, 34) + 24 + text_width(hits, MIN_TEXT) <= inner
    box_h = 20 + LINE_H * len(head) + 46 + (0 if beside else LINE_H) \
        + LINE_H * len(heal_lines) + max(40, LINE_H * len(after_lines)) + 4
    img, d = new_canvas(WIDTH, box_h + MARGIN, BG)
    y = 0
    panel(d, (MARGIN, y, WIDTH - MARGIN, y + box_h), fill=PANEL_HI, outline=colour, width=4,
          radius=10)
    x = MARGIN + 14
    ly = draw_lines(d, x, y + 26, head)
    paste(img, icon("trophy" if t.win else "ban", 40), (x, ly - 10))
    draw_text(d, (x + 50, ly + 10), verdict, 34, fill=colour, anchor="lm",
              max_width=inner - 50)
    if beside:
        draw_text(d, (x + inner, ly + 10), hits, MIN_TEXT, fill=BAD if t.damage else INK,
                  anchor="rm")
        ly += 46
    else:
        ly += 46
        draw_text(d, (x, ly), hits, MIN_TEXT, fill=BAD if t.damage else INK, anchor="lm",
                  max_width=inner)
        ly += LINE_H
    if heal_lines:
        paste(img, icon("heal", 26), (x, ly - 13))
        ly = draw_lines(d, x + 34, ly, heal_lines, fill=GOOD)
    hearts(img, t.hp_after, x, ly - 12, 28)
    draw_lines(d, x + 165, ly, after_lines)
    return band(img)


def _side(img: Image.Image, d: ImageDraw.ImageDraw, fighter: tuple[int, int, int],
          b: Besides, y: int, locale: str) -> int:
    """Beside the monster: the fighter's hit points and cards, the curses, the potions drunk."""
    hp, hand_count, deck_count = fighter
    x = hearts(img, hp, SIDE_X, y, 28) + 10
    for ic, n in (("hand", hand_count), ("deck", deck_count)):
        paste(img, icon(ic, 28), (x, y))
        x += 32 + draw_text(d, (x + 32, y + 14), str(n), MIN_TEXT, anchor="lm") + 12
    y += 44
    for curse in b.curses:
        countered = curse == b.countered
        paste(img, curse_icon(curse, 38), (SIDE_X, y))
        lines = lines_of(translate(word("curse", curse), locale), SIDE_W - 46)
        end = draw_lines(d, SIDE_X + 46, y + 19, lines, fill=LINE if countered else INK,
                         pitch=30)
        if countered:
            w = text_width(lines[0], MIN_TEXT)
            d.line((SIDE_X + 44, y + 19, SIDE_X + 48 + w, y + 19), fill=BAD, width=3)
            paste(img, icon("potion.countercurse", 28), (SIDE_X + 46, end - 14))
            draw_text(d, (SIDE_X + 78, end), translate("render.battle.countered", locale),
                      MIN_TEXT, fill=GOOD, anchor="lm", max_width=SIDE_W - 78)
            end += 30
        y = max(y + 44, end - 19 + 12)
    label = translate("render.battle.potions", locale)
    y = draw_lines(d, SIDE_X, y + 14, lines_of(label, SIDE_W)) - 14
    x = SIDE_X
    drunk = False
    for idx, effect in b.boosted:
        paste(img, icon("potion.strength", 32), (x, y))
        paste(img, icon(effect, 24), (x + 34, y + 4))
        label = translate(msg("render.battle.boosted", index=idx + 1), locale)
        x += 62 + draw_text(d, (x + 62, y + 16), label, MIN_TEXT, anchor="lm") + 14
        drunk = True
    if b.countered is not None:
        paste(img, icon("potion.countercurse", 32), (x, y))
        paste(img, curse_icon(b.countered, 30), (x + 34, y + 1))
        drunk = True
    if not drunk:
        draw_text(d, (x, y + 16), translate("render.battle.no_potions", locale), MIN_TEXT,
                  max_width=WIDTH - MARGIN - x,
                  fill=LINE, anchor="lm")
    return y + 40


@dataclass(frozen=True)
class Besides:
    """What the side column shows of the battle: the curses, the one countered, the boosts."""

    curses: tuple[str, ...]
    countered: str | None
    boosted: tuple[tuple[int, str], ...]


@remembered(BANDS)
def _top(monster: str, fighter: tuple[int, int, int], b: Besides, locale: str) -> Band:
    """The monster's card and, beside it, the fighter's state, the curses and potions drunk."""
    img, d = new_canvas(WIDTH, 640, BG)
    paste(img, monster_card(monster, MONSTER_W, locale), (MARGIN, 0))
    bottom = max(monster_height(monster, MONSTER_W, locale), _side(img, d, fighter, b, 0, locale))
    return band(img.crop((0, 0, WIDTH, bottom + 8)))


def draw_battle(obs: Observation, locale: str) -> list[Band]:
    """The battle picture of ``obs`` (which must have a battle), as its bands."""
    b = obs.battle
    if b is None:
        raise ValueError("battle_image needs an observation with a battle in progress")
    t = b.totals
    seat = obs.seats[b.seat]
    title = translate(msg("render.battle.title", who=name_text(seat.name, locale),
                          monster=monster_name(b.monster)), locale)
    rnd = translate(msg("render.round", round=obs.round), locale)
    top = _top(b.monster, (seat.hp, seat.hand_count, seat.deck_count),
               Besides(b.curses, b.countered, b.boosted), locale)
    att_parts: tuple[tuple[str, int], ...] = (("hand", t.attack_cards),
                                              ("weapon", t.attack_equipment))
    if obs.abilities:
        att_parts += (("spark", t.attack_ability),)
    return [
        title_band("attack", title, rnd, shortenable(seat.name)), top, *_chain(b, locale),
        _total_line("attack", t.attack, att_parts, ("heart", t.monster_hp),
                    t.attack >= t.monster_hp, locale),
        _total_line("defence", t.defence, (("hand", t.defence_cards),
                                           ("armour", t.defence_equipment)),
                    ("attack", t.monster_attack), t.defence >= t.monster_attack, locale),
        _outcome(t, locale)]
