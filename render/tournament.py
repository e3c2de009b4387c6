"""A server tournament's pictures: the standings after a round and the champion at the end.

Both are :data:`~render.style.WIDTH` pixels wide like every picture (a phone shows them about
400 px wide), their smallest text at :data:`~render.style.MIN_TEXT`, and take their words through
:mod:`i18n`. They know nothing of how the tournament is stored or played: the caller hands them
lines (:class:`StandingLine`) already ranked.

Players' names follow the pictures' policy (:mod:`render.layout`): up to
:data:`~render.layout.PLAYER_NAME_WHOLE` characters always whole, longer ones may end with an
ellipsis. Characters the bundled font cannot draw (most emoji) are left out rather than drawn as
empty boxes (:func:`~render.layout.drawable`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from i18n import msg, translate
from render.bands import Band, band, encode
from render.icons import icon, paste
from render.layout import MARGIN, PLAYER_NAME_WHOLE, drawable, lines_of, title_band
from render.style import (
    BG,
    GOLD,
    INK,
    LINE,
    MIN_TEXT,
    MUTED,
    PANEL,
    PANEL_HI,
    WIDTH,
    draw_text,
    new_canvas,
    text_width,
)

NAME_PX = 30
ROW_H = 50
GAP = 12  # between two columns
INSET = 8  # from a row's panel to its text
MARK = 26  # the dropped and bye marks
#: The icon marking a dropped player and one marking a bye.
DROPPED_MARK = "ban"
BYE_MARK = "arrow"
LEGEND_PITCH = 34
CHAMPION_PX = 52


@dataclass(frozen=True)
class StandingLine:
    """One line of the standings as drawn: the place, the player's name, their points and
    tie-break figures (opponents' points, wins), whether they dropped out, whether they had
    a bye in the round just played, whether the lot decided their place (``by_lot``) and
    their rating, the tie-break before the lot, which the picture does not show (None: not
    known)."""

    place: int
    name: str
    points: int
    opponents: int
    wins: int
    dropped: bool = False
    bye: bool = False
    by_lot: bool = False
    rating: int | None = None


@dataclass(frozen=True)
class _Columns:
    """Where a line's parts go: the place's right edge, the name's left edge and room, and the
    right edges of the points, opponents' points and wins."""

    place_right: int
    name_left: int
    name_room: int
    rights: tuple[int, int, int]


def _columns(lines: Sequence[StandingLine], headers: Sequence[str]) -> _Columns:
    """The columns, as wide as their widest figure or heading."""
    figures = [[str(s.points) for s in lines], [str(s.opponents) for s in lines],
               [str(s.wins) for s in lines]]
    sizes = (NAME_PX, MIN_TEXT, MIN_TEXT)
    widths = [max([text_width(h, MIN_TEXT)] + [text_width(v, size) for v in values])
              for h, values, size in zip(headers, figures, sizes, strict=True)]
    rights = []
    right = WIDTH - MARGIN - INSET
    for w in reversed(widths):
        rights.append(right)
        right -= w + GAP
    place_w = max([text_width(str(s.place), NAME_PX) for s in lines] + [text_width("0", NAME_PX)])
    place_right = MARGIN + INSET + place_w
    name_left = place_right + GAP
    return _Columns(place_right, name_left, right - name_left,
                    (rights[2], rights[1], rights[0]))


def _header_band(cols: _Columns, headers: Sequence[str], player: str) -> Band:
    """The headings over the columns."""
    img, d = new_canvas(WIDTH, 40, BG)
    draw_text(d, (cols.name_left, 20), player, MIN_TEXT, fill=MUTED, anchor="lm")
    for right, word in zip(cols.rights, headers, strict=True):
        draw_text(d, (right, 20), word, MIN_TEXT, fill=MUTED, anchor="rm")
    return band(img)


def _line_band(line: StandingLine, cols: _Columns, shade: bool) -> Band:
    """One player's line: place, name, points, opponents' points, wins; a dropped player's line
    greyed, with a mark after the name, and a mark after the name of a player with a bye."""
    img, d = new_canvas(WIDTH, ROW_H, BG)
    if shade:
        d.rounded_rectangle((MARGIN, 2, WIDTH - MARGIN, ROW_H - 2), radius=10, fill=PANEL)
    cy = ROW_H // 2
    ink = MUTED if line.dropped else INK
    draw_text(d, (cols.place_right, cy), str(line.place), NAME_PX,
              fill=GOLD if line.place == 1 and not line.dropped else ink, anchor="rm")
    name = drawable(line.name)
    marks = [m for m, on in ((DROPPED_MARK, line.dropped), (BYE_MARK, line.bye)) if on]
    room = cols.name_room - len(marks) * (MARK + 8)
    x = cols.name_left
    x += draw_text(d, (x, cy), name, NAME_PX, fill=ink, anchor="lm", max_width=room,
                   may_shorten=len(name) > PLAYER_NAME_WHOLE)
    for mark in marks:
        paste(img, icon(mark, MARK), (x + 8, cy - MARK // 2))
        x += MARK + 8
    figures = (str(line.points), str(line.opponents), str(line.wins))
    for right, value, size, fill in zip(cols.rights, figures, (NAME_PX, MIN_TEXT, MIN_TEXT),
                                        (ink, MUTED, MUTED), strict=True):
        draw_text(d, (right, cy), value, size, fill=fill, anchor="rm")
    return band(img)


def _notes_band(notes: Sequence[str], marks: Sequence[tuple[str, str]]) -> Band:
    """The rules under the standings, wrapped, then the meaning of each mark that shows
    (``marks``: icon and word)."""
    room = WIDTH - 2 * MARGIN
    rows = [line for note in notes for line in lines_of(note, room, MIN_TEXT, max_lines=4)]
    height = 14 + LEGEND_PITCH * (len(rows) + len(marks))
    img, d = new_canvas(WIDTH, height, BG)
    d.line((MARGIN, 4, WIDTH - MARGIN, 4), fill=LINE, width=2)
    y = 14 + LEGEND_PITCH // 2
    for row in rows:
        draw_text(d, (MARGIN, y), row, MIN_TEXT, fill=MUTED, anchor="lm", bold=False)
        y += LEGEND_PITCH
    for mark, word in marks:
        paste(img, icon(mark, MARK), (MARGIN, y - MARK // 2))
        draw_text(d, (MARGIN + MARK + 10, y), word, MIN_TEXT, fill=MUTED, anchor="lm",
                  bold=False)
        y += LEGEND_PITCH
    return band(img)


def _table_bands(lines: Sequence[StandingLine], locale: str) -> list[Band]:
    """The headings and a band per line."""
    headers = [translate(key, locale) for key in (
        "render.tournament.points", "render.tournament.opponents", "render.tournament.wins")]
    cols = _columns(lines, headers)
    out = [_header_band(cols, headers, translate("render.tournament.player", locale))]
    out += [_line_band(line, cols, i % 2 == 0) for i, line in enumerate(lines)]
    return out


def standings_image(lines: Sequence[StandingLine], name: str, round_number: int, rounds: int,
                    locale: str = "en", final: bool = False) -> bytes:
    """PNG of the standings of tournament ``name`` after round ``round_number`` of ``rounds``
    (``final``: the tournament is over), ``lines`` best first; the points rule and the
    tie-breaks under them."""
    shown = drawable(name)
    title = translate(msg("render.tournament.standings_title", name=shown), locale)
    right = translate("render.tournament.final", locale) if final else translate(
        msg("render.tournament.round_of", round=round_number, rounds=rounds), locale)
    bands = [title_band("trophy", title, right, shorten=shown)]
    bands += _table_bands(lines, locale)
    notes = [translate("render.tournament.points_rule", locale),
             translate("render.tournament.tie_rule", locale), *lot_note(lines, locale)]
    bands.append(_notes_band(notes, _marks(lines, locale)))
    return encode(bands)


def _marks(lines: Sequence[StandingLine], locale: str) -> list[tuple[str, str]]:
    """The marks ``lines`` show, each with the word that explains it."""
    return [(mark, translate(key, locale))
            for mark, key, shows in (
                (DROPPED_MARK, "render.tournament.dropped", any(s.dropped for s in lines)),
                (BYE_MARK, "render.tournament.bye", any(s.bye for s in lines)))
            if shows]


def _champion_band(winner: StandingLine, rounds: int, locale: str) -> Band:
    """The champion: a large cup, their name, that they win, with how many points."""
    img, d = new_canvas(WIDTH, 330, BG)
    d.rounded_rectangle((MARGIN, 6, WIDTH - MARGIN, 324), radius=18, fill=PANEL,
                        outline=PANEL_HI, width=3)
    cup = icon("trophy", 120)
    paste(img, cup, ((WIDTH - cup.width) // 2, 24))
    name = drawable(winner.name)
    draw_text(d, (WIDTH // 2, 184), name, CHAMPION_PX, fill=GOLD, anchor="mm",
              max_width=WIDTH - 2 * MARGIN - 2 * INSET,
              may_shorten=len(name) > PLAYER_NAME_WHOLE)
    draw_text(d, (WIDTH // 2, 238), translate("render.tournament.wins_title", locale), NAME_PX,
              anchor="mm", max_width=WIDTH - 2 * MARGIN - 2 * INSET)
    summary = " · ".join((
        translate(msg("render.tournament.with_points", count=winner.points), locale),
        translate(msg("render.tournament.after_rounds", count=rounds), locale)))
    draw_text(d, (WIDTH // 2, 284), summary, MIN_TEXT, fill=MUTED, anchor="mm", bold=False,
              max_width=WIDTH - 2 * MARGIN - 2 * INSET)
    return band(img)


def _gap(height: int) -> Band:
    """Empty room between two parts."""
    img, _ = new_canvas(WIDTH, height, BG)
    return band(img)


def champion_image(lines: Sequence[StandingLine], name: str, rounds: int, players: int,
                   locale: str = "en", podium: int = 3) -> bytes:
    """PNG of the end of tournament ``name``: its champion (the first of the final standings
    ``lines``), then the first ``podium`` lines of the standings, the places the lot decided
    among them and the marks they show explained."""
    title = drawable(name)
    right = translate(msg("render.tournament.players", count=players), locale)
    bands = [title_band("trophy", title, right, shorten=title),
             _champion_band(lines[0], rounds, locale), _gap(12)]
    bands += _table_bands(lines[:podium], locale)
    note = lot_note(lines, locale, podium)
    marks = _marks(lines[:podium], locale)  # those the podium shows, explained
    bands.append(_notes_band(note, marks) if note or marks else _gap(12))
    return encode(bands)


def lot_groups(lines: Sequence[StandingLine]) -> list[tuple[int, int]]:
    """The places the lot decided, as ``(first, last)`` places of each run of lines level on
    points and every tie-break, the rating included (``lines`` best first)."""
    groups: list[tuple[int, int]] = []
    figures = None
    for line in lines:
        now = (line.points, line.opponents, line.wins, line.rating)
        if line.by_lot and groups and figures == now and groups[-1][1] == line.place - 1:
            groups[-1] = (groups[-1][0], line.place)
        elif line.by_lot:
            groups.append((line.place, line.place))
        figures = now
    return groups


def lot_note(lines: Sequence[StandingLine], locale: str, down_to: int | None = None) -> list[str]:
    """The line saying which places the lot decided (none when it decided none; ``down_to``:
    only the runs reaching that place or better)."""
    groups = [g for g in lot_groups(lines) if down_to is None or g[0] <= down_to]
    if not groups:
        return []
    places = ", ".join(f"{a}–{b}" if b > a else str(a) for a, b in groups)
    return [translate(msg("render.tournament.lot.places", places=places), locale)]


__all__ = ["StandingLine", "champion_image", "drawable", "lot_groups", "lot_note",
           "standings_image"]
