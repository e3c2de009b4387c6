"""The people and tables the bot tests share: Ann, Bob, Eve and an admin, a renderer that draws
nothing, opening a table through the lobby's buttons, players who play a match to its end, and
messages planted or forged as a damaged or hostile client would send them."""
from __future__ import annotations

from typing import Any

from live_bot import (
    CHANNEL,
    GUILD,
    LiveBot,
    User,
    offered,
    table_id,
)
from storage.helpers import Game

from bot.discord_side.ui.custom_ids import HandButton, HeroMenu, LobbyButton
from bot.game.places import Place
from bot.storage.records import Rater, SeatInfo
from bot.storage.sqlite import Store
from engine import Observation
from loopback import Channel, Loopback, Message

ANN = User(2000000000000000001, "Ann")
BOB = User(2000000000000000002, "Bob")
EVE = User(2000000000000000003, "Eve")
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16
#: The seats of the finished matches planted in the database: two people and an easy AI.
SEATS = (SeatInfo(user=ANN.id, name="Ann", hero="horan"),
         SeatInfo(user=BOB.id, name="Bob", hero="taia"),
         SeatInfo(ai=True, hero="argentus", level="easy"))
ADMIN = User(2000000000000000009, "Mod", admin=True)


class TinyRenderer:
    """Stands in for Pillow where a test plays hundreds of moves (images are tested apart)."""

    def table(self, obs: Observation, locale: str, handed: tuple[int, ...] = ()) -> bytes:
        return PNG

    def battle(self, obs: Observation, locale: str) -> bytes:
        assert obs.battle is not None
        return PNG

    def hand(self, obs: Observation, locale: str) -> bytes:
        assert obs.viewer is not None
        return PNG


async def open_table(h: LiveBot, host: User, others: list[User], ai: int = 0,
                     heroes: dict[int, str] | None = None, **options: Any) -> int:
    """``host`` opens a table (``options`` of /goblin new), ``others`` join, ``ai`` AI seats,
    heroes picked, started; its id."""
    await h.command(host, "new", **options)
    lobby = h.public()[-1]
    tid = table_id(lobby)
    for u in others:
        await h.click(u, lobby, LobbyButton.id_for(tid, "join", None))
    for _ in range(ai):
        await h.click(host, lobby, LobbyButton.id_for(tid, "ai", None))
    for uid, hero in (heroes or {}).items():
        user = next(u for u in [host, *others] if u.id == uid)
        await h.choose(user, lobby, HeroMenu.id_for(tid), [hero])
    await h.click(host, lobby, LobbyButton.id_for(tid, "start", None))
    return tid


class Players:
    """Simulated people: they look at their hand message and click what they decide."""

    def __init__(self, h: LiveBot, tid: int, users: list[User]) -> None:
        self.h = h
        self.tid = tid
        self.users = {u.id: u for u in users}
        self.hand_msgs: dict[int, int] = {}
        self.clicks = 0

    async def open_hand(self, user: User) -> Message:
        table_msg = self.h.last_table_message()
        ix = await self.h.click(user, table_msg, HandButton.id_for(self.tid))
        msg = self.h.reply(ix)
        assert msg.owner == user.id, "the hand message must be ephemeral"
        self.hand_msgs[user.id] = msg.id
        return msg

    async def step(self) -> bool:
        """One decision by the seat that must decide; False once the game is over."""
        from bot.game.service import GameService
        from engine import observe
        from engine.agents import make_agent

        svc: GameService = self.h.bot.service
        rec = await svc.tables.load(self.tid)
        if rec.status != "running":
            return False
        state = rec.game
        seat = rec.seats[state.current]
        assert seat.user is not None and not seat.ai, "AI seats must have played by now"
        user = self.users[seat.user]
        msg = self.h.lb.messages.get(self.hand_msgs.get(user.id, 0))
        if msg is None or msg.deleted or not offered(msg):
            msg = await self.open_hand(user)
        obs = observe(state, state.current)
        moves = offered(msg)
        assert set(moves) == {str(a) for a in obs.legal}, "exactly the legal moves"
        for cid, _ in moves.values():
            assert f":{rec.version}:" in cid and len(cid) <= 100
        want = str(make_agent("heuristic", state.step).choose(obs))
        await self.h.play(user, msg, want)
        self.clicks += 1
        after = await svc.tables.load(self.tid)
        assert after.version > rec.version, f"{want} was not applied"
        return True


async def before_a_turn_ends(players: Players) -> tuple[Any, Any, Any, Any]:
    """``players`` play up to the move that ends a person's turn (the game going on): the table
    then, its state, that move (the heuristic agent's) and the state after it."""
    from engine import apply, observe
    from engine.agents import make_agent

    for _ in range(3000):
        rec = await players.h.bot.service.tables.load(players.tid)
        state = rec.game
        action = make_agent("heuristic", state.step).choose(observe(state, state.current))
        after = apply(state, action)[0]
        if (after.round, after.turn) != (state.round, state.turn) and after.winner is None:
            return rec, state, action, after
        assert await players.step()
    raise AssertionError("no turn ended in 3000 moves")


async def my_turn_hand(h: LiveBot, tid: int, users: list[User]) -> tuple[User, Message, Any]:
    rec = await h.bot.service.tables.load(tid)
    uid = rec.seats[rec.game.current].user
    user = next(u for u in users if u.id == uid)
    players = Players(h, tid, users)
    msg = await players.open_hand(user)
    return user, msg, rec


def planted(lb: Loopback, owner: User, custom_id: str, channel: int = CHANNEL) -> Message:
    """A private message of the bot's application holding one button ``custom_id``, as a
    damaged or older bot could have left it."""
    lb.users.setdefault(owner.id, owner)
    return lb.plant_message(lb.channel(channel), [{"type": 1, "components": [
        {"type": 2, "style": 1, "label": "x", "custom_id": custom_id}]}], owner=owner)


def forged_message(bot: LiveBot, owner: User, custom_id: str, kind: int = 2,
             channel: Channel | None = None, ephemeral: bool = True) -> Message:
    """A message holding one button (``kind`` 2) or menu (3) ``custom_id``."""
    component: dict[str, Any] = {"type": kind, "custom_id": custom_id}
    if kind == 2:
        component.update(style=1, label="x")
    else:
        component["options"] = [{"label": "x", "value": "x"}]
    bot.lb.users.setdefault(owner.id, owner)
    return bot.lb.plant_message(channel or bot.channel, [{"type": 1, "components": [component]}],
                                owner=owner if ephemeral else None)


async def raw_click(bot: LiveBot, user: User, message: Message, custom_id: str, kind: int,
                     values: list[str] | None = None) -> list[str]:
    """What ``user`` is told privately after a forged click (or choice of ``values``)."""
    if kind == 2:
        ix = await bot.click(user, message, custom_id, forge=True)
    else:
        ix = await bot.choose(user, message, custom_id, values or [], forge=True)
    return bot.said(ix)


async def finished_match(store: Store, game: Game, *, upto: int | None = None,
                         seats: tuple[SeatInfo, ...] = SEATS, start: int = 0,
                         channel: int = CHANNEL, guild: int | None = GUILD, host: User = ANN,
                         rater: Rater | None = None, hints: bool | None = None,
                         decided: bool | None = None, **settings: Any) -> int:
    """A table of server ``guild`` (None: in ``host``'s direct messages) in ``channel`` that
    played ``game`` from step ``start`` to step ``upto`` (None: its end) through the storage
    interface, rated by ``rater`` (``settings``: the table's, as ``create_table`` takes them,
    abilities and the turn timer off unless given; ``hints``: as the host chose them,
    ``decided``: as its start decided them when other than that); returns its id. A bot
    running on ``store`` holds the table's lease while its moves are written, as the process
    that played it would: a pass of its leases meanwhile takes no part in it (no
    table message, no AI move of its own wedged in between the planted ones); once the match
    ended, the lease is given up on the bot's next pass."""
    running = next((b for b in LiveBot.running if b.store is store), None)
    leases = None if running is None else running.bot.scheduler.leases
    rec = await store.create_table(**{"guild_id": guild,
                                      "place_key": Place.of(guild, host.id).key,
                                      "channel_id": channel, "host_id": host.id, "seats": seats,
                                      "abilities": False, "timer": 0,
                                      "seed": game.final.config.seed, "hints": hints,
                                      **settings})
    if leases is not None:
        assert await leases.holding(rec.id)
    await store.start_game(rec.id, seats, game.states[start], None,
                           hints=hints if decided is None else decided)
    last = len(game.moves) if upto is None else upto
    for index in range(start, last):
        await store.apply(rec.id, index, game.states[index + 1], game.log_row(index),
                          rater=rater)
    if leases is not None and last == len(game.moves):
        leases.forget(rec.id)
    return rec.id
