"""The process: its settings, the composition root that builds every other part of the bot, and
the app that runs it.

Owns: reading the environment and ``.env`` (``settings``), building the bot (``compose``: the
one place that constructs and wires its parts), starting and stopping (``app``).
May import: every other package of the bot.
"""
