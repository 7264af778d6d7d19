"""Who may change a game, and how a change is signed in the audit.

A game's edit secret lives in the creator's browser as a cookie scoped to that game, in the edit link handed to
another device, and in the ``Authorization: Bearer`` header of API clients. Only its hash is stored.
"""

from __future__ import annotations

from flask import Response, request

from .models import Game

COOKIE_PREFIX = "p10edit_"
COOKIE_AGE = 60 * 60 * 24 * 365


def cookie_name(game_id: str) -> str:
    return COOKIE_PREFIX + game_id


def page_token(game: Game) -> str | None:
    """The secret this browser holds for ``game``, if it is the right one."""
    token = request.cookies.get(cookie_name(game.id))
    return token if game.token_matches(token) else None


def bearer_token() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def remember(response: Response, game_id: str, token: str) -> None:
    response.set_cookie(
        cookie_name(game_id),
        token,
        max_age=COOKIE_AGE,
        httponly=True,
        samesite="Lax",
        secure=request.is_secure,
    )


def who(channel: str) -> str:
    """A short signature for the audit: the channel, the device's address and its browser family."""
    agent = request.user_agent.string or ""
    family = next(
        (name for key, name in _BROWSERS if key in agent),
        agent.split("/", 1)[0][:30] if agent else "unknown client",
    )
    device = next((name for key, name in _DEVICES if key in agent), "")
    parts = [channel, request.remote_addr or "unknown address", family + (f" on {device}" if device else "")]
    return " · ".join(parts)[:120]


_BROWSERS = (
    ("Edg/", "Edge"),
    ("Firefox/", "Firefox"),
    ("Chrome/", "Chrome"),
    ("Safari/", "Safari"),
    ("curl/", "curl"),
    ("python-requests", "Python"),
    ("Python-urllib", "Python"),
)
_DEVICES = (
    ("Android", "Android"),
    ("iPhone", "iPhone"),
    ("iPad", "iPad"),
    ("Mac OS", "Mac"),
    ("Windows", "Windows"),
    ("Linux", "Linux"),
)
