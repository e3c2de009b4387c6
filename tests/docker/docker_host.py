"""Docker on this machine for the image tests: Debian's packages installed when missing, a
daemon started when none answers (and stopped again when the tests end), and the ``docker``
and compose commands.

What is installed, with ``apt-get update`` then ``apt-get install -y`` (as root, or through
``sudo -n``; see :func:`playground.browser.apt_get_prefix`): ``docker.io`` (the daemon and the
client) when there is no ``dockerd``, ``mmdebstrap`` (the stand-in base image, see
:mod:`docker_base`) and ``docker-compose`` when neither ``docker compose`` nor ``docker-compose``
works. The daemon this module starts listens on the usual socket, keeps its pid file and log in
a temporary folder, and leaves the host's network alone (no default bridge, no iptables rules):
the tests run every container on the host's network. Its images stay in the usual data root
(``/var/lib/docker``), so the next run finds them.

When something cannot be done, :class:`DockerUnavailable` says why: the tests fail under CI and
skip, saying what they did not check, elsewhere.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from playground.browser import apt_get_prefix

#: Seconds the daemon gets to answer after it was started, then to stop.
DAEMON_START = 60.0
DAEMON_STOP = 30.0
#: The socket the daemon listens on (where ``docker`` and compose look by default).
SOCKET = "unix:///var/run/docker.sock"


class DockerUnavailable(RuntimeError):
    """Docker cannot be had here (the reason)."""


class DockerFailed(RuntimeError):
    """A ``docker`` command exited with an error (its command line and what it printed)."""


def run(args: list[str], timeout: float = 300,
        check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run a command, capturing what it prints; :class:`DockerFailed` when it fails and
    ``check``."""
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL,
                              env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    except subprocess.TimeoutExpired as exc:
        raise DockerFailed(f"{' '.join(args)}: no answer in {timeout:.0f} s") from exc
    if check and done.returncode != 0:
        raise DockerFailed(f"{' '.join(args)} exited with {done.returncode}: "
                           f"{(done.stderr or done.stdout).strip()[-2000:]}")
    return done


def docker(*args: str, timeout: float = 300) -> str:
    """What ``docker ARGS`` prints (stripped); :class:`DockerFailed` when it fails."""
    return run(["docker", *args], timeout).stdout.strip()


def compose_command() -> list[str] | None:
    """``docker compose`` (the plugin) when it works, else ``docker-compose``, else None."""
    if shutil.which("docker") and run(["docker", "compose", "version"], 60,
                                      check=False).returncode == 0:
        return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    return None


def missing_packages() -> list[str]:
    """The Debian packages this machine lacks for the image tests."""
    need = []
    if not (shutil.which("dockerd") and shutil.which("docker")):
        need.append("docker.io")
    if not shutil.which("mmdebstrap"):
        need.append("mmdebstrap")
    if compose_command() is None:
        need.append("docker-compose")
    return need


def install(packages: list[str]) -> None:
    """``apt-get update`` and ``apt-get install -y PACKAGES`` (as root, or with ``sudo -n``)."""
    if not packages:
        return
    apt_get = apt_get_prefix()
    if apt_get is None:
        raise DockerUnavailable(f"{', '.join(packages)} missing and apt-get cannot be run as "
                                f"root here (install them: sudo apt-get install "
                                f"{' '.join(packages)})")
    try:
        run([*apt_get, "update"], 600)
        run([*apt_get, "install", "-y", "--no-install-recommends", *packages], 900)
    except DockerFailed as exc:
        raise DockerUnavailable(str(exc)) from exc
    if missing_packages():
        raise DockerUnavailable(f"still missing after apt-get install: {missing_packages()}")


def daemon_answers() -> bool:
    """True when a Docker daemon answers ``docker info``."""
    return run(["docker", "info", "--format", "{{.ServerVersion}}"], 30,
               check=False).returncode == 0


class Daemon:
    """The Docker daemon the tests use: one that already runs, or one started here (and
    stopped by :meth:`stop`)."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.folder: Path | None = None

    def ensure(self) -> None:
        """Install what is missing and make sure a daemon answers (starting one if needed)."""
        install(missing_packages())
        if daemon_answers():
            return
        self.folder = Path(tempfile.mkdtemp(prefix="karak-dockerd-"))
        log = self.folder / "dockerd.log"
        with log.open("wb") as out:
            self.proc = subprocess.Popen(
                ["dockerd", "--host", SOCKET, "--pidfile", str(self.folder / "dockerd.pid"),
                 "--bridge=none", "--iptables=false"],
                stdin=subprocess.DEVNULL, stdout=out, stderr=out, start_new_session=True)
        deadline = time.monotonic() + DAEMON_START
        while not daemon_answers():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text(errors="replace")[-1500:]
                self.stop()
                raise DockerUnavailable(f"dockerd did not start: {tail}")
            time.sleep(0.5)

    @property
    def started_here(self) -> bool:
        """True when the tests started the daemon (and so stop it)."""
        return self.proc is not None

    def stop(self) -> None:
        """Stop the daemon started here (SIGTERM; it stops its containerd too), if any."""
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(DAEMON_STOP)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(DAEMON_STOP)
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None
