"""``phase10 serve``: migrate the database and serve the score keeper on the table's network.

Flask, SQLAlchemy and segno are imported inside the handler so that ``phase10 --help`` stays fast.
"""

from __future__ import annotations

import argparse
import secrets
import socket
import sys
from pathlib import Path


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
    import os

    if not 0 < args.port < 65536:
        print(f"phase10 serve: --port must be from 1 to 65535, not {args.port}", file=sys.stderr)
        return 2

    from flask_migrate import upgrade
    from werkzeug.serving import make_server

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
        server = make_server(args.host, args.port, app, threaded=True)
    except OSError as exc:
        print(
            f"phase10 serve: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr
        )
        return 2
    except SystemExit:  # werkzeug exits when the port is taken
        print(
            f"phase10 serve: port {args.port} is already in use; choose another with --port", file=sys.stderr
        )
        return 2

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
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0
