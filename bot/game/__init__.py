"""The game service: every rule and right of a table (the lobby, the match, who may do what),
applied under the table's lock; with no Discord in sight.

Owns: table access (the per-table lock and loading), the lobby, the game, the server settings,
the bot's own metadata, refusals, Discord-free texts of moves and seats, and when game work
happens on its own (``scheduler``: leases, turn timers, AI seats' pace, heartbeat, resuming).
May import: ``bot.workers`` (the AI's thinking), ``bot.storage``, ``bot.supervision`` (the metrics).
"""
