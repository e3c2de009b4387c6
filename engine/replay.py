"""Rebuilding a game from its configuration and action list, and stepping through a played match.

:func:`replay` gives the state an action list reaches. A :class:`Replay` keeps every state of a
match, so any step is at hand at once: the states are immutable values that share their
unchanged parts, so keeping them all costs little more than applying the actions once. Step
``i`` is the state after ``i`` actions (step 0: the new game). For each step a replay gives what
a spectator saw (:meth:`Replay.view`), what the move that led there said (:meth:`Replay.events`,
:meth:`Replay.narration`), and the match's :class:`Bookmark` s (turn starts, battles won and lost,
keys, the Lord). Every seat's hand is shown only for a match that is over
(:meth:`Replay.reveal`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from engine.actions import LORD_LEVEL, Action, EndBattle, Fight, parse
from engine.catalog import tables
from engine.errors import EngineError, IllegalAction
from engine.events import narrate, seen_by
from engine.names import ROMAN, monster_name, seat_name
from engine.observe import Observation, observe
from engine.rules import apply
from engine.setup import new_game
from engine.state import Event, GameConfig, GameState, Phase
from i18n import Msg, msg


def replay(config: GameConfig, actions: Iterable[Action | str]) -> GameState:
    """The state reached by applying ``actions`` (objects or notation, take-backs included) to a
    new game."""
    state = new_game(config)
    for action in actions:
        state, _ = apply(state, parse(action) if isinstance(action, str) else action)
    return state


class ReplayError(EngineError):
    """An action log that does not replay: an action is not legal at its step (the cards or
    rules may have changed since the match was played)."""

    def __init__(self, step: int, action: Action, reason: IllegalAction) -> None:
        self.step = step
        self.action = action
        self.reason = reason
        super().__init__(f"move {step + 1} ({action}) does not replay: {reason}")


class RevealRefused(EngineError):
    """The hands were asked for before the match is over (or with another match's end)."""


@dataclass(frozen=True, slots=True)
class Move:
    """One applied action: the step it led to, the seat that took it, what it said (events of
    every seat, private ones included: show them through :meth:`Replay.events`)."""

    step: int
    seat: int
    action: Action
    events: tuple[Event, ...]


#: What a bookmark marks: a turn's start, a battle won or lost, a key taken, the Lord
#: challenged, the Lord defeated (the end of the match).
BookmarkKind = Literal["turn", "won", "lost", "key", "lord", "champion"]


@dataclass(frozen=True, slots=True)
class Bookmark:
    """A moment of the match worth jumping to. ``step`` is the state right after it happened
    (its move's narration tells it); ``first`` is where it began: for a battle, the step at
    which the fight was declared, otherwise ``step``. ``label`` names it in a short line."""

    kind: BookmarkKind
    step: int
    first: int
    seat: int
    label: Msg


@dataclass(frozen=True, slots=True)
class Reveal:
    """A step of a finished match with nothing hidden: the spectator's view, each seat's own
    view (its hand, Taia's drawn pair) and every event of the move, private ones included."""

    step: int
    spectator: Observation
    seats: tuple[Observation, ...]
    events: tuple[Event, ...]

    @property
    def hands(self) -> tuple[tuple[str, ...], ...]:
        """Each seat's hand at this step, by seat index."""
        return tuple([view.hand for view in self.seats])


class Replay:
    """A match laid out step by step, from its configuration and its action log.

    Building one applies every action once, checking each (a log that no longer replays raises
    :class:`ReplayError`), and keeps every state; every question afterwards is answered from
    them without applying anything again.
    """

    def __init__(self, config: GameConfig, actions: Iterable[Action | str]) -> None:
        state = new_game(config)
        states = [state]
        moves = []
        for i, given in enumerate(actions):
            action = parse(given) if isinstance(given, str) else given
            try:
                after, said = apply(state, action)
            except IllegalAction as exc:
                raise ReplayError(i, action, exc) from exc
            moves.append(Move(i + 1, state.current, action, tuple(said)))
            states.append(after)
            state = after
        self.config = config
        self._states = tuple(states)
        self.moves: tuple[Move, ...] = tuple(moves)
        self.bookmarks: tuple[Bookmark, ...] = _bookmarks(self._states, self.moves)

    @property
    def last(self) -> int:
        """The last step (the number of actions in the log)."""
        return len(self.moves)

    @property
    def final(self) -> GameState:
        """The state the whole log reaches."""
        return self._states[-1]

    @property
    def finished(self) -> bool:
        """Whether the log ends the match (the Lord was defeated)."""
        return self.final.phase is Phase.OVER

    @property
    def actions(self) -> tuple[Action, ...]:
        """The actions of the log, in order."""
        return tuple([m.action for m in self.moves])

    def state(self, step: int) -> GameState:
        """The whole state after ``step`` actions, secret parts included (show it only through
        :meth:`view` or :meth:`reveal`). A step outside 0..last raises IndexError."""
        if not 0 <= step <= self.last:
            raise IndexError(f"step {step} is not between 0 and {self.last}")
        return self._states[step]

    def view(self, step: int) -> Observation:
        """What a spectator saw after ``step`` actions."""
        return observe(self.state(step), None)

    def events(self, step: int, viewer: int | None = None) -> tuple[Event, ...]:
        """What the move leading to ``step`` said that ``viewer`` (None: a spectator) may see; at
        step 0, the opening of the game."""
        return seen_by(self._said(step), viewer)

    def narration(self, step: int, locale: str, viewer: int | None = None) -> list[str]:
        """:meth:`events` as sentences in ``locale``."""
        return narrate(self.events(step, viewer), locale, viewer)

    def turn_starts(self) -> tuple[int, ...]:
        """The step at which each turn began, in order (step 0 first)."""
        return tuple([b.step for b in self.bookmarks if b.kind == "turn"])

    def reveal(self, step: int, final: GameState) -> Reveal:
        """Step ``step`` with every seat's hand shown. ``final`` must be the match's end as the
        caller stored it: the hands are shown only when that end is over and this log reaches
        exactly it; otherwise :class:`RevealRefused` is raised."""
        if final.phase is not Phase.OVER:
            raise RevealRefused("the match is not over: the hands stay hidden")
        if final != self.final:
            raise RevealRefused("this action log does not reach the given end of the match")
        state = self.state(step)
        seats = tuple([observe(state, i) for i in range(len(state.seats))])
        return Reveal(step, observe(state, None), seats, self._said(step))

    def _said(self, step: int) -> tuple[Event, ...]:
        """Every event of the move leading to ``step`` (at step 0: the game's opening)."""
        state = self.state(step)
        return self.moves[step - 1].events if step > 0 else state.log


def _bookmarks(states: tuple[GameState, ...], moves: tuple[Move, ...]) -> tuple[Bookmark, ...]:
    """The bookmarks of a match, in the order of its steps (and, within a step, in the order
    things happened: the battle's end, the key, the next turn)."""
    first = states[0]
    out = [_turn(first, 0)]
    fought = 0
    for move in moves:
        before, after = states[move.step - 1], states[move.step]
        action = move.action
        who = seat_name(before, move.seat)
        if isinstance(action, Fight):
            fought = move.step
            if action.level == LORD_LEVEL:
                label = msg("replay.bookmark.lord", who=who, monster=monster_name(before.lord))
                out.append(Bookmark("lord", move.step, fought, move.seat, label))
        keys = {e.text.key for e in move.events}
        if isinstance(action, EndBattle) and before.battle is not None:
            battle = before.battle
            kind: BookmarkKind = "lost"
            if "event.won" in keys:
                kind = "champion" if battle.level == LORD_LEVEL else "won"
            label = msg(f"replay.bookmark.{kind}", who=who,
                        monster=monster_name(battle.monster))
            out.append(Bookmark(kind, move.step, fought, move.seat, label))
            if "event.key" in keys:
                level = ROMAN[tables().monsters[battle.monster].level]
                out.append(Bookmark("key", move.step, fought, move.seat,
                                    msg("replay.bookmark.key", who=who, level=level)))
        if "event.turn" in keys:
            out.append(_turn(after, move.step))
    return tuple(out)


def _turn(state: GameState, step: int) -> Bookmark:
    """The bookmark of the turn that begins at ``step``."""
    seat = state.current
    label = msg("replay.bookmark.turn", who=seat_name(state, seat), round=state.round)
    return Bookmark("turn", step, step, seat, label)
