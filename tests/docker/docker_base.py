"""The base image the Dockerfile builds on (its ``FROM`` line, ``python:3.11-slim-bookworm``):
the one already on this machine, else pulled, else a stand-in of the same name made from
Debian's packages.

The stand-in (for machines that reach Debian's and PyPI's packages but no container registry)
is Debian's release named in the tag (``bookworm``), made with ``mmdebstrap`` (a minimal
system with ``python3``, ``python3-venv``, ``python-is-python3`` and the CA certificates) and
loaded with ``docker import``. When this machine reaches PyPI through a proxy with a CA of its
own, the machine's CA bundle replaces the stand-in's, so that pip in the image build trusts
what pip here trusts. It is made once: the next run finds the image and keeps it. Its Python
must be the version the tag names (Debian bookworm has 3.11), else the tests fail, saying so
(and a stand-in of the wrong version is removed again).
"""

from __future__ import annotations

import configparser
import os
import re
import tempfile
import time
from pathlib import Path

from docker_host import DockerFailed, docker, run

#: Label of the stand-in (images built on it carry it too).
STAND_IN_LABEL = "org.karak.stand-in-base"
#: Seconds a pull may take before the machine counts as having no registry.
PULL_TIMEOUT = 120.0
#: What the stand-in holds beyond Debian's minimal system.
PACKAGES = ("python3", "python3-venv", "python-is-python3", "ca-certificates", "passwd")
#: Folders of documentation dpkg leaves out of the stand-in (as Debian's slim images do).
LEFT_OUT = ("/usr/share/doc/*", "/usr/share/man/*", "/usr/share/info/*", "/usr/share/locale/*")


def base_name(dockerfile: Path) -> str:
    """The image the Dockerfile's stages start ``FROM`` (all of them: one base)."""
    names = {m.group(1) for m in re.finditer(r"^FROM\s+(\S+)", dockerfile.read_text(),
                                             re.MULTILINE)}
    if len(names) != 1:
        raise ValueError(f"the Dockerfile starts from several images: {sorted(names)}")
    return names.pop()


def expected_python(name: str) -> str:
    """The Python version a ``python:X.Y-...`` tag names (``3.11``)."""
    found = re.match(r"python:(\d+\.\d+)-", name)
    if found is None:
        raise ValueError(f"{name} names no Python version")
    return found.group(1)


def debian_release(name: str) -> str:
    """The Debian release a ``python:X.Y-slim-RELEASE`` tag names (``bookworm``)."""
    found = re.search(r"-(?:slim-)?([a-z]+)$", name)
    if found is None:
        raise ValueError(f"{name} names no Debian release")
    return found.group(1)


def image_exists(name: str) -> bool:
    """True when the daemon holds an image of that name."""
    return run(["docker", "image", "inspect", name], 60, check=False).returncode == 0


def image_size(name: str) -> int:
    """An image's size in bytes (all its layers, its base included)."""
    return int(docker("image", "inspect", "--format", "{{.Size}}", name))


def is_stand_in(name: str) -> bool:
    """True when the image is (or is built on) the stand-in base made here."""
    label = docker("image", "inspect", "--format",
                   f'{{{{index .Config.Labels "{STAND_IN_LABEL}"}}}}', name)
    return label not in ("", "<no value>")


def python_version(name: str) -> str:
    """What ``python --version`` says in a container of the image (``Python 3.11.2``)."""
    return docker("run", "--rm", "--network", "none", "--entrypoint", "python", name,
                  "--version", timeout=120)


def pip_cert_settings() -> list[str]:
    """The ``cert`` setting of pip's configuration files (site-wide, then the user's)."""
    out = []
    for conf in ("/etc/pip.conf", "/etc/xdg/pip/pip.conf", "~/.config/pip/pip.conf",
                 "~/.pip/pip.conf"):
        parser = configparser.ConfigParser()
        parser.read(Path(conf).expanduser())
        out.append(parser.get("global", "cert", fallback=""))
    return out


def host_ca_bundle() -> Path | None:
    """The CA bundle this machine's pip trusts: ``PIP_CERT``, pip's ``cert`` setting,
    ``REQUESTS_CA_BUNDLE`` or ``SSL_CERT_FILE``, else Debian's bundle, when it exists."""
    env = os.environ
    candidates = [env.get("PIP_CERT", ""), *pip_cert_settings(),
                  env.get("REQUESTS_CA_BUNDLE", ""), env.get("SSL_CERT_FILE", ""),
                  "/etc/ssl/certs/ca-certificates.crt"]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def make_stand_in(name: str) -> None:
    """Build the stand-in base with mmdebstrap and load it as ``name``."""
    release = debian_release(name)
    mirrors = [f"deb http://deb.debian.org/debian {release} main",
               f"deb http://deb.debian.org/debian {release}-updates main",
               f"deb http://deb.debian.org/debian-security {release}-security main"]
    options = ["--variant=minbase", f"--include={','.join(PACKAGES)}",
               *[f"--dpkgopt=path-exclude={p}" for p in LEFT_OUT],
               "--dpkgopt=path-include=/usr/share/doc/*/copyright"]
    bundle = host_ca_bundle()
    if bundle is not None:
        options.append(f"--customize-hook=upload {bundle} /etc/ssl/certs/ca-certificates.crt")
    with tempfile.TemporaryDirectory(prefix="karak-base-") as folder:
        tarball = Path(folder) / "base.tar"
        run(["mmdebstrap", *options, release, str(tarball), *mirrors], 900)
        docker("import",
               "--change", "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
               "--change", "ENV LANG=C.UTF-8",
               "--change", 'CMD ["python3"]',
               "--change", f"LABEL {STAND_IN_LABEL}=mmdebstrap-{release}",
               str(tarball), name, timeout=300)


def ensure_base(dockerfile: Path) -> tuple[str, str]:
    """Make the Dockerfile's base image available: its name, and where it came from. Raises
    :class:`~docker_host.DockerFailed` when it cannot be had or has the wrong Python."""
    name = base_name(dockerfile)
    started = time.monotonic()
    if image_exists(name):
        how = "already here"
    else:
        try:
            docker("pull", name, timeout=PULL_TIMEOUT)
            how = "pulled"
        except DockerFailed:
            make_stand_in(name)
            how = "stand-in made with mmdebstrap"
        how += f" in {time.monotonic() - started:.0f} s"
    want = expected_python(name)
    said = python_version(name)
    if not said.startswith(f"Python {want}."):
        if is_stand_in(name):
            docker("image", "rm", name)
        raise DockerFailed(f"{name} runs {said!r}, the Dockerfile expects Python {want}")
    return name, f"{how}; {said}"
