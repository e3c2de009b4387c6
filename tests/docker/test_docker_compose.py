"""The repository's docker-compose.yml brings the bot up as an admin would (``docker compose``,
or Debian's ``docker-compose``): from a project folder holding a copy of it and a ``.env``, it
builds the image, starts the service, which becomes healthy and connects to the Discord
stand-in, and ``down -v`` removes the container and the database volume again.

A second compose file beside it adds only what the test needs: the image tag the tests build
(from the repository, pip reaching PyPI through the host's network), the host's network (the
stand-in listens on 127.0.0.1), the health check every second and the tests' label. The
container compose starts runs as the containers of ``test_docker_image.py`` do: same read-only
root, tmpfs, privileges, volume, user, environment and health check command.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

from docker_container import IMAGE, ROOT, TEST_LABEL, Built, Container, new_name, shape, write_env
from docker_host import compose_command, docker, run

from loopback import Loopback

#: The test's additions to docker-compose.yml.
OVERRIDE = """\
services:
  karak:
    build:
      context: {root}
      network: host
    image: {image}
    network_mode: host
    healthcheck:
      interval: 1s
    labels:
      {label}: "1"
volumes:
  karak-data:
    labels:
      {label}: "1"
"""


async def test_compose_brings_the_bot_up_healthy_and_down_again(
        image: Built, standin: Loopback, tmp_path: Path) -> None:
    lb = standin
    compose = compose_command()
    assert compose is not None, "docker_host installs docker-compose when neither one works"
    project = tmp_path / "karak"
    project.mkdir()
    shutil.copy(ROOT / "docker-compose.yml", project / "docker-compose.yml")
    write_env(project / ".env", lb, {"KARAK_LOG_LEVEL": "INFO"})
    (project / "docker-compose.test.yml").write_text(
        OVERRIDE.format(root=ROOT, image=IMAGE, label=TEST_LABEL), encoding="utf-8")
    name = new_name("compose").replace("-", "")  # compose v1 drops dashes from project names
    command = [*compose, "--project-name", name, "--project-directory", str(project),
               "--file", str(project / "docker-compose.yml"),
               "--file", str(project / "docker-compose.test.yml")]
    try:
        before = lb.gateway.identifies
        await asyncio.to_thread(run, [*command, "up", "--detach", "--build"], 900)
        found = await asyncio.to_thread(run, [*command, "ps", "--quiet"], 60)
        ids = found.stdout.split()
        assert len(ids) == 1, found.stdout
        service = Container(ids[0], "", Path())  # compose's container, only looked at
        await service.wait_health("healthy")
        assert lb.gateway.identifies > before and lb.gateway.connected()

        # runs as test_docker_image.py's containers do (one made, not started, to compare)
        details = await service.inspect()
        ours = Container(new_name("like"), details["Mounts"][0]["Name"], project / ".env")
        docker("create", *[a for a in ours.run_args() if a != "--detach"])
        try:
            like = json.loads(docker("inspect", ours.name))[0]
        finally:
            ours.remove()
        assert shape(details) == shape(like)
    finally:
        await asyncio.to_thread(run, [*command, "down", "--volumes", "--timeout", "20"], 300)
    assert docker("ps", "--all", "--quiet", "--filter",
                  f"label=com.docker.compose.project={name}") == ""
    assert docker("volume", "ls", "--quiet", "--filter",
                  f"label=com.docker.compose.project={name}") == ""


def test_the_metrics_profile_adds_prometheus_scraping_the_bot(tmp_path: Path) -> None:
    """``docker compose --profile metrics config`` accepts the file (nothing is pulled): the
    profile adds Prometheus with docs/metrics/prometheus.yml, which scrapes the bot's service
    on the port of the guide's example."""
    import re

    import pytest

    from playground.browser import in_ci

    compose = compose_command()
    if compose is None:
        if in_ci():
            pytest.fail("neither docker compose nor docker-compose is installed")
        pytest.skip("neither docker compose nor docker-compose: the compose file is not checked")
    project = tmp_path / "karak"
    project.mkdir()
    shutil.copy(ROOT / "docker-compose.yml", project / "docker-compose.yml")
    (project / ".env").write_text("KARAK_METRICS_PORT=9464\n", encoding="utf-8")
    command = [*compose, "--project-directory", str(project),
               "--file", str(project / "docker-compose.yml")]
    services = run([*command, "--profile", "metrics", "config", "--services"], 120).stdout
    assert {"prometheus", "karak"} <= set(services.split())
    shown = run([*command, "--profile", "metrics", "config"], 120).stdout
    assert re.search(r"image: prom/prometheus:v[0-9.]+", shown)
    assert re.search(r"profiles:\n\s*- metrics", shown)  # started only with its profile
    assert "docs/metrics/prometheus.yml:/etc/prometheus/prometheus.yml" in shown
    scrape = (ROOT / "docs" / "metrics" / "prometheus.yml").read_text(encoding="utf-8")
    assert re.search(r'targets: \["karak:9464"\]', scrape)
