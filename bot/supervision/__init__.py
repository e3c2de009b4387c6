"""Background work kept alive (a failure is logged once per streak and retried after a pause)
and the health check that reads the heartbeat.

May import: no other package of the bot.
"""
