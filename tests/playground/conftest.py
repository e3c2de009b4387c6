"""Fixtures of the playground's tests: headless Chromium, installed when missing."""

from __future__ import annotations

import pytest

from playground import browser


@pytest.fixture(scope="module")
def chromium_ready() -> None:
    """Chromium and Playwright ready, or the test skips saying why (fails under CI)."""
    try:
        browser.ensure()
    except browser.BrowserUnavailable as exc:
        if browser.in_ci():
            pytest.fail(f"no headless Chromium under CI: {exc}")
        pytest.skip(f"no headless Chromium: {exc}")
