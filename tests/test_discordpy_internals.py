"""The discord.py internals the bot reaches into are still where it expects them.

Sending discord.py to a Discord stand-in (``bot.discord_side.client.route_to``: the tests, the
playground, ``KARAK_API_BASE`` / ``KARAK_GATEWAY_URL``) and guarding its event parsers
(``drop_malformed_events``) set or wrap attributes discord.py does not promise to keep. This is why
pyproject.toml pins discord.py to one minor version (``~=2.7.1``): before moving to another,
this test names what moved. No network: only discord.py's classes are looked at.
"""

from __future__ import annotations

import inspect
import tomllib
from pathlib import Path
from typing import Any

import discord
import discord.gateway
import discord.http
import discord.webhook.async_
import yarl
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent


def test_the_installed_discordpy_is_the_pinned_minor_version() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    spec = next(Requirement(d) for d in project["dependencies"] if d.startswith("discord.py"))
    assert spec.specifier.contains(discord.__version__), (
        f"discord.py {discord.__version__} is installed, pyproject.toml asks for {spec}")
    assert str(spec.specifier).startswith("~="), (
        f"pin discord.py to one minor version ({spec}): the stand-in redirection sets its "
        "internals")


def test_rest_urls_are_built_from_route_base() -> None:
    base = getattr(discord.http.Route, "BASE", None)
    assert isinstance(base, str) and base.startswith("https://discord.com/api/v"), (
        "discord.http.Route.BASE moved or changed: route_to() can no longer send REST requests "
        "to a stand-in")
    try:
        discord.http.Route.BASE = "http://127.0.0.1:9/api/v10"
        route = discord.http.Route("GET", "/users/{user_id}", user_id=1)
        assert route.url == "http://127.0.0.1:9/api/v10/users/1", (
            "discord.http.Route no longer builds its url from Route.BASE when it is made")
    finally:
        discord.http.Route.BASE = base
    assert discord.webhook.async_.Route is discord.http.Route, (
        "webhooks and interaction answers no longer use discord.http.Route: route_to() would "
        "leave them going to discord.com")


def test_the_gateway_falls_back_to_default_gateway() -> None:
    websocket = discord.gateway.DiscordWebSocket
    default = getattr(websocket, "DEFAULT_GATEWAY", None)
    assert isinstance(default, yarl.URL), (
        "discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY moved or is no yarl.URL: route_to() "
        "can no longer send the shards to a stand-in's gateway")
    assert "DEFAULT_GATEWAY" in inspect.getsource(websocket.from_client), (
        "DiscordWebSocket.from_client no longer falls back to DEFAULT_GATEWAY")
    assert "gateway" in inspect.signature(websocket.from_client).parameters


def test_the_shard_launch_asks_for_the_bot_gateway() -> None:
    launch = getattr(discord.AutoShardedClient, "launch_shards", None)
    assert launch is not None and inspect.iscoroutinefunction(launch), (
        "discord.AutoShardedClient.launch_shards moved: KarakBot overrides it to keep its own "
        "gateway when no shard count is given")
    ask = inspect.signature(discord.http.HTTPClient.get_bot_gateway)
    assert list(ask.parameters) == ["self"], (
        f"HTTPClient.get_bot_gateway takes {ask} now: KarakBot.launch_shards calls it bare")
    assert "Tuple[int, str," in str(ask.return_annotation), (
        "HTTPClient.get_bot_gateway no longer answers (shards, url, limits)")


def test_event_parsers_are_a_dict_the_bot_can_wrap() -> None:
    client = discord.Client(intents=discord.Intents.none())
    parsers: Any = getattr(client._connection, "parsers", None)
    assert isinstance(parsers, dict) and callable(parsers.get("INTERACTION_CREATE")), (
        "discord.Client._connection.parsers is no longer a dict of event name -> parser: "
        "drop_malformed_events() cannot guard the gateway's reader any more")
    assert callable(getattr(client._connection, "dispatch", None))
    made = inspect.signature(discord.Interaction.__init__).parameters
    assert {"data", "state"} <= set(made), (
        "discord.Interaction(data=, state=) changed: rescue_interaction() cannot rebuild an "
        "interaction discord.py could not read")
