"""The Discord side: the discord.py client, the slash commands, answering clicks, the lobby,
table and hand messages (Components V2 layouts in ``ui``), posting them at the channel's pace
(what the game did is posted by ``poster``), shown live in the channel.

Owns: everything that imports discord.py, and custom ids (written and parsed only in
``ui.control`` and ``ui.custom_ids``).
May import: ``bot.game``, ``bot.workers``, ``bot.supervision``, ``bot.storage`` (values only).
"""
