"""Commands and clicks counted in the bot's metrics (:mod:`bot.supervision.metrics`), by kind,
name and how they were answered."""

from __future__ import annotations

from typing import Any

import discord

from bot.supervision.metrics import UNCOUNTED, Metrics, Outcome

#: The answers to a failed command that mean the bot failed (the others refuse the command).
FAILURES = frozenset({"bot.error.internal", "bot.error.cannot_save"})


def metrics_of(interaction: discord.Interaction[Any]) -> Metrics:
    """The metrics of the bot that received ``interaction``."""
    found = getattr(interaction.client, "metrics", None)
    return found if isinstance(found, Metrics) else UNCOUNTED


def answered(interaction: discord.Interaction[Any], outcome: Outcome,
             name: str | None = None) -> None:
    """Count ``interaction`` answered with ``outcome``: a command by its name, a click by
    ``name`` (the kind of button or menu)."""
    if interaction.type is discord.InteractionType.application_command:
        command = interaction.command
        metrics_of(interaction).answered("command", command.name if command else "unknown",
                                         outcome)
    else:
        metrics_of(interaction).answered("click", name or "unknown", outcome)


__all__ = ["FAILURES", "answered", "metrics_of"]
