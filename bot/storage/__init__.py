"""Storage: the stored values (``records``, ``shares``), the typed interface the game service
uses (``interface``), the choice of a backend from ``KARAK_DB`` (``choice``), the queries of
every part of the store written once (``core``: tables, history, ratings, hints, servers,
leases, shares), and what differs by database: a dialect each (``sqlite_dialect``,
``postgres_dialect``: placeholders, locks, the conversion of values to and from PostgreSQL's
own types) and two thin backends, the only places that hold a connection or sort a driver's
errors: SQLite (``sqlite``, the numbered migrations of ``sqlite_schema``) and PostgreSQL
(``postgres``, its migrations in ``postgres_schema``, the baseline script that builds a new
database at once in ``postgres_baseline``, ``postgres_listen`` for other processes' writes, and
``postgres_move``, which copies an SQLite file into PostgreSQL).
Released migrations are frozen: what they compute in Python is a copy of the rules of their
time in ``migration_rules`` (standard library only).

May import: ``bot.supervision`` (the metrics it counts in); no other package of the bot.
"""
