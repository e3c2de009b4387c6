"""A minimal hand-written Discord client for testing the stand-in without the real bot, and the
steps its tests share: connecting it, and reading (and clearing) the Discord rules broken
on the stand-in."""
from __future__ import annotations

import asyncio
import contextlib
import json
import zlib
from typing import Any

import aiohttp

from loopback import Loopback


class MiniBot:
    """Connects to the stand-in's gateway and REST API like a bot would, step by step."""

    def __init__(self, lb: Loopback, token: str | None = None) -> None:
        self.lb = lb
        self.token = token or lb.token or ""
        self.http = aiohttp.ClientSession()
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.seq: int | None = None
        self.session_id: str | None = None
        self._reader: asyncio.Task[None] | None = None
        self._inflate: Any = None
        self.close_code: int | None = None

    async def connect(self, compress: str | None = "zlib-stream", identify: bool = True,
                      url: str | None = None) -> dict[str, Any]:
        query = "?v=10&encoding=json" + (f"&compress={compress}" if compress else "")
        self.ws = await self.http.ws_connect((url or self.lb.gateway_url) + query)
        self._inflate = zlib.decompressobj() if compress == "zlib-stream" else None
        self._reader = asyncio.get_running_loop().create_task(self._read())
        hello = await self.next_op(10)
        if identify:
            await self.send({"op": 2, "d": {"token": self.token, "intents": 1,
                                            "properties": {}}})
        return hello

    async def _read(self) -> None:
        assert self.ws is not None
        buffer = bytearray()
        async for frame in self.ws:
            if frame.type is aiohttp.WSMsgType.BINARY:
                buffer.extend(frame.data)
                if bytes(buffer[-4:]) != b"\x00\x00\xff\xff":
                    continue
                text = self._inflate.decompress(bytes(buffer)).decode()
                buffer.clear()
            elif frame.type is aiohttp.WSMsgType.TEXT:
                text = frame.data
            else:
                break
            msg = json.loads(text)
            if msg.get("s") is not None:
                self.seq = msg["s"]
            if msg.get("t") == "READY":
                self.session_id = msg["d"]["session_id"]
            await self.events.put(msg)
        self.close_code = self.ws.close_code
        await self.events.put({"op": -1, "closed": self.ws.close_code})

    async def send(self, payload: dict[str, Any]) -> None:
        assert self.ws is not None
        await self.ws.send_str(json.dumps(payload))

    async def next_op(self, op: int, event: str | None = None,
                      timeout: float = 5.0) -> dict[str, Any]:
        while True:
            msg = await asyncio.wait_for(self.events.get(), timeout)
            if msg["op"] == -1 and op != -1:
                raise AssertionError(f"socket closed with {msg['closed']}")
            if msg["op"] == op and (event is None or msg.get("t") == event):
                return msg

    async def interaction(self, timeout: float = 5.0) -> dict[str, Any]:
        return (await self.next_op(0, "INTERACTION_CREATE", timeout))["d"]  # type: ignore[no-any-return]

    async def drop(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await self._reader
        self.events = asyncio.Queue()

    async def close(self) -> None:
        await self.drop()
        await self.http.close()

    async def rest(self, method: str, path: str, body: Any = None, *, auth: bool = True,
                   files: dict[str, bytes] | None = None,
                   params: dict[str, str] | None = None) -> tuple[int, Any, dict[str, str]]:
        headers = {"Authorization": f"Bot {self.token}"} if auth else {}
        data: Any = None
        if files:
            form = aiohttp.FormData(quote_fields=False)
            form.add_field("payload_json", json.dumps(body), content_type="application/json")
            for i, (name, blob) in enumerate(files.items()):
                form.add_field(f"files[{i}]", blob, filename=name, content_type="image/png")
            data = form
        elif body is not None:
            data = json.dumps(body)
            headers["Content-Type"] = "application/json"
        async with self.http.request(method, self.lb.api_base + path, data=data,
                                     headers=headers, params=params) as resp:
            raw = await resp.read()
            out = json.loads(raw) if raw and resp.content_type == "application/json" else None
            return resp.status, out, dict(resp.headers)

    async def register(self, commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
        status, body, _ = await self.rest(
            "PUT", f"/applications/{self.lb.application_id}/commands", commands)
        assert status == 200, body
        return body  # type: ignore[no-any-return]

    async def respond(self, ix: dict[str, Any], body: dict[str, Any],
                      files: dict[str, bytes] | None = None) -> tuple[int, Any]:
        status, out, _ = await self.rest(
            "POST", f"/interactions/{ix['id']}/{ix['token']}/callback", body, auth=False,
            files=files, params={"with_response": "true"})
        return status, out

    def hook(self, ix: dict[str, Any], tail: str = "") -> str:
        return f"/webhooks/{self.lb.application_id}/{ix['token']}{tail}"


GOBLIN = {"name": "goblin", "description": "Play", "type": 1, "contexts": [0], "options": [
    {"name": "new", "description": "Open a table", "type": 1, "options": [
        {"name": "abilities", "description": "Abilities", "type": 5},
        {"name": "timer", "description": "Timer", "type": 4,
         "choices": [{"name": "none", "value": 0}, {"name": "1 min", "value": 60}]}]},
    {"name": "card", "description": "Look a card up", "type": 1, "options": [
        {"name": "name", "description": "Card", "type": 3, "required": True,
         "autocomplete": True}]},
    {"name": "settings", "description": "Admins", "type": 1}]}


async def connected(lb: Loopback, mini: MiniBot, compress: str | None = "zlib-stream") -> None:
    """Connect ``mini`` to ``lb``'s gateway, wait for READY and register /goblin."""
    await mini.connect(compress)
    await mini.next_op(0, "READY")
    await mini.register([GOBLIN])


def rules(lb: Loopback) -> list[str]:
    """The rules broken so far on ``lb`` (its breaches, in order)."""
    return [b.rule for b in lb.breaches]


def consumed(lb: Loopback) -> list[str]:
    """The rules broken so far, cleared: breaches a test provoked on purpose and checked (the
    autouse ``no_leftover_breaches`` fails a test that leaves any)."""
    found = rules(lb)
    lb.breaches.clear()
    return found
