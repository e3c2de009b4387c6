"""The private hand picture: the viewer's cards, which of them can be played now, and their kit.

Only for a seat (never a spectator). Marks come from the observation's legal actions alone: a
card a legal Play uses is "playable now"; in the discard step the cards a legal Discard names are
marked instead, and Taia's drawn pair is marked when she must keep one. A coin under a card
says it is a reward card, which can pay the merchant.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine.actions import Discard, KeepDrawn, Play
from engine.catalog import tables
from engine.names import card_name
from engine.observe import Observation
from engine.state import Phase
from i18n import msg, translate
from render.bands import Band, band
from render.cards import EFFECTS, action_card, action_height
from render.icons import curse_icon, icon, paste
from render.layout import (
    BANDS,
    LINE_H,
    draw_lines,
    lines_of,
    name_text,
    shortenable,
    title_bar,
)
from render.seats import hearts
from render.style import (
    BAD,
    BG,
    DISCARD,
    EQUIP_FRAME,
    EQUIP_INNER,
    GOLD,
    GOOD,
    INK,
    LINE,
    MIN_TEXT,
    MUTED,
    PANEL,
    RGB,
    WIDTH,
    draw_text,
    new_canvas,
    panel,
    remembered,
    text_width,
)

MARGIN = 10
CARD_W = 192  # every card of the hand at this width: its longest word fits in one line
PER_ROW = 3
GAP = 6
SIGN = 36  # the marks under a card
#: What the header says when the viewer must decide something other than playing a card.
PENDING_PHASES = (Phase.TURN, Phase.REWARD, Phase.MERCHANT, Phase.PAY)


def playable_cards(obs: Observation) -> frozenset[str]:
    """The cards of the viewer's hand that a legal action plays right now."""
    return frozenset(a.card for a in obs.legal if isinstance(a, Play))


def card_marks(obs: Observation) -> dict[str, str]:
    """What the viewer may do with each card now: ``play``, ``discard`` or ``keep`` (Taia)."""
    marks: dict[str, str] = {}
    for a in obs.legal:
        if isinstance(a, Play):
            marks[a.card] = "play"
        elif isinstance(a, Discard):
            marks[a.card] = "discard"
        elif isinstance(a, KeepDrawn):
            marks[a.card] = "keep"
    return marks


MARK_COLOUR: dict[str, RGB] = {"play": GOOD, "keep": GOOD, "discard": DISCARD}
MARK_ICON = {"play": "check", "keep": "check", "discard": "discard"}


def cancelled(card: str, cursed: frozenset[str]) -> list[str]:
    """The curses of this battle that hit ``card``: its colour, or an effect it has."""
    info = tables().actions[card]
    out = [info.colour] if info.colour in cursed else []
    out += [e for e in EFFECTS if info.effect(e) and e in cursed]
    return out


def _cards_rows(cards: tuple[str, ...], marks: dict[str, str], cursed: frozenset[str],
                locale: str) -> list[Band]:
    """The cards in rows of PER_ROW, a band each."""
    out = []
    for start in range(0, len(cards), PER_ROW):
        row = cards[start:start + PER_ROW]
        out.append(_cards_row(row, tuple(marks.get(c) for c in row),
                              tuple(tuple(cancelled(c, cursed)) for c in row), locale))
    return out


@remembered(BANDS)
def _cards_row(row: tuple[str, ...], marks: tuple[str | None, ...],
               curses: tuple[tuple[str, ...], ...], locale: str) -> Band:
    """Cards side by side; those a legal move uses are framed with a mark below them, a curse
    that hits a card (its colour or one of its effects) is shown under it, and so is a coin
    under a reward card (the merchant takes it as payment)."""
    w = CARD_W
    n = len(row)
    x = (WIDTH - (n * w + (n - 1) * GAP)) // 2
    h = max(action_height(card, w, locale) for card in row)
    pays = tuple(tables().actions[card].reward for card in row)
    below = any(m is not None for m in marks) or any(curses) or any(pays)
    img, d = new_canvas(WIDTH, 6 + h + (SIGN + 16 if below else 10), BG)
    y = 6
    for card, mark, hits, pay in zip(row, marks, curses, pays, strict=True):
        ch = action_height(card, w, locale)
        if mark is not None:
            d.rounded_rectangle((x - 4, y - 4, x + w + 3, y + ch + 3), radius=w // 12 + 4,
                                outline=MARK_COLOUR[mark], width=5)
        paste(img, action_card(card, w, locale), (x, y))
        # Under the card: what may be done with it, and the curses that hit it (never over
        # the card, whose name must stay readable).
        signs: list[Image.Image] = []
        if mark is not None:
            signs.append(icon(MARK_ICON[mark], SIGN, GOOD if mark != "discard" else None))
        signs += [curse_icon(c, SIGN) for c in hits]
        if pay:  # a reward card: the merchant takes it as payment
            signs.append(icon("coin", SIGN))
        sx = x + (w - len(signs) * SIGN - (len(signs) - 1) * 6) // 2
        for sign in signs:
            paste(img, sign, (sx, y + h + 8))
            sx += SIGN + 6
        x += w + GAP
    return band(img)


def _status(obs: Observation, marks: dict[str, str]) -> tuple[str, str | None]:
    """What the viewer may do now, and the mark that goes with it."""
    if "play" in marks.values():
        return "render.hand.playable", "play"
    if "discard" in marks.values():
        return "render.hand.discard_now", "discard"
    if "keep" in marks.values():
        return "render.hand.keep_now", "keep"
    if not obs.legal:
        return "render.hand.waiting", None
    if obs.phase in PENDING_PHASES:
        return f"render.hand.pending.{obs.phase.value}", None
    return "render.hand.none_playable", None


STRIP_X0 = MARGIN + 12
STRIP_X1 = WIDTH - MARGIN - 12


def _bonuses(item: str) -> list[tuple[str, int]]:
    info = tables().equipment[item]
    return [(e, v) for e, v in (("attack", info.attack), ("defence", info.defence),
                                ("heal", info.heal), ("hand", info.hand)) if v]


def _bonus_widths(item: str) -> list[int]:
    return [26 + 2 + text_width(f"+{v}", MIN_TEXT) for _, v in _bonuses(item)]


def strip_name_lines(item: str, locale: str) -> list[str]:
    """The lines of an equipment's name in its strip (two when one does not hold it)."""
    widths = _bonus_widths(item)
    room = STRIP_X1 - 10 - sum(widths) - 10 * len(widths) - (STRIP_X0 + 46) - 4
    return lines_of(translate(card_name(item), locale), room, max_lines=2, condensed=True)


def _equipment_strip(img: Image.Image, d: ImageDraw.ImageDraw, item: str, y: int,
                     cursed: bool, locale: str) -> int:
    """A weapon or armour as one strip: its kind, its name, what it adds (struck through when
    the battle's curse switches it off, the curse's mark then leading the strip); returns the
    y below it."""
    info = tables().equipment[item]
    x, x1 = STRIP_X0, STRIP_X1
    lines = strip_name_lines(item, locale)
    h = 46 + 30 * (len(lines) - 1)
    cy = y + h // 2
    panel(d, (x, y, x1, y + h), fill=EQUIP_INNER, outline=EQUIP_FRAME, width=2, radius=8)
    if cursed:  # the curse's mark stands for the item's kind
        paste(img, curse_icon(info.kind, 36), (x + 4, cy - 18))
    else:
        paste(img, icon(info.kind, 32), (x + 6, cy - 16))
    widths = _bonus_widths(item)
    start = x1 - 10 - sum(widths) - 10 * (len(widths) - 1)
    bx = start
    for (effect, value), w in zip(_bonuses(item), widths, strict=True):
        paste(img, icon(effect, 26), (bx, cy - 13))
        draw_text(d, (bx + 28, cy), f"+{value}", MIN_TEXT, fill=LINE if cursed else INK,
                  anchor="lm")
        bx += w + 10
    if cursed:
        d.line((start - 4, cy, x1 - 8, cy), fill=BAD, width=3)
    draw_lines(d, x + 46, cy - 15 * (len(lines) - 1), lines, fill=INK, condensed=True,
               pitch=30)
    return y + h + 6


@dataclass(frozen=True)
class Kit:
    """What the kit panel shows of the viewer's seat (cursed: its equipment the battle's curses
    switch off)."""

    hp: int
    hand_size: int
    potions: tuple[str, ...]
    deck_count: int
    discard_count: int
    items: tuple[tuple[str, bool], ...]


def kit_of(obs: Observation, cursed: frozenset[str]) -> Kit:
    """The viewer's kit as the hand picture shows it."""
    assert obs.viewer is not None
    me = obs.seats[obs.viewer]
    items = tuple((i, slot in cursed) for i, slot in ((me.weapon, "weapon"),
                                                       (me.armour, "armour")) if i is not None)
    # The hand size this battle allows: an equipment curse takes that item's bonus away (R23).
    eq = tables().equipment
    lost = sum(eq[i].hand for i, off in items if off)
    return Kit(me.hp, me.hand_size - lost, me.potions, me.deck_count, len(me.discard), items)


@remembered(BANDS)
def _kit(me: Kit, locale: str) -> Band:
    """HP, hand size and potions; deck and discard counts; weapon and armour."""
    items = me.items
    size = translate(msg("render.hand.size", size=me.hand_size), locale)
    x = MARGIN + 12
    size_x = x + 5 * 35 + 8 + 34
    potions_w = 36 * len(me.potions)
    size_lines = lines_of(size, WIDTH - MARGIN - 12 - potions_w - size_x - 6)
    counts = (("deck", me.deck_count, "render.hand.deck"),
              ("discard", me.discard_count, "render.hand.discard"))
    strips = sum(46 + 30 * (len(strip_name_lines(i, locale)) - 1) + 6 for i, _ in items)
    half = (WIDTH - 2 * MARGIN - 24) // 2  # each count with its label has half the line
    labels = [lines_of(translate(key, locale), half - 40 - text_width(str(n), 34) - 16)
              for _, n, key in counts]
    two = max(len(lb) for lb in labels) > 1
    box_h = 14 + max(40, LINE_H * len(size_lines)) + 50 + (28 if two else 0) + strips + 10
    img, d = new_canvas(WIDTH, box_h + MARGIN, BG)
    y = 0
    panel(d, (MARGIN, y, WIDTH - MARGIN, y + box_h), fill=PANEL, radius=10)
    top = y + 14
    hearts(img, me.hp, x, top, 32)
    paste(img, icon("hand", 28), (size_x - 34, top + 2))
    draw_lines(d, size_x, top + 16, size_lines)
    px = WIDTH - MARGIN - 12 - potions_w
    for p in me.potions:
        paste(img, icon(f"potion.{p}", 34), (px, top))
        px += 36
    cy = top + max(40, LINE_H * len(size_lines)) + 22 + (14 if two else 0)
    for i, ((ic, n, _), label) in enumerate(zip(counts, labels, strict=True)):
        cx = x + i * half
        paste(img, icon(ic, 34), (cx, cy - 17))
        cx += 40 + draw_text(d, (cx + 40, cy), str(n), 34, anchor="lm") + 8
        draw_lines(d, cx, cy - 14 * (len(label) - 1), label, pitch=28)
    ey = cy + 28 + (14 if two else 0)
    for item, off in items:
        ey = _equipment_strip(img, d, item, ey, off, locale)
    return band(img)


@remembered(BANDS)
def _head(title: str, shorten: str, status_key: str, status_mark: str | None,
          locale: str) -> Band:
    """The title, and under it what the viewer may do now."""
    img, d = new_canvas(WIDTH, 220, BG)
    y = title_bar(img, d, "hand", title, "", shorten=shorten)
    x = MARGIN
    if status_mark:
        paste(img, icon(MARK_ICON[status_mark], 30, GOOD if status_mark != "discard" else None),
              (x, y - 6))
        x += 38
    status = lines_of(translate(status_key, locale), WIDTH - MARGIN - x)
    y = draw_lines(d, x, y + 9, status,
                   fill=MARK_COLOUR[status_mark] if status_mark else MUTED) - 4
    return band(img.crop((0, 0, WIDTH, y)))


@remembered(BANDS)
def _note(key: str, locale: str, empty_panel: bool) -> Band:
    """A line of text (the drawn pair's label), or an empty hand's panel."""
    if empty_panel:
        img, d = new_canvas(WIDTH, 96, BG)
        panel(d, (MARGIN, 6, WIDTH - MARGIN, 86), fill=PANEL, radius=10)
        draw_text(d, (WIDTH // 2, 46), translate(key, locale), MIN_TEXT, fill=LINE,
                  max_width=WIDTH - 2 * MARGIN - 20,
                  anchor="mm")
        return band(img)
    lines = lines_of(translate(key, locale), WIDTH - 2 * MARGIN)
    img, d = new_canvas(WIDTH, 12 + LINE_H * len(lines), BG)
    draw_lines(d, MARGIN, 12 + LINE_H // 2, lines, fill=GOLD)
    return band(img)


def draw_hand(obs: Observation, locale: str) -> list[Band]:
    """The hand picture of ``obs`` (a seat's observation), as its bands."""
    if obs.viewer is None:
        raise ValueError("hand_image needs a seat's observation; a spectator has no hand")
    me = obs.seats[obs.viewer]
    marks = card_marks(obs)
    cursed = frozenset(obs.battle.active_curses) if obs.battle is not None else frozenset()
    title = translate(msg("render.hand.title", who=name_text(me.name, locale)), locale)
    bands = [_head(title, shortenable(me.name), *_status(obs, marks), locale)]
    if obs.hand:
        bands += _cards_rows(obs.hand, marks, cursed, locale)
    else:
        bands.append(_note("render.hand.empty", locale, True))
    if obs.drawn:
        bands.append(_note("render.hand.drawn", locale, False))
        bands += _cards_rows(obs.drawn, marks, cursed, locale)
    bands.append(_kit(kit_of(obs, cursed), locale))
    return bands
