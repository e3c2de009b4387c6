"""Bootstrap and run the project with nothing but Python 3.11: ``python3 scripts/dev.py run|test``.

``run`` starts the main program (the bot, ``python -m bot``), ``test`` runs the whole
test suite plus ruff and mypy. Both first create ``.venv`` and install the project into it when
``pyproject.toml`` is newer than the last install.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
PY = VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
STAMP = VENV / ".installed"


def ensure_env() -> None:
    """Create the virtual environment and install the project with its dev extra if needed."""
    if not PY.exists():
        print("creating .venv ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    spec = ROOT / "pyproject.toml"
    if STAMP.exists() and STAMP.stat().st_mtime >= spec.stat().st_mtime:
        return
    print("installing dependencies into .venv ...", flush=True)
    pip = [str(PY), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, "-e", f"{ROOT}[dev]"], check=True, cwd=ROOT)
    STAMP.write_text("ok\n")


def run(argv: list[str]) -> int:
    """Run one of the project commands inside the environment."""
    ensure_env()
    cmd = argv[0] if argv else "help"
    rest = argv[1:]
    if cmd == "test":
        steps = [
            [str(PY), "-m", "ruff", "check", "."],
            [str(PY), "-m", "mypy"],
            [str(PY), "-m", "pytest", *rest],
        ]
        for step in steps:
            print("$", " ".join(Path(step[0]).name if i == 0 else s for i, s in enumerate(step)),
                  flush=True)
            code = subprocess.run(step, cwd=ROOT).returncode
            if code != 0:
                return code
        return 0
    if cmd == "run":
        return subprocess.run([str(PY), "-m", "bot", *rest], cwd=ROOT).returncode
    if cmd == "python":
        return subprocess.run([str(PY), *rest], cwd=ROOT).returncode
    print(__doc__)
    return 0 if cmd == "help" else 2


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
