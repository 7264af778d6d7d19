"""The photo referee: check a phase or a hit from a photo or from tapped-in cards, from the game table or alone.

One blueprint holds the pages (``/referee/...``, forms protected by CSRF) and the read-only JSON endpoint
``POST /api/check`` (token-free like the rest of ``/api`` reads: it changes nothing). The camera (``vision``) is
imported only when a photo arrives, so the app starts and the tap-entry referee works without the vision extra.
"""

from __future__ import annotations

from typing import cast

from flask import Blueprint, Flask
from flask.blueprints import BlueprintSetupState

bp = Blueprint("referee", __name__)


@bp.record_once
def _setup(state: BlueprintSetupState) -> None:
    from . import marks

    app = cast(Flask, state.app)  # the app this blueprint is registered on is always a Flask app
    app.config.setdefault("PHOTO_MAX_BYTES", 16 * 1024 * 1024)
    app.config.setdefault("PHOTO_MAX_PIXELS", 50_000_000)
    app.config.setdefault("TRAINING_MAX_PHOTOS", 2000)
    # A game's photos come from one table, a few a round at most; past this one device could drown the rest.
    app.config.setdefault("TRAINING_MAX_PER_GAME", 100)
    marks.connect(app)


from . import api, routes  # noqa: E402,F401
