# Karak: Goblin Discord bot. Build: docker build -t karak-goblin-bot .  Run: see docker-compose.yml
# Stage 1 installs the pinned dependencies (requirements.lock, every version with its hashes,
# written by `python3 scripts/dev.py lock` from pyproject.toml) into a virtual environment: pip
# refuses any file whose hash the lock does not list. Stage 2 copies only that environment and the
# source onto a clean slim image (no pip, no pip cache, no build tools), running as an
# unprivileged user with the database on the /data volume. The bot is the image's command (CMD,
# not ENTRYPOINT), so another command replaces it: the administrator's commands run as
#   docker compose run --rm karak python -m bot.admin backup --to /data/backup.sqlite3

FROM python:3.11-slim-bookworm AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PYTHONDONTWRITEBYTECODE=1
WORKDIR /src
COPY requirements.lock ./
RUN python -m venv /opt/venv \
    && /opt/venv/bin/pip install --no-cache-dir --only-binary=:all: --require-hashes --no-deps \
        -r requirements.lock \
    && /opt/venv/bin/pip check \
    && /opt/venv/bin/pip uninstall --yes pip setuptools

FROM python:3.11-slim-bookworm
LABEL org.opencontainers.image.title="karak-goblin-bot" \
      org.opencontainers.image.description="Self-hosted Discord bot for the card game Karak: Goblin" \
      org.opencontainers.image.licenses="MIT"
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONPATH=/app \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    KARAK_DB=/data/karak.sqlite3 \
    KARAK_HEARTBEAT=/tmp/karak.alive \
    KARAK_METRICS_HOST=0.0.0.0
RUN groupadd --system --gid 10001 karak \
    && useradd --system --uid 10001 --gid karak --home-dir /app --shell /usr/sbin/nologin karak \
    && mkdir -p /data \
    && chown karak:karak /data
COPY --from=build /opt/venv /opt/venv
WORKDIR /app
COPY engine ./engine
COPY cards ./cards
COPY render ./render
COPY i18n ./i18n
COPY bot ./bot
USER 10001:10001
VOLUME ["/data"]
HEALTHCHECK --interval=60s --timeout=10s --start-period=120s --retries=3 \
    CMD ["python", "-m", "bot.process.health"]
CMD ["python", "-m", "bot"]
