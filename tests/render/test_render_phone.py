"""Pictures read on a phone: scaled to 400 px wide (about what Discord shows on a phone), every
number is at least 12 px high and every word and icon at least 9 px, measured on the glyphs and
sprites as drawn; and no label is cut, whatever the card, hero, monster or language."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator

import pytest
from msgspec import structs
from PIL import Image

import render
from engine import Phase
from engine.catalog import tables
from engine.names import hero_name, monster_name
from engine.observe import Observation
from i18n import LOCALES, msg, translate
from render.icons import record_icons
from render.layout import PLAYER_NAME_WHOLE
from render.positions import SCENARIOS, scene
from render.style import PHONE_WIDTH, WIDTH, Drawn, font, forget_drawings, record_text
from render.table import shown_phase

SCALE = PHONE_WIDTH / WIDTH
NUMBER_PX = 12
WORD_PX = 9
ICON_PX = 9


def ink_height(text: str, size: int, bold: bool, condensed: bool) -> float:
    """Height in pixels of the glyphs of ``text`` as drawn, at phone width."""
    x0, y0, x1, y1 = font(size, bold, condensed).getbbox(text)
    return (y1 - y0) * SCALE


def too_small(drawn: list[Drawn]) -> list[tuple[str, str, float]]:
    """(text, what, height at phone width) of every number under NUMBER_PX and word under
    WORD_PX: the digits and the letters of a text are measured apart."""
    out = []
    for d in {(d.text, d.size, d.bold, d.condensed): d for d in drawn}.values():
        digits = "".join(ch for ch in d.text if ch.isdigit())
        letters = "".join(ch for ch in d.text if ch.isalpha())
        if digits and (h := ink_height(digits, d.size, d.bold, d.condensed)) < NUMBER_PX:
            out.append((d.text, "number", h))
        if letters and (h := ink_height(letters, d.size, d.bold, d.condensed)) < WORD_PX:
            out.append((d.text, "word", h))
    return out


def small_icons(sprites: list[tuple[str, Image.Image]]) -> list[tuple[str, float]]:
    """(icon, size at phone width) of every icon whose ink is under ICON_PX at its longer
    side."""
    out = []
    for name, sprite in sprites:
        box = sprite.getchannel("A").getbbox()
        side = 0 if box is None else max(box[2] - box[0], box[3] - box[1])
        if side * SCALE < ICON_PX:
            out.append((name, side * SCALE))
    return out


@pytest.fixture
def drawn() -> Iterator[tuple[list[Drawn], list[tuple[str, Image.Image]]]]:
    """Every text and icon drawn from now on (cached parts forgotten, so drawn again)."""
    forget_drawings()
    with record_text() as texts, record_icons() as icons:
        yield texts, icons
    forget_drawings()


def draw_all(obs: Observation, locale: str) -> list[bytes]:
    """Every picture of ``obs`` in ``locale``."""
    out = [render.table_image(obs, locale)]
    if obs.battle is not None:
        out.append(render.battle_image(obs, locale))
    if obs.viewer is not None:
        out.append(render.hand_image(obs, locale))
    return out


def test_smallest_text_and_icons_at_phone_width(
        drawn: tuple[list[Drawn], list[tuple[str, Image.Image]]]) -> None:
    texts, icons = drawn
    for name in SCENARIOS:
        for locale in LOCALES:
            for png in draw_all(scene(name).observation(), locale):
                assert Image.open(io.BytesIO(png)).width == WIDTH
    assert len(texts) > 500 and len(icons) > 300
    assert not too_small(texts), too_small(texts)[:10]
    assert not small_icons(icons), small_icons(icons)[:10]


def test_the_measure_sees_small_glyphs() -> None:
    """The measure itself: text at the old 24 px of a 1200-px picture (8 px on a phone) fails,
    the floor passes; lower-case letters are held to the word height, digits to the number
    height."""
    assert too_small([Drawn("aucune", "aucune", 16, True, False, False)])
    assert too_small([Drawn("17", "17", 18, True, False, False)])
    assert not too_small([Drawn("aucune 17", "aucune 17", 26, True, False, False)])
    key = render.icons.icon("key", 12)
    assert small_icons([("key", key)]) and not small_icons([("key", render.icons.icon("key", 16))])


def _cut(texts: list[Drawn]) -> list[str]:
    """Texts drawn short of what was asked (an ellipsis), other than a long player name."""
    return sorted({d.wanted for d in texts
                   if (d.cut() or d.text.endswith("…")) and not d.may_shorten})


def _battles(obs: Observation) -> Iterator[Observation]:
    """``obs`` fighting every monster, with every action card played in some chain."""
    assert obs.battle is not None
    t = tables()
    actions = sorted(t.actions)
    chunk = 4
    for i, monster in enumerate(sorted(t.monsters)):
        start = (i * chunk) % len(actions)
        chain = tuple(actions[start:start + chunk])
        yield structs.replace(obs, battle=structs.replace(
            obs.battle, monster=monster, curses=t.monsters[monster].curses, countered=None,
            chain=chain, boosted=((0, "attack"),), unlocked=((1, "spark"),)))
    for start in range(0, len(actions), chunk):  # every card, whatever the monsters' count
        yield structs.replace(obs, battle=structs.replace(
            obs.battle, chain=tuple(actions[start:start + chunk])))


def _hands(obs: Observation) -> Iterator[Observation]:
    """``obs`` holding every action card, and every weapon and armour."""
    t = tables()
    actions = sorted(t.actions)
    assert obs.viewer is not None
    me = obs.seats[obs.viewer]
    weapons = sorted(e for e in t.equipment if t.equipment[e].kind == "weapon")
    armours = sorted(e for e in t.equipment if t.equipment[e].kind == "armour")
    for i, start in enumerate(range(0, len(actions), 6)):
        seat = structs.replace(me, weapon=weapons[i % len(weapons)],
                                   armour=armours[i % len(armours)])
        seats = tuple(seat if s.index == me.index else s for s in obs.seats)
        yield structs.replace(obs, hand=tuple(actions[start:start + 6]), seats=seats)
    for w, a in zip(weapons, armours * len(weapons), strict=False):
        seat = structs.replace(me, weapon=w, armour=a)
        yield structs.replace(obs, seats=tuple(seat if s.index == me.index else s
                                               for s in obs.seats))


#: Player names of PLAYER_NAME_WHOLE characters, which must be drawn whole everywhere.
WHOLE_NAMES = ("Kateřina Nov", "François-Xav", "Maximilian W", "Ödön Szőllős", "Wojciech Wój")


def _tables(obs: Observation) -> Iterator[Observation]:
    """``obs`` with every hero seated under its own name, then under long player names."""
    heroes = sorted(tables().hero_cards)
    n = len(obs.seats)
    for start in range(0, len(heroes), n):
        seats = tuple(structs.replace(s, hero=h, name=hero_name(h))
                      for s, h in zip(obs.seats, (heroes * 2)[start:start + n], strict=True))
        yield structs.replace(obs, seats=seats)
    for k in range(len(WHOLE_NAMES)):
        names = (WHOLE_NAMES * 2)[k:k + n]
        yield structs.replace(obs, seats=tuple(
            structs.replace(s, name=name) for s, name in zip(obs.seats, names, strict=True)))


@pytest.mark.parametrize("locale", LOCALES)
def test_no_label_is_cut(locale: str, drawn: tuple[list[Drawn], list[tuple[str, Image.Image]]]
                         ) -> None:
    """Every card, hero and monster name and every label in every picture, whole; player names
    of up to PLAYER_NAME_WHOLE characters whole too (longer ones may end with an ellipsis)."""
    assert all(len(n) == PLAYER_NAME_WHOLE for n in WHOLE_NAMES)
    texts, _ = drawn
    base = scene("crowded").observation()
    for obs in _tables(base):
        for png in draw_all(obs, locale):
            assert png
    for obs in _battles(base):
        render.battle_image(obs, locale)
    for obs in _hands(base):
        render.hand_image(obs, locale)
    for name in SCENARIOS:
        draw_all(scene(name).observation(), locale)
    assert len(texts) > 1000
    assert not _cut(texts), _cut(texts)[:10]
    # The sweep did draw every name: a card named in no picture would pass unseen.
    wanted = {d.wanted for d in texts}
    assert any(n.startswith("Kateřina Nov") for n in wanted)


def test_the_cut_check_sees_a_cut_label(
        drawn: tuple[list[Drawn], list[tuple[str, Image.Image]]]) -> None:
    texts, _ = drawn
    from PIL import ImageDraw

    d = ImageDraw.Draw(Image.new("RGB", (10, 10)))
    render.style.draw_text(d, (0, 0), "Supercalifragilistic", 26, max_width=150)
    render.style.draw_text(d, (0, 0), "Bartholomew Longname", 26, max_width=150,
                           may_shorten=True)
    assert _cut(texts) == ["Supercalifragilistic"]


#: Player names as long as Discord allows (32 characters) and a common longer-than-whole one.
LONG_NAMES = ("Maximilián Šťastný-Dvořáček 1234", "Françoise-Élodie de Montmorency",
              "Přemysl Otakar Žluťoučký Kůň III", "Kateřina Nováková")


def _title_kept(draw: Callable[[Observation, str], bytes], obs: Observation, locale: str,
                title: str, name: str) -> list[str]:
    """The words of ``title`` around ``name`` that ``draw(obs, locale)`` does not show whole
    (none when the picture keeps them; cached parts forgotten, so drawn again)."""
    forget_drawings()
    with record_text() as texts:
        draw(obs, locale)
    drawn = " ".join(" ".join(d.text for d in texts).split())
    around = [" ".join(part.split()) for part in title.split(name) if part.strip()]
    return [part for part in around if part not in drawn]


@pytest.mark.parametrize("locale", LOCALES)
def test_a_long_player_name_is_shortened_not_the_words_around_it(locale: str) -> None:
    """A title naming a player whose name is too long for its two lines shortens the name, and
    keeps whole what the title says of them: the phase of their turn, that they won, the
    monster they fight."""
    t = tables()
    for scenario in ("midgame", "start", "crowded"):
        base = scene(scenario).observation()
        for name in LONG_NAMES:
            obs = structs.replace(base, seats=tuple(structs.replace(s, name=name)
                                                    for s in base.seats))
            phase = translate(f"render.phase.{shown_phase(obs).value}", locale)
            title = translate(msg("render.turn", who=name, phase=phase), locale)
            assert not _title_kept(render.table_image, obs, locale, title, name)
            over = structs.replace(obs, phase=Phase.OVER, winner=obs.order[0])
            title = translate(msg("render.winner", who=name), locale)
            assert not _title_kept(render.table_image, over, locale, title, name)
            if obs.battle is None:
                continue
            for monster in sorted(t.monsters):
                fight = structs.replace(obs, battle=structs.replace(obs.battle, monster=monster))
                title = translate(msg("render.battle.title", who=name,
                                      monster=monster_name(monster)), locale)
                assert not _title_kept(render.battle_image, fight, locale, title, name), title
