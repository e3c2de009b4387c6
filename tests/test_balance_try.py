"""The balance experiment tool (scripts/balance_try.py): its --set edits, its refusals and a run."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import balance_try  # noqa: E402

from cards.loader import DATA, load_from  # noqa: E402


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    shutil.copytree(DATA, folder)
    return folder


def test_parse_change_reads_file_card_field_and_value() -> None:
    assert balance_try.parse_change("tai4.draw=2") == balance_try.Change(
        "heroes.toml", "tai4", "draw", 2)
    assert balance_try.parse_change("lords.toml:lord-1.curses=armour,red") == balance_try.Change(
        "lords.toml", "lord-1", "curses", ["armour", "red"])
    assert balance_try.parse_change("tai4.defence=").value is None
    assert balance_try.parse_change("tai1.colour=red").value == "red"
    with pytest.raises(ValueError, match="FILE:ID.FIELD=VALUE"):
        balance_try.parse_change("tai4 draw 2")


def test_changes_reach_the_loaded_catalogue(data: Path) -> None:
    balance_try.apply_changes(data, [
        balance_try.parse_change("tai4.defence="),
        balance_try.parse_change("tai4.draw=2"),
        balance_try.parse_change("tai1.next=blue"),
        balance_try.parse_change("lords.toml:lord-1.curses=armour"),
    ])
    cat = load_from(data)
    tai4 = cat.action_cards()["tai4"]
    assert (tai4.defence, tai4.draw) == (0, 2)
    assert list(cat.action_cards()["tai1"].next) == ["blue"]
    assert list(next(lord for lord in cat.lords if lord.id == "lord-1").curses) == ["armour"]
    # the neighbouring card is untouched
    assert cat.action_cards()["tai5"] == load_from(DATA).action_cards()["tai5"]


def test_an_unknown_card_or_file_is_refused(data: Path) -> None:
    with pytest.raises(ValueError, match="no card 'tai9'"):
        balance_try.apply_changes(data, [balance_try.parse_change("tai9.draw=1")])
    with pytest.raises(ValueError, match="no data file"):
        balance_try.apply_changes(data, [balance_try.parse_change("nope.toml:tai1.draw=1")])


def test_a_change_the_catalogue_forbids_is_refused_with_the_loaders_reason(
        capsys: pytest.CaptureFixture[str]) -> None:
    code = balance_try.main(["--hero", "taia", "--games", "1", "--set", "tai1.colour=purple"])
    assert code == 2
    assert "tai1" in capsys.readouterr().err


def test_a_short_run_prints_paired_shares(capsys: pytest.CaptureFixture[str]) -> None:
    code = balance_try.main(["--hero", "taia", "--games", "4", "--modes", "on", "--workers", "1",
                             "--baseline", "--set", "tai4.draw=2"])
    out = capsys.readouterr().out
    assert code == 0
    assert "unchanged" in out and "changed" in out and "paired difference" in out
    assert "taia" in out


def test_every_game_seats_the_hero() -> None:
    for seed in range(1, 4):
        seats, winner, _ = balance_try.play(seed, "horan", abilities=False)
        assert "horan" in seats and len(set(seats)) == 4
        assert winner is None or winner in seats


def test_all_heroes_mode_seats_heroes_like_the_report_and_prints_each_share(
        capsys: pytest.CaptureFixture[str]) -> None:
    from engine.simulate import HEROES, play_game
    seats, winner, _ = balance_try.play(5, balance_try.ALL, abilities=True)
    assert seats == play_game(5, 4, "heuristic", True).heroes
    code = balance_try.main(["--hero", "all", "--games", "3", "--modes", "off", "--workers", "1",
                             "--baseline"])
    out = capsys.readouterr().out
    assert code == 0
    assert "paired difference" in out
    assert sum(h in out for h in HEROES) >= 4


def test_a_reward_field_edits_the_monsters_back_not_its_front(data: Path) -> None:
    before = load_from(data)
    monster = next(m for m in before.monsters if m.id == "m2-04")
    balance_try.apply_changes(data, [
        balance_try.parse_change("level2.toml:m2-04.reward.draw=1"),
        balance_try.parse_change("level2.toml:m2-04.reward.next=green,red"),
        balance_try.parse_change("level2.toml:m2-04.attack=5"),
    ])
    after = load_from(data)
    back = after.action_cards()["m2-04"]
    assert back.draw == 1 and list(back.next) == ["green", "red"]
    # the front's attack changed, the back's did not
    assert back.attack == before.action_cards()["m2-04"].attack
    assert next(m for m in after.monsters if m.id == "m2-04").attack == 5 != monster.attack
    with pytest.raises(ValueError, match="no reward table"):
        balance_try.apply_changes(data, [
            balance_try.parse_change("lords.toml:lord-1.reward.draw=1")])
