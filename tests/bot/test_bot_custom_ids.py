"""The custom_id of every kind of button and menu: written from typed fields, read back by its
kind's template into the same target, within Discord's 100 characters; the ids older versions
posted still read the same; damaged ids read as unreadable, and whatever fits a template is read
without an exception, its numbers only as the bot writes them."""
from __future__ import annotations

import asyncio
from typing import Any, cast

import discord
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.discord_side.ui.control import MAX_CUSTOM_ID, Control
from bot.discord_side.ui.custom_ids import (
    KINDS,
    AbandonButton,
    BackButton,
    BoardButton,
    ForgetButton,
    HandButton,
    HeroMenu,
    HintButton,
    HistoryButton,
    LevelMenu,
    LobbyButton,
    LogButton,
    MoveButton,
    MoveMenu,
    QuitButton,
    RematchButton,
    ReplayButton,
    SeekMenu,
    ShareButton,
    SureButton,
    TournamentButton,
    TurnsButton,
    kind_of,
    parse,
)
from bot.discord_side.ui.targets import (
    Abandon,
    Back,
    BoardPage,
    Forget,
    HeroPick,
    HintAsk,
    HistoryPage,
    LevelPick,
    LobbyOp,
    Move,
    OpenHand,
    Pick,
    Quit,
    RematchOp,
    ReplayGo,
    ReplaySeek,
    ReplayShare,
    ShowLog,
    Sure,
    Target,
    TournamentOp,
    TurnsPage,
    Unreadable,
)
from bot.game.seats import MAX_SEATS

TABLE = 2**63 - 1  # the largest table id the stores hold
GUILD = 1_200_000_000_000_000_001  # a Discord snowflake
VERSION = 10**9
NOTATION = "fight:F1.2+key"  # a notation may hold ':'

#: Per kind: its custom_id written from typed fields, and the target it must read back.
WRITTEN: list[tuple[type[Control], str, Target]] = [
    (HandButton, HandButton.id_for(TABLE), OpenHand(TABLE)),
    (LogButton, LogButton.id_for(TABLE), ShowLog(TABLE)),
    (MoveButton, MoveButton.id_for(TABLE, VERSION, NOTATION), Move(TABLE, VERSION, NOTATION)),
    (SureButton, SureButton.id_for(TABLE, VERSION, NOTATION), Sure(TABLE, VERSION, NOTATION)),
    (BackButton, BackButton.id_for(TABLE), Back(TABLE)),
    (HintButton, HintButton.id_for(TABLE, VERSION), HintAsk(TABLE, VERSION)),
    (MoveMenu, MoveMenu.id_for(TABLE, VERSION, "fight09"), Pick(TABLE, VERSION, "fight09")),
    (QuitButton, QuitButton.id_for(TABLE), Quit(TABLE)),
    (QuitButton, QuitButton.id_for(TABLE, sure=True), Quit(TABLE, sure=True)),
    (AbandonButton, AbandonButton.id_for(TABLE), Abandon(TABLE)),
    (AbandonButton, AbandonButton.id_for(TABLE, True), Abandon(TABLE, True)),
    *[(LobbyButton, LobbyButton.id_for(TABLE, op, VERSION), LobbyOp(TABLE, op, VERSION))
      for op in ("join", "leave", "ai", "unai", "start", "cancel")],
    (HeroMenu, HeroMenu.id_for(TABLE), HeroPick(TABLE)),
    (LevelMenu, LevelMenu.id_for(TABLE, 3, VERSION), LevelPick(TABLE, 3, VERSION)),
    (HistoryButton, HistoryButton.id_for(TABLE, "o", GUILD), HistoryPage(TABLE, "o", GUILD)),
    (HistoryButton, HistoryButton.id_for(TABLE, "n", None), HistoryPage(TABLE, "n", 0)),
    (HistoryButton, HistoryButton.id_for(TABLE, "o", GUILD, TABLE),  # a tournament's page
     HistoryPage(TABLE, "o", GUILD, TABLE)),
    (HistoryButton, HistoryButton.id_for(TABLE, "n", None, 7), HistoryPage(TABLE, "n", 0, 7)),
    *[(ReplayButton, ReplayButton.id_for(TABLE, VERSION, reveal, op),
       ReplayGo(TABLE, VERSION, reveal, op))
      for op in ("open", "first", "prev", "next", "last", "pturn", "nturn", "flip")
      for reveal in (False, True)],
    (SeekMenu, SeekMenu.id_for(TABLE, True), ReplaySeek(TABLE, True)),
    (SeekMenu, SeekMenu.id_for(TABLE, False), ReplaySeek(TABLE, False)),
    (ShareButton, ShareButton.id_for(TABLE), ReplayShare(TABLE)),
    *[(RematchButton, RematchButton.id_for(TABLE, op), RematchOp(TABLE, op))
      for op in ("offer", "ready", "start")],
    (BoardButton, BoardButton.id_for(GUILD, 12), BoardPage(GUILD, 12)),
    (ForgetButton, ForgetButton.id_for(GUILD, True), Forget(GUILD, True)),
    (ForgetButton, ForgetButton.id_for(GUILD, False), Forget(GUILD, False)),
    (TurnsButton, TurnsButton.id_for(2000000000000000001, 3), TurnsPage(2000000000000000001, 3)),
    *[(TournamentButton, TournamentButton.id_for(7, op), TournamentOp(7, op))
      for op in ("join", "leave")],
]


@pytest.mark.parametrize(("kind", "custom_id", "target"), WRITTEN, ids=lambda v: str(v)[:40])
def test_every_kind_reads_back_what_it_writes(kind: type[Control], custom_id: str,
                                             target: Target) -> None:
    assert len(custom_id) <= MAX_CUSTOM_ID
    assert custom_id.startswith(kind.prefix)
    assert kind_of(custom_id) is kind  # no other kind's template claims it
    assert kind.parse(custom_id) == target
    assert parse(custom_id) == target


def test_every_kind_is_tested_and_registered_once() -> None:
    assert {kind for kind, _, _ in WRITTEN} == set(KINDS)
    assert len({kind.kind for kind in KINDS}) == len(KINDS)


def test_an_id_past_discord_limit_is_never_written() -> None:
    with pytest.raises(ValueError, match="too long"):
        MoveButton.id_for(TABLE, VERSION, "x" * 80)


#: Ids as the bot posted them before (and still does): each kind reads them the same way.
POSTED = [
    ("kg:hand:3", OpenHand(3)),
    ("kg:log:3", ShowLog(3)),
    ("kg:do:3:12:F1.2", Move(3, 12, "F1.2")),
    ("kg:do:3:12:fight:9-9", Move(3, 12, "fight:9-9")),
    ("kg:sure:3:12:end", Sure(3, 12, "end")),
    ("kg:back:3", Back(3)),
    ("kg:hint:3:12", HintAsk(3, 12)),
    ("kg:pick:3:4:fight0", Pick(3, 4, "fight0")),
    ("kg:quit:3", Quit(3)),
    ("kg:quit:3:y", Quit(3, sure=True)),
    ("kg:abandon:3", Abandon(3)),  # an older bot's: its question's promise unknown
    ("kg:abandon:3:l", Abandon(3, True)),
    ("kg:abandon:3:r", Abandon(3, False)),
    ("kg:lobby:3:ai:4", LobbyOp(3, "ai", 4)),
    ("kg:lobby:3:join", LobbyOp(3, "join", None)),  # an older bot's: no revision
    ("kg:hero:3", HeroPick(3)),
    ("kg:hero:3:4", HeroPick(3)),  # an older bot's: the lobby's size
    ("kg:level:3:2:7", LevelPick(3, 2, 7)),
    ("kg:hist:3:o:0", HistoryPage(3, "o", 0)),  # drawn before tournaments: every match
    ("kg:hist:3:o:0:5", HistoryPage(3, "o", 0, 5)),
    ("kg:rp:3:0:h.open", ReplayGo(3, 0, False, "open")),
    ("kg:rp:3:5:r.next", ReplayGo(3, 5, True, "next")),
    ("kg:rs:3:r", ReplaySeek(3, True)),
    ("kg:rsh:3", ReplayShare(3)),
    ("kg:rm:3:offer", RematchOp(3, "offer")),
    ("kg:board:9:2", BoardPage(9, 2)),
    ("kg:turns:9:2", TurnsPage(9, 2)),
]


@pytest.mark.parametrize(("custom_id", "target"), POSTED)
def test_ids_already_posted_read_the_same(custom_id: str, target: Target) -> None:
    assert parse(custom_id) == target


@pytest.mark.parametrize("custom_id", [
    "kg:do:0:1:a", "kg:lobby:3:zap:1", "kg:do:3:-1:a", "kg:board:9:x", "kg:level:3:9:1",
    "kg:level:3:x:1", "kg:hist:0:o:0", "kg:hist:3:o:0:0", "kg:hist:3:o:0:", "kg:rp:1:x:h.next",
    "kg:rp:1:2:z.next",
    "kg:rp:1:2:h.jump", "kg:rm:1:explode", "kg:rsh:1:2", "kg:hero:1:2:3", "kg:", "kg:zzz:1",
    "kg:do:1:2:", "kg:hand:1\n", "kg:hand:" + "9" * 93, "other:hand:1",
    "kg:forget:0:yes", "kg:forget:5:maybe", "kg:forget:-3:yes", "kg:forget:5",
])
def test_damaged_ids_are_unreadable(custom_id: str) -> None:
    assert parse(custom_id) == Unreadable(custom_id[:MAX_CUSTOM_ID])


#: The fields of each target that are numbers read from a custom_id.
NUMBERS = ("table", "version", "seat", "revision", "player", "tournament", "step", "guild",
           "page", "user", "owner", "anchor")


def _built(kind: type[Control], custom_id: str) -> Control:
    """``custom_id`` clicked on a component of ``kind``'s own sort, as discord.py builds it."""
    item: discord.ui.Item[Any] = (discord.ui.Select(custom_id=custom_id)
                                  if kind.component is discord.ui.Select
                                  else discord.ui.Button(custom_id=custom_id))
    match = kind.pattern().fullmatch(custom_id)
    assert match is not None
    return asyncio.run(kind.from_custom_id(cast(Any, None), item, match))


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.kind)
@settings(deadline=None, max_examples=100,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_id_a_template_fits_reads_as_the_bot_writes_it_or_is_unreadable(
        kind: type[Control], data: st.DataObject) -> None:
    """Whatever fits a kind's template (unicode digits, leading zeros, huge numbers, any text
    in a free field) is read without an exception into a target of the kind whose numbers are
    written as the bot writes them, within the limits of the kind; else it is unreadable."""
    custom_id = data.draw(st.from_regex(kind.pattern(), fullmatch=True), label="custom_id")
    target = kind.parse(custom_id)
    assert parse(custom_id) == target
    assert _built(kind, custom_id).target == target
    if isinstance(target, Unreadable):
        assert target.text == custom_id[:MAX_CUSTOM_ID]
        return
    assert kind_of(custom_id) is kind and len(custom_id) <= MAX_CUSTOM_ID
    found = kind.pattern().fullmatch(custom_id)
    assert found is not None
    written = found.groupdict()
    written.setdefault("table", written.get("anchor"))  # a history page's table
    for name in NUMBERS:
        value = getattr(target, name, None)
        if isinstance(value, int) and not isinstance(value, bool) and written.get(name):
            assert written[name] == str(value), (name, custom_id)  # ASCII, no leading zero
            assert value >= 0
    for name in ("table", "user", "owner", "guild"):
        assert getattr(target, name, 1) >= 1
    assert getattr(target, "seat", 0) < MAX_SEATS
