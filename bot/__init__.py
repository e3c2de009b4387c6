"""The Discord bot, in layers that import downwards only (``tests/test_architecture.py``):

- :mod:`bot.process`: ``python -m bot``: the settings, and the app that builds every part;
- :mod:`bot.discord_side`: everything that speaks Discord: the client, the commands, answering
  clicks, the messages and their layouts, the channel's pace, AI turns and timers shown live;
- :mod:`bot.game`: the game service: every rule and right of the lobby and the match, no Discord;
- :mod:`bot.workers`: worker processes that draw the pictures and run the AI's thinking;
- :mod:`bot.supervision`: background work kept alive, and the health check;
- :mod:`bot.storage`: the stored values, the storage interface and its SQLite backend.
"""
