"""The storage core: every query of the store written once, by job (``tables``, ``history``,
``ratings``, ``hints``, ``servers``, ``leases``, ``shares``; the rows read in ``rows``), on a
connection of the :class:`~bot.storage.core.db.Db` shape, with what differs between SQLite and
PostgreSQL asked of the backend's :class:`~bot.storage.core.db.Dialect`. A backend (``sqlite``,
``postgres``) adds only its connection, its transactions and the sorting of its errors."""
