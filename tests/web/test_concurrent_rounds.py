"""Issue 3: "Two devices submitting the same round at once: exactly one is saved, the other is told (409)",
checked with real concurrent HTTP requests against a served app."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request

from companion.extensions import db
from companion.models import Round

from .conftest import WORKED_EXAMPLE, ApiGame
from .served import served

CLIENTS = 16


def _post(url: str, body: dict, token: str) -> int:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_same_round_from_many_devices_is_saved_exactly_once(app, client):
    game = ApiGame(client, {"players": ["Ana", "Ben", "Cy", "Dee"]})
    with served(app) as base:
        url = f"{base}/api/games/{game.id}/rounds"
        start = threading.Barrier(CLIENTS)
        statuses: list[int] = []
        lock = threading.Lock()

        def device() -> None:
            start.wait()
            status = _post(url, WORKED_EXAMPLE, game.token)
            with lock:
                statuses.append(status)

        threads = [threading.Thread(target=device) for _ in range(CLIENTS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
    assert sorted(statuses) == [201] + [409] * (CLIENTS - 1)
    with app.app_context():
        stored = db.session.execute(db.select(Round).where(Round.game_id == game.id)).scalars().all()
        assert [r.number for r in stored] == [1]
        db.session.remove()
    assert game.state()["round"] == 2


def test_next_rounds_from_two_devices_never_lose_or_duplicate_a_round(app, client):
    # Each device keeps sending "the next round" until five are saved; every 201 must be a different round.
    game = ApiGame(client, {"players": ["Ana", "Ben"]})
    saved: list[int] = []
    lock = threading.Lock()
    with served(app) as base:
        url = f"{base}/api/games/{game.id}/rounds"

        def device() -> None:
            for number in range(1, 6):
                body = {
                    "round": number,
                    "went_out": "Ana",
                    "players": {"Ana": {"laid_down": True}, "Ben": {"laid_down": False, "points": 5}},
                }
                if _post(url, body, game.token) == 201:
                    with lock:
                        saved.append(number)

        threads = [threading.Thread(target=device) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
    assert sorted(saved) == [1, 2, 3, 4, 5]
    assert [r["round"] for r in game.state()["rounds"]] == [1, 2, 3, 4, 5]
