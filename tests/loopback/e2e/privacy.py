"""The privacy watch: no public message shows a hand, its controls, a hand-only text or a card
hidden in a hand at the step it shows, and every private hand message shows its owner's seat."""
from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from bot.storage.records import LogRow
from engine import GameConfig, GameState, apply, new_game, observe
from engine.actions import parse
from engine.catalog import tables as tables_of
from engine.names import card_name, hero_name, monster_name, seat_name
from i18n import LOCALES, Msg, Param, translate
from loopback import Loopback, Message

from .catalogue import HAND_ONLY, hand_table, named, seat_heroes, where_shown
from .messages import full_text, moves_of, table_of
from .oracle import Oracle


def _param(value: Param, locale: str) -> str:
    return translate(value, locale) if isinstance(value, Msg) else str(value)


@dataclass(frozen=True)
class Secrets:
    """At one step of a game, in one language: the names of the cards hidden in hands (and
    Taia's drawn pair), and every text a public message may legitimately hold that could
    contain a card name (public cards, monsters, heroes, seats, public events)."""

    hidden: dict[str, str]  # name -> card id
    public: tuple[str, ...]  # longest first

    @staticmethod
    def of(state: GameState, locale: str) -> Secrets:
        """What is secret (and what is public) in ``state``, named in ``locale``."""
        held = [c for seat in state.seats for c in seat.hand]
        if state.battle is not None:
            held += list(state.battle.drawn)
        obs = observe(state, None)
        shown: list[str] = [obs.lord]
        for sv in obs.seats:
            shown += [c for c in (sv.weapon, sv.armour) if c] + list(sv.discard)
        for lv in obs.levels:
            shown += [c for c in (*lv.row, lv.deck_top, lv.gate_top) if c]
        if obs.battle is not None:
            shown += [obs.battle.monster, *obs.battle.chain]
        if obs.pending and not obs.pending.startswith("potion:"):
            shown.append(obs.pending)
        shown += list(obs.pawnshop)
        public = {translate(card_name(c), locale) for c in shown}
        public |= {translate(monster_name(c), locale) for c in shown}
        public |= {translate(hero_name(s.hero), locale) for s in state.seats}
        public |= {_param(seat_name(state, i), locale) for i in range(len(state.seats))}
        public |= {translate(e.text, locale) for e in obs.events if e.to is None}
        hidden = {translate(card_name(c), locale): c for c in held}
        return Secrets(hidden, tuple(sorted(public, key=len, reverse=True)))

    @staticmethod
    def merged(parts: list[Secrets]) -> Secrets:
        """The secrets of several languages at once: a message in one language may quote a
        public text of its own language holding a name another language gives a hidden card
        (``Avalanche`` is English and French), so every language's public texts are set aside
        before any language's hidden names are looked for."""
        hidden: dict[str, str] = {}
        public: set[str] = set()
        for part in parts:
            hidden.update(part.hidden)
            public.update(part.public)
        return Secrets(hidden, tuple(sorted(public, key=len, reverse=True)))

    def leaks(self, text: str) -> list[str]:
        """Names of hidden cards ``text`` mentions outside the public texts it holds."""
        rest = text
        for shown in self.public:
            if shown:
                rest = rest.replace(shown, "\x00")
        return [f"{name} ({card})" for name, card in sorted(self.hidden.items())
                if named(name, rest)]


#: Every card a hand may hold, by id (starting cards and reward action cards).
HAND_CARDS = frozenset(tables_of().actions)
_TOKENS = re.compile(r"[^:/\s]+")


def component_values(components: list[dict[str, Any]]) -> Iterator[str]:
    """Every custom_id and option value of a message's components, nested ones included."""
    for c in components:
        if isinstance(c.get("custom_id"), str):
            yield c["custom_id"]
        for option in c.get("options") or []:
            if isinstance(option.get("value"), str):
                yield option["value"]
        yield from component_values(c.get("components") or [])
        if isinstance(c.get("accessory"), dict):
            yield from component_values([c["accessory"]])


def digest(data: bytes) -> str:
    """A picture told apart by its content, whatever its file name."""
    return hashlib.sha256(data).hexdigest()


#: Reads a table's game: its configuration and action list (notation), in order.
History = Callable[[int], tuple[GameConfig, list[str]]]
#: Reads who sits at a table: user id -> hero of each person's seat.
Seating = Callable[[int], dict[int, str]]


@dataclass
class PrivacyWatch:
    """Records every message revision. Live, it fails a public revision holding a hand picture,
    a hand embed, move controls or a text only a hand message holds (the catalogue's hand-only
    texts in every language). After the match, :meth:`check_cards` replays each table's action
    log to the step a public table message shows and fails it if it names a card hidden in a
    hand at that step (and not shown publicly), and :meth:`check_moves` checks every set of
    private move controls went to the seat deciding.

    With ``seating`` (who sits where, read from the bot's database), every private message
    showing a hand is checked, live, to show the hand of its owner's seat: people are told
    apart by user id and seat, never by display name (two people may share one)."""

    lb: Loopback
    seating: Seating | None = None
    problems: list[str] = field(default_factory=list)
    private_moves: list[tuple[int, int, int]] = field(default_factory=list)  # owner, table, ver
    public: list[tuple[int, int, str]] = field(default_factory=list)  # id, revision, text
    hands_seen: int = 0
    hand_pictures: dict[str, int] = field(default_factory=dict)  # digest -> the owner shown it
    public_pictures: dict[str, int] = field(default_factory=dict)  # digest -> message id

    def __call__(self, message: Message) -> None:
        hand_image = any(a.filename.startswith("hand") for a in message.attachments)
        hand_embed = [url for url in message.images() if url.endswith("/hand.png")
                      or url == "attachment://hand.png"]
        moves = moves_of(message)
        self.check_pictures(message)
        if message.owner is None:
            text = full_text(message)
            self.public.append((message.id, message.revision, text))
            cards = sorted({t for v in component_values(message.components)
                            for t in _TOKENS.findall(v) if t in HAND_CARDS})
            if cards:
                self.problems.append(f"public message {message.id} carries card ids in its "
                                     f"components: {', '.join(cards)}")
            if hand_image or hand_embed or moves:
                self.problems.append(f"public message {message.id} shows a hand: {text[:200]}")
            for key, pattern in HAND_ONLY:
                found = pattern.search(text)
                if found:
                    self.problems.append(f"public message {message.id} revision "
                                         f"{message.revision} holds hand text ({key}): "
                                         f"{found.group(0)[:200]!r}")
            return
        owner = self.lb.users[message.owner]
        if hand_embed:
            self.hands_seen += 1
            self.check_owner(message)
        where = table_of(message)
        if where is not None:
            self.private_moves.append((owner.id, *where))

    def check_pictures(self, message: Message) -> None:
        """Hand pictures told apart by their content, not their file names: the hand picture of
        a private hand message is never shown in a public message (under any name), nor in
        the private message of another user (even one with the same display name)."""
        pictures = {digest(a.data): a.filename for a in message.attachments if a.data}
        if message.owner is None:
            for key, name in pictures.items():
                self.public_pictures.setdefault(key, message.id)
                if key in self.hand_pictures:
                    self.problems.append(f"public message {message.id} shows a hand picture "
                                         f"(as {name!r})")
            return
        if hand_table(full_text(message)) is None:
            return
        for key, name in pictures.items():
            if not name.startswith("hand"):
                continue  # the battle picture of a hand message is the table's too
            shown_to = self.hand_pictures.setdefault(key, message.owner)
            if shown_to != message.owner:
                self.problems.append(f"the hand picture shown to user {shown_to} was shown to "
                                     f"user {message.owner} in message {message.id}")
            if key in self.public_pictures:
                self.problems.append(f"public message {self.public_pictures[key]} showed the "
                                     f"hand picture of message {message.id}")

    def check_owner(self, message: Message) -> None:
        """A private hand message shows its owner's seat: the hero on its seat line is the
        hero of the seat the owner's user id holds at the table its title names."""
        if self.seating is None or message.owner is None:
            return
        text = message.text()
        table = hand_table(text)
        seats = self.seating(table) if table is not None else {}
        mine = seats.get(message.owner)
        shown = seat_heroes(text) & set(seats.values())
        if mine is None or shown != {mine}:
            self.problems.append(
                f"user {message.owner} (seat hero {mine}) was shown the hand of "
                f"{sorted(shown) or 'no seat'} at table {table} in message {message.id} "
                f"revision {message.revision}: {text[:200]!r}")

    def check_cards(self, history: History, tables: list[int]) -> int:
        """No public revision names a card hidden in a hand: a table message against its
        table's state at the step its footer shows; any other public message against every
        card that was ever in a hand at ``tables`` (it should name no card at all, minus
        monsters, heroes and seats). Returns how many table messages were checked at a step."""
        wanted: dict[int, set[int]] = {}
        shown: list[tuple[int, int, str, tuple[int, int] | None]] = []
        for mid, rev, text in self.public:
            where = where_shown(text)
            if where is not None:
                wanted.setdefault(where[0], set()).add(where[1])
            shown.append((mid, rev, text, where))
        # a step a take-back went back to was had twice (or more): each time is a candidate
        at: dict[tuple[int, int], list[GameState]] = {}
        ever: dict[str, dict[str, str]] = {lc: {} for lc in LOCALES}
        always: dict[str, set[str]] = {lc: set() for lc in LOCALES}
        for tid in sorted(set(tables) | set(wanted)):
            config, actions = history(tid)
            state = new_game(config)
            for i in range(len(actions) + 1):
                if state.step in wanted.get(tid, ()):
                    at.setdefault((tid, state.step), []).append(state)
                for lc in LOCALES:
                    for seat in state.seats:
                        ever[lc].update((translate(card_name(c), lc), c) for c in seat.hand)
                if i < len(actions):
                    state, said = apply(state, parse(actions[i]))
                    if actions[i] == "undo":  # "Ann takes back Slip Away.": told publicly
                        for lc in LOCALES:
                            always[lc] |= {translate(e.text, lc) for e in said if e.to is None}
            for lc in LOCALES:
                always[lc] |= {translate(hero_name(s.hero), lc) for s in state.seats}
                always[lc] |= {_param(seat_name(state, i), lc)
                               for i in range(len(state.seats))}
        monsters = {lc: {translate(monster_name(m), lc) for m in tables_of().monsters}
                    for lc in LOCALES}
        checked = 0
        for mid, rev, text, where in shown:
            if where is not None and where in at:
                # the message showed one of the states of its step: it leaks if it leaks for all
                candidates = [Secrets.merged([Secrets.of(state, lc) for lc in LOCALES])
                              for state in at[where]]
                secrets = min(candidates, key=lambda c: len(c.leaks(text)))
                checked += 1
            elif where is not None:
                self.problems.append(f"public message {mid} revision {rev} shows table "
                                     f"{where[0]} at step {where[1]}, a step it never had")
                continue
            else:
                secrets = Secrets.merged([Secrets(ever[lc], tuple(always[lc] | monsters[lc]))
                                          for lc in LOCALES])
            leaked = secrets.leaks(text)
            if leaked:
                self.problems.append(f"public message {mid} revision {rev} names cards hidden "
                                     f"in a hand: {', '.join(leaked)}; {text[:300]!r}")
        return checked

    def check_moves(self, oracle: Oracle) -> None:
        """Every set of move controls went to the user whose seat was deciding."""
        logs: dict[int, list[LogRow]] = {}
        for owner, table, version in self.private_moves:
            if table not in logs:
                logs[table] = oracle.log(table)
            log = logs[table]
            rec = oracle.table(table)
            if version < len(log):
                seat = log[version].seat  # the row of step version+1: who decided at version
                if rec.seats[seat].user != owner:
                    self.problems.append(f"moves of seat {seat} at table {table} version "
                                         f"{version} were shown to user {owner}")
