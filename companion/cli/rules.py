"""``phase10 check | hit | score | advise | phases``: the referee on the command line.

Exit status: 0 valid / legal / done, 1 not valid / not legal, 2 bad input (a message on stderr). ``--json``
prints one object. Arguments are read by the input boundary (:mod:`companion.inputs`), whose one error type,
:class:`~companion.inputs.BadInput`, is what exits 2. The rules engine is imported inside the handlers so that
the command starts fast.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.rules.referee import LaidGroup, Verdict
    from companion.rules.rulesets import RuleSet

RULE_SETS = ("standard", "masters", "playing-cards")
VISION_MISSING = "the camera needs the vision extra: pip install 'phase10-companion[vision]'"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = subparsers.add_parser(
        "check",
        help="is this lay-down the phase?",
        description="Check a lay-down. Separate groups with | (each group in table order, a run ascending), "
        "or give the cards ungrouped and the referee finds an arrangement. Example: "
        "phase10 check --phase 2 R7 B7 G7 '|' G3 Y4 W B6",
    )
    check.add_argument("--phase", type=int, required=True, help="the phase number")
    _rule_options(check)
    check.add_argument(
        "--photo", metavar="PATH", help="read the lay-down from a photo instead of typed cards (vision extra)"
    )
    check.add_argument(
        "--deck", metavar="NAME", help="with --photo: read with a deck taught by 'phase10 deck teach'"
    )
    check.add_argument(
        "cards", nargs="*", metavar="CARD", help="cards such as R7 B12 W (AH 10D JK), | between groups"
    )
    check.set_defaults(handler=_guarded(run_check))

    hit = subparsers.add_parser(
        "hit",
        help="may these cards be added to a group on the table?",
        description="Add cards to a group already laid down, all of them or none, in any order that fits; the "
        "answer says where each card went. A wild goes to the top of a run while there is room; follow a card "
        "with @low or @high to name the end of the run it goes to (W@low: the wild goes below the run). "
        'Examples: phase10 hit --kind run --onto "G3 G4 G5 G6" R8 R7; '
        'phase10 hit --kind run --onto "G3 G4 G5 G6" W@low R7',
    )
    hit.add_argument(
        "--kind", required=True, choices=("set", "run", "color", "suit"), help="the group's kind"
    )
    hit.add_argument("--onto", required=True, metavar="CARDS", help="the group's cards in table order")
    hit.add_argument(
        "--end",
        choices=("low", "high"),
        help="the end of a run every wild goes to (a card's own @low or @high comes first)",
    )
    hit.add_argument(
        "--not-down",
        action="store_true",
        help="the player has not laid down their own phase this round (the hit is refused)",
    )
    _rule_options(hit)
    hit.add_argument(
        "cards",
        nargs="+",
        metavar="CARD",
        help="the cards to add, in any order; CARD@low or CARD@high names its end",
    )
    hit.set_defaults(handler=_guarded(run_hit))

    score = subparsers.add_parser(
        "score",
        help="points for the cards left in a hand",
        description="Points for the cards left in a hand.",
    )
    score.add_argument("--rules", choices=RULE_SETS, default="standard", help="rule set (default: standard)")
    score.add_argument("--json", action="store_true", help="print one JSON object")
    score.add_argument("cards", nargs="*", metavar="CARD")
    score.set_defaults(handler=_guarded(run_score))

    advise = subparsers.add_parser(
        "advise",
        help="the best arrangement of a hand toward a phase and what is missing",
        description="The arrangement of a hand that needs the fewest further cards to make the phase.",
    )
    advise.add_argument("--phase", type=int, required=True, help="the phase number")
    _rule_options(advise)
    advise.add_argument("cards", nargs="+", metavar="CARD")
    advise.set_defaults(handler=_guarded(run_advise))

    phases = subparsers.add_parser("phases", help="list the phases of a rule set")
    phases.add_argument("--rules", choices=RULE_SETS, default="standard", help="rule set (default: standard)")
    phases.add_argument("--json", action="store_true", help="print one JSON object")
    phases.set_defaults(handler=_guarded(run_phases))


def _rule_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", choices=RULE_SETS, default="standard", help="rule set (default: standard)")
    parser.add_argument(
        "--wrap-runs",
        action="store_true",
        help="house rule (Phase 10 cards only): runs may turn the corner from 12 to 1",
    )
    parser.add_argument(
        "--natural-per-group", action="store_true", help="house rule: every group needs a numbered card"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _guarded(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Turn bad input (:class:`~companion.inputs.BadInput`, and the engine's input errors, all ``ValueError``)
    into a message on stderr and exit status 2."""

    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except ValueError as exc:  # BadInput is a ValueError too
            print(f"phase10 {args.command}: {exc}", file=sys.stderr)
            return 2

    return run


def _bad(message: str) -> ValueError:
    from companion.inputs import BadInput

    return BadInput(message)


def _rules(args: argparse.Namespace) -> RuleSet:
    from companion.inputs import ruleset_from

    return ruleset_from(
        {
            "name": getattr(args, "rules", None) or "standard",
            "wrap_runs": bool(getattr(args, "wrap_runs", False)),
            "natural_per_group": bool(getattr(args, "natural_per_group", False)),
        }
    )


def _print_json(payload: dict[str, Any]) -> None:
    print(json.dumps(payload, ensure_ascii=False))


# --------------------------------------------------------------------------------------------- check


def run_check(args: argparse.Namespace) -> int:
    if args.photo is not None:
        if args.cards:
            raise _bad("give either --photo or cards, not both")
        try:
            from companion.cli.vision import photo_lay_down
        except ModuleNotFoundError:
            print(VISION_MISSING, file=sys.stderr)
            return 2
        read = photo_lay_down(args)
        if isinstance(read, int):
            return read
        groups, extra = read
        try:
            return emit_check(groups, args, extra=extra)
        except ValueError as exc:  # a phase the rule set does not have
            print(f"phase10: {exc}", file=sys.stderr)
            return 2
    if not args.cards:
        raise _bad("give the cards laid down, for example: R7 B7 G7 '|' G3 Y4 W B6")
    from companion.inputs import cards_from, groups_from

    rules = _rules(args)
    text = " ".join(args.cards)
    if "|" in text:
        groups = groups_from(text, rules, most=None, allow_empty=True)
        if any(not g for g in groups):
            raise _bad("one of the groups between | has no cards")
        return emit_check(groups, args)
    return _emit_verdict(_check(cards_from(text, rules, "cards", most=None), args, rules), args, None)


def _check(cards: Sequence[Any], args: argparse.Namespace, rules: RuleSet) -> Verdict:
    from companion.rules.referee import check_phase

    return check_phase(cards, args.phase, rules)


def emit_check(
    groups: Sequence[Sequence[Any]], args: argparse.Namespace, extra: dict[str, Any] | None = None
) -> int:
    """Run the referee on grouped cards (each group in table order) and print the result as ``phase10 check``
    does: text, or with ``args.json`` one JSON object with ``extra`` merged in. Returns the exit status (0 valid,
    1 not valid); a phase not in the game raises ``ValueError``.

    ``args`` needs ``phase``; ``rules``, ``wrap_runs``, ``natural_per_group`` and ``json`` are read when present.
    """
    rules = _rules(args)
    verdict = _check([tuple(g) for g in groups], args, rules)
    return _emit_verdict(verdict, args, extra)


def _emit_verdict(verdict: Verdict, args: argparse.Namespace, extra: dict[str, Any] | None) -> int:
    status = 0 if verdict.valid else 1
    if getattr(args, "json", False):
        _print_json({**verdict.to_dict(), **(extra or {})})
        return status
    phase = verdict.phase
    title = f"phase {phase.number} ({phase.description})" if phase else "the phase"
    if not verdict.valid:
        print(f"not valid: {verdict.reason}")
        return status
    print(f"valid: {title}")
    for group in verdict.groups:
        print(f"  {_group_line(group)}")
    return status


def _group_line(group: LaidGroup) -> str:
    """'set of 7s: R7 B7 W (W as 7)', 'red colour group: R1 R3 W'."""
    from companion.rules.phases import GroupKind
    from companion.rules.wording import group_title, wilds_text

    deck = group.cards[0].deck
    wilds = wilds_text(group, deck)
    line = f"{group_title(group, deck)}: {group}"
    return f"{line} ({wilds})" if wilds and group.kind in (GroupKind.SET, GroupKind.RUN) else line


# --------------------------------------------------------------------------------------------- hit


def run_hit(args: argparse.Namespace) -> int:
    from companion.inputs import cards_from, group_from, hit_tokens, kind_from
    from companion.rules.hits import check_hit

    rules = _rules(args)
    onto = cards_from(args.onto, rules, "onto", most=None)
    if not onto:
        raise _bad("--onto needs the cards of the group on the table")
    group = group_from(kind_from(args.kind), onto, rules, option="--onto")
    cards, ends = hit_tokens(args.cards, rules)
    verdict = check_hit(group, cards, rules, end=args.end, ends=ends, phase_down=not args.not_down)
    status = 0 if verdict.legal else 1
    if args.json:
        _print_json(verdict.to_dict())
    elif verdict.legal:
        print(f"legal: {_group_line(verdict.group)}")
        print(f"  added: {verdict.description}")
        if verdict.note:
            print(f"  note: {verdict.note}")
    else:
        print(f"not legal: {verdict.reason}")
    return status


# --------------------------------------------------------------------------------------------- score


def run_score(args: argparse.Namespace) -> int:
    from companion.inputs import cards_from
    from companion.rules.cards import hand_points

    rules = _rules(args)
    cards = cards_from(" ".join(args.cards), rules, "cards", most=None)
    points = hand_points(cards)
    if args.json:
        _print_json({"points": points, "cards": [str(c) for c in cards]})
    else:
        print(f"{points} points")
    return 0


# --------------------------------------------------------------------------------------------- advise


def run_advise(args: argparse.Namespace) -> int:
    from companion.inputs import cards_from, phase_from
    from companion.rules.advisor import advise

    rules = _rules(args)
    hand = cards_from(" ".join(args.cards).replace("|", " "), rules, "cards", most=None)
    advice = advise(hand, phase_from(args.phase, rules), rules)
    if args.json:
        _print_json(advice.to_dict())
        return 0
    print(advice.summary)
    if advice.spare:
        print(f"not used: {' '.join(str(c) for c in advice.spare)}")
    return 0


# --------------------------------------------------------------------------------------------- phases


def run_phases(args: argparse.Namespace) -> int:
    rules = _rules(args)
    if args.json:
        _print_json(
            {
                "rules": rules.name,
                "phases": [{"number": p.number, "description": p.description} for p in rules.phases.values()],
            }
        )
        return 0
    for phase in rules.phases.values():
        print(f"{phase.number:>2}  {phase.description}")
    return 0
