"""The core store: every part of :class:`~bot.storage.interface.Storage` written once, which a
backend completes with its connection, its transactions and the sorting of its errors."""

from __future__ import annotations

from collections.abc import Callable

from bot.storage.core.db import Db, Dialect
from bot.storage.core.hints import HintRows
from bot.storage.core.history import HistoryQueries
from bot.storage.core.leases import LeaseRows
from bot.storage.core.people import PeopleRows
from bot.storage.core.ratings import RatingQueries
from bot.storage.core.reminders import ReminderRows
from bot.storage.core.seated import SeatedQueries
from bot.storage.core.servers import ServerQueries
from bot.storage.core.shares import ShareRows
from bot.storage.core.tables import TableQueries
from bot.storage.core.tournaments import TournamentQueries


class CoreStore(PeopleRows, TableQueries, ServerQueries, HistoryQueries, RatingQueries, HintRows,
                LeaseRows, ShareRows, SeatedQueries, ReminderRows, TournamentQueries):
    """The queries of every part of the store (tables: :class:`TableQueries`; servers and
    metadata: :class:`ServerQueries`; past matches and rematch offers:
    :class:`HistoryQueries`; ratings: :class:`RatingQueries`; hints: :class:`HintRows`;
    leases: :class:`LeaseRows`; shares: :class:`ShareRows`; a person forgotten:
    :class:`PeopleRows`; who sits where and reminders: :class:`SeatedQueries`; slow matches'
    reminders sent: :class:`ReminderRows`; server tournaments: :class:`TournamentQueries`) on
    ``read`` and
    the backend's transactions, in ``dialect``."""

    def __init__(self, dialect: Dialect, read: Db, clock: Callable[[], float]) -> None:
        self.dialect = dialect
        self._read = read
        self.clock = clock
        self._states = {}
        self._records = {}
        self._writes = 0
        self._named = {}


__all__ = ["CoreStore"]
