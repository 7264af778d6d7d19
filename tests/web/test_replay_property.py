"""Whatever rounds are saved, edited or deleted through the API, the game it shows is the engine's own replay of
the stored reports (the oracle: ``companion.rules.game.replay`` run here, in the test)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.rules import get_ruleset
from companion.rules.game import RoundReport, new_game, play_round, replay

from .conftest import ApiGame

NAMES = ["Ana", "Ben", "Cy"]
RULES = get_ruleset("standard", last_phase=3)


@st.composite
def legal_round(draw, in_round):
    out = draw(st.sampled_from(in_round))
    players = {}
    for name in in_round:
        if name == out:
            players[name] = {"laid_down": True}
        else:
            players[name] = {
                "laid_down": draw(st.booleans()),
                "points": 5 * draw(st.integers(min_value=1, max_value=20)),
            }
    return {"went_out": out, "players": players}


@st.composite
def game_plan(draw):
    """Legal reports for a whole (possibly unfinished) game, and an edit or a delete to try on it."""
    state = new_game(NAMES, RULES)
    reports = []
    for _ in range(draw(st.integers(min_value=1, max_value=8))):
        if state.status == "finished":
            break
        body = draw(legal_round(list(state.in_next_round)))
        state = play_round(state, RoundReport.from_dict(body, RULES))
        reports.append(body)
    target = draw(st.integers(min_value=1, max_value=len(reports)))
    action = draw(st.sampled_from(["edit", "delete"]))
    replacement = draw(legal_round(list(reports[target - 1]["players"])))
    return reports, target, action, replacement


def _engine_view(reports):
    state = replay(NAMES, RULES, [RoundReport.from_dict(r, RULES) for r in reports])
    return (
        state.status,
        state.winner,
        [p.to_dict() for p in state.players],
        [r.to_dict() for r in state.rounds],
    )


def _api_view(game):
    data = game.state()
    return (
        data["status"],
        data["winner"],
        data["players"],
        [{k: v for k, v in r.items() if k != "round"} for r in data["rounds"]],
    )


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(plan=game_plan())
def test_api_state_is_the_engines_replay_after_saves_edits_and_deletes(client, plan):
    reports, target, action, replacement = plan
    game = ApiGame(client, {"players": NAMES, "rules": RULES.to_dict()})
    for number, body in enumerate(reports, start=1):
        assert game.post_round({"round": number, **body}).status_code == 201
    assert _api_view(game) == _engine_view(reports)

    changed = list(reports)
    if action == "delete":
        del changed[target - 1]
        response = client.delete(f"/api/games/{game.id}/rounds/{target}", headers=game.auth)
    else:
        changed[target - 1] = replacement
        response = client.patch(f"/api/games/{game.id}/rounds/{target}", json=replacement, headers=game.auth)
    try:
        expected = _engine_view(changed)
    except ValueError:
        # The engine refuses the changed game: the API must refuse the change and keep the game as it was.
        assert response.status_code in (400, 409)
        assert _api_view(game) == _engine_view(reports)
    else:
        assert response.status_code == 200, response.json
        assert _api_view(game) == expected
