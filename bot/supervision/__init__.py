"""Background work kept alive (a failure is logged once per streak and retried after a pause),
the health check that reads the heartbeat, and the bot's metrics (every layer counts in them).

May import: no other package of the bot.
"""
