"""The bot's image built from the repository's Dockerfile, and containers of it started as
docker-compose.yml starts its service: the settings from an env file, ``KARAK_DB`` and
``KARAK_HEARTBEAT`` as compose's ``environment`` sets them, the database on a named volume at
``/data``, a read-only root with a tmpfs on ``/tmp``, no new privileges, and the image's own
health check (run every second here instead of every minute). Every container shares the
host's network, so the bot reaches the Discord stand-in on 127.0.0.1.

Everything made here carries the label :data:`TEST_LABEL`; :func:`remove_leftovers` removes
what a test did not. The methods that wait on Docker are coroutines that run the ``docker``
command in a thread: the stand-in, served by the test's event loop, goes on answering the bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docker_host import DockerFailed, docker, run

from loopback import Loopback
from loopback.botproc import process_tree

ROOT = Path(__file__).resolve().parents[2]
#: The tag the tests build (an admin's own ``karak-goblin-bot:latest`` is left alone).
IMAGE = "karak-goblin-bot:test"
#: Label of every container and volume the tests make.
TEST_LABEL = "org.karak.test"
#: What docker-compose.yml's ``environment`` sets (over the env file).
COMPOSE_ENVIRONMENT = {"KARAK_DB": "/data/karak.sqlite3", "KARAK_HEARTBEAT": "/tmp/karak.alive"}
#: The user the image runs as.
UID = 10001
#: Figures the tests measured (sizes, durations), printed at the end of the run.
FIGURES: list[str] = []


@dataclass
class Built:
    """The image the tests built, and what it cost."""

    seconds: float
    size: int  # bytes, the base included
    base_size: int

    @property
    def added(self) -> int:
        """Bytes the image adds to its base."""
        return self.size - self.base_size


def build(base: str) -> Built:
    """Build :data:`IMAGE` from the repository (pip in the build reaches PyPI through the
    host's network); the previous build of that tag is removed when it is left untagged."""
    old = run(["docker", "image", "inspect", "--format", "{{.Id}}", IMAGE], 60, check=False)
    started = time.monotonic()
    docker("build", "--network", "host", "--force-rm", "--tag", IMAGE, str(ROOT), timeout=900)
    seconds = time.monotonic() - started
    if old.returncode == 0 and old.stdout.strip() != docker("image", "inspect", "--format",
                                                            "{{.Id}}", IMAGE):
        run(["docker", "image", "rm", old.stdout.strip()], 60, check=False)
    size = int(docker("image", "inspect", "--format", "{{.Size}}", IMAGE))
    base_size = int(docker("image", "inspect", "--format", "{{.Size}}", base))
    return Built(seconds, size, base_size)


def new_name(what: str) -> str:
    """A fresh name for a container, volume or compose project of this test run."""
    return f"karak-test-{what}-{uuid.uuid4().hex[:8]}"


def write_env(path: Path, lb: Loopback, settings: dict[str, str]) -> Path:
    """An env file as an admin writes ``.env``: the stand-in's token and URLs, matches played
    in the channel (the container tests follow a table there; a thread per match is tested on
    the bot in-process), plus ``settings``."""
    values = {**lb.env(), "KARAK_THREADS": "false", **settings}
    path.write_text("".join(f"{k}={v}\n" for k, v in values.items()), encoding="utf-8")
    return path


def shape(details: dict[str, Any]) -> dict[str, Any]:
    """What a container's ``docker inspect`` says about how it runs, in the terms of
    docker-compose.yml: to compare a container of the tests with compose's."""
    host = details["HostConfig"]
    env = dict(item.split("=", 1) for item in details["Config"]["Env"])
    return {"read_only": host["ReadonlyRootfs"], "tmpfs": sorted(host.get("Tmpfs") or {}),
            "security_opt": host.get("SecurityOpt") or [],
            "volumes": sorted((m["Type"], m["Destination"]) for m in details["Mounts"]),
            "user": details["Config"]["User"],
            "environment": {k: env.get(k) for k in COMPOSE_ENVIRONMENT},
            "health_test": details["Config"]["Healthcheck"]["Test"]}


def compose_args(env_file: Path, volume: str) -> list[str]:
    """The ``docker run`` options that make a container as docker-compose.yml makes its
    service: host network, env file, compose's environment, the volume at ``/data``, a tmpfs
    on ``/tmp``, no new privileges."""
    args = ["--label", f"{TEST_LABEL}=1", "--network", "host", "--env-file", str(env_file)]
    for key, value in COMPOSE_ENVIRONMENT.items():
        args += ["--env", f"{key}={value}"]
    return [*args, "--volume", f"{volume}:/data", "--tmpfs", "/tmp",
            "--security-opt", "no-new-privileges:true"]


class Container:
    """One container of ``image`` (:data:`IMAGE` unless told) with the database on
    ``volume``."""

    def __init__(self, name: str, volume: str, env_file: Path, *, read_only: bool = True,
                 image: str = IMAGE) -> None:
        self.name = name
        self.volume = volume
        self.env_file = env_file
        self.read_only = read_only
        self.image = image

    def run_args(self) -> list[str]:
        """The ``docker run`` arguments (after ``run``)."""
        args = ["--detach", "--name", self.name, *compose_args(self.env_file, self.volume),
                "--health-interval", "1s"]
        if self.read_only:
            args.append("--read-only")
        return [*args, self.image]

    async def start(self, lb: Loopback, timeout: float = 90.0) -> None:
        """Start the container and wait until the bot in it is connected to ``lb``."""
        before = lb.gateway.identifies
        await _docker("run", *self.run_args())
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while lb.gateway.identifies == before or not lb.gateway.connected():
            if not (await self.inspect())["State"]["Running"] or loop.time() > deadline:
                raise AssertionError(f"the bot did not connect: {await self.logs()}")
            await lb.changed(lb.version, 0.5)

    async def inspect(self) -> dict[str, Any]:
        """``docker inspect`` of the container."""
        found: list[dict[str, Any]] = json.loads(await _docker("inspect", self.name))
        return found[0]

    async def health(self) -> tuple[str, str]:
        """The health status and what the last check printed."""
        state = (await self.inspect())["State"]
        logs = state["Health"]["Log"]
        return state["Health"]["Status"], logs[-1]["Output"] if logs else ""

    async def wait_health(self, status: str, timeout: float = 90.0) -> str:
        """Wait until the health status is ``status``; what the last check printed."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while (found := await self.health())[0] != status:
            if loop.time() > deadline:
                raise AssertionError(f"health {found} after {timeout} s, not {status}")
            await asyncio.sleep(0.5)
        return found[1]

    async def pids(self) -> list[int]:
        """The container's processes as this machine numbers them: the bot and its
        descendants."""
        top = (await self.inspect())["State"]["Pid"]
        return process_tree(top) if top else []

    async def uids(self) -> set[int]:
        """The real, effective, saved and file-system user ids of the container's processes."""
        out: set[int] = set()
        for pid in await self.pids():
            with contextlib.suppress(OSError):
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("Uid:"):
                        out.update(int(u) for u in line.split()[1:])
        return out

    async def limit_writes(self, limit: int | None) -> None:
        """Give the container's processes (and the workers they start later) a file-size limit
        of ``limit`` bytes (RLIMIT_FSIZE; None lifts it): no file grows past it, so the
        database, larger already, takes no write (as on a full disk) while the small
        heartbeat file still does. util-linux's ``prlimit`` does it as the image's user (a
        process may set the limits of its own user's processes without privileges)."""
        value = "unlimited" if limit is None else str(limit)
        for pid in await self.pids():
            await asyncio.to_thread(subprocess.run, ["prlimit", "--pid", str(pid),
                                                     f"--fsize={value}:"],
                                    user=UID, group=UID, extra_groups=[], check=False)

    async def workers(self, job: str) -> set[int]:
        """The bot's worker processes (:mod:`bot.workers.pool`) running job functions of the
        module ``job`` (``bot.workers.thinking``: the hard AI seats' decisions)."""
        out = set()
        for pid in (await self.pids())[1:]:
            with contextlib.suppress(OSError):
                words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                if b"bot.workers.pool" in words and any(w.startswith(f"{job}:".encode())
                                                        for w in words):
                    out.add(pid)
        return out

    async def diff(self) -> list[str]:
        """``docker diff``: what changed on the container's own file system."""
        return (await _docker("diff", self.name)).splitlines()

    async def stop(self, grace: int = 10) -> tuple[float, int]:
        """``docker stop -t GRACE`` (SIGTERM, then SIGKILL after ``grace`` seconds): how long it
        took and the bot's exit status (137 when it had to be killed)."""
        started = time.monotonic()
        await _docker("stop", "--time", str(grace), self.name)
        seconds = time.monotonic() - started
        return seconds, int((await self.inspect())["State"]["ExitCode"])

    async def logs(self) -> str:
        """What the bot printed (stdout and stderr)."""
        done = await asyncio.to_thread(run, ["docker", "logs", self.name], 60, False)
        return done.stdout + done.stderr

    def remove(self) -> None:
        """Remove the container (killing it if it still runs)."""
        run(["docker", "rm", "--force", self.name], 60, check=False)


async def admin_command(env_file: Path, volume: str, *command: str,
                        mounts: tuple[str, ...] = ()) -> tuple[int, str]:
    """Run ``python -m bot.admin COMMAND`` in a container of :data:`IMAGE` made as
    ``docker compose run --rm karak python -m bot.admin COMMAND`` makes it (read-only root,
    the volume at ``/data``; ``mounts``: more ``--volume`` values): its exit status and what it
    printed."""
    extra = [arg for mount in mounts for arg in ("--volume", mount)]
    done = await asyncio.to_thread(
        run, ["docker", "run", "--rm", "--read-only", *compose_args(env_file, volume), *extra,
              IMAGE, "python", "-m", "bot.admin", *command], 300, False)
    return done.returncode, done.stdout + done.stderr


async def _docker(*args: str) -> str:
    """:func:`docker_host.docker` in a thread."""
    return await asyncio.to_thread(docker, *args)


def create_volume(name: str) -> Path:
    """Create a named volume; the folder that holds its files on this machine."""
    docker("volume", "create", "--label", f"{TEST_LABEL}=1", name)
    return Path(docker("volume", "inspect", "--format", "{{.Mountpoint}}", name))


def remove_leftovers() -> list[str]:
    """Remove every container and volume labelled :data:`TEST_LABEL`; their names."""
    found = []
    for kind, listing in (("container", ["ps", "--all"]), ("volume", ["volume", "ls"])):
        names = docker(*listing, "--quiet", "--filter", f"label={TEST_LABEL}").split()
        if names:
            with contextlib.suppress(DockerFailed):
                docker(kind, "rm", "--force", *names)
            found += names
    return found
