"""Clients that stall part-way through an upload hold a connection of ``phase10 serve``, never its workers.

The server reads a request whole before the app sees it, so a page is answered while uploads that will never
finish are still open. Nothing here is timed: the socket timeouts only keep a broken server from hanging a test.
"""

from __future__ import annotations

import select
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from .served import Serving, phase10_serve

STALLED = 20
LIMIT = 60


@pytest.fixture(scope="module")
def serving(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    with phase10_serve(Path(tmp_path_factory.mktemp("slow"))) as served:
        yield served


def upload_headers(port: int, length: int, path: str = "/api/check") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=LIMIT)
    sock.sendall(
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: multipart/form-data; boundary=x\r\n"
        f"Content-Length: {length}\r\n\r\n".encode()
    )
    return sock


@pytest.mark.slow
def test_a_page_is_answered_while_twenty_uploads_stall(serving: Serving):
    stalled = []
    try:
        for _ in range(STALLED):
            sock = upload_headers(serving.port, 1024 * 1024)
            sock.sendall(b"--x\r\n")  # a few bytes of the promised megabyte of photo, then nothing
            stalled.append(sock)
        with urllib.request.urlopen(serving.base + "/", timeout=LIMIT) as response:
            assert response.status == 200
        # Readable would mean an answer or a closed connection: every stalled upload is still open and waiting.
        readable, _, _ = select.select(stalled, [], [], 0)
        assert readable == []
    finally:
        for sock in stalled:
            sock.close()


@pytest.mark.slow
def test_a_body_over_the_limit_is_refused_before_it_is_sent(serving: Serving):
    # The server refuses the length itself, before any route (the home page takes no POST at all) is looked at.
    sock = upload_headers(serving.port, 16 * 1024 * 1024 + 1, path="/")
    with sock:
        reply = sock.makefile("rb").readline()
    assert reply.split()[1] == b"413", reply
    with urllib.request.urlopen(serving.base + "/", timeout=LIMIT) as response:
        assert response.status == 200


@pytest.mark.slow
def test_the_server_header_names_no_software(serving: Serving):
    with urllib.request.urlopen(serving.base + "/", timeout=LIMIT) as response:
        assert response.headers.get_all("Server") == ["phase10"]
    try:
        urllib.request.urlopen(serving.base + "/no-such-page", timeout=LIMIT)
    except urllib.error.HTTPError as exc:
        assert exc.code == 404 and exc.headers.get_all("Server") == ["phase10"]
    else:
        raise AssertionError("a missing page was answered")
