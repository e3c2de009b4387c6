"""A headless Chromium for the playground's browser test and its screenshot: Debian's
``chromium`` driven by Playwright (``executable_path``: Playwright's own browser downloads are
never used, the machine may have no internet).

:func:`ensure` installs what is missing when it can: ``apt-get install -y chromium`` as root,
and the ``playwright`` Python package as pinned in the ``dev`` extra of ``pyproject.toml``. It
raises :class:`BrowserUnavailable` with the reason when that is impossible (tests then skip).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: Where Debian puts its Chromium, then other usual names.
CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
#: Flags that work on a headless server (no GPU, no sandbox as root, no background traffic).
FLAGS = ("--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars", "--font-render-hinting=none")


class BrowserUnavailable(RuntimeError):
    """No Chromium or no Playwright, and installing them was impossible (the reason)."""


def chromium_path() -> str | None:
    """The Chromium executable, if one is installed."""
    for path in CANDIDATES:
        if os.access(path, os.X_OK):
            return path
    return shutil.which("chromium")


def _run(cmd: list[str], timeout: float) -> tuple[bool, str]:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, str(exc)
    return done.returncode == 0, (done.stderr or done.stdout)[-600:]


def install_chromium() -> str:
    """Install Debian's chromium with apt-get (root only); its path."""
    found = chromium_path()
    if found:
        return found
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or not shutil.which("apt-get"):
        raise BrowserUnavailable("chromium is not installed and apt-get cannot be run as root "
                                 "here (install it: apt-get install chromium)")
    ok, out = _run(["apt-get", "install", "-y", "--no-install-recommends", "chromium"], 900)
    if not ok:
        _run(["apt-get", "update"], 600)
        ok, out = _run(["apt-get", "install", "-y", "--no-install-recommends", "chromium"], 900)
    found = chromium_path()
    if not ok or not found:
        raise BrowserUnavailable(f"apt-get install chromium failed: {out.strip()}")
    return found


def playwright_requirement() -> str:
    """The ``playwright`` requirement of the dev extra in pyproject.toml (just ``playwright``
    when installed without the source tree)."""
    try:
        with (ROOT / "pyproject.toml").open("rb") as fh:
            dev = tomllib.load(fh)["project"]["optional-dependencies"]["dev"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "playwright"
    for req in dev:
        if re.match(r"playwright\b", req):
            return str(req)
    return "playwright"


def playwright_installed() -> bool:
    """True when the ``playwright`` package can be imported."""
    importlib.invalidate_caches()
    return importlib.util.find_spec("playwright") is not None


def install_playwright() -> None:
    """Make ``import playwright`` work, installing the dev extra's pin with pip if needed."""
    if playwright_installed():
        return
    ok, out = _run([sys.executable, "-m", "pip", "install", "--quiet",
                    playwright_requirement()], 600)
    if not ok or not playwright_installed():
        raise BrowserUnavailable(f"pip install playwright failed: {out.strip()}")


def ensure() -> str:
    """Chromium and Playwright ready (installed if needed); the Chromium path."""
    path = install_chromium()
    install_playwright()
    return path


@contextlib.contextmanager
def chromium(width: int = 1280, height: int = 900, scale: float = 1.0) -> Iterator[Any]:
    """A fresh headless Chromium (its own new profile folder) and one page: yields the page
    (a ``playwright.sync_api.Page``)."""
    path = ensure()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="karak-chromium-") as profile, \
            sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=path, headless=True, args=list(FLAGS),
            viewport={"width": width, "height": height}, device_scale_factor=scale,
            locale="en-US")
        try:
            page = context.pages[0] if context.pages else context.new_page()
            yield page
        finally:
            context.close()
