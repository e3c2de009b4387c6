"""What a click on one of the bot's buttons or menus asks for: one typed value per kind of
custom_id (:mod:`bot.discord_side.ui.custom_ids` writes and parses them; a damaged or forged id is
:class:`Unreadable`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class OpenHand:
    """The "My hand" button of a table message."""

    table: int


@dataclass(frozen=True, slots=True)
class ShowLog:
    """The "Log" button of a table message: the last two turns told privately."""

    table: int


@dataclass(frozen=True, slots=True)
class Move:
    """A move button of a hand message, drawn at table version ``version``."""

    table: int
    version: int
    notation: str


@dataclass(frozen=True, slots=True)
class HintAsk:
    """The Hint button of a hand message, drawn at table version ``version`` (the decision)."""

    table: int
    version: int


@dataclass(frozen=True, slots=True)
class Sure:
    """The answer "Confirm" to the question asked before a move easy to regret: the move, drawn
    at table version ``version``, applied without asking again."""

    table: int
    version: int
    notation: str


@dataclass(frozen=True, slots=True)
class Back:
    """The answer "Back" to that question: the hand message shows the hand again."""

    table: int


@dataclass(frozen=True, slots=True)
class Pick:
    """A move menu of a hand message (the move is the picked value)."""

    table: int
    version: int
    menu: str


@dataclass(frozen=True, slots=True)
class LobbyOp:
    """A lobby button, drawn at lobby revision ``revision`` (None: an older bot's button)."""

    table: int
    op: str
    revision: int | None = None


@dataclass(frozen=True, slots=True)
class HeroPick:
    """The hero menu of a lobby."""

    table: int


@dataclass(frozen=True, slots=True)
class LevelPick:
    """The level menu of one AI seat of a lobby, drawn at lobby revision ``revision``."""

    table: int
    seat: int
    revision: int


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """A page button of ``/goblin history``: the matches older (``way`` "o") or newer ("n")
    than table ``table``, of person ``player`` (0: everyone), of server tournament
    ``tournament`` (0: every match; buttons drawn before tournaments had none)."""

    table: int
    way: str
    player: int
    tournament: int = 0


@dataclass(frozen=True, slots=True)
class ReplayGo:
    """A button of a replay message drawn at ``step`` (``reveal``: every hand shown); ``op``
    says where it leads."""

    table: int
    step: int
    reveal: bool
    op: str


@dataclass(frozen=True, slots=True)
class ReplaySeek:
    """The bookmark menu of a replay message (the step is the picked value)."""

    table: int
    reveal: bool


@dataclass(frozen=True, slots=True)
class ReplayShare:
    """The button that posts a match's animation to the channel."""

    table: int


@dataclass(frozen=True, slots=True)
class RematchOp:
    """Rematch, Ready or Start on a finished table's messages."""

    table: int
    op: str


@dataclass(frozen=True, slots=True)
class Quit:
    """The Leave button of a solo table's hand message (``sure`` false: it asks once), and the
    button that confirms it (``sure``): its host closes the table."""

    table: int
    sure: bool = False


@dataclass(frozen=True, slots=True)
class Abandon:
    """The button that confirms /goblin abandon of a running match; ``listed``: whether its
    question said the match would be kept in the history (a result stored: rated as it stands,
    or a game lost against the AI), None on an older bot's button, which did not say."""

    table: int
    listed: bool | None = None


@dataclass(frozen=True, slots=True)
class BoardPage:
    """A page button of a server's leaderboard (``page`` from 0)."""

    guild: int
    page: int


@dataclass(frozen=True, slots=True)
class Forget:
    """A button of the private question of /goblin forget-me, asked of person ``user``:
    Confirm (``sure``) or Cancel."""

    user: int
    sure: bool


@dataclass(frozen=True, slots=True)
class TurnsPage:
    """A page button of ``/goblin turns``: the list of person ``owner``, page ``page`` (from
    0)."""

    owner: int
    page: int


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A custom_id of the bot's format that does not parse (damaged, forged, too old)."""

    text: str


@dataclass(frozen=True, slots=True)
class TournamentOp:
    """A button of a tournament's sign-up message: ``op`` (join or leave) on tournament
    ``tournament``."""

    tournament: int
    op: str


Target = (OpenHand | ShowLog | Move | Sure | Back | HintAsk | Pick | LobbyOp | HeroPick
          | LevelPick | Quit | Abandon | BoardPage | HistoryPage | ReplayGo | ReplaySeek
          | ReplayShare | RematchOp | Forget | TurnsPage | TournamentOp | Unreadable)
#: The targets of past matches (history, replays, rematches): no running table behind them.
PAST = (HistoryPage, ReplayGo, ReplaySeek, ReplayShare, RematchOp)


__all__ = [
    "Abandon", "Back", "BoardPage", "Forget", "HeroPick", "HintAsk", "HistoryPage", "LevelPick",
    "LobbyOp",
    "Move", "OpenHand", "PAST", "Pick", "Quit", "RematchOp", "ReplayGo", "ReplaySeek",
    "ReplayShare", "ShowLog", "Sure", "Target", "TournamentOp", "TurnsPage", "Unreadable",
]
