"""Every kind of button and menu of the bot, one :class:`~bot.discord_side.ui.control.Control`
class each: the custom_id it writes (``id_for``), the template that recognises it, the typed
target it reads back (:mod:`bot.discord_side.ui.targets`) and how a click on it is answered
(``answer``: one handler of :class:`~bot.discord_side.ui.control.Answers`, or of its
``lobby`` for the lobby's buttons and menus). Adding a kind is
one class here and one handler. The client registers :data:`KINDS` once; a ``kg:`` custom_id
no template fits is answered by the client's fallback for clicks no item claims.

Buttons already posted keep working: the custom_ids are the ones older versions wrote.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.discord_side.ui.control import MAX_CUSTOM_ID, NUMBER, PREFIX, Answers, Control, number
from bot.discord_side.ui.targets import (
    PAST,
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

LOBBY_OPS = ("join", "leave", "ai", "unai", "start", "cancel")
#: The buttons of a replay message: where each leads from the step shown.
REPLAY_OPS = ("open", "first", "prev", "next", "last", "pturn", "nturn", "flip")
REMATCH_OPS = ("offer", "ready", "start")
#: The buttons of a tournament's sign-up message.
TOURNAMENT_OPS = ("join", "leave")
TABLE = rf"(?P<table>{NUMBER})"
VERSION = rf"(?P<version>{NUMBER})"


def _one_of(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(w) for w in words)


def _table(found: re.Match[str]) -> int:
    return number(found, "table", 1)


# ---------------------------------------------------------------- a running table


class HandButton(Control, kind="hand", fields=TABLE):
    """The "My hand" button of a table message."""

    @classmethod
    def id_for(cls, table: int) -> str:
        """The custom_id of table ``table``'s button."""
        return cls.join(table)

    @classmethod
    def read(cls, found: re.Match[str]) -> OpenHand:
        """The table whose hand is asked for."""
        return OpenHand(_table(found))

    async def answer(self, clicks: Answers, interaction: discord.Interaction[Any],
                     values: list[str]) -> None:
        """Answered: the hand asked for."""
        await clicks.show_hand(interaction, self.read_as(OpenHand).table)


class LogButton(Control, kind="log", fields=TABLE):
    """The "Log" button of a table message."""

    @classmethod
    def id_for(cls, table: int) -> str:
        """The custom_id of table ``table``'s button."""
        return cls.join(table)

    @classmethod
    def read(cls, found: re.Match[str]) -> ShowLog:
        """The table whose last turns are asked for."""
        return ShowLog(_table(found))

    async def answer(self, clicks: Answers, interaction: discord.Interaction[Any],
                     values: list[str]) -> None:
        """Answered: the last turns told."""
        await clicks.show_log(interaction, self.read_as(ShowLog).table)


class MoveButton(Control, kind="do", fields=rf"{TABLE}:{VERSION}:(?P<notation>.+)"):
    """A move button of a hand message, drawn at a table version."""

    checks_channel = False  # the move checks it under the table's lock

    @classmethod
    def id_for(cls, table: int, version: int, notation: str) -> str:
        """The custom_id of move ``notation`` drawn at ``version``."""
        return cls.join(table, version, notation)

    @classmethod
    def read(cls, found: re.Match[str]) -> Move:
        """The move and the version it was drawn at."""
        return Move(_table(found), number(found, "version"), found["notation"])

    async def answer(self, clicks: Answers, interaction: discord.Interaction[Any],
                     values: list[str]) -> None:
        """Answered: the move applied."""
        t = self.read_as(Move)
        await clicks.play(interaction, t.table, t.version, t.notation)


class SureButton(Control, kind="sure", fields=rf"{TABLE}:{VERSION}:(?P<notation>.+)"):
    """The button confirming a move easy to regret."""

    checks_channel = False  # the move checks it under the table's lock

    @classmethod
    def id_for(cls, table: int, version: int, notation: str) -> str:
        """The custom_id confirming move ``notation`` drawn at ``version``."""
        return cls.join(table, version, notation)

    @classmethod
    def read(cls, found: re.Match[str]) -> Sure:
        """The confirmed move and the version it was drawn at."""
        return Sure(_table(found), number(found, "version"), found["notation"])

    async def answer(self, clicks: Answers, interaction: discord.Interaction[Any],
                     values: list[str]) -> None:
        """Answered: the move applied without asking again."""
        t = self.read_as(Sure)
        await clicks.play(interaction, t.table, t.version, t.notation, sure=True)


class BackButton(Control, kind="back", fields=TABLE):
    """The button going back from that question to the hand."""

    @classmethod
    def id_for(cls, table: int) -> str:
        """The custom_id of table ``table``'s button."""
        return cls.join(table)

    @classmethod
    def read(cls, found: re.Match[str]) -> Back:
        """The table whose hand is shown again."""
        return Back(_table(found))

    async def answer(self, clicks: Answers, interaction: discord.Interaction[Any],
                     values: list[str]) -> None:
        """Answered: the hand shown again."""
        await clicks.back(interaction, self.read_as(Back).table)


class HintButton(Control, kind="hint", fields=rf"{TABLE}:{VERSION}"):
    """A hand message's Hint button, drawn at a table version."""

    @classmethod
    def id_for(cls, table: int, version: int) -> str:
        """The custom_id of the Hint button drawn at ``version``."""
        return cls.join(table, version)

    @classmethod
    def read(cls, found: re.Match[str]) -> HintAsk:
        """The decision a hint is asked for."""
        return HintAsk(_table(found), number(found, "version"))

    async def answer(self, clicks: Answers, interaction: discord.Interaction[Any],
                     values: list[str]) -> None:
        """Answered: a hint given."""
        t = self.read_as(HintAsk)
        await clicks.hint(interaction, t.table, t.version)


class MoveMenu(Control, kind="pick", fields=rf"{TABLE}:{VERSION}:(?P<menu>.+)"):
    """A move menu of a hand message (``menu`` tells the menus of one message apart)."""

    checks_channel = False  # the move checks it under the table's lock
    one_choice = True

    component = discord.ui.Select

    @classmethod
    def id_for(cls, table: int, version: int, menu: str) -> str:
        """The custom_id of menu ``menu`` drawn at ``version``."""
        return cls.join(table, version, menu)

    @classmethod
    def read(cls, found: re.Match[str]) -> Pick:
        """The menu and the version it was drawn at."""
        return Pick(_table(found), number(found, "version"), found["menu"])

    async def answer(self, clicks: Answers, interaction: discord.Interaction[Any],
                     values: list[str]) -> None:
        """Answered: the picked move applied."""
        t = self.read_as(Pick)
        await clicks.play(interaction, t.table, t.version, values[0], t.menu)


class QuitButton(Control, kind="quit", fields=rf"{TABLE}(?::(?P<sure>y))?"):
    """A solo table's Leave button, and (``sure``) the button confirming it."""

    @classmethod
    def id_for(cls, table: int, sure: bool = False) -> str:
        """The custom_id of the Leave button (``sure``: of the button confirming it)."""
        return cls.join(table, "y") if sure else cls.join(table)

    @classmethod
    def read(cls, found: re.Match[str]) -> Quit:
        """The table left, and whether it is confirmed."""
        return Quit(_table(found), sure=found["sure"] is not None)

    async def answer(self, clicks: Answers, interaction: discord.Interaction[Any],
                     values: list[str]) -> None:
        """Answered: asked once, then the table left."""
        t = self.read_as(Quit)
        await clicks.quit(interaction, t.table, t.sure)


class AbandonButton(Control, kind="abandon", fields=rf"{TABLE}(?::(?P<listed>[lr]))?"):
    """The button that confirms abandoning a running match, with what its question said of
    it: kept in the history (``l``) or only to replay (``r``); an older bot's says nothing."""

    @classmethod
    def id_for(cls, table: int, listed: bool | None = None) -> str:
        """The custom_id of table ``table``'s button (``listed``: what its question said)."""
        return cls.join(table) if listed is None else cls.join(table, "l" if listed else "r")

    @classmethod
    def read(cls, found: re.Match[str]) -> Abandon:
        """The table abandoned, and what the question said of it."""
        said = found["listed"]
        return Abandon(_table(found), None if said is None else said == "l")

    async def answer(self, clicks: Answers, interaction: discord.Interaction[Any],
                     values: list[str]) -> None:
        """Answered: the match abandoned, if it still ends as its question said."""
        t = self.read_as(Abandon)
        await clicks.abandon(interaction, t.table, t.listed)


# ---------------------------------------------------------------- a lobby


class LobbyButton(Control, kind="lobby",
                  fields=rf"{TABLE}:(?P<op>{_one_of(LOBBY_OPS)})(?::(?P<revision>{NUMBER}))?"):
    """A lobby button (Join, Leave, Add AI, Remove AI, Start, Cancel), drawn at a lobby
    revision (none on an older bot's buttons)."""

    @classmethod
    def id_for(cls, table: int, op: str, revision: int | None) -> str:
        """The custom_id of lobby button ``op`` drawn at ``revision`` (None: as an older bot
        wrote it, without one)."""
        return cls.join(table, op) if revision is None else cls.join(table, op, revision)

    @classmethod
    def read(cls, found: re.Match[str]) -> LobbyOp:
        """The operation and the revision it was drawn at."""
        revision = None if found["revision"] is None else number(found, "revision")
        return LobbyOp(_table(found), found["op"], revision)

    async def answer(self, clicks: Answers, interaction: discord.Interaction[Any],
                     values: list[str]) -> None:
        """Answered: the lobby operation done."""
        t = self.read_as(LobbyOp)
        await clicks.lobby.click(interaction, t.table, t.op, t.revision)


class HeroMenu(Control, kind="hero", fields=rf"{TABLE}(?::[^:]*)?"):
    """A lobby's hero menu (an older bot's menu carried one more field: the lobby's size)."""

    one_choice = True

    component = discord.ui.Select

    @classmethod
    def id_for(cls, table: int) -> str:
        """The custom_id of table ``table``'s menu."""
        return cls.join(table)

    @classmethod
    def read(cls, found: re.Match[str]) -> HeroPick:
        """The lobby a hero is picked in."""
        return HeroPick(_table(found))

    async def answer(self, clicks: Answers, interaction: discord.Interaction[Any],
                     values: list[str]) -> None:
        """Answered: the hero picked."""
        await clicks.lobby.hero_pick(interaction, self.read_as(HeroPick).table, values)


class LevelMenu(Control, kind="level",
                fields=rf"{TABLE}:(?P<seat>{NUMBER}):(?P<revision>{NUMBER})"):
    """The level menu of one AI seat of a lobby, drawn at a lobby revision."""

    one_choice = True

    component = discord.ui.Select

    @classmethod
    def id_for(cls, table: int, seat: int, revision: int) -> str:
        """The custom_id of seat ``seat``'s menu (counted from 0) drawn at ``revision``."""
        return cls.join(table, seat, revision)

    @classmethod
    def read(cls, found: re.Match[str]) -> LevelPick:
        """The seat and the revision it was drawn at."""
        seat = number(found, "seat")
        if seat >= MAX_SEATS:
            raise ValueError(f"seat {seat}")
        return LevelPick(_table(found), seat, number(found, "revision"))


# ---------------------------------------------------------------- past matches, standings

    async def answer(self, clicks: Answers, interaction: discord.Interaction[Any],
                     values: list[str]) -> None:
        """Answered: the level set."""
        t = self.read_as(LevelPick)
        await clicks.lobby.level_pick(interaction, t.table, t.seat, t.revision, values[0])


class HistoryButton(Control, kind="hist",
                    fields=(rf"(?P<anchor>{NUMBER}):(?P<way>[on]):(?P<player>{NUMBER})"
                            rf"(?::(?P<tournament>{NUMBER}))?")):
    """A ``/goblin history`` page button: the matches older ("o") or newer ("n") than a table,
    of one person (0: everyone), of one server tournament (the field left out: every match,
    as the buttons drawn before tournaments read)."""

    checks_channel = False  # past matches: no running table behind them

    @classmethod
    def id_for(cls, anchor: int, way: str, player: int | None,
               tournament: int | None = None) -> str:
        """The custom_id of the page ``way`` from table ``anchor`` (``player`` None: everyone;
        ``tournament`` None: every match)."""
        if tournament is None:
            return cls.join(anchor, way, player or 0)
        return cls.join(anchor, way, player or 0, tournament)

    @classmethod
    def read(cls, found: re.Match[str]) -> HistoryPage:
        """The page asked for."""
        tournament = 0 if found["tournament"] is None else number(found, "tournament", 1)
        return HistoryPage(number(found, "anchor", 1), found["way"], number(found, "player"),
                           tournament)

    async def answer(self, clicks: Answers, interaction: discord.Interaction[Any],
                     values: list[str]) -> None:
        """Answered: the page shown."""
        t = self.read_as(HistoryPage)
        await clicks.history_page(interaction, t.table, t.way, t.player, t.tournament)


class ReplayButton(Control, kind="rp", fields=(
        rf"{TABLE}:(?P<step>{NUMBER}):(?P<mode>[hr])\.(?P<op>{_one_of(REPLAY_OPS)})")):
    """A button of a replay message drawn at a step (mode "r": every hand shown)."""

    checks_channel = False  # past matches: no running table behind them

    @classmethod
    def id_for(cls, table: int, step: int, reveal: bool, op: str) -> str:
        """The custom_id of replay button ``op`` drawn at ``step``."""
        return cls.join(table, step, f"{'r' if reveal else 'h'}.{op}")

    @classmethod
    def read(cls, found: re.Match[str]) -> ReplayGo:
        """Where the button leads from the step it was drawn at."""
        return ReplayGo(_table(found), number(found, "step"), found["mode"] == "r", found["op"])

    async def answer(self, clicks: Answers, interaction: discord.Interaction[Any],
                     values: list[str]) -> None:
        """Answered: the step shown."""
        t = self.read_as(ReplayGo)
        await clicks.replay_go(interaction, t.table, t.step, t.reveal, t.op)


class SeekMenu(Control, kind="rs", fields=rf"{TABLE}:(?P<mode>[hr])"):
    """A replay's bookmark menu."""

    checks_channel = False  # past matches: no running table behind them

    component = discord.ui.Select

    @classmethod
    def id_for(cls, table: int, reveal: bool) -> str:
        """The custom_id of table ``table``'s menu (``reveal``: every hand shown)."""
        return cls.join(table, "r" if reveal else "h")

    @classmethod
    def read(cls, found: re.Match[str]) -> ReplaySeek:
        """The replay a step is picked in."""
        return ReplaySeek(_table(found), found["mode"] == "r")

    async def answer(self, clicks: Answers, interaction: discord.Interaction[Any],
                     values: list[str]) -> None:
        """Answered: the picked step shown."""
        t = self.read_as(ReplaySeek)
        await clicks.replay_seek(interaction, t.table, t.reveal, values)


class ShareButton(Control, kind="rsh", fields=TABLE):
    """A replay's Share button."""

    checks_channel = False  # past matches: no running table behind them

    @classmethod
    def id_for(cls, table: int) -> str:
        """The custom_id of table ``table``'s button."""
        return cls.join(table)

    @classmethod
    def read(cls, found: re.Match[str]) -> ReplayShare:
        """The match whose animation is shared."""
        return ReplayShare(_table(found))

    async def answer(self, clicks: Answers, interaction: discord.Interaction[Any],
                     values: list[str]) -> None:
        """Answered: the animation shared."""
        await clicks.replay_share(interaction, self.read_as(ReplayShare).table)


class RematchButton(Control, kind="rm", fields=rf"{TABLE}:(?P<op>{_one_of(REMATCH_OPS)})"):
    """Rematch, Ready or Start on a finished table's messages."""

    checks_channel = False  # its answer checks the channel itself

    @classmethod
    def id_for(cls, table: int, op: str) -> str:
        """The custom_id of rematch button ``op`` of table ``table``."""
        return cls.join(table, op)

    @classmethod
    def read(cls, found: re.Match[str]) -> RematchOp:
        """The rematch operation."""
        return RematchOp(_table(found), found["op"])

    async def answer(self, clicks: Answers, interaction: discord.Interaction[Any],
                     values: list[str]) -> None:
        """Answered: the rematch operation done."""
        t = self.read_as(RematchOp)
        await clicks.rematch(interaction, t.table, t.op)


class BoardButton(Control, kind="board", fields=rf"(?P<guild>{NUMBER}):(?P<page>{NUMBER})"):
    """A page button of a server's leaderboard (the server and the page it shows, from 0)."""

    checks_channel = False  # a server's board: no table behind it

    @classmethod
    def id_for(cls, guild: int, page: int) -> str:
        """The custom_id of page ``page`` of server ``guild``'s leaderboard."""
        return cls.join(guild, page)

    @classmethod
    def read(cls, found: re.Match[str]) -> BoardPage:
        """The server and the page."""
        return BoardPage(number(found, "guild", 1), number(found, "page"))


# ---------------------------------------------------------------- a person's data

    async def answer(self, clicks: Answers, interaction: discord.Interaction[Any],
                     values: list[str]) -> None:
        """Answered: the page shown."""
        t = self.read_as(BoardPage)
        await clicks.board(interaction, t.guild, t.page)


class ForgetButton(Control, kind="forget", fields=rf"(?P<user>{NUMBER}):(?P<op>yes|no)"):
    """A button of the private question of /goblin forget-me: Confirm or Cancel, for the person
    who asked (only they may answer it)."""

    checks_channel = False  # a person's data: no table behind it

    @classmethod
    def id_for(cls, user: int, sure: bool) -> str:
        """The custom_id of person ``user``'s Confirm (``sure``) or Cancel button."""
        return cls.join(user, "yes" if sure else "no")

    @classmethod
    def read(cls, found: re.Match[str]) -> Forget:
        """Who asked, and the answer."""
        return Forget(number(found, "user", 1), sure=found["op"] == "yes")


# ---------------------------------------------------------------- a person's matches

    async def answer(self, clicks: Answers, interaction: discord.Interaction[Any],
                     values: list[str]) -> None:
        """Answered: the person forgotten, or not."""
        await clicks.forget(interaction, self.read_as(Forget))


class TurnsButton(Control, kind="turns", fields=rf"(?P<owner>{NUMBER}):(?P<page>{NUMBER})"):
    """A page button of ``/goblin turns``: whose list and which page (from 0)."""

    checks_channel = False  # one's own matches everywhere: no table here

    @classmethod
    def id_for(cls, owner: int, page: int) -> str:
        """The custom_id of page ``page`` of person ``owner``'s list."""
        return cls.join(owner, page)

    @classmethod
    def read(cls, found: re.Match[str]) -> TurnsPage:
        """The list and the page."""
        return TurnsPage(number(found, "owner", 1), number(found, "page"))

    async def answer(self, clicks: Answers, interaction: discord.Interaction[Any],
                     values: list[str]) -> None:
        """Answered: the page shown."""
        t = self.read_as(TurnsPage)
        await clicks.turns(interaction, t.owner, t.page)


# ---------------------------------------------------------------- a server's tournament


class TournamentButton(Control, kind="tour",
                       fields=rf"(?P<tournament>{NUMBER}):(?P<op>{_one_of(TOURNAMENT_OPS)})"):
    """A Join or Leave button of a tournament's sign-up message (anyone may click it; the
    answer to the one who clicked is private, the sign-up message is edited for all)."""

    checks_channel = False  # a tournament: no table behind it

    @classmethod
    def id_for(cls, tournament: int, op: str) -> str:
        """The custom_id of button ``op`` of tournament ``tournament``'s sign-up message."""
        return cls.join(tournament, op)

    @classmethod
    def read(cls, found: re.Match[str]) -> TournamentOp:
        """The tournament and the operation."""
        return TournamentOp(number(found, "tournament", 1), found["op"])

    async def answer(self, clicks: Answers, interaction: discord.Interaction[Any],
                     values: list[str]) -> None:
        """Answered: the person signed up, or off."""
        t = self.read_as(TournamentOp)
        await clicks.tournament(interaction, t.tournament, t.op)


#: Every kind, registered once with the client.
KINDS: tuple[type[Control], ...] = (
    HandButton, LogButton, MoveButton, SureButton, BackButton, HintButton, MoveMenu, QuitButton,
    AbandonButton, LobbyButton, HeroMenu, LevelMenu, HistoryButton, ReplayButton, SeekMenu,
    ShareButton, RematchButton, BoardButton, ForgetButton, TurnsButton, TournamentButton,
)


#: Each kind by the start of its custom_ids (``kg:<kind>:``).
_BY_PREFIX: dict[str, type[Control]] = {k.prefix: k for k in KINDS}


def kind_of(custom_id: str) -> type[Control] | None:
    """The kind whose template ``custom_id`` fits (None: no kind's)."""
    kind = _BY_PREFIX.get(custom_id[:custom_id.find(":", len(PREFIX) + 1) + 1])
    return kind if kind is not None and kind.pattern().fullmatch(custom_id) else None


def is_ours(custom_id: str) -> bool:
    """True for a custom_id one of the kinds claims (its item answers the click)."""
    return kind_of(custom_id) is not None


def parse(custom_id: str) -> Target:
    """The target of a custom_id (never raises; :class:`Unreadable` when no kind reads it)."""
    kind = kind_of(custom_id)
    return kind.parse(custom_id) if kind is not None else Unreadable(custom_id[:MAX_CUSTOM_ID])


def control(item: discord.ui.Item[Any]) -> Control:
    """``item`` (a button or menu carrying one of the kinds' custom_ids) as that kind's item."""
    custom_id = str(getattr(item, "custom_id", ""))
    kind = kind_of(custom_id)
    if kind is None:
        raise ValueError(f"no kind writes custom_id {custom_id!r}")
    return kind(item)


__all__ = [
    "KINDS", "LOBBY_OPS", "MAX_CUSTOM_ID", "PAST", "PREFIX", "REMATCH_OPS", "REPLAY_OPS",
    "Abandon", "AbandonButton", "Back", "BackButton", "BoardButton", "BoardPage", "Control",
    "Forget", "ForgetButton",
    "HandButton", "HeroMenu", "HeroPick", "HintAsk", "HintButton", "HistoryButton", "HistoryPage",
    "LevelMenu", "LevelPick", "LobbyButton", "LobbyOp", "LogButton", "Move", "MoveButton",
    "MoveMenu", "OpenHand", "Pick", "Quit", "QuitButton", "RematchButton", "RematchOp",
    "ReplayButton", "ReplayGo", "ReplaySeek", "ReplayShare", "SeekMenu", "ShareButton", "ShowLog",
    "Sure", "SureButton", "TOURNAMENT_OPS", "Target", "TournamentButton", "TournamentOp",
    "TurnsButton", "TurnsPage", "Unreadable", "control",
    "is_ours", "kind_of", "parse",
]
