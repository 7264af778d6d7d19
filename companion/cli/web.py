"""``phase10 serve``: migrate the database and serve the score keeper on the table's network.

It serves with waitress, a production WSGI server, rather than Werkzeug's development server, which gives a
client unlimited time and a thread of its own. Flask, SQLAlchemy, waitress and segno are imported inside the
handler so that ``phase10 --help`` stays fast.
"""

from __future__ import annotations

import argparse
import errno
import logging
import os
import secrets
import signal
import socket
import sys
import threading
from pathlib import Path
from typing import Any


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = subparsers.add_parser(
        "serve",
        help="serve the score keeper (applies database migrations first)",
        description="Apply the database migrations, print the address (and a QR code for phones), then serve. "
        "The database is an SQLite file in the instance folder unless DATABASE_URL names another.",
    )
    serve.add_argument("--host", default="0.0.0.0", help="address to listen on (default: every interface)")
    serve.add_argument("--port", type=int, default=5000, help="port to listen on (default: 5000)")
    serve.set_defaults(handler=run_serve)


def lan_address() -> str | None:
    """This computer's address on the local network, as phones on the same Wi-Fi reach it."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        # A UDP "connect" only picks the outgoing interface; no packet is sent.
        probe.connect(("10.254.254.254", 1))
        address = probe.getsockname()[0]
    except OSError:
        return None
    finally:
        probe.close()
    return None if address.startswith("127.") else address


def instance_secret(instance: Path) -> str:
    """A secret key kept in the instance folder, so sessions survive restarts of a home server."""
    path = instance / "secret_key"
    if path.exists():
        return path.read_text().strip()
    instance.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    path.touch(mode=0o600)
    path.write_text(key)
    return key


def run_serve(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        print(f"phase10 serve: --port must be from 1 to 65535, not {args.port}", file=sys.stderr)
        return 2

    from flask_migrate import upgrade

    from companion.app import ConfigurationError, create_app

    config: dict[str, object] = {}
    phone = lan_address() if args.host in ("0.0.0.0", "::") else None
    if args.host not in ("0.0.0.0", "::", "127.0.0.1", "localhost", "::1"):
        phone = args.host
    if phone:
        config["PUBLIC_BASE_URL"] = f"http://{phone}:{args.port}"
    try:
        if not os.environ.get("SECRET_KEY"):
            from flask import Flask

            probe = Flask("companion.app", instance_relative_config=True)
            config["SECRET_KEY"] = instance_secret(Path(probe.instance_path))
        app = create_app(config)
        with app.app_context():
            upgrade()
    except ConfigurationError as exc:
        print(f"phase10 serve: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a database that cannot be reached or migrated
        print(f"phase10 serve: cannot prepare the database: {exc}", file=sys.stderr)
        return 2

    try:
        # Bind before printing, so a busy port is reported instead of an address that does not answer.
        listener = bind(args.host, args.port)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            message = f"port {args.port} is already in use; choose another with --port"
        else:
            message = f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}"
        print(f"phase10 serve: {message}", file=sys.stderr)
        return 2

    from waitress.server import create_server

    from companion.accesslog import AccessLog

    log_requests_to_stderr()
    server = create_server(
        AccessLog(app), sockets=[listener], **server_settings(app.config["MAX_CONTENT_LENGTH"])
    )

    local = f"http://127.0.0.1:{args.port}/"
    print(f"Phase 10 Companion is running.\n  On this computer:  {local}")
    if phone:
        url = f"http://{phone}:{args.port}/"
        print(f"  On phones on the same Wi-Fi:  {url}\n")
        import segno

        segno.make(url, error="m").terminal(compact=True)
    else:
        print("  Phones cannot reach this address; use --host 0.0.0.0 to serve the local network.")
    print("Press Ctrl+C to stop.", flush=True)
    if threading.current_thread() is threading.main_thread():
        # A service manager stops the server with SIGTERM: stop as on Ctrl+C, not in the middle of a request.
        signal.signal(signal.SIGTERM, _interrupt)
    try:
        server.run()  # returns on Ctrl+C, after giving the requests in the app a few seconds to finish
    finally:
        server.close()
    print("Stopped.", flush=True)
    return 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def bind(host: str, port: int) -> socket.socket:
    """A socket bound (not yet listening) to ``host``:``port``, the first address the name resolves to."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        if os.name != "nt":  # on Windows the option would let a second server take a port in use
            # A restart right after Ctrl+C must not wait for the old connections' TIME_WAIT to pass.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except BaseException:
        sock.close()
        raise
    return sock


def server_settings(max_body: int) -> dict[str, Any]:  # waitress types its settings as Any
    """waitress's settings for a home server at a card table.

    waitress reads a whole request, photo included, before a worker thread sees it, so a phone on weak Wi-Fi
    (or a client that stalls on purpose) holds only a connection, never a thread, and cannot hold up others.
    """
    return {
        # A thread is held only while the app works out an answer. A table is two to six players, each phone
        # saving rounds, polling the score sheet or sending a card photo for the detector (the slowest request):
        # eight lets every phone of a full table be in the app at once with room for spectators' share pages.
        # More would not read photos faster on a home computer's few cores; they would only queue in the app.
        "threads": 8,
        # Every phone on a page may hold a connection open (a share page's poll comes back every few seconds),
        # so the limit must cover a whole room's phones, not one table's: fifty tables of up to six phones is
        # three hundred, and a phone loading a page may briefly open more. A phone past the limit waits in the
        # listen backlog until another connection closes, which in a full room can outlast the phone's patience.
        # Staying well under 1024 keeps every descriptor within what select() and a default soft limit allow.
        "connection_limit": 500,
        # A connection that sends nothing for this long (a stalled upload, an idle keep-alive) is closed;
        # a phone that is still sending, however slowly, resets it with every packet.
        "channel_timeout": 30,
        # How often the timeout above is checked, so a stalled connection goes soon after it expires.
        "cleanup_interval": 5,
        # The app's own limit (MAX_CONTENT_LENGTH): a longer Content-Length is refused before any body is read.
        "max_request_body_size": max_body,
        # Name no server software or version to whoever asks.
        "ident": "phase10",
    }


def log_requests_to_stderr() -> None:
    """One line per request on stderr, as players watching a home server's terminal expect."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    for name, level in (("companion.access", logging.INFO), ("waitress", logging.WARNING)):
        log = logging.getLogger(name)
        if not log.handlers:
            log.addHandler(handler)
            log.setLevel(level)
            log.propagate = False
