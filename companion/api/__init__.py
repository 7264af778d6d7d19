"""The JSON API (issue 3's contract) and the version endpoint the live pages poll."""

from flask import Blueprint

bp = Blueprint("api", __name__, url_prefix="/api")

from . import routes  # noqa: E402,F401
