"""The pictures fit Discord, every text goes through i18n, the font covers fr/cs, the demo runs."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from msgspec import structs
from PIL import Image, ImageChops

import render
from engine import Phase, Play
from engine.catalog import tables
from i18n import has_key, keys
from render.demo import main as demo_main
from render.hand import PENDING_PHASES
from render.icons import record_icons
from render.positions import SCENARIOS, battle_position, scene
from render.style import FONT_DIR, font, forget_drawings

RENDER_DIR = Path(render.__file__).parent
MAX_WIDTH = 1600
MAX_BYTES = 300 * 1024


def all_pictures() -> list[tuple[str, str, bytes]]:
    out = []
    for name in SCENARIOS:
        obs = scene(name).observation()
        out.append((name, "table", render.table_image(obs)))
        if obs.battle is not None:
            out.append((name, "battle", render.battle_image(obs)))
        if obs.viewer is not None:
            out.append((name, "hand", render.hand_image(obs)))
    return out


def test_pictures_fit_discord() -> None:
    pictures = all_pictures()
    assert {k for _, k, _ in pictures} == {"table", "battle", "hand"}
    for name, kind, png in pictures:
        img = Image.open(io.BytesIO(png))
        assert img.format == "PNG"
        assert img.width <= MAX_WIDTH, f"{name} {kind}: {img.width} px wide"
        assert len(png) <= MAX_BYTES, f"{name} {kind}: {len(png)} bytes"
        # Laid out for a phone's width (test_render_phone): no taller than about two phone
        # screens, so the whole picture is read with a short scroll.
        assert img.height <= 2 * img.width, f"{name} {kind}: {img.size} too tall"


def test_rendering_is_deterministic() -> None:
    obs = scene("midgame").observation()
    assert render.table_image(obs) == render.table_image(obs)
    assert render.hand_image(obs) == render.hand_image(obs)


def test_playable_cards_come_from_legal_plays() -> None:
    obs = scene("midgame").observation()
    playable = render.playable_cards(obs)
    assert playable == {a.card for a in obs.legal if isinstance(a, Play)}
    assert playable, "the scenario should leave a card playable"
    # Without legal moves nothing is marked, and the picture changes accordingly.
    idle = structs.replace(obs, legal=())
    assert render.playable_cards(idle) == frozenset()
    a = Image.open(io.BytesIO(render.hand_image(obs))).convert("RGB")
    b = Image.open(io.BytesIO(render.hand_image(idle))).convert("RGB")
    assert a.size != b.size or ImageChops.difference(a, b).getbbox() is not None


def test_a_coin_marks_each_reward_card_of_the_hand() -> None:
    """The merchant takes reward cards as payment: a hand holding one shows a coin, a hand of
    starting cards none."""
    for name in ("discard", "midgame"):
        obs = scene(name).observation()
        rewards = [c for c in (*obs.hand, *obs.drawn) if tables().actions[c].reward]
        forget_drawings()
        with record_icons() as icons:
            render.hand_image(obs)
        forget_drawings()
        assert ("coin" in [n for n, _ in icons]) == bool(rewards), name
        assert rewards or name == "midgame", "the discard scene holds a reward card"


@pytest.mark.parametrize("phase", list(Phase))
def test_table_draws_every_phase(phase: Phase) -> None:
    obs = scene("midgame").observation()
    winner = 0 if phase is Phase.OVER else None
    png = render.table_image(structs.replace(obs, phase=phase, winner=winner))
    assert Image.open(io.BytesIO(png)).width <= MAX_WIDTH


def test_long_names_and_many_pawned_cards_still_fit() -> None:
    obs = scene("midgame").observation()
    seats = tuple(structs.replace(s, name="Žluťoučký kůň úpěl ďábelské ódy " * 3)
                  for s in obs.seats)
    pawned = tuple(sorted(tables().equipment))
    png = render.table_image(structs.replace(obs, seats=seats, pawnshop=pawned))
    assert Image.open(io.BytesIO(png)).width <= MAX_WIDTH


def test_unknown_locale_falls_back_to_english() -> None:
    obs = scene("midgame").observation()
    assert render.table_image(obs, "de") == render.table_image(obs, "en")
    assert render.table_image(obs, "en-GB") == render.table_image(obs, "en")


def used_render_keys() -> set[str]:
    """The ``render.*`` keys the code names (f-strings over phases count as every phase)."""
    used: set[str] = set()
    for path in RENDER_DIR.glob("*.py"):
        text = path.read_text()
        used |= set(re.findall(r"""["'](render\.[a-z_.]+)["']""", text))
        if re.search(r"""f["']render\.phase\.\{""", text):
            used |= {f"render.phase.{p.value}" for p in Phase}
        if re.search(r"""f["']render\.hand\.pending\.\{""", text):
            used |= {f"render.hand.pending.{p.value}" for p in PENDING_PHASES}
    return used


def test_render_keys_exist() -> None:
    """Every ``render.*`` key the code uses has an English text."""
    used = used_render_keys()
    assert "render.hand.playable" in used and "render.phase.battle" in used
    missing = sorted(k for k in used if not has_key(k))
    assert not missing, f"keys without text in i18n/locales/en/render.toml: {missing}"


def test_no_dead_render_keys() -> None:
    """Every text in render.toml is used, so translators translate nothing in vain."""
    defined = {k for k in keys() if k.startswith("render.")}
    dead = sorted(defined - used_render_keys())
    assert not dead, f"render.toml keys no picture uses: {dead}"


def test_font_covers_french_and_czech() -> None:
    assert any(FONT_DIR.glob("LICENSE*")), "the font's licence must ship with it"
    f = font(40)
    notdef = bytes(f.getmask("\u4e00"))  # a CJK ideograph: not in DejaVu Sans, drawn as a box
    assert bytes(f.getmask("a")) != notdef
    for ch in "ěščřžýáíéůàçèêôœĚŠČŘŽÝÁÍÉŮÀÇÈÊÔŒúďťňÚĎŤŇ":
        assert bytes(f.getmask(ch)) != notdef, f"the bundled font has no {ch!r}"


def test_demo_writes_three_pictures(tmp_path: Path) -> None:
    assert demo_main(["--seed", "1", "--out", str(tmp_path)]) == 0
    for name in ("table", "battle", "hand"):
        img = Image.open(tmp_path / f"{name}.png")
        assert img.width <= MAX_WIDTH


def test_battle_position_has_cards_played_and_equipment() -> None:
    state, actions = battle_position(1)
    assert state.battle is not None and len(state.battle.chain) >= 2
    assert any(s.weapon or s.armour for s in state.seats)
    assert actions


def test_every_kind_of_position_of_simulated_games_renders() -> None:
    """Smoke test over whole random games: empty rows and decks, Lord fights, the end."""
    from engine import apply, new_game, observe
    from engine.agents import make_agent
    from render.positions import demo_config

    phases: set[Phase] = set()
    for seed in (2, 3):
        state = new_game(demo_config(seed, seats=2 + seed % 3))
        agents = [make_agent("reach", seed + i) for i in range(len(state.seats))]
        step = 0
        while state.phase is not Phase.OVER and step < 3000:
            if step % 25 == 0 or state.phase not in (Phase.TURN, Phase.BATTLE):
                obs = observe(state, state.current)
                if state.phase not in phases or step % 100 == 0:
                    phases.add(state.phase)
                    assert render.table_image(obs)
                    assert render.hand_image(obs)
                    if obs.battle is not None:
                        assert render.battle_image(obs)
            state, _ = apply(state, agents[state.current].choose(observe(state, state.current)))
            step += 1
        obs = observe(state, None)
        assert render.table_image(obs)
    assert Phase.BATTLE in phases and Phase.TURN in phases


def test_drawing_from_several_threads_gives_the_same_pictures() -> None:
    """The bot draws in worker threads; shared caches and fonts must not mix pictures up."""
    from concurrent.futures import ThreadPoolExecutor

    observations = [scene(n).observation() for n in ("midgame", "lord", "taia", "discard")]
    jobs = [(draw, obs) for obs in observations
            for draw in (render.table_image, render.hand_image)] * 3
    from render.style import forget_drawings, text_mask, text_width

    forget_drawings()  # cold caches: threads race to fill them
    for cached in (text_mask, text_width):
        cached.cache_clear()
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(lambda job: job[0](job[1]), jobs))
    serial = [draw(obs) for draw, obs in jobs]
    assert parallel == serial


def test_bands_join_into_one_png() -> None:
    """Bands compressed apart join into one valid PNG whose rows are theirs, in order."""
    from render.bands import band, encode
    from render.style import WIDTH

    red = band(Image.new("RGB", (WIDTH, 7), (215, 55, 45)))
    blue = band(Image.new("RGB", (WIDTH, 5), (45, 110, 220)))
    img = Image.open(io.BytesIO(encode([red, blue, red])))
    img.load()  # decodes the whole stream: checksums and all
    rgb = img.convert("RGB")
    assert rgb.size == (WIDTH, 19)

    def near(xy: tuple[int, int], colour: tuple[int, int, int]) -> bool:
        """The palette keeps colours within a few levels (its lookup works on 5-6-5 cells)."""
        return max(abs(a - b) for a, b in zip(rgb.getpixel(xy), colour, strict=True)) <= 4

    assert near((0, 0), (215, 55, 45)) and near((WIDTH - 1, 18), (215, 55, 45))
    assert near((3, 7), (45, 110, 220)) and near((3, 11), (45, 110, 220))
    assert not near((3, 7), (215, 55, 45))


def test_band_checksums_combine_as_zlib_computes_them() -> None:
    import random
    import zlib

    from render.bands import adler32_combine

    rng = random.Random(5)
    for size_a, size_b in ((0, 0), (1, 0), (0, 7), (5, 70000), (131072, 3), (65521, 65521)):
        a = bytes(rng.randrange(256) for _ in range(size_a))
        b = bytes(rng.randrange(256) for _ in range(size_b))
        assert adler32_combine(zlib.adler32(a), zlib.adler32(b), len(b)) == zlib.adler32(a + b)


#: Discord names with characters the bundled font lacks: emoji, a flag, CJK.
EMOJI_NAMES = ("Bob 🎲", "🏆🏆 Zoë", "Kuba 🇨🇿", "Eva \u2764\ufe0f\u200d\U0001f525 Nová 你好")


def test_player_names_are_drawn_without_boxes_for_missing_glyphs() -> None:
    """A player name with emoji (or other characters the font lacks) is drawn without them in
    every picture naming players, as the tournament's pictures do, never as empty boxes."""
    from render.charts import RatingPoint, SeatSeries, rating_chart, summary_chart
    from render.style import record_text

    f = font(40)
    notdef = bytes(f.getmask("\u4e00"))
    base = scene("midgame").observation()
    obs = structs.replace(base, seats=tuple(structs.replace(s, name=n)
                                            for s, n in zip(base.seats, EMOJI_NAMES,
                                                            strict=True)))
    winner = structs.replace(obs, phase=Phase.OVER, winner=1)
    series = [SeatSeries(s.hero, n, keys=(0, 1), hp=(5, 3), won=s.index == 0)
              for s, n in zip(obs.seats, EMOJI_NAMES, strict=True)]
    forget_drawings()
    with record_text() as texts:
        render.table_image(obs)
        render.table_image(winner)
        render.battle_image(obs)
        render.hand_image(obs)
        summary_chart(series)
        rating_chart([RatingPoint(1500)], EMOJI_NAMES[0])
    forget_drawings()
    boxes = sorted({d.text for d in texts
                    if any(not ch.isspace() and bytes(f.getmask(ch)) == notdef
                           for ch in d.text)})
    assert not boxes, boxes
    drawn = " ".join(d.text for d in texts)
    assert "Bob" in drawn and "Zoë" in drawn and "Eva" in drawn
