from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from loopback import Loopback, ManualClock


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def lb(clock: ManualClock) -> AsyncIterator[Loopback]:
    async with Loopback(clock=clock) as server:
        yield server
