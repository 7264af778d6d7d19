"""One log line per request for ``phase10 serve``, with every game's edit secret taken out.

Edit links shared before the secret moved into the URL fragment carry it in their path
(``/games/<id>/access/<token>``), and those links keep working; a log is read by more people, and kept longer,
than a secret should be. So the path is redacted before it is written, and headers are never written at all:
``Authorization`` carries the same secret as a bearer token, and cookies carry it too.
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any
from urllib.parse import unquote_plus

logger = logging.getLogger("companion.access")

# Everything after /access/, not only one segment: a secret followed by more path must not leak either.
_ACCESS_TAIL = re.compile(r"(/access/)[^?]+", re.IGNORECASE)
_SECRET_PARAMETER = re.compile(
    r"(?:^|[_-])token$|^(?:key|secret|password|auth|authorization)$", re.IGNORECASE
)
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f\"\\]")

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


def redact(path: str) -> str:
    """``path`` (with its query string, if any) with edit secrets replaced.

    >>> redact("/games/g1/access/s3cret")
    '/games/g1/access/…'
    >>> redact("/games/g1/access/s3cret/more?x=1")
    '/games/g1/access/…?x=1'
    >>> redact("/games/g1?token=s3cret&x=1")
    '/games/g1?token=[redacted]&x=1'
    >>> redact("/games/g1/access")
    '/games/g1/access'
    """
    where, mark, query = path.partition("?")
    where = _ACCESS_TAIL.sub(r"\1…", where)
    if not mark:
        return where
    parts = []
    for part in re.split(r"([&;])", query):
        name, equals, _ = part.partition("=")
        # Flask decodes parameter names, so ?t%6Fken= reaches the app as token: judge the decoded name.
        if equals and _SECRET_PARAMETER.search(unquote_plus(name).strip()):
            part = f"{name}=[redacted]"
        parts.append(part)
    return f"{where}?{''.join(parts)}"


def _printable(text: str) -> str:
    """WSGI hands paths over as Latin-1 text of the raw bytes: show them as UTF-8, and escape what could forge
    or break a log line (a %0A in a path would otherwise start a line of its own)."""
    with contextlib.suppress(UnicodeError):
        text = text.encode("latin-1").decode("utf-8")
    return _UNPRINTABLE.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


class AccessLog:
    """WSGI middleware writing ``client "METHOD path PROTOCOL" status bytes duration`` once a response is sent."""

    def __init__(self, app: WsgiApp, log: logging.Logger = logger) -> None:
        self.app = app
        self.log = log

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        started = time.perf_counter()
        status = ["-"]

        def recording_start_response(line: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            status[0] = line.split(" ", 1)[0]
            return start_response(line, headers, exc_info)

        try:
            body = self.app(environ, recording_start_response)
        except BaseException:
            # The server answers 500 for an app that raises; say so rather than lose the line.
            self._write(environ, "500", 0, started)
            raise
        return _Counted(body, lambda sent: self._write(environ, status[0], sent, started))

    def _write(self, environ: dict[str, Any], status: str, sent: int, started: float) -> None:
        if not self.log.isEnabledFor(logging.INFO):
            return
        path = environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", "")
        if environ.get("QUERY_STRING"):
            path += "?" + environ["QUERY_STRING"]
        # Read after the app ran: with PHASE10_PROXIES set, the app has put the client's own address here.
        client = environ.get("REMOTE_ADDR") or "-"
        self.log.info(
            '%s "%s %s %s" %s %d %.1fms',
            client,
            _printable(environ.get("REQUEST_METHOD", "-")),
            _printable(redact(path)),
            _printable(environ.get("SERVER_PROTOCOL", "-")),
            status,
            sent,
            (time.perf_counter() - started) * 1000,
        )


class _Counted:
    """The response body, counting what is sent and reporting when the server closes it."""

    def __init__(self, body: Iterable[bytes], done: Callable[[int], None]) -> None:
        self.body = body
        self.done = done
        self.sent = 0

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.body:
            self.sent += len(chunk)
            yield chunk

    def close(self) -> None:
        try:
            close = getattr(self.body, "close", None)
            if close is not None:
                close()
        finally:
            self.done(self.sent)
