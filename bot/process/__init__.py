"""The process: its settings and the app that builds and runs every other part of the bot.

Owns: reading the environment and ``.env`` (``settings``), starting and stopping (``app``).
May import: every other package of the bot.
"""
