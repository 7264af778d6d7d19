"""The score keeper's writes and reads, shared by the pages and the JSON API.

Every write is one transaction that starts by bumping ``games.version`` for its game. That UPDATE takes the
write lock (SQLite) or the row lock (PostgreSQL) before anything is read, so two devices saving at the same
moment are put in a line: the second one reads what the first one saved and is told its round is taken (409).
The rules themselves are never checked here: reports are built and judged by ``companion.rules.game``, and
request values are read by ``companion.inputs``, whose refusals (:class:`BadInput`) this module raises too; the
score keeper's own refusals are :class:`GameNotFound`, :class:`RoundNotFound` (404: nothing to fix in the
request) and :class:`Conflict` (409: the request was fine, but the game has moved on).
"""

from __future__ import annotations

import csv
import io
import json
import secrets
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import func, update
from sqlalchemy.exc import IntegrityError

from companion.rules import RuleSet
from companion.rules.game import (
    GameSetupError,
    GameState,
    IllegalReportError,
    RoundReport,
    RoundResult,
    new_game,
    play_round,
    preview,
)
from companion.rules.refusals import Refusal
from companion.rules.wording import Reason, reason

from .extensions import db
from .inputs import (
    BadInput,
    NotFound,
    Problem,
    Refused,
    check_idempotency_key,
    clean_name,
    names_from,
    report_from,
    report_refused,
    ruleset_from,
    setup_refused,
)
from .models import AuditEntry, Game, GamePlayer, Player, Round, hash_token, is_game_id, utcnow

__all__ = [
    "AlreadySaved",
    "BadInput",
    "Conflict",
    "GameNotFound",
    "Loaded",
    "Problem",
    "RoundNotFound",
    "ScorebookError",
    "check_idempotency_key",
    "clean_name",
    "report_from",
    "ruleset_from",
    "ruleset_of",
]

EXPORT_FORMAT = "phase10-companion-game"
EXPORT_VERSION = 1

# Every refusal of the score keeper has the shape of the input boundary's; the name stays for its callers.
ScorebookError = Refused
clean_names = names_from


class GameNotFound(NotFound):
    default_code = Problem.GAME_NOT_FOUND

    def __init__(self) -> None:
        super().__init__("there is no game with this id")


class Conflict(Refused):
    """The request itself was fine, but the game has moved on (a round taken, a later round that no longer
    holds): 409, and sending the same request again will not help."""

    status = 409
    default_code = Problem.ROUND_TAKEN


class AlreadySaved(Conflict):
    """A round sent again with the idempotency key of a round this game already saved."""

    def __init__(self, number: int, report: dict[str, Any]) -> None:
        super().__init__(
            f"round {number} was already saved from this form or request",
            field="round",
            code=Problem.ALREADY_SAVED,
        )
        self.number = number
        self.report = report


@dataclass(frozen=True)
class Loaded:
    """A game and its replayed state; ``version`` is the one the read or the write itself saw.

    Reading ``game.version`` again after a commit would load whatever the newest write left there, so a write's
    answer (its ETag) could carry another write's number."""

    game: Game
    state: GameState
    version: int


# --- reading -------------------------------------------------------------------------------------------------


def ruleset_of(game: Game) -> RuleSet:
    rules = dict(game.rules)
    if rules.get("name") == "playing-cards":
        # Games stored before 004's "Ace is always low" was enforced may carry wrap_runs; they never wrapped in
        # a way 004 allows, so they load without it.
        rules.pop("wrap_runs", None)
    return ruleset_from(rules)


@lru_cache(maxsize=8192)
def _stored_report(text: str, rules: RuleSet) -> RoundReport:
    # Every page view replays the whole game; reading each stored report once per process keeps that cheap.
    # Reports are immutable values, so sharing one between requests is safe.
    return report_from(json.loads(text), rules)


class _ReplayCache:
    """The last replayed state of recently seen games, per process.

    A game only grows at its end, so the next save or page view usually replays one round on top of the state
    kept here instead of the whole game. An entry is used only when its rule set, seats and reports are an exact
    prefix of what is stored now; an edit or a delete earlier in the game simply misses and replays in full.
    """

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self.entries: OrderedDict[str, tuple[tuple[Any, ...], tuple[str, ...], GameState]] = OrderedDict()
        self.lock = threading.Lock()

    def start(
        self, game_id: str, header: tuple[Any, ...], texts: Sequence[str]
    ) -> tuple[int, GameState | None]:
        with self.lock:
            entry = self.entries.get(game_id)
        if entry is None:
            return 0, None
        cached_header, cached_texts, state = entry
        if cached_header != header or tuple(texts[: len(cached_texts)]) != cached_texts:
            return 0, None
        return len(cached_texts), state

    def keep(self, game_id: str, header: tuple[Any, ...], texts: Sequence[str], state: GameState) -> None:
        with self.lock:
            self.entries[game_id] = (header, tuple(texts), state)
            self.entries.move_to_end(game_id)
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)


_replays = _ReplayCache()


def replay_stored(game: Game, reports: Sequence[Mapping[str, Any]] | None = None) -> GameState:
    """The game's state after its rounds (or after ``reports`` instead), naming the round the engine refuses."""
    rules = ruleset_of(game)
    names = tuple(game.player_names)
    stored = [r.report for r in game.rounds] if reports is None else list(reports)
    try:
        texts = [json.dumps(data, sort_keys=True) for data in stored]
    except (TypeError, ValueError):
        raise Conflict("a stored round is not a round report", code=Problem.STORED_ROUND_BROKEN) from None
    header = (rules, names, game.first_dealer)
    done, state = _replays.start(game.id, header, texts)
    if state is None:
        state = new_game(names, rules, first_dealer=game.first_dealer)
    for number, text in enumerate(texts[done:], start=done + 1):
        try:
            state = play_round(state, _stored_report(text, rules))
        except (BadInput, IllegalReportError) as exc:
            refused = report_refused(exc) if isinstance(exc, IllegalReportError) else exc
            raise Conflict(
                _in_round(number, refused),
                player=refused.player,
                code=refused.code or Problem.STORED_ROUND_BROKEN,
                round_number=number,
            ) from None
    _replays.keep(game.id, header, texts, state)
    return state


def _in_round(number: int, refused: Refused) -> Reason:
    """The refusal of stored round ``number``: "round 3: ..."; the round's own refusal is its value ``why``."""
    return reason("in_round", number=number, why=refused.why or refused.message)


def _round_refusal(exc: Refused) -> Reason | str:
    """What a refusal made by :func:`_in_round` says of the round itself (its value ``why``)."""
    assert exc.why is not None and exc.why.key == "in_round"
    inner: Reason | str = exc.why.args["why"]
    return inner


def load(game_id: str) -> Loaded:
    game = db.session.get(Game, game_id) if is_game_id(game_id) else None
    if game is None:
        raise GameNotFound()
    return Loaded(game, replay_stored(game), game.version)


def current_version(game_id: str) -> int | None:
    if not is_game_id(game_id):
        return None
    return db.session.execute(db.select(Game.version).where(Game.id == game_id)).scalar_one_or_none()


# --- writing -------------------------------------------------------------------------------------------------


def _lock(game_id: str) -> tuple[Game, int]:
    if not is_game_id(game_id):
        raise GameNotFound()
    bumped = db.session.execute(
        update(Game).where(Game.id == game_id).values(version=Game.version + 1, updated_at=utcnow())
    )
    if bumped.rowcount == 0:  # type: ignore[attr-defined]
        db.session.rollback()
        raise GameNotFound()
    # Whatever this session read before the lock may be older than what the lock now guarantees.
    db.session.expire_all()
    game = db.session.get(Game, game_id)
    assert game is not None
    return game, game.version


def _refresh_summary(game: Game, state: GameState) -> None:
    game.status = state.status
    game.winner = state.winner
    game.rounds_played = len(state.rounds)
    by_name = {p.name: p for p in state.players}
    for seat in game.seats:
        player = by_name[seat.player.name]
        seat.total = player.total
        seat.phases_completed = len(player.completed)
        seat.rounds_played = sum(1 for r in state.rounds if seat.player.name in r.report.players)


def _audit(game: Game, action: str, who: str, number: int | None, before: Any, after: Any) -> None:
    db.session.add(
        AuditEntry(game=game, action=action, round_number=number, before=before, after=after, who=who[:120])
    )


def _save(
    game: Game, state: GameState, action: str, who: str, number: int | None, before: Any, after: Any
) -> None:
    _refresh_summary(game, state)
    _audit(game, action, who, number, before, after)
    _commit()


def _commit() -> None:
    try:
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        raise Conflict(
            "another device saved this game at the same moment; nothing was changed",
            code=Problem.SAVED_ELSEWHERE,
        ) from None


def _players_for(names: Sequence[str]) -> list[Player]:
    keys = [Player.key_for(n) for n in names]
    known = {
        p.name_key: p
        for p in db.session.execute(db.select(Player).where(Player.name_key.in_(keys))).scalars()
    }
    players = []
    for name, key in zip(names, keys, strict=True):
        player = known.get(key)
        if player is None:
            player = Player(name=name, name_key=key)
            db.session.add(player)
        players.append(player)
    return players


def create_game(
    raw_names: Any, rules: RuleSet, first_dealer: Any, who: str, *, reports: Sequence[Any] = ()
) -> tuple[Loaded, str]:
    """A new game (with ``reports`` already played, for an import); returns it and its edit token."""
    names = names_from(raw_names)
    try:
        new_game(names, rules, first_dealer=first_dealer)
    except GameSetupError as exc:
        raise setup_refused(exc) from None
    try:
        # Names as the players table spells them, so that "ana" plays as the Ana already known.
        players = _players_for(names)
        seated = [p.name for p in players]
        state = new_game(seated, rules, first_dealer=first_dealer)
        token = secrets.token_urlsafe(24)
        game = Game(rules=rules.to_dict(), first_dealer=first_dealer, edit_token_hash=hash_token(token))
        for seat, player in enumerate(players):
            game.seats.append(GamePlayer(seat=seat, player=player))
        stored: list[dict[str, Any]] = []
        for number, data in enumerate(reports, start=1):
            try:
                report = report_from(data, rules)
                state = play_round(state, report)
            except (BadInput, IllegalReportError) as exc:
                refused = report_refused(exc) if isinstance(exc, IllegalReportError) else exc
                raise BadInput(
                    _in_round(number, refused),
                    field="rounds",
                    player=refused.player,
                    code=refused.code,
                    round_number=number,
                ) from None
            stored.append(report.to_dict())
            game.rounds.append(Round(number=number, report=report.to_dict()))
        db.session.add(game)
        _refresh_summary(game, state)
        _audit(
            game,
            "imported" if reports else "created",
            who,
            None,
            None,
            {"players": seated, **rules.to_dict()},
        )
        _commit()
    except ScorebookError:
        db.session.rollback()
        raise
    return Loaded(game, state, 1), token


def _round_number(data: Mapping[str, Any], expected: int | None) -> int | None:
    number = data.get("round")
    if number is None:
        return None
    if isinstance(number, bool) or not isinstance(number, int):
        raise BadInput('"round" must be the number of the round being reported', field="round")
    if expected is not None and number != expected:
        raise Conflict(
            f"this is round {expected}, not round {number}", field="round", code=Problem.ROUND_OUT_OF_ORDER
        )
    return number


def round_saved_with(game_id: str, key: str | None) -> int | None:
    """The number of the round this game saved with idempotency key ``key``, if any."""
    try:
        key = check_idempotency_key(key)
    except BadInput:
        return None  # not a key this app hands out (PostgreSQL would refuse some, a NUL byte for one)
    if key is None or not is_game_id(game_id):
        return None
    return db.session.execute(
        db.select(Round.number).where(Round.game_id == game_id, Round.idempotency_key == key)
    ).scalar_one_or_none()


def add_round(
    game_id: str, data: Any, who: str, *, require_number: bool = True, idempotency_key: str | None = None
) -> Loaded:
    """Save the next round. A report for a round already saved, or out of order, is a :class:`Conflict`.

    With ``idempotency_key``, a second request carrying the key of a round this game already saved changes
    nothing and raises :class:`AlreadySaved` naming that round, whatever the second request holds."""
    if not isinstance(data, Mapping):
        raise BadInput("a round report must be a JSON object")
    key = check_idempotency_key(idempotency_key)
    try:
        game, version = _lock(game_id)
        if key is not None:
            earlier = db.session.execute(
                db.select(Round).where(Round.game_id == game_id, Round.idempotency_key == key)
            ).scalar_one_or_none()
            if earlier is not None:
                raise AlreadySaved(earlier.number, earlier.report)
        state = replay_stored(game)
        number = state.round_number
        if state.status == "finished":
            raise Conflict("the game is over; no more rounds can be saved", code=Refusal.GAME_OVER)
        claimed = data.get("round")
        if claimed is None and require_number:
            raise BadInput('"round" is missing: send the number of the round being reported', field="round")
        if isinstance(claimed, int) and not isinstance(claimed, bool) and claimed < number:
            raise Conflict(f"round {claimed} is already saved; the next round is {number}", field="round")
        _round_number(data, number)
        report = report_from(data, ruleset_of(game))
        try:
            state = play_round(state, report)
        except IllegalReportError as exc:
            raise report_refused(exc) from None
        game.rounds.append(Round(number=number, report=report.to_dict(), idempotency_key=key))
        _save(game, state, "added", who, number, None, report.to_dict())
    except ScorebookError:
        db.session.rollback()
        raise
    return Loaded(game, state, version)


def preview_round(loaded: Loaded, data: Any) -> tuple[RoundResult, GameState]:
    """The round's record and the table after it, as they would be saved; nothing is stored."""
    report = report_from(data, ruleset_of(loaded.game))
    try:
        return preview(loaded.state, report), play_round(loaded.state, report)
    except IllegalReportError as exc:
        raise report_refused(exc) from None


def preview_edit(loaded: Loaded, number: int, data: Any) -> GameState:
    game = loaded.game
    if not 1 <= number <= len(game.rounds):
        raise GameNotFound() if not game.rounds else BadInput(f"there is no round {number} to edit")
    report = report_from(data, ruleset_of(game))
    reports = [r.report for r in game.rounds]
    reports[number - 1] = report.to_dict()
    return _replay_for_change(game, reports, number)


def _replay_for_change(game: Game, reports: list[dict[str, Any]], number: int) -> GameState:
    try:
        return replay_stored(game, reports)
    except Conflict as exc:
        if exc.round_number == number:
            # The changed round itself is refused: a bad report, not a conflict with the rounds after it.
            raise BadInput(_round_refusal(exc), player=exc.player, code=exc.code) from None
        raise Conflict(
            reason("later_rounds_break", why=exc.why or exc.message),
            player=exc.player,
            code=Problem.LATER_ROUND_BREAKS,
            round_number=exc.round_number,
        ) from None


def _find_round(game: Game, number: Any) -> Round:
    if isinstance(number, int) and 1 <= number <= len(game.rounds):
        stored = game.rounds[number - 1]
        if stored.number == number:
            return stored
    raise RoundNotFound(number)


class RoundNotFound(NotFound):
    default_code = Problem.ROUND_NOT_FOUND

    def __init__(self, number: Any) -> None:
        super().__init__(f"there is no round {number} in this game")


def edit_round(game_id: str, number: int, data: Any, who: str) -> Loaded:
    """Replace a saved round; every round after it is replayed and must still hold."""
    if not isinstance(data, Mapping):
        raise BadInput("a round report must be a JSON object")
    try:
        game, version = _lock(game_id)
        stored = _find_round(game, number)
        _round_number(data, number)
        report = report_from(data, ruleset_of(game))
        reports = [r.report for r in game.rounds]
        before = reports[number - 1]
        reports[number - 1] = report.to_dict()
        state = _replay_for_change(game, reports, number)
        if report.to_dict() == before:
            db.session.rollback()
            return load(game_id)
        stored.report = report.to_dict()
        stored.updated_at = utcnow()
        _save(game, state, "edited", who, number, before, report.to_dict())
    except ScorebookError:
        db.session.rollback()
        raise
    return Loaded(game, state, version)


def delete_round(game_id: str, number: int, who: str) -> Loaded:
    """Remove a saved round; the rounds after it move up one number and are replayed."""
    try:
        game, version = _lock(game_id)
        stored = _find_round(game, number)
        reports = [r.report for r in game.rounds]
        before = reports.pop(number - 1)
        try:
            state = replay_stored(game, reports)
        except Conflict as exc:
            raise Conflict(
                reason("later_rounds_break_without", number=number, why=exc.why or exc.message),
                player=exc.player,
                code=Problem.LATER_ROUND_BREAKS,
                round_number=exc.round_number,
            ) from None
        later = [r for r in game.rounds if r.number > number]
        game.rounds.remove(stored)
        db.session.flush()
        # One row at a time, lowest first, so the (game, number) unique pair holds after every statement.
        for r in later:
            r.number -= 1
            db.session.flush()
        _save(game, state, "deleted", who, number, before, None)
    except ScorebookError:
        db.session.rollback()
        raise
    return Loaded(game, state, version)


# --- showing -------------------------------------------------------------------------------------------------


def state_dict(loaded: Loaded) -> dict[str, Any]:
    """The API's view of a game: the engine's own ``GameState.to_dict()`` with the game's id and version."""
    body: dict[str, Any] = {"id": loaded.game.id, "version": loaded.version}
    body.update(loaded.state.to_dict())
    body["rounds"] = [round_dict(r) for r in loaded.state.rounds]
    return body


def round_dict(result: RoundResult) -> dict[str, Any]:
    return {"round": result.number, **result.to_dict()}


def export_dict(loaded: Loaded) -> dict[str, Any]:
    game = loaded.game
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "players": game.player_names,
        "rules": ruleset_of(game).to_dict(),
        "first_dealer": game.first_dealer,
        "rounds": [{"round": r.number, **r.report} for r in game.rounds],
    }


def export_csv(loaded: Loaded) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["round", "tie_break", "player", "went_out", "laid_down", "points", "completed", "total"])
    totals = dict.fromkeys(loaded.game.player_names, 0)
    for r in loaded.state.rounds:
        report = r.report
        for name, entry in report.players.items():
            totals[name] += r.points.get(name, 0)
            completed = r.completed.get(name)
            writer.writerow(
                [
                    r.number,
                    "yes" if r.tie_break else "no",
                    _csv_safe(name),
                    "yes" if report.went_out == name else "no",
                    "yes" if entry.laid_down else "no",
                    r.points.get(name, 0),
                    "" if completed is None else completed,
                    totals[name],
                ]
            )
    return out.getvalue()


def _csv_safe(text: str) -> str:
    # A name such as "=HYPERLINK(...)" must stay text when the file is opened in a spreadsheet.
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def import_game(data: Any, who: str) -> tuple[Loaded, str]:
    if not isinstance(data, Mapping):
        raise BadInput("a backup must be a JSON object as written by export.json")
    if data.get("format", EXPORT_FORMAT) != EXPORT_FORMAT:
        raise BadInput(f'"format" must be "{EXPORT_FORMAT}"', field="format")
    version = data.get("version", EXPORT_VERSION)
    if version != EXPORT_VERSION or isinstance(version, bool):
        raise BadInput(f"this backup's version is not one this app reads (it reads {EXPORT_VERSION})")
    rounds = data.get("rounds", [])
    if not isinstance(rounds, list):
        raise BadInput('"rounds" must be a list of round reports', field="rounds")
    for number, entry in enumerate(rounds, start=1):
        if not isinstance(entry, Mapping):
            raise BadInput(f"round {number} must be a JSON object", field="rounds")
        claimed = entry.get("round", number)
        if claimed != number or isinstance(claimed, bool):
            raise BadInput(
                f"the rounds must be numbered 1, 2, 3…; found {claimed!r} at {number}", field="rounds"
            )
    rules = ruleset_from(data.get("rules"))
    return create_game(data.get("players"), rules, data.get("first_dealer", 0), who, reports=rounds)


def delete_empty_game(game_id: str) -> None:
    """Remove a game no round was saved in (started by mistake, or with the wrong players)."""
    try:
        game, _version = _lock(game_id)
        if game.rounds:
            raise Conflict(
                "a game with saved rounds cannot be deleted; delete its rounds first",
                code=Problem.GAME_HAS_ROUNDS,
            )
        db.session.delete(game)
        _commit()
    except ScorebookError:
        db.session.rollback()
        raise


def rematch(game_id: str, who: str) -> tuple[Loaded, str]:
    """A new game for the same players in the same seats under the same rules; the deal passes on, so the first
    dealer is the player who would have dealt the next round."""
    loaded = load(game_id)
    if loaded.state.status != "finished":
        raise Conflict("a rematch starts when the game is over", code=Problem.NOT_FINISHED)
    names = loaded.game.player_names
    return create_game(names, ruleset_of(loaded.game), names.index(loaded.state.dealer), who)


def player_stats() -> list[dict[str, Any]]:
    """Games, wins, average points per round and phases per round for every known player; a game no round was
    saved in counts for nobody."""
    wins = (
        db.select(Game.winner, func.count().label("wins"))
        .where(Game.status == "finished", Game.winner.is_not(None))
        .group_by(Game.winner)
        .subquery()
    )
    rows = db.session.execute(
        db.select(
            Player.name,
            func.count(GamePlayer.game_id),
            func.coalesce(func.sum(GamePlayer.total), 0),
            func.coalesce(func.sum(GamePlayer.phases_completed), 0),
            func.coalesce(func.sum(GamePlayer.rounds_played), 0),
            func.coalesce(func.max(wins.c.wins), 0),
        )
        .join(GamePlayer, GamePlayer.player_id == Player.id)
        .join(Game, (Game.id == GamePlayer.game_id) & (Game.rounds_played > 0))
        .outerjoin(wins, wins.c.winner == Player.name)
        .group_by(Player.id, Player.name)
        .order_by(Player.name)
    ).all()
    stats = []
    for name, games, points, phases, rounds, won in rows:
        stats.append(
            {
                "name": name,
                "games": games,
                "wins": won,
                "rounds": rounds,
                "points_per_round": round(points / rounds, 1) if rounds else None,
                "phases_per_round": round(phases / rounds, 2) if rounds else None,
            }
        )
    return stats


def player_record(name: str) -> dict[str, Any] | None:
    """One player across games: their stats, each game they played (newest first) and, against each other
    player met, games together and wins of each."""
    player = db.session.execute(
        db.select(Player).where(Player.name_key == Player.key_for(clean_name(name)))
    ).scalar_one_or_none()
    if player is None:
        return None
    stats = next((s for s in player_stats() if s["name"] == player.name), None)
    seats = [s for s in player.seats if s.game.rounds_played > 0]
    games = sorted((s.game for s in seats), key=lambda g: g.updated_at, reverse=True)
    rivals: dict[str, dict[str, Any]] = {}
    for game in games:
        for other in game.player_names:
            if other == player.name:
                continue
            row = rivals.setdefault(
                other, {"name": other, "games": 0, "finished": 0, "wins": 0, "their_wins": 0}
            )
            row["games"] += 1
            if game.status == "finished":
                row["finished"] += 1
                row["wins"] += game.winner == player.name
                row["their_wins"] += game.winner == other
    return {
        "name": player.name,
        "stats": stats,
        "games": games,
        "completion": (
            round(stats["phases_per_round"] * 100)
            if stats and stats["phases_per_round"] is not None
            else None
        ),
        "rivals": sorted(rivals.values(), key=lambda r: (-r["games"], r["name"].casefold())),
    }
