"""Storage: the stored values (``records``), the typed interface the game service uses
(``interface``), the column writes both backends share (``table_writes``), the choice of a
backend from ``KARAK_DB`` (``choice``), and the two backends, the only places that hold SQL or
import a database driver: SQLite (``sqlite``: the store, on ``sqlite_connection``,
``sqlite_rows`` and the numbered migrations of ``sqlite_schema``) and PostgreSQL (``postgres``,
``postgres_rows``, the same migrations in ``postgres_schema``, and ``postgres_move``, which
copies an SQLite file into PostgreSQL). Released migrations are frozen: what they compute in
Python is a copy of the rules of their time in ``migration_rules`` (standard library only).

May import: no other package of the bot.
"""
