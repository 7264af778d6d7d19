"""The players page: everyone who has played here, with games, wins and per-round averages."""

from __future__ import annotations

from flask import render_template

from .. import scorebook
from . import bp


@bp.get("/")
def index() -> str:
    return render_template("players/index.html", stats=scorebook.player_stats())
