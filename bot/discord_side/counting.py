"""Commands and clicks counted in the bot's metrics (:mod:`bot.supervision.metrics`), by kind,
name and how they were answered.

A handler that answers a refusal itself (a move already played, a table the channel has
already) marks its interaction with :func:`refused_here`: the handler's caller, which counts the
interaction once it is answered, then counts it refused rather than accepted."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.supervision.metrics import UNCOUNTED, Metrics, Outcome

#: The answers to a failed command that mean the bot failed (the others refuse the command).
FAILURES = frozenset({"bot.error.internal", "bot.error.cannot_save", "bot.error.unreachable"})
#: Ids of the interactions being answered with a refusal by their own handler.
_refused: set[int] = set()


def metrics_of(interaction: discord.Interaction[Any]) -> Metrics:
    """The metrics of the bot that received ``interaction``."""
    found = getattr(interaction.client, "metrics", None)
    return found if isinstance(found, Metrics) else UNCOUNTED


def answered(interaction: discord.Interaction[Any], outcome: Outcome,
             name: str | None = None) -> None:
    """Count ``interaction`` answered with ``outcome``: a command by its name, a click by
    ``name`` (the kind of button or menu)."""
    if interaction.id in _refused:
        _refused.discard(interaction.id)
        outcome = "refused" if outcome == "accepted" else outcome
    if interaction.type is discord.InteractionType.application_command:
        command = interaction.command
        metrics_of(interaction).answered("command", command_name(command), outcome)
    else:
        metrics_of(interaction).answered("click", name or "unknown", outcome)


def command_name(command: object) -> str:
    """The name a command is counted by: its path under ``/goblin`` (``new``, ``tournament
    new``), so a subcommand of a group is not counted as the command of the same name."""
    if not isinstance(command, app_commands.Command | app_commands.ContextMenu):
        return "unknown"
    if isinstance(command, app_commands.Command) and command.root_parent is not None:
        return command.qualified_name.split(" ", 1)[1]
    return command.qualified_name


def refused_here(interaction: discord.Interaction[Any]) -> None:
    """``interaction`` is being answered with a refusal by the handler that caught it: count it
    refused when it is counted."""
    _refused.add(interaction.id)


__all__ = ["FAILURES", "answered", "command_name", "metrics_of", "refused_here"]
