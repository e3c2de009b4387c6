"""Bootstrap and run the project with nothing but Python 3.11: ``python3 scripts/dev.py run|test``.

``run`` starts the main program: the bot (``python -m bot``) when a ``DISCORD_TOKEN`` is set,
else the browser playground (``python -m playground``: the bot against a Discord stand-in on
this machine). ``test`` runs ruff, mypy, the import contracts (import-linter) and the whole
test suite. Both first create ``.venv`` and install into it, when ``pyproject.toml`` or
``requirements-dev.lock`` is newer than the last install, exactly the versions that lock file
pins (each checked against its hashes), then the project itself. ``lock`` writes
``requirements.lock`` (what the Docker image installs) and ``requirements-dev.lock`` (that and
the development tools) from ``pyproject.toml`` with ``uv pip compile --generate-hashes``,
keeping the versions already pinned unless ``--upgrade`` is given. Ctrl-C or SIGTERM stops the
program cleanly, the bot and its workers with it (no traceback here).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
PY = VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
STAMP = VENV / ".installed"
#: The lock files and the extras of pyproject.toml each one pins: the image's (the bot with
#: both database backends) and the development environment's (that and the tools).
LOCKS = {"requirements.lock": "postgres", "requirements-dev.lock": "dev"}
#: How the whole suite runs: most tests wait on the stand-in, clocks and subprocesses rather
#: than on the CPU, so four workers keep two cores busy; the tests sharing Docker or the
#: browser stay on one worker (their ``xdist_group``).
PARALLEL = ("-n", "4", "--dist", "loadgroup")


def ensure_env() -> None:
    """Create the virtual environment and install the project with its dev extra if needed."""
    if not PY.exists():
        print("creating .venv ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    sources = (ROOT / "pyproject.toml", ROOT / "requirements-dev.lock")
    if STAMP.exists() and all(STAMP.stat().st_mtime >= f.stat().st_mtime for f in sources):
        return
    print("installing dependencies into .venv ...", flush=True)
    pip = [str(PY), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, "--require-hashes", "-r", "requirements-dev.lock"], check=True,
                   cwd=ROOT)
    subprocess.run([*pip, "--no-deps", "-e", str(ROOT)], check=True, cwd=ROOT)
    STAMP.write_text("ok\n")


def lock(rest: list[str]) -> int:
    """Write the lock files from pyproject.toml (``rest``: more options, such as ``--upgrade``
    or ``--upgrade-package NAME``); the exit status."""
    for name, extra in LOCKS.items():
        code = subprocess.run(
            [str(PY), "-m", "uv", "pip", "compile", "pyproject.toml", "--extra", extra,
             "--universal", "--python-version", "3.11", "--generate-hashes", "--quiet",
             "--custom-compile-command", "python3 scripts/dev.py lock",
             "--output-file", name, *rest], cwd=ROOT).returncode
        if code != 0:
            return code
        print(f"wrote {name}", flush=True)
    return 0


def child(cmd: list[str]) -> int:
    """Run ``cmd`` in the project folder and return its exit status. Ctrl-C reaches the child
    too (same terminal), which stops by itself: it is waited for, not interrupted. SIGTERM
    (a service manager's stop) is passed on to the child, which stops the same way."""
    process = subprocess.Popen(cmd, cwd=ROOT)
    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, lambda signum, frame: process.send_signal(signum))
    while True:
        try:
            return process.wait()
        except KeyboardInterrupt:
            continue


def launch(argv: list[str]) -> int:
    """Inside ``.venv``: run the bot when a token is set (or when only checking the settings),
    else the playground. Any other setting problem is the bot's to explain in one line."""
    from bot.process.app import main as bot
    from bot.process.settings import ConfigProblem, NoToken, env_file_named, load_settings

    named = Path(argv[argv.index("--env-file") + 1]) if "--env-file" in argv[:-1] else None
    env_file = Path(".env") if named is None else named
    try:
        env_file = env_file_named(named)  # a file named but not there: the bot's line
        load_settings(env_file=env_file)
    except NoToken:
        if "--check" not in argv:
            from playground.app import main as playground

            return playground(env_file=env_file)
    except ConfigProblem:
        pass
    return bot(argv)


def run(argv: list[str]) -> int:
    """Run one of the project commands inside the environment."""
    if argv[:1] == ["launch"]:
        return launch(argv[1:])
    ensure_env()
    cmd = argv[0] if argv else "help"
    rest = argv[1:]
    if cmd == "test":
        steps = [
            [str(PY), "-m", "ruff", "check", "."],
            [str(PY), "-m", "mypy"],
            [str(VENV / "bin" / "lint-imports")],
            [str(PY), "-m", "pytest", *(PARALLEL if not rest else ()), *rest],
        ]
        for step in steps:
            print("$", " ".join(Path(step[0]).name if i == 0 else s for i, s in enumerate(step)),
                  flush=True)
            code = subprocess.run(step, cwd=ROOT).returncode
            if code != 0:
                return code
        return 0
    if cmd == "lock":
        return lock(rest)
    if cmd == "run":
        return child([str(PY), str(Path(__file__).resolve()), "launch", *rest])
    if cmd == "python":
        return child([str(PY), *rest])
    print(__doc__)
    return 0 if cmd in ("help", "-h", "--help") else 2


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
