"""Storage: the stored values (``records``), the typed interface the game service uses
(``interface``), and the SQLite backend (``sqlite``: the store, on ``sqlite_connection``,
``sqlite_rows`` and the numbered migrations of ``sqlite_schema``), the only place that holds SQL
or imports a database driver.

May import: no other package of the bot.
"""
