"""What every button and menu of the bot shares: the custom_id format and the way a click on
one comes back.

Every custom_id is ``kg:<kind>:<fields>`` (fields joined by ``:``) and carries what the click
needs (table id, state version or lobby revision, move notation), never more than 100
characters, so a click works after a restart and after any time. Each kind is one
:class:`Control` subclass (:mod:`bot.discord_side.ui.custom_ids`): it writes its custom_id from
typed fields, its template (a regular expression with named groups) recognises it, and its
:meth:`Control.read` turns the groups into a typed target, and its :meth:`Control.answer`
calls the kind's handler. A click whose id fits a template but
not its rules (a table 0, a seat past the last, a move button's id sent by a menu) reaches the
bot as :class:`Unreadable`, which still gets a polite answer.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Protocol, Self, TypeVar, cast

import discord

from bot.discord_side.ui.targets import Forget, Target, Unreadable

PREFIX = "kg"
MAX_CUSTOM_ID = 100
#: A number field of a custom_id, as the bot writes one: ASCII digits, no leading zero (``\d``
#: and :func:`int` would also take other scripts' digits, "٣" read as 3).
NUMBER = r"(?:0|[1-9][0-9]*)"
_NOTHING = re.compile(r"(?!)")
T = TypeVar("T")


class LobbyAnswers(Protocol):
    """What answers the clicks on a lobby message
    (:class:`bot.discord_side.lobby_clicks.LobbyClicks`): one handler a kind."""

    async def click(self, interaction: discord.Interaction[Any], table: int, op: str,
                    revision: int | None) -> None:
        """A lobby button."""
        ...

    async def hero_pick(self, interaction: discord.Interaction[Any], table: int,
                        values: list[str]) -> None:
        """A lobby's hero menu."""
        ...

    async def level_pick(self, interaction: discord.Interaction[Any], table: int, seat: int,
                         revision: int, level: str) -> None:
        """An AI seat's level menu."""
        ...


class Answers(Protocol):
    """What answers each kind's clicks (:class:`bot.discord_side.interactions.Interactions`,
    built by the composition root): one handler a kind, called from the kind's
    :meth:`Control.answer` (the lobby's kinds call theirs on :attr:`lobby`)."""

    @property
    def lobby(self) -> LobbyAnswers:
        """What answers the lobby's buttons and menus."""
        ...

    async def show_hand(self, interaction: discord.Interaction[Any], table: int) -> None:
        """The "My hand" button."""
        ...

    async def show_log(self, interaction: discord.Interaction[Any], table: int) -> None:
        """The "Log" button."""
        ...

    async def play(self, interaction: discord.Interaction[Any], table: int, version: int,
                   notation: str, menu: str | None = None, sure: bool = False) -> None:
        """A move button or menu, or the confirmation of a move easy to regret."""
        ...

    async def back(self, interaction: discord.Interaction[Any], table: int) -> None:
        """"Back" from the question asked before a move easy to regret."""
        ...

    async def hint(self, interaction: discord.Interaction[Any], table: int,
                   version: int) -> None:
        """The Hint button."""
        ...

    async def quit(self, interaction: discord.Interaction[Any], table: int, sure: bool) -> None:
        """A solo table's Leave button (``sure``: its confirmation)."""
        ...

    async def abandon(self, interaction: discord.Interaction[Any], table: int,
                      listed: bool | None = None) -> None:
        """The confirmation of abandoning a running match (``listed``: what its question
        said, see :class:`~bot.discord_side.ui.targets.Abandon`)."""
        ...

    async def history_page(self, interaction: discord.Interaction[Any], anchor: int, way: str,
                           player: int, tournament: int = 0) -> None:
        """A ``/goblin history`` page button (``tournament`` 0: every match)."""
        ...

    async def replay_go(self, interaction: discord.Interaction[Any], table: int, step: int,
                        reveal: bool, op: str) -> None:
        """A replay button."""
        ...

    async def replay_seek(self, interaction: discord.Interaction[Any], table: int,
                          reveal: bool, values: list[str]) -> None:
        """A replay's bookmark menu."""
        ...

    async def replay_share(self, interaction: discord.Interaction[Any], table: int) -> None:
        """A replay's Share button."""
        ...

    async def rematch(self, interaction: discord.Interaction[Any], table: int, op: str) -> None:
        """Rematch, Ready or Start."""
        ...

    async def board(self, interaction: discord.Interaction[Any], guild: int, page: int) -> None:
        """A leaderboard page button."""
        ...

    async def forget(self, interaction: discord.Interaction[Any], target: Forget) -> None:
        """A button of the question of /goblin forget-me."""
        ...

    async def turns(self, interaction: discord.Interaction[Any], owner: int, page: int) -> None:
        """A ``/goblin turns`` page button."""
        ...

    async def tournament(self, interaction: discord.Interaction[Any], tournament: int,
                         op: str) -> None:
        """A Join or Leave button of a tournament's sign-up message."""
        ...


class Clicks(Answers, Protocol):
    """What every click goes through first (acknowledgement rules, refusals, metrics), then
    to the clicked kind's :meth:`Control.answer`."""

    async def on_click(self, interaction: discord.Interaction[Any], control: Control,
                       values: list[str]) -> None:
        """Answer one click on ``control`` (``values``: a menu's picked values)."""
        ...


class HasClicks(Protocol):
    """The client, as the items see it: it knows who answers clicks."""

    clicks: Clicks


def number(found: re.Match[str], name: str, least: int = 0) -> int:
    """The number field ``name`` of a matched custom_id (ValueError below ``least``)."""
    value = int(found[name])
    if value < least:
        raise ValueError(f"{name} {value} < {least}")
    return value


class Control(discord.ui.DynamicItem[discord.ui.Item[Any]], template=_NOTHING):
    """A button or menu of one kind, rebuilt from its custom_id when clicked.

    A subclass names its ``kind`` and the regular expression of its ``fields`` (named groups)
    in its class line, writes its ids with a typed ``id_for`` classmethod and reads them back in
    :meth:`read`. A menu kind sets ``component`` to ``discord.ui.Select``.
    """

    #: The kind's word in the custom_id, and the start of every custom_id of the kind.
    kind: ClassVar[str] = ""
    prefix: ClassVar[str] = ""
    #: The component every custom_id of the kind belongs to.
    component: ClassVar[type[discord.ui.Item[Any]]] = discord.ui.Button
    #: Whether a click is refused outside the table's channel before it is answered (false:
    #: the kind has no table, or its answer checks later).
    checks_channel: ClassVar[bool] = True
    #: Whether the kind is a menu of which exactly one value must be picked.
    one_choice: ClassVar[bool] = False

    def __init_subclass__(cls, *, kind: str, fields: str) -> None:
        cls.kind = kind
        cls.prefix = f"{PREFIX}:{kind}:"
        super().__init_subclass__(template=re.compile(re.escape(cls.prefix) + fields, re.DOTALL))

    def __init__(self, item: discord.ui.Item[Any], target: Target | None = None) -> None:
        super().__init__(item)
        self.target = target if target is not None else self.parse(self.custom_id)

    @classmethod
    def pattern(cls) -> re.Pattern[str]:
        """The kind's template: a regular expression the whole custom_id matches."""
        return cls.__discord_ui_compiled_template__

    @classmethod
    def join(cls, *fields: object) -> str:
        """A custom_id of the kind from its fields (ValueError past Discord's 100 characters)."""
        text = cls.prefix + ":".join(str(f) for f in fields)
        if len(text) > MAX_CUSTOM_ID:
            raise ValueError(f"custom_id too long: {text!r}")
        return text

    @classmethod
    def start(cls, *fields: object) -> str:
        """The start every custom_id of the kind whose first fields are ``fields`` shares."""
        return cls.prefix + "".join(f"{f}:" for f in fields)

    @classmethod
    def read(cls, found: re.Match[str]) -> Target:
        """The target of a custom_id matching the template (ValueError: one of its fields
        breaks the kind's rules)."""
        raise NotImplementedError

    @classmethod
    def parse(cls, custom_id: str) -> Target:
        """The target of ``custom_id``, :class:`Unreadable` when it is not one of the kind."""
        found = cls.pattern().fullmatch(custom_id)
        try:
            if found is None or len(custom_id) > MAX_CUSTOM_ID:
                raise ValueError(custom_id)
            return cls.read(found)
        except ValueError:
            return Unreadable(custom_id[:MAX_CUSTOM_ID])

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /) -> Self:
        """Wrap the clicked component with its parsed target; an id sent through a kind of
        component it never belongs to (a move button's id from a menu) is unreadable."""
        target = cls.parse(match.string)
        if not isinstance(item, cls.component):
            target = Unreadable(match.string[:MAX_CUSTOM_ID])
        return cls(item, target)

    async def answer(self, clicks: Answers, interaction: discord.Interaction[Any],
                     values: list[str]) -> None:
        """Answer a click on this kind (its readable target): each kind calls its handler."""
        raise NotImplementedError

    def read_as(self, kind: type[T]) -> T:
        """The click's target, of the kind's own type (an unreadable one never gets here)."""
        if not isinstance(self.target, kind):
            raise TypeError(f"{type(self).__name__} read {self.target!r}")
        return self.target

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Hand the click to whoever answers clicks (the client's, built by the composition
        root): its common rules first, then :meth:`answer`."""
        values = [str(v) for v in getattr(self.item, "values", None) or []]
        client = cast(HasClicks, interaction.client)
        await client.clicks.on_click(interaction, self, values)


__all__ = ["MAX_CUSTOM_ID", "NUMBER", "PREFIX", "Answers", "Clicks", "Control", "HasClicks",
           "LobbyAnswers", "number"]
