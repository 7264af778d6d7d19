"""Hostile requests to every endpoint and form, counted by answer: a server error is a finding.

Each request is drawn from a seeded generator: bodies that are deeply nested, of the wrong type or content type,
with huge or negative numbers, long or control-character strings, unknown games and wrong tokens, sent to the JSON
API, the referee and every form (CSRF off so the forms' own handling is reached). A game with rounds is made first
so that edits and deletes meet real rows. Prints the answers per endpoint and exits 1 on any HTTP 500.

Run: ``.venv/bin/python bench/bench_fuzz.py [--requests N] [--database URL]`` (SQLite in a temporary file by
default). On PostgreSQL: ``bash .ci/with-postgres sh -c '.venv/bin/python bench/bench_fuzz.py --database
"$TEST_DATABASE_URL"'``.
"""

from __future__ import annotations

import argparse
import collections
import io
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_referee import machine
from companion.app import create_app, database_url
from companion.extensions import db

NAMES = ["Ana", "Ben", "Cy", "Dee"]


def scalar(rng: random.Random) -> Any:
    return rng.choice(
        [
            None,
            True,
            False,
            0,
            -1,
            10**40,
            -(10**40),
            1e308,
            2**63,
            rng.randint(-5, 300),
            "",
            "\x00",
            "R3",
            "W",
            "S",
            "Ana",
            "Zoe\u0308",
            "</script><script>x</script>",
            "x" * rng.choice([40, 41, 5000]),
            "\u202e\ud7ff",
            "standard",
            "masters",
            "playing-cards",
        ]
    )


def value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 3 or roll < 0.45:
        return scalar(rng)
    if roll < 0.7:
        return [value(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    keys = [
        "round",
        "went_out",
        "players",
        "laid_down",
        "points",
        "cards",
        "phase",
        "rules",
        "name",
        "groups",
        "kind",
        "onto",
        "end",
        "first_dealer",
        "format",
        "version",
        "rounds",
        *NAMES,
        "zzz",
    ]
    return {rng.choice(keys): value(rng, depth + 1) for _ in range(rng.randint(0, 6))}


def round_body(rng: random.Random) -> Any:
    """Mostly round-shaped bodies with one part spoiled, so the engine's checks are reached, not only the parser's."""
    if rng.random() < 0.3:
        return value(rng)
    players = {
        n: {"laid_down": rng.random() < 0.5, "points": rng.choice([0, 5, 15, 999, -5, 10**9])} for n in NAMES
    }
    body: dict[str, Any] = {
        "round": rng.choice([1, 2, 3, 0, -1, "2", None]),
        "went_out": rng.choice([*NAMES, None]),
    }
    body["players"] = players
    spoil = rng.choice(["players", "went_out", "round", "cards", "phase", "none"])
    if spoil == "cards":
        players[rng.choice(NAMES)]["cards"] = value(rng)
    elif spoil != "none":
        body[spoil] = value(rng)
    return body


def raw_body(rng: random.Random) -> tuple[bytes, str | None]:
    """A body and its content type: JSON of a drawn value, a deeply nested one, or bytes that are not JSON."""
    kind = rng.random()
    depth = rng.choice([100, 1000, 50_000])
    if kind < 0.1:
        return ("[" * depth + "]" * depth).encode(), "application/json"
    if kind < 0.15:
        return ('{"a":' * depth + "1" + "}" * depth).encode(), "application/json"
    if kind < 0.22:
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 300))), rng.choice(
            ["application/json", "text/plain", None, "application/octet-stream"]
        )
    content_type = rng.choice(["application/json"] * 8 + ["text/plain", "application/json; charset=latin-1"])
    return json.dumps(round_body(rng) if rng.random() < 0.6 else value(rng)).encode(), content_type


def form_data(rng: random.Random, fields: list[str]) -> dict[str, Any]:
    return {f: str(scalar(rng)) for f in fields if rng.random() < 0.8}


def photo_field(rng: random.Random) -> tuple[io.BytesIO, str]:
    data = rng.choice(
        [
            b"",
            b"\xff\xd8\xff" + bytes(rng.getrandbits(8) for _ in range(200)),
            b"\x89PNG\r\n\x1a\n",
            b"GIF89a",
            b"x" * 1000,
        ]
    )
    return io.BytesIO(data), "photo.jpg"


def run(url: str, count: int, seed: int) -> int:
    tmp = tempfile.mkdtemp()
    app = create_app(
        {
            "SECRET_KEY": "fuzz",
            "SQLALCHEMY_DATABASE_URI": url,
            "TESTING": True,
            "WTF_CSRF_ENABLED": False,
            "TRAINING_FOLDER": f"{tmp}/training",
        }
    )
    # Unhandled exceptions must come back as answers (the production path), not be raised into this loop.
    app.config["PROPAGATE_EXCEPTIONS"] = False
    with app.app_context():
        from flask_migrate import upgrade

        upgrade()
    client = app.test_client()
    game = client.post("/api/games", json={"players": NAMES}).json
    gid, token = game["id"], game["edit_token"]
    auth = {"Authorization": f"Bearer {token}"}
    for number in (1, 2):
        client.post(
            f"/api/games/{gid}/rounds",
            json={
                "round": number,
                "went_out": "Ana",
                "players": {n: {"laid_down": True, **({} if n == "Ana" else {"points": 5})} for n in NAMES},
            },
            headers=auth,
        )
    client.set_cookie(f"p10edit_{gid}", token)
    rng = random.Random(seed)
    counts: dict[str, collections.Counter[int]] = collections.defaultdict(collections.Counter)
    errors: list[str] = []
    round_fields = ["round", "once", "went_out", "preview", "save"] + [
        f"p{i}_{k}" for i in range(4) for k in ("down", "points", "low", "high", "skip", "wild", "phase")
    ]
    started = time.perf_counter()
    for n in range(count):
        target = rng.choice([gid] * 6 + ["nosuchgame00", "x" * 40, "\x00", "../etc", ""])
        choice = rng.randrange(16)
        headers = rng.choice([auth, auth, {}, {"Authorization": "Bearer wrong"}])
        if rng.random() < 0.1:
            headers = {**headers, "Idempotency-Key": str(scalar(rng))[:80]}
        body, ctype = raw_body(rng)
        kw: dict[str, Any] = {
            "data": body,
            "headers": {**headers, **({"Content-Type": ctype} if ctype else {})},
        }
        if choice == 0:
            name, answer = "POST /api/games", client.post("/api/games", **kw)
        elif choice == 1:
            name, answer = "POST /api/games/import", client.post("/api/games/import", **kw)
        elif choice == 2:
            name, answer = "POST rounds", client.post(f"/api/games/{target}/rounds", **kw)
        elif choice == 3:
            number = rng.choice([1, 2, 3, 0, 10**6])
            name, answer = "PATCH round", client.patch(f"/api/games/{target}/rounds/{number}", **kw)
        elif choice == 4:
            name, answer = "POST /api/check", client.post("/api/check", **kw)
        elif choice == 5:
            fields = {
                **form_data(rng, ["phase", "rules", "kind", "onto", "end", "phase_down"]),
                "photo": photo_field(rng),
            }
            name, answer = (
                "POST /api/check photo",
                client.post("/api/check", data=fields, content_type="multipart/form-data"),
            )
        elif choice == 6:
            name, answer = (
                "GET game",
                client.get(f"/api/games/{target}", headers={"If-None-Match": str(scalar(rng))}),
            )
        elif choice == 7:
            fields = form_data(
                rng,
                [f"names-{i}" for i in range(6)]
                + ["rules", "last_phase", "first_dealer", "everyone_advances"],
            )
            name, answer = "POST /games/new", client.post("/games/new", data=fields)
        elif choice == 8:
            name, answer = (
                "POST round form",
                client.post(f"/games/{target}/round", data=form_data(rng, round_fields)),
            )
        elif choice == 9:
            number = rng.choice([1, 2, 5])
            name, answer = (
                "POST edit form",
                client.post(f"/games/{target}/rounds/{number}/edit", data=form_data(rng, round_fields)),
            )
        elif choice == 10:
            query = form_data(
                rng,
                ["mode", "cards", "onto", "kind", "end", "phase", "rules", "wrap", "down", "game", "player"],
            )
            name, answer = "GET /referee/", client.get("/referee/", query_string=query)
        elif choice == 11:
            fields = form_data(rng, ["player", "phase", "groups", "cards"])
            name, answer = "POST laid-down", client.post(f"/referee/games/{target}/laid-down", data=fields)
        elif choice == 12:
            fields = {
                **form_data(rng, ["allow", "width", "height", "cards", "groups", "phase", "game"]),
                "photo": photo_field(rng),
            }
            name, answer = (
                "POST /referee/training",
                client.post("/referee/training", data=fields, content_type="multipart/form-data"),
            )
        elif choice == 13:
            name, answer = "POST /open", client.post("/open", data=form_data(rng, ["link"]))
        elif choice == 14:
            name, answer = (
                "POST access",
                client.post(f"/games/{target}/access", data=form_data(rng, ["token"])),
            )
        else:
            path = rng.choice(
                [
                    "/",
                    "/players/",
                    f"/games/{target}",
                    f"/games/{target}/history",
                    f"/api/games/{target}/export.csv",
                ]
            )
            name, answer = "GET pages", client.get(path)
        counts[name][answer.status_code] += 1
        if answer.status_code >= 500 and answer.status_code not in (503, 507):
            errors.append(f"{name} #{n}: {answer.status_code} {answer.get_data(as_text=True)[:200]!r}")
    elapsed = time.perf_counter() - started
    with app.app_context():
        db.engine.dispose()
    print(
        f"database: {url.split('@')[-1] if '@' in url else url.split(':')[0]}; {count} requests, seed {seed}, {elapsed:.0f} s"
    )
    for name in sorted(counts):
        shown = ", ".join(f"{status}: {n}" for status, n in sorted(counts[name].items()))
        print(f"  {name:24} {sum(counts[name].values()):6}   {shown}")
    server_errors = sum(n for c in counts.values() for s, n in c.items() if s >= 500 and s not in (503, 507))
    print(f"HTTP 500 answers: {server_errors}")
    for line in errors[:10]:
        print("  " + line)
    return 1 if server_errors else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database", help="SQLAlchemy URL (default: a temporary SQLite file)")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    url = database_url(args.database) if args.database else f"sqlite:///{tempfile.mkdtemp()}/fuzz.sqlite3"
    return run(url, args.requests, args.seed)


if __name__ == "__main__":
    raise SystemExit(main())
