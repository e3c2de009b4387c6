"""The stand-in's gateway: a websocket speaking Discord's gateway protocol (v10, JSON).

HELLO, heartbeat and HEARTBEAT_ACK (sent ``ack_latency`` seconds after the heartbeat arrives, as
over a real network: discord.py records a heartbeat's send time only once its send has
completed, so an instant ack would be measured against the previous heartbeat and read as a
latency of a whole interval), IDENTIFY (token checked, close 4004 otherwise), READY and one
GUILD_CREATE per guild, RESUME (missed events replayed, then RESUMED; an unknown session gets
INVALID_SESSION), and dispatches (INTERACTION_CREATE, GUILD_CREATE, CHANNEL_CREATE). Transport
compression ``zlib-stream`` is used when the client asks for it in the URL, ``zstd-stream``
when a zstd module is importable, none otherwise.

Shards as on Discord (:mod:`loopback.sharding`): IDENTIFY's ``shard: [i, n]`` makes the session
shard ``i`` of ``n``; it hears only its guilds (in READY, GUILD_CREATE and every dispatch) and
shard 0 the direct messages. An invalid shard is closed with 4010, a count below
``required_shards`` with 4011. The latest IDENTIFY's count is the bot's: a session of another
count is replaced, as is an earlier session of the same shard.

Tests can break the connection on purpose: :meth:`Gateway.drop` (the socket closes; discord.py
resumes), :meth:`Gateway.send_reconnect` (op 7) and :meth:`Gateway.invalidate` (op 9), each on
every shard or on one.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections import deque
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, Protocol

from aiohttp import WSMsgType, web

from loopback.model import Guild, User
from loopback.sharding import (
    INVALID_SHARD,
    SHARDING_REQUIRED,
    guild_of,
    identified_shard,
    shard_of,
)
from loopback.transport import zlib_stream, zstd_stream


class Host(Protocol):
    """What the gateway needs of the stand-in it serves (a :class:`~loopback.world.World`)."""

    application_id: int
    bot: User
    guilds: dict[int, Guild]

    def now(self) -> float:
        """The stand-in's clock."""
        ...

    def bump(self, channel_id: int | None = None) -> None:
        """Something visible changed."""
        ...

    def authorised(self, header: str | None) -> bool:
        """True for a valid ``Bot <token>``."""
        ...

    def session_ended(self, session: str) -> None:
        """A new IDENTIFY replaced ``session``."""
        ...

    def guild_payload(self, guild: Guild) -> dict[str, Any]:
        """GUILD_CREATE data of ``guild``."""
        ...

log = logging.getLogger("loopback.gateway")

DISPATCH, HEARTBEAT, IDENTIFY, RESUME, RECONNECT, INVALID_SESSION, HELLO, HEARTBEAT_ACK = (
    0, 1, 2, 6, 7, 9, 10, 11)
#: Events kept for RESUME.
BUFFER = 2000
#: Seconds a session whose socket closed still receives events (for a RESUME).
RESUME_WINDOW = 5.0


@dataclass
class Connection:
    """One websocket: its compression and its outgoing queue."""

    ws: web.WebSocketResponse
    compress: Callable[[bytes], bytes] | None
    queue: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    session: Session | None = None

    def send(self, payload: dict[str, Any]) -> None:
        """Queue a gateway payload (sent in order by the writer)."""
        self.queue.put_nowait(json.dumps(payload, separators=(",", ":"), ensure_ascii=False))

    async def writer(self) -> None:
        """Send queued payloads until None is queued or the socket closes."""
        while True:
            text = await self.queue.get()
            if text is None or self.ws.closed:
                return
            try:
                if self.compress is not None:
                    await self.ws.send_bytes(self.compress(text.encode()))
                else:
                    await self.ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return


@dataclass
class Session:
    """A gateway session (survives its socket for a RESUME)."""

    id: str
    seq: int = 0
    buffer: deque[tuple[int, dict[str, Any]]] = field(default_factory=lambda: deque(
        maxlen=BUFFER))
    conn: Connection | None = None
    closed_at: float | None = None
    superseded: bool = False
    shard: int = 0
    shard_count: int = 1

    def hears(self, guild_id: int | None) -> bool:
        """True when this session's shard receives the events of ``guild_id`` (None: DMs)."""
        return shard_of(guild_id, self.shard_count) == self.shard

    def dispatch(self, event: str, data: Any) -> None:
        """Number, keep and (if connected) send one event."""
        self.seq += 1
        payload = {"op": DISPATCH, "t": event, "s": self.seq, "d": data}
        self.buffer.append((self.seq, payload))
        if self.conn is not None:
            self.conn.send(payload)


class Gateway:
    """Every session of the bot; the current one of each shard receives its guilds' events."""

    def __init__(self, world: Host, heartbeat_interval: float = 41.25,
                 ack_latency: float = 0.04, shards: int = 1, required_shards: int = 1) -> None:
        self.world = world
        self.heartbeat_interval = heartbeat_interval
        self.ack_latency = ack_latency
        self.shards = shards  # the count GET /gateway/bot recommends
        self.required_shards = required_shards  # fewer: IDENTIFY is closed with 4011
        self.url = "ws://127.0.0.1/gateway"
        self.sessions: dict[str, Session] = {}
        self.current: dict[int, Session] = {}  # shard id -> its session
        self.identifies = 0
        self.resumes = 0
        self.heartbeats = 0
        self._ready = asyncio.Event()

    # ------------------------------------------------------------------ state

    def connected(self, shards: Collection[int] | None = None) -> bool:
        """True while the current session of each of ``shards`` (None: every shard of the
        bot's count) has an open socket."""
        count = next(iter(self.current.values())).shard_count if self.current else 1
        wanted = range(count) if shards is None else shards
        return bool(self.current) and all(
            (s := self.current.get(i)) is not None and s.conn is not None for i in wanted)

    async def wait_connected(self, timeout: float = 30.0,
                             shards: Collection[int] | None = None) -> None:
        """Wait until a bot session is connected on each of ``shards`` (None: every shard),
        after IDENTIFY or RESUME."""
        async def wait() -> None:
            while not self.connected(shards):
                self._ready.clear()
                await self._ready.wait()
        await asyncio.wait_for(wait(), timeout)

    def lost_since(self, session_id: str, since: float) -> bool:
        """True when the session's socket was closed at or after ``since`` (or is closed)."""
        s = self.sessions.get(session_id)
        if s is None or s.superseded or s.conn is None:
            return True
        return s.closed_at is not None and s.closed_at >= since

    def _hearing(self, guild_id: int | None) -> Session | None:
        """The current session receiving ``guild_id``'s events (None: no shard hears it)."""
        return next((s for s in self.current.values() if s.hears(guild_id)), None)

    def deliver(self, payload: dict[str, Any]) -> str | None:
        """Send INTERACTION_CREATE to the shard of its guild (DMs: shard 0); the session id, or
        None when that shard is offline."""
        s = self._hearing(guild_of("INTERACTION_CREATE", payload))
        if s is None:
            return None
        if s.conn is None and (s.closed_at is None
                               or self.world.now() - s.closed_at > RESUME_WINDOW):
            return None
        s.dispatch("INTERACTION_CREATE", payload)
        return s.id

    def broadcast(self, event: str, data: Any) -> None:
        """Dispatch an event to the shard of its guild (DMs: shard 0), if it has a session."""
        s = self._hearing(guild_of(event, data))
        if s is not None:
            s.dispatch(event, data)

    # ------------------------------------------------------------------ breaking things

    def _open(self, shard: int | None) -> list[Session]:
        """The current sessions with an open socket: every shard's, or ``shard``'s only."""
        return [s for i, s in self.current.items()
                if s.conn is not None and shard in (None, i)]

    async def drop(self, code: int = 4000, shard: int | None = None) -> None:
        """Close the bot's sockets (code 4000: discord.py reconnects and RESUMEs)."""
        for s in self._open(shard):
            if s.conn is not None:
                await s.conn.ws.close(code=code)

    def send_reconnect(self, shard: int | None = None) -> None:
        """Ask the bot to reconnect (op 7); it resumes."""
        for s in self._open(shard):
            if s.conn is not None:
                s.conn.send({"op": RECONNECT, "d": None})

    def invalidate(self, resumable: bool = False, shard: int | None = None) -> None:
        """Invalidate the sessions (op 9); with ``resumable=False`` the bot identifies anew."""
        for s in self._open(shard):
            if s.conn is not None:
                s.conn.send({"op": INVALID_SESSION, "d": resumable})

    # ------------------------------------------------------------------ the socket

    def _ready_payload(self, session: Session, shard: Any) -> dict[str, Any]:
        world = self.world
        out: dict[str, Any] = {
            "v": 10, "user_settings": {}, "user": dict(world.bot.payload(), verified=True,
                                                       mfa_enabled=False, flags=0),
            "guilds": [{"id": str(g), "unavailable": True} for g in world.guilds
                       if session.hears(g)],
            "session_id": session.id, "session_type": "normal",
            "resume_gateway_url": self.url, "private_channels": [], "relationships": [],
            "presences": [], "guild_join_requests": [], "geo_ordered_rtc_regions": [],
            "application": {"id": str(world.application_id), "flags": 0},
        }
        if shard is not None:
            out["shard"] = shard
        return out

    async def handle(self, request: web.Request) -> web.StreamResponse:
        """The aiohttp handler of ``/gateway``."""
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        q = request.query
        if q.get("encoding", "json") != "json" or q.get("v", "10") not in ("9", "10"):
            await ws.close(code=4002 if q.get("encoding", "json") != "json" else 4012)
            return ws
        compress: Callable[[bytes], bytes] | None = None
        if q.get("compress") == "zlib-stream":
            compress = zlib_stream()
        elif q.get("compress") == "zstd-stream":
            factory = zstd_stream()
            if factory is None:
                await ws.close(code=4000, message=b"zstd-stream is not available")
                return ws
            compress = factory()
        conn = Connection(ws, compress)
        writer = asyncio.get_running_loop().create_task(conn.writer())
        conn.send({"op": HELLO, "d": {"heartbeat_interval": int(self.heartbeat_interval
                                                                  * 1000)}})
        try:
            async for frame in ws:
                if frame.type is not WSMsgType.TEXT:
                    if frame.type is WSMsgType.BINARY:
                        await ws.close(code=4002)  # we never ask for ETF or compressed input
                    continue
                try:
                    msg = json.loads(frame.data)
                    op = msg["op"]
                except (ValueError, KeyError, TypeError):
                    await ws.close(code=4002)
                    break
                if not await self._on_op(conn, op, msg.get("d")):
                    break
        finally:
            conn.queue.put_nowait(None)
            await writer
            s = conn.session
            if s is not None and s.conn is conn:
                s.conn = None
                s.closed_at = self.world.now()
                self.world.bump()
            if not ws.closed:
                await ws.close()
        return ws

    async def _on_op(self, conn: Connection, op: int, data: Any) -> bool:
        """Handle one client payload; False once the socket is to be closed."""
        world = self.world
        if op == HEARTBEAT:
            self.heartbeats += 1
            # The network's delay on the way back, timed by the loop (the stand-in's clocks run
            # at the machine's pace; a manual clock only adds jumps).
            asyncio.get_running_loop().call_later(self.ack_latency, conn.send,
                                                  {"op": HEARTBEAT_ACK})
            return True
        if op == IDENTIFY:
            if conn.session is not None:
                await conn.ws.close(code=4005)  # already authenticated
                return False
            if not isinstance(data, dict) or not world.authorised(f"Bot {data.get('token')}"):
                await conn.ws.close(code=4004)  # authentication failed
                return False
            shard = identified_shard(data.get("shard"))
            if shard is None or shard[1] < self.required_shards:
                await conn.ws.close(code=INVALID_SHARD if shard is None else SHARDING_REQUIRED)
                return False
            session = self._new_session(*shard)
            self._attach(conn, session)
            self.identifies += 1
            session.dispatch("READY", self._ready_payload(session, data.get("shard")))
            for guild in world.guilds.values():
                if session.hears(guild.id):
                    session.dispatch("GUILD_CREATE", world.guild_payload(guild))
            self._ready.set()
            world.bump()
            return True
        if op == RESUME:
            d = data if isinstance(data, dict) else {}
            found = self.sessions.get(str(d.get("session_id")))
            seq = d.get("seq")
            oldest = found.buffer[0][0] if found and found.buffer else 1
            if (found is None or found.superseded or not world.authorised(
                    f"Bot {d.get('token')}") or not isinstance(seq, int) or seq < oldest - 1
                    or seq > found.seq):
                conn.send({"op": INVALID_SESSION, "d": False})
                return True
            session = found
            if session.conn is not None and session.conn is not conn:
                await session.conn.ws.close(code=4000)
            self._attach(conn, session)
            for n, payload in session.buffer:
                if n > seq:
                    conn.send(payload)
            session.dispatch("RESUMED", {})
            self.resumes += 1
            self._ready.set()
            world.bump()
            return True
        if conn.session is None and op not in (3, 4, 8):
            await conn.ws.close(code=4003)  # not authenticated
            return False
        if op in (3, 4, 8, 14, 31):  # presence, voice, members, ... : nothing to do
            return True
        await conn.ws.close(code=4001)  # unknown opcode
        return False

    def _new_session(self, shard: int, count: int) -> Session:
        """A new current session of ``shard``: the shard's earlier one, and every session of
        another shard count, are replaced (what they still held is lost)."""
        for i, old in list(self.current.items()):
            if i == shard or old.shard_count != count:
                old.superseded = True
                self.world.session_ended(old.id)
                del self.current[i]
        session = Session(secrets.token_hex(16), shard=shard, shard_count=count)
        self.sessions[session.id] = session
        self.current[shard] = session
        return session

    @staticmethod
    def _attach(conn: Connection, session: Session) -> None:
        conn.session = session
        session.conn = conn
        session.closed_at = None
