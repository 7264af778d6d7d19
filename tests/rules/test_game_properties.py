"""Property tests of game progression on random legal games of every rule set and option.

The oracle below follows the sources sentence by sentence, one round at a time, without the engine's state
objects: 001 "These add to each player's running total", "You move up one phase after any round in which you laid
down your phase", the end of game and tie rules of 001, 000's choice of phase, 001's "everyone advances".
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules.cards import Card, Deck, playing_deck, standard_deck
from companion.rules.game import (
    GameSetupError,
    GameState,
    IllegalReportError,
    PlayerReport,
    RoundReport,
    new_game,
    play_round,
    preview,
    replay,
    round_points,
)
from companion.rules.rulesets import RuleSet, get_ruleset

NAMES = st.lists(
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Zs", "Cc")), min_size=1, max_size=8),
    min_size=2,
    max_size=6,
    unique_by=str.casefold,
)


@st.composite
def rule_sets(draw: st.DrawFn) -> RuleSet:
    name = draw(st.sampled_from(["standard", "masters", "playing-cards"]))
    everyone = name != "masters" and draw(st.booleans())
    return get_ruleset(name, everyone_advances=everyone, last_phase=draw(st.integers(1, 4)))


@st.composite
def legal_reports(draw: st.DrawFn, state: GameState, level: bool = False) -> RoundReport:
    """A report that can have happened; ``level`` games (everyone lays down, 5 points each) tie often."""
    rules = state.rules
    playing = state.in_next_round
    went_out = draw(st.sampled_from(playing))
    deck: list[Card] = list(
        standard_deck() if rules.deck is Deck.STANDARD else playing_deck(len(state.players))
    )
    draw(st.randoms(use_true_random=False)).shuffle(deck)
    entries: dict[str, PlayerReport] = {}
    for name in playing:
        player = state.player(name)
        laid_down = name == went_out or level or draw(st.booleans())
        phase: int | None = None
        if state.status == "tie_break":
            phase = draw(st.sampled_from([None, rules.last_phase]))
        elif rules.choose_phase:
            if laid_down or draw(st.booleans()):
                phase = draw(st.sampled_from(player.remaining))
        elif draw(st.booleans()):
            phase = player.phase
        if name == went_out:
            entries[name] = PlayerReport(True, phase=phase)
        elif not level and draw(st.booleans()):
            # Cards dealt from one shuffled deck, so no card has more copies in hands than the deck has.
            cards = tuple(deck.pop() for _ in range(draw(st.integers(1, 3))))
            entries[name] = PlayerReport(laid_down, cards=cards, phase=phase)
        else:
            points = 5 if level else draw(st.sampled_from([5, 10]) | st.integers(1, 49).map(lambda k: 5 * k))
            entries[name] = PlayerReport(laid_down, points=points, phase=phase)
    order = draw(st.permutations(list(entries)))
    return RoundReport(went_out, {n: entries[n] for n in order})


@dataclass
class Game:
    names: list[str]
    rules: RuleSet
    first_dealer: int
    reports: list[RoundReport] = field(default_factory=list)
    states: list[GameState] = field(default_factory=list)


@st.composite
def games(draw: st.DrawFn) -> Game:
    names = draw(NAMES)
    game = Game(names, draw(rule_sets()), draw(st.integers(0, len(names) - 1)))
    level = draw(st.booleans())
    state = new_game(names, game.rules, game.first_dealer)
    game.states.append(state)
    for _ in range(draw(st.integers(0, 14))):
        if state.status == "finished":
            break
        report = draw(legal_reports(state, level))
        state = play_round(state, report)
        game.reports.append(report)
        game.states.append(state)
    return game


@dataclass
class Expected:
    totals: dict[str, int]
    completed: dict[str, set[int]]
    status: str = "in_progress"
    winner: str | None = None
    tied: tuple[str, ...] = ()


def oracle(names: Sequence[str], rules: RuleSet, reports: Sequence[RoundReport]) -> Expected:
    out = Expected({n: 0 for n in names}, {n: set() for n in names})
    rounds = 0
    for report in reports:
        for name, entry in report.players.items():
            # 001: "The player who goes out scores zero. Every other player adds up the cards left in their hand."
            if name != report.went_out:
                out.totals[name] += (
                    entry.points if entry.points is not None else sum(c.points for c in entry.cards or ())
                )
        if out.tied:
            # 001: "they replay Phase 10 against each other. The first of them to go out wins."
            out.status, out.winner, out.tied = "finished", report.went_out, ()
            continue
        rounds += 1
        finished_now = []
        for name, entry in report.players.items():
            if not entry.laid_down:
                continue
            if rules.choose_phase:
                assert entry.phase is not None
                phase = entry.phase
            elif rules.everyone_advances:
                phase = rounds
            else:
                phase = len(out.completed[name]) + 1
            out.completed[name].add(phase)
            if len(out.completed[name]) == rules.last_phase:
                finished_now.append(name)
        if rules.everyone_advances:
            finished_now = list(names) if rounds == rules.last_phase else []
        if finished_now:
            best = min(out.totals[n] for n in finished_now)
            tied = tuple(n for n in names if n in finished_now and out.totals[n] == best)
            if len(tied) == 1:
                out.status, out.winner = "finished", tied[0]
            else:
                out.status, out.tied = "tie_break", tied
    return out


@settings(max_examples=200, deadline=None)
@given(games())
def test_replay_equals_step_by_step_play(game: Game) -> None:
    assert replay(game.names, game.rules, game.reports, game.first_dealer) == game.states[-1]
    for before, after, report in zip(game.states[:-1], game.states[1:], game.reports, strict=True):
        assert preview(before, report) == after.rounds[-1]


@settings(max_examples=200, deadline=None)
@given(games())
def test_progression_agrees_with_the_sources_read_round_by_round(game: Game) -> None:
    for played, state in enumerate(game.states):
        expected = oracle(game.names, game.rules, game.reports[:played])
        assert {p.name: p.total for p in state.players} == expected.totals
        assert {p.name: set(p.completed) for p in state.players} == expected.completed
        assert (state.status, state.winner, state.tie_break_players) == (
            expected.status,
            expected.winner,
            expected.tied,
        )
        rules = state.rules
        for p in state.players:
            assert p.total == sum(r.points.get(p.name, 0) for r in state.rounds)
            if rules.everyone_advances:
                normal = sum(not r.tie_break for r in state.rounds)
                assert p.phase == (normal + 1 if normal < rules.last_phase else None)
            elif rules.choose_phase:
                assert set(p.remaining) == set(range(1, rules.last_phase + 1)) - set(p.completed)
            else:
                # 001: "You must complete the phases in order."
                assert p.completed == tuple(range(1, len(p.completed) + 1))
                assert p.phase == (len(p.completed) + 1 if len(p.completed) < rules.last_phase else None)


@settings(max_examples=200, deadline=None)
@given(games())
def test_001_the_deal_passes_left_and_the_player_on_the_dealers_left_starts(game: Game) -> None:
    n = len(game.names)
    for state in game.states:
        seat = state.names.index(state.dealer)
        playing = state.in_next_round
        assert state.dealer in playing and state.starter in playing
        left = [state.names[(seat + k) % n] for k in range(1, n + 1)]
        assert state.starter == next(name for name in left if name in playing)
        if state.status != "tie_break" and not any(r.tie_break for r in state.rounds):
            assert state.dealer == game.names[(game.first_dealer + len(state.rounds)) % n]


@settings(max_examples=200, deadline=None)
@given(games())
def test_004_placements_rank_everyone_and_the_winner_alone_first(game: Game) -> None:
    final = game.states[-1]
    places = final.placements()
    assert sorted(p.name for p in places) == sorted(game.names)
    assert places[0].place == 1 and [p.place for p in places] == sorted(p.place for p in places)
    for a, b in itertools.pairwise(places):
        same = (a.phases_completed, a.total) == (b.phases_completed, b.total)
        assert (a.place == b.place) == same
    if final.status == "finished":
        assert places[0].name == final.winner and places[1].place == 2
        # 001: nothing more can be reported once the game is over.
        try:
            play_round(final, game.reports[-1])
        except IllegalReportError as err:
            assert "the game is over" in err.reason
        else:
            raise AssertionError("a finished game took another round")


@settings(max_examples=200, deadline=None)
@given(games(), st.data())
def test_reports_round_trip_through_json(game: Game, data: st.DataObject) -> None:
    for report in game.reports:
        assert RoundReport.from_dict(report.to_dict(), game.rules) == report
    if game.states[-1].status != "finished":
        report = data.draw(legal_reports(game.states[-1]))
        assert RoundReport.from_dict(report.to_dict(), game.rules) == report
        assert round_points(report.players[report.went_out]) == 0


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
ENTRY_VALUES = st.one_of(
    JSON,
    st.integers(-300, 300),
    st.sampled_from(["R3", "W", "S", "AH", "JK", "r13", "", " "]),
    st.lists(st.sampled_from(["R3", "W", "S", "AH", "JK", "B12", 3]), max_size=12),
)
ENTRIES = st.dictionaries(
    st.sampled_from(["laid_down", "points", "cards", "phase", "extra"]), ENTRY_VALUES, max_size=5
)


@settings(max_examples=500, deadline=None)
@given(
    rules=rule_sets(),
    went_out=st.one_of(JSON, st.sampled_from(["Ana", "Ben", "Cy", "ana"])),
    players=st.one_of(
        JSON, st.dictionaries(st.sampled_from(["Ana", "Ben", "Cy", "Dee", ""]), ENTRIES, max_size=5)
    ),
    extra=JSON,
)
def test_any_json_body_is_read_or_refused_with_a_reason_never_a_crash(
    rules: RuleSet, went_out: object, players: object, extra: object
) -> None:
    state = new_game(["Ana", "Ben", "Cy"], rules)
    try:
        report = RoundReport.from_dict({"went_out": went_out, "players": players, "extra": extra}, rules)
        after = play_round(state, report)
    except IllegalReportError as err:
        assert err.reason
        return
    assert after.round_number == 2
    assert RoundReport.from_dict(report.to_dict(), rules) == report


@settings(max_examples=200, deadline=None)
@given(st.one_of(NAMES, st.lists(st.one_of(st.text(max_size=50), st.integers(), st.none()), max_size=8)))
def test_new_game_takes_good_names_and_refuses_others_with_a_reason(names: list[object]) -> None:
    try:
        state = new_game(names, get_ruleset("standard"))  # type: ignore[arg-type]
    except GameSetupError as err:
        assert str(err)
        return
    assert len(state.players) == len(names)
    assert [p.name for p in state.players] == [str(n).strip() for n in names]
    assert len({p.name.casefold() for p in state.players}) == len(names)
