"""A headless Chromium for the playground's browser test and its screenshot: Debian's
``chromium`` driven by Playwright (``executable_path``: Playwright's own browser downloads are
never used, the machine may have no internet).

:func:`ensure` installs what is missing when it can: ``apt-get install -y chromium`` as root
(or through ``sudo -n`` when not root and sudo needs no password), and the ``playwright`` Python
package as pinned in the ``dev`` extra of ``pyproject.toml``. It raises
:class:`BrowserUnavailable` with the reason when that is impossible: the browser test then fails
in CI (:func:`in_ci`) and skips, saying why, elsewhere.
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


def in_ci() -> bool:
    """True when running under continuous integration (the ``CI`` environment variable is set
    to anything but an empty string, ``0``, ``false`` or ``no``), where a missing browser is a
    failure rather than a reason to skip."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def apt_get_prefix() -> list[str] | None:
    """How to run apt-get with root rights here: directly as root, through ``sudo -n`` (no
    password prompt) otherwise; None when neither is possible."""
    if not shutil.which("apt-get"):
        return None
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return ["apt-get"]
    sudo = shutil.which("sudo")
    if sudo is None:
        return None
    ok, _ = _run([sudo, "-n", "true"], 30)
    return [sudo, "-n", "apt-get"] if ok else None


def install_chromium() -> str:
    """Install Debian's chromium with apt-get (as root, or with ``sudo -n``); its path."""
    found = chromium_path()
    if found:
        return found
    apt_get = apt_get_prefix()
    if apt_get is None:
        raise BrowserUnavailable("chromium is not installed and apt-get cannot be run as root "
                                 "here, neither directly nor with sudo -n (install it: "
                                 "sudo apt-get install chromium)")
    install = [*apt_get, "install", "-y", "--no-install-recommends", "chromium"]
    ok, out = _run(install, 900)
    if not ok:
        _run([*apt_get, "update"], 600)
        ok, out = _run(install, 900)
    found = chromium_path()
    if not ok or not found:
        raise BrowserUnavailable(f"{' '.join(install)} failed: {out.strip()}")
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
