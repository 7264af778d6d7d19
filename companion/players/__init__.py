"""Known players and their stats."""

from flask import Blueprint

bp = Blueprint("players", __name__, url_prefix="/players")

from . import routes  # noqa: E402,F401
