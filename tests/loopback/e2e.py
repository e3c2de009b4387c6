"""Simulated people for the end-to-end tests: they see only what Discord would show them and
click only controls present in those messages. A read-only look at the bot's database (the
"oracle") only helps them choose sensibly (so matches end) and checks the outcome."""
from __future__ import annotations

import asyncio
import random
import re
import sqlite3
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bot.records import LogRow, TableRecord
from bot.records import read_record as _record
from bot.storage import _COLUMNS
from engine import GameConfig, GameState, apply, new_game, observe
from engine.actions import parse
from engine.agents import make_agent
from engine.catalog import tables as tables_of
from engine.names import card_name, hero_name, monster_name, seat_name
from i18n import LOCALES, Msg, Param, catalog, texts, translate
from loopback import Channel, Interaction, InteractionFailed, Loopback, Message, User
from loopback.botproc import BotProcess
from loopback.components import TEXT_DISPLAY, walk

MOVE = re.compile(r"^kg:(do|pick):(\d+):(\d+):(.+)$")
NOTE = re.compile(r"^\*[^*]")


class Oracle:
    """Reads the bot's SQLite database (read-only) while the bot runs."""

    def __init__(self, db: Path) -> None:
        self.db = db

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=10)

    def table(self, tid: int) -> TableRecord:
        with self._connect() as con:
            row = con.execute(f"SELECT {_COLUMNS} FROM tables WHERE id = ?", (tid,)).fetchone()
        assert row is not None, f"no table {tid}"
        return _record(row)

    def log(self, tid: int) -> list[LogRow]:
        with self._connect() as con:
            rows = con.execute("SELECT step, seat, user_id, by_ai, action, at FROM actions "
                               "WHERE table_id = ? ORDER BY step", (tid,)).fetchall()
        return [LogRow(int(r[0]), int(r[1]), r[2], bool(r[3]), str(r[4]), float(r[5]))
                for r in rows]

    def active_in(self, channel: int) -> int | None:
        """The table in a lobby or running in ``channel``, if any."""
        with self._connect() as con:
            row = con.execute("SELECT id FROM tables WHERE channel_id = ? AND status IN "
                              "('lobby', 'running')", (channel,)).fetchone()
        return int(row[0]) if row else None

    def heroes(self, tid: int) -> dict[int, str]:
        """user id -> hero of every person seated at a table (once heroes are dealt)."""
        return {s.user: s.hero for s in self.table(tid).seats if s.user is not None and s.hero}

    def history(self, tid: int) -> tuple[GameConfig, list[str]]:
        """A table's game configuration and its action log (the moves, in order)."""
        return self.table(tid).game.config, [r.action for r in self.log(tid)]


def moves_of(message: Message) -> dict[str, tuple[str, str | None]]:
    """notation -> (custom_id, option value or None) of every move control in a message."""
    out: dict[str, tuple[str, str | None]] = {}
    for c in message.items():
        m = MOVE.match(str(c.get("custom_id", "")))
        if m is None:
            continue
        if m.group(1) == "do":
            out[m.group(4)] = (c["custom_id"], None)
        else:
            for o in c.get("options") or []:
                out[o["value"]] = (c["custom_id"], o["value"])
    return out


def table_of(message: Message) -> tuple[int, int] | None:
    """(table, version) of a message's move controls."""
    for cid in message.custom_ids():
        m = MOVE.match(cid)
        if m:
            return int(m.group(2)), int(m.group(3))
    return None


def message_texts(message: Message) -> list[str]:
    """The message's text displays (Components V2), then its embeds' descriptions."""
    return ([str(c.get("content") or "") for c in walk(message.components)
             if c.get("type") == TEXT_DISPLAY]
            + [str(e.get("description") or "") for e in message.embeds])


def refused(message: Message) -> bool:
    """True when a hand message opens with a note in italics (a refusal: "already played")."""
    first = message_texts(message)[:1]
    lines = first[0].split("\n") if first else []
    return any(NOTE.match(line) for line in lines[:2])


def lobby_button(message: Message, table: int, op: str) -> str:
    """The custom_id of a lobby button as the message carries it (with the lobby revision it
    was drawn at)."""
    prefix = f"kg:lobby:{table}:{op}"
    return next((c for c in message.custom_ids() if c == prefix or c.startswith(prefix + ":")),
                prefix)


def lead_text(message: Message) -> str:
    """The first text of a message body: the first embed's description, or the first text
    display of a Components V2 message."""
    if message.embeds:
        return str(message.embeds[0].get("description") or "")
    return next((str(c.get("content") or "") for c in walk(message.components)
                 if c.get("type") == TEXT_DISPLAY), "")


def hand_button(message: Message) -> str | None:
    return next((c for c in message.custom_ids() if c.startswith("kg:hand:")), None)


@dataclass
class Acknowledged:
    """A move the bot confirmed to its player (the hand message came back without a refusal)."""

    user: int
    table: int
    version: int
    notation: str


@dataclass
class Player:
    lb: Loopback
    user: User
    channel: Channel
    oracle: Oracle
    rng: random.Random
    acted: dict[int, int] = field(default_factory=dict)  # message id -> revision acted on
    asked: set[tuple[int, int]] = field(default_factory=set)  # table message (id, revision)
    acknowledged: list[Acknowledged] = field(default_factory=list)
    unoffered: list[str] = field(default_factory=list)
    clicks: int = 0

    def hand(self) -> Message | None:
        """The newest message only this player sees that holds move controls."""
        mine = [m for m in self.lb.messages_for(self.channel, self.user)
                if m.owner == self.user.id and moves_of(m)]
        return mine[-1] if mine else None

    def table_message(self) -> Message | None:
        public = [m for m in self.lb.messages_for(self.channel, self.user)
                  if m.owner is None and hand_button(m)]
        return public[-1] if public else None

    def choose(self, hand: Message) -> tuple[str, str, str | None]:
        offered = moves_of(hand)
        where = table_of(hand)
        assert where is not None
        rec = self.oracle.table(where[0])
        seat = rec.seat_of(self.user.id)
        notation = None
        if (rec.status == "running" and rec.version == where[1] and seat is not None
                and rec.game.current == seat and self.rng.random() > 0.05):
            obs = observe(rec.game, seat)
            want = str(make_agent("heuristic", rec.version).choose(obs))
            legal = {str(a) for a in obs.legal}
            if set(offered) != legal:
                self.unoffered.append(f"offered {sorted(offered)} != legal {sorted(legal)}")
            if want in offered:
                notation = want
        if notation is None:
            notation = self.rng.choice(sorted(offered))
        cid, value = offered[notation]
        return notation, cid, value

    async def send_move(self) -> tuple[Interaction, str, Message, tuple[int, int]] | None:
        """Click a move in the hand message if it changed since the last click."""
        hand = self.hand()
        if hand is None or self.acted.get(hand.id) == hand.revision:
            return None
        where = table_of(hand)
        assert where is not None
        notation, cid, value = self.choose(hand)
        self.acted[hand.id] = hand.revision
        if value is None:
            ix = await self.lb.click(self.user, hand, cid)
        else:
            ix = await self.lb.select(self.user, hand, cid, [value])
        self.clicks += 1
        return ix, notation, hand, where

    async def finish_move(self, ix: Interaction, notation: str, hand: Message,
                          where: tuple[int, int]) -> None:
        try:
            await ix.done(15)
        except InteractionFailed:
            self.acted.pop(hand.id, None)  # lost in a crash: the player will try again
            return
        if ix.followups:
            return  # refused with a message
        reply = self.lb.message(ix.original_id or 0)
        if refused(reply):
            return  # a note in italics first: refused ("already played")
        self.acknowledged.append(Acknowledged(self.user.id, where[0], where[1], notation))

    async def open_hand(self, force: bool = False) -> bool:
        """Click "My hand" on the table message when it mentions me (or when forced)."""
        table = self.table_message()
        if table is None:
            return False
        key = (table.id, table.revision)
        if key in self.asked or not (force or self.user.id in table.mentions):
            return False
        self.asked.add(key)
        button = hand_button(table)
        assert button is not None
        ix = await self.lb.click(self.user, table, button)
        try:
            await ix.done(15)
        except InteractionFailed:
            self.asked.discard(key)
        return True


class Chaos:
    """Kills the bot (SIGKILL) and starts it again on the same database: after some move clicks
    (``every``: a countdown of clicks, the kill 0-30 ms after the click) and, once
    :meth:`start_timer` ran, from a timer at random moments (``timer``: seconds between kills),
    whatever is going on then: a table opening, a hand being opened, AI seats playing alone,
    the bot just back from the previous kill (every ``quick``-th timed kill is followed by one
    0.05-0.5 s after the restart; ``limit`` timed kills at most). ``phase`` names what the
    test is doing; :attr:`log` keeps (how, phase) of every kill."""

    def __init__(self, bot: BotProcess, rng: random.Random, every: tuple[int, int],
                 timer: tuple[float, float] | None = None, quick: int = 3,
                 limit: int = 12) -> None:
        self.bot = bot
        self.rng = rng
        self.every = every
        self.timer = timer
        self.quick = quick
        self.limit = limit  # timed kills at most (each restart costs a second or two)
        self.countdown = rng.randint(*every)
        self.kills = 0
        self.timed = 0
        self.right_after = 0
        self.phase = ""
        self.log: list[tuple[str, str]] = []
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None

    def due(self) -> bool:
        """Count one move click; True when the bot should die under it."""
        self.countdown -= 1
        return self.countdown <= 0 and self.every[1] > 0

    async def restart(self, how: str = "click") -> None:
        """SIGKILL the bot, wait for it to be gone, start it again (one at a time)."""
        async with self._lock:
            self.log.append((how, self.phase))
            self.bot.kill()
            await self.bot.wait()
            self.kills += 1
            self.countdown = self.rng.randint(*self.every)
            await self.bot.start()

    def start_timer(self, first: float | None = None) -> None:
        """Start killing the bot at random moments in the background (the first kill after
        ``first`` seconds when given)."""
        if self.timer is not None and self._task is None:
            self._task = asyncio.ensure_future(self._timed_kills(self.timer, first))

    async def stop_timer(self) -> None:
        """Stop the timer (the bot is left running)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass
        async with self._lock:  # a restart under way completes
            pass

    async def _timed_kills(self, timer: tuple[float, float], first: float | None) -> None:
        quick = False
        delay = first
        while self.timed < self.limit:
            if delay is None:
                delay = self.rng.uniform(0.05, 0.5) if quick else self.rng.uniform(*timer)
            await asyncio.sleep(delay)
            delay = None
            await self.restart("right after a restart" if quick else "timer")
            self.timed += 1
            self.right_after += quick
            quick = not quick and self.timed % self.quick == 0


async def play(lb: Loopback, players: list[Player], tables: list[int], oracle: Oracle,
               chaos: Chaos | None = None, max_rounds: int = 20000) -> None:
    """Let the players play until every table is finished."""
    idle = 0
    rng = players[0].rng
    for _ in range(max_rounds):
        if all(oracle.table(t).status == "finished" for t in tables):
            return
        if not lb.gateway.connected():  # the bot is down: people wait a moment, then retry
            await lb.changed(lb.version, 0.2)
            continue
        acted = False
        order = list(players)
        rng.shuffle(order)
        for p in order:
            sent = await p.send_move()
            if sent is not None:
                acted = True
                if chaos is not None and chaos.due():
                    await asyncio.sleep(rng.random() * 0.03)  # mid-flight, or just after
                    await chaos.restart()
                await p.finish_move(*sent)
            elif await p.open_hand():
                acted = True
        if acted:
            idle = 0
            continue
        idle += 1
        version = lb.version
        await lb.changed(version, 0.3)
        if idle >= 3:  # nothing to do for a while: everybody looks at their hand
            for p in order:
                await p.open_hand(force=True)
            idle = 0
    raise AssertionError("the matches did not finish")


#: Texts only a seat's private hand message may hold: its title, the move prompt, the private
#: draw event and Taia's choice (every language, every plural form).
HAND_ONLY_KEYS = ("bot.hand.title", "bot.hand.your_move", "event.draw_private",
                  "event.taia_choice", "event.taia_kept")
_SPACE = "[ \u00a0\u202f]"
_ELIDED = re.compile(r"(?:^|(?<=\W))([Dd]e|[Qq]ue) $")


def template_pattern(template: str, fields: dict[str, str] | None = None) -> str:
    """A regular expression matching what :func:`i18n.translate` makes of ``template``: any text
    for each placeholder (``fields`` may give a named pattern instead), ordinary or no-break
    spaces, and French ``de``/``que`` elided before a parameter."""
    out: list[str] = []
    for literal, name, _, _ in string.Formatter().parse(template):
        lit = literal
        elided = _ELIDED.search(lit) if name else None
        if elided is not None:
            lit = lit[:elided.start(1)]
        out.append(_SPACE.join(re.escape(part) for part in lit.split(" ")))
        if elided is not None:
            word = elided.group(1)
            out.append(f"(?:{re.escape(word)}{_SPACE}|{re.escape(word[:-1])}')")
        if name:
            known = (fields or {}).get(name)
            out.append(f"(?P<{name}>{known})" if known else "[^\n]+?")
    return "".join(out)


def catalogue_patterns(key: str, fields: dict[str, str] | None = None) -> list[re.Pattern[str]]:
    """Patterns of ``key``'s text in every shipped language (and each plural form)."""
    found: dict[str, re.Pattern[str]] = {}
    for locale in LOCALES:
        for text in texts(catalog(locale)[key]):
            pattern = template_pattern(text, fields)
            found.setdefault(pattern, re.compile(pattern))
    return list(found.values())


HAND_ONLY = [(key, p) for key in HAND_ONLY_KEYS for p in catalogue_patterns(key)]
TABLE_TITLE = catalogue_patterns("bot.table.title", {"table": r"\d+"})
HAND_TITLE = catalogue_patterns("bot.hand.title", {"table": r"\d+"})
#: Every hero's name in every language: a hand message names its seat's hero on its seat line.
HERO_NAMES = {h: {translate(hero_name(h), lc) for lc in LOCALES} for h in tables_of().hero_cards}
TABLE_FOOTER = catalogue_patterns("bot.table.footer", {"round": r"\d+", "step": r"\d+"})


def full_text(message: Message) -> str:
    """Every text a person can read in a message (see :meth:`Message.text`)."""
    return message.text()


def where_shown(text: str) -> tuple[int, int] | None:
    """(table, step) of a public table message, read from its title and footer (any
    language); None for other messages."""
    title = next((m for p in TABLE_TITLE if (m := p.search(text))), None)
    footer = next((m for p in TABLE_FOOTER if (m := p.search(text))), None)
    if title is None or footer is None:
        return None
    return int(title.group("table")), int(footer.group("step"))


def _param(value: Param, locale: str) -> str:
    return translate(value, locale) if isinstance(value, Msg) else str(value)


def _named(pattern: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(pattern)}(?!\w)", text) is not None


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
                if _named(name, rest)]


#: Reads a table's game: its configuration and action list (notation), in order.
History = Callable[[int], tuple[GameConfig, list[str]]]
#: Reads who sits at a table: user id -> hero of each person's seat.
Seating = Callable[[int], dict[int, str]]


def hand_table(text: str) -> int | None:
    """The table a hand message is about, read from its title (any language)."""
    found = next((m for p in HAND_TITLE if (m := p.search(text))), None)
    return int(found.group("table")) if found else None


def seat_heroes(text: str) -> set[str]:
    """The heroes named on a hand message's seat line (its first ``-#`` line, any language):
    the seat whose hand it shows, as heroes are one a seat."""
    line = next((line for line in text.splitlines() if line.startswith("-# ")), "")
    return {h for h, names in HERO_NAMES.items() if any(_named(n, line) for n in names)}


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

    def __call__(self, message: Message) -> None:
        hand_image = any(a.filename.startswith("hand") for a in message.attachments)
        hand_embed = [url for url in message.images() if url.endswith("/hand.png")
                      or url == "attachment://hand.png"]
        moves = moves_of(message)
        if message.owner is None:
            text = full_text(message)
            self.public.append((message.id, message.revision, text))
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
        at: dict[tuple[int, int], GameState] = {}
        ever: dict[str, dict[str, str]] = {lc: {} for lc in LOCALES}
        always: dict[str, set[str]] = {lc: set() for lc in LOCALES}
        for tid in sorted(set(tables) | set(wanted)):
            config, actions = history(tid)
            state = new_game(config)
            for i in range(len(actions) + 1):
                if i in wanted.get(tid, ()):
                    at[(tid, i)] = state
                for lc in LOCALES:
                    for seat in state.seats:
                        ever[lc].update((translate(card_name(c), lc), c) for c in seat.hand)
                if i < len(actions):
                    state, _ = apply(state, parse(actions[i]))
            for lc in LOCALES:
                always[lc] |= {translate(hero_name(s.hero), lc) for s in state.seats}
                always[lc] |= {_param(seat_name(state, i), lc)
                               for i in range(len(state.seats))}
        monsters = {lc: {translate(monster_name(m), lc) for m in tables_of().monsters}
                    for lc in LOCALES}
        checked = 0
        for mid, rev, text, where in shown:
            if where is not None and where in at:
                secrets = Secrets.merged([Secrets.of(at[where], lc) for lc in LOCALES])
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


def check_acknowledged(players: list[Player], oracle: Oracle) -> int:
    """Every move the bot confirmed is in the action log, as the player's."""
    count = 0
    for p in players:
        for ack in p.acknowledged:
            log = oracle.log(ack.table)
            assert ack.version < len(log), f"acknowledged move lost: {ack}"
            row = log[ack.version]
            assert (row.step, row.user_id, row.action) == (
                ack.version + 1, ack.user, ack.notation), f"acknowledged {ack}, logged {row}"
            count += 1
    return count


async def open_table(lb: Loopback, channel: Channel, host: User, others: list[User],
                     ai: int = 0) -> int:
    """Open a lobby with /goblin new, let the others join, add AI seats and start."""
    ix = await lb.command(host, channel, "goblin new")
    await ix.done()
    lobby = lb.message(ix.original_id or 0)
    tid = int(next(c for c in lobby.custom_ids() if c.startswith("kg:lobby:")).split(":")[2])
    for who, op in [(u, "join") for u in others] + [(host, "ai")] * ai + [(host, "start")]:
        current = lb.message(lobby.id)
        ix = await lb.click(who, current, lobby_button(current, tid, op))
        await ix.done()
    await until(lb, lambda: any(hand_button(m) == f"kg:hand:{tid}"
                                for m in lb.messages_for(channel, host)))
    return tid


async def settle(ix: Interaction, timeout: float = 15) -> bool:
    """Wait for an interaction's answer; False when it was lost (the bot died under it)."""
    try:
        await ix.done(timeout)
    except InteractionFailed:
        return False
    return True


def lobby_message(lb: Loopback, channel: Channel, host: User, tid: int) -> Message | None:
    """The newest message of the channel holding table ``tid``'s lobby buttons."""
    found = [m for m in lb.messages_for(channel, host)
             if any(c.startswith(f"kg:lobby:{tid}:") for c in m.custom_ids())]
    return found[-1] if found else None


async def open_table_despite_crashes(lb: Loopback, oracle: Oracle, channel: Channel, host: User,
                                     others: list[User], ai: int = 0, tries: int = 60) -> int:
    """:func:`open_table` while the bot may die at any moment: every step is checked in the
    database and done again if it was lost, as people would (AI seats first: a lobby message
    whose last edit was lost refuses Add AI once it shows fewer seats than there are). A lobby
    whose message was never posted is abandoned with /goblin abandon and opened again."""
    tid: int | None = None
    for _ in range(tries):
        await until(lb, lambda: lb.gateway.connected(), 90)
        if tid is None:
            await settle(await lb.command(host, channel, "goblin new"))
            tid = oracle.active_in(channel.id)
            if tid is None:
                continue
        rec = oracle.table(tid)
        if rec.status == "running":
            break
        lobby = lobby_message(lb, channel, host, tid)
        if rec.status != "lobby" or lobby is None:
            if rec.status == "lobby":  # the bot died before posting the lobby: start again
                await settle(await lb.command(host, channel, "goblin abandon"))
            tid = None
            continue
        missing = [u for u in others if rec.seat_of(u.id) is None]
        if sum(s.ai for s in rec.seats) < ai:
            who, op = host, "ai"
        elif missing:
            who, op = missing[0], "join"
        else:
            who, op = host, "start"
        await settle(await lb.click(who, lobby, lobby_button(lobby, tid, op)))
    else:
        raise AssertionError("the table could not be opened")
    assert tid is not None
    await until(lb, lambda: any(hand_button(m) == f"kg:hand:{tid}"
                                for m in lb.messages_for(channel, host)), 90)
    return tid


async def until(lb: Loopback, predicate: Callable[[], bool], timeout: float = 20) -> None:
    """Wait until ``predicate()`` holds, re-checking whenever the stand-in changes."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("the expected change never came")
        await lb.changed(lb.version, 0.5)
