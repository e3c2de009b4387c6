"""The gateway's transport compression: ``zlib-stream`` (one zlib context for the whole
connection, flushed after every message) and ``zstd-stream`` (when a zstd module is importable:
the ``zstandard`` package, or the standard library's from Python 3.14 on)."""

from __future__ import annotations

import zlib
from collections.abc import Callable


def zstd_stream() -> Callable[[], Callable[[bytes], bytes]] | None:
    """A factory of streaming zstd compressors (flushing a block per message), if available."""
    try:
        import zstandard  # type: ignore[import-not-found]

        def make_zstandard() -> Callable[[bytes], bytes]:
            obj = zstandard.ZstdCompressor().compressobj()

            def one(data: bytes) -> bytes:
                return bytes(obj.compress(data) + obj.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK))
            return one
        return make_zstandard
    except ImportError:
        pass
    try:
        from compression import zstd  # type: ignore[import-not-found]

        def make_stdlib() -> Callable[[bytes], bytes]:
            obj = zstd.ZstdCompressor()

            def one(data: bytes) -> bytes:
                return bytes(obj.compress(data, mode=zstd.ZstdCompressor.FLUSH_BLOCK))
            return one
        return make_stdlib
    except ImportError:
        return None


def zlib_stream() -> Callable[[bytes], bytes]:
    """A streaming zlib compressor (one shared context, flushed after each message)."""
    obj = zlib.compressobj()

    def one(data: bytes) -> bytes:
        return obj.compress(data) + obj.flush(zlib.Z_SYNC_FLUSH)
    return one


__all__ = ["zlib_stream", "zstd_stream"]
