"""Storage: the stored values (``records``), the typed interface the game service uses
(``interface``), and the SQLite backend (``sqlite``, with its numbered migrations in ``schema``),
the only place that holds SQL.

May import: no other package of the bot.
"""
