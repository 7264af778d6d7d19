"""How fast the referee and the advisor answer, with the machine they ran on.

Prints medians and 99th percentiles of ``check_phase`` on ungrouped lay-downs of 8-16 cards with 0-4 wilds over
every phase of both phase lists, for lay-downs that are valid (built group by group, then shuffled) and for cards
dealt at random from the deck (nearly always invalid, so the reason is built too); the brute-force oracle of the
tests beside it as a ratio (on 8-10 cards: it tries every split of the cards, 2^n of them); minimal lay-downs
(exactly as many cards as the phase needs, a fixed seeded set of 2,000) through ``is_valid_phase`` and
``check_phase`` beside a plain exhaustive validator written the way public ones are (every split of the cards into
the phase's groups, a yes or no and nothing else); and the advisor on 11-card hands. Each input is timed as the best
of 3 calls. Run: ``.venv/bin/python bench/bench_referee.py [--quick]``.
"""

from __future__ import annotations

import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.rules.advisor import advise
from companion.rules.cards import Card, Color, Deck, Suit, playing_deck, standard_deck
from companion.rules.phases import GroupKind, Phase, Requirement
from companion.rules.referee import check_phase, is_valid_phase
from companion.rules.rulesets import RuleSet, get_ruleset
from tests.rules.oracle import oracle_valid


def machine() -> str:
    model = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs (nproc {len(os.sched_getaffinity(0))}), {model}, Python {platform.python_version()}"


def valid_laydown(phase: Phase, rules: RuleSet, rng: random.Random, total: int, wilds: int) -> list[Card]:
    """A valid lay-down of ``phase`` with about ``total`` cards (runs cannot grow past the top number), of which
    up to ``wilds`` are wilds (each group keeps a numbered card)."""
    top = rules.deck.max_rank
    reqs = phase.requirements
    sizes = [r.size for r in reqs]
    for _ in range(max(0, total - sum(sizes))):
        i = rng.randrange(len(reqs))
        if reqs[i].kind is not GroupKind.RUN or sizes[i] < top:
            sizes[i] += 1
    colors = (
        [Color.RED, Color.BLACK]
        if rules.deck is Deck.PLAYING
        else [Color.RED, Color.BLUE, Color.GREEN, Color.YELLOW]
    )
    suits = rng.sample(list(Suit), 4)
    groups: list[list[Card]] = []
    for i, (req, size) in enumerate(zip(reqs, sizes, strict=True)):
        if req.kind is GroupKind.SET:
            n = rng.randint(1, top)
            groups.append([_card(n, rules, rng) for _ in range(size)])
        elif req.kind is GroupKind.RUN:
            start = rng.randint(1, top - size + 1)
            groups.append([_card(start + j, rules, rng) for j in range(size)])
        elif req.kind is GroupKind.COLOR:
            color = rng.choice(colors)
            groups.append([_card(rng.randint(1, top), rules, rng, color=color) for _ in range(size)])
        else:
            suit = suits[i]
            groups.append([Card.playing_card(rng.randint(1, top), suit) for _ in range(size)])
    for _ in range(wilds):
        g = rng.choice([g for g in groups if sum(c.is_natural for c in g) > 1] or [groups[0]])
        naturals = [j for j, c in enumerate(g) if c.is_natural]
        if len(naturals) > 1:
            g[rng.choice(naturals)] = Card.wild(rules.deck)
    cards = [c for g in groups for c in g]
    rng.shuffle(cards)
    return cards


def _card(number: int, rules: RuleSet, rng: random.Random, color: Color | None = None) -> Card:
    if rules.deck is Deck.PLAYING:
        suits = [s for s in Suit if color is None or s.color is color]
        return Card.playing_card(number, rng.choice(suits))
    return Card.number_card(number, color or rng.choice([Color.RED, Color.BLUE, Color.GREEN, Color.YELLOW]))


def random_cards(rules: RuleSet, rng: random.Random, total: int, wilds: int) -> list[Card]:
    deck = standard_deck() if rules.deck is Deck.STANDARD else playing_deck(2)
    naturals = [c for c in deck if c.is_natural]
    return rng.sample(naturals, total - wilds) + [Card.wild(rules.deck)] * wilds


def minimal_laydowns(rng: random.Random, count: int = 2000) -> list[tuple[Phase, list[Card]]]:
    """Lay-downs of the standard game with exactly the cards the phase needs: a random phase 1-10, each card a
    Wild with chance 0.15, else with chance 0.6 a number within 3 of a base number drawn per lay-down, else any
    number; colours at random."""
    rules = get_ruleset("standard")
    colors = [Color.RED, Color.BLUE, Color.GREEN, Color.YELLOW]
    out: list[tuple[Phase, list[Card]]] = []
    for _ in range(count):
        phase = rules.phase(rng.randint(1, 10))
        base = rng.randint(1, 12)
        cards: list[Card] = []
        for _ in range(phase.min_cards):
            if rng.random() < 0.15:
                cards.append(Card.wild())
                continue
            if rng.random() < 0.6:
                number = rng.randint(max(1, base - 3), min(12, base + 3))
            else:
                number = rng.randint(1, 12)
            cards.append(Card.number_card(number, rng.choice(colors)))
        out.append((phase, cards))
    return out


def _plain_group(req: Requirement, cards: Sequence[tuple[int | None, Color | None]]) -> bool:
    if len(cards) < req.size:
        return False
    numbers = [n for n, _ in cards if n is not None]
    if req.kind is GroupKind.SET:
        return len(set(numbers)) <= 1
    if req.kind is GroupKind.RUN:
        if len(cards) > 12 or len(set(numbers)) != len(numbers):
            return False
        return not numbers or max(numbers) - min(numbers) < len(cards)
    return len({c for n, c in cards if n is not None}) <= 1


def plain_validator(cards: Sequence[Card], phase: Phase) -> bool:
    """Yes or no, the way public validators decide it (standard rules): try every split of the cards into the
    phase's groups, each group checked on its own, and stop at the first that works."""
    if any(c.is_skip for c in cards) or not any(c.is_natural for c in cards):
        return False
    items = [(c.number, c.color) for c in cards]
    reqs = phase.requirements

    def split(pos: int, left: list[tuple[int | None, Color | None]]) -> bool:
        req = reqs[pos]
        if pos == len(reqs) - 1:
            return _plain_group(req, left)
        room = len(left) - sum(r.size for r in reqs[pos + 1 :])
        for k in range(req.size, room + 1):
            for chosen in combinations(range(len(left)), k):
                group = [left[i] for i in chosen]
                if _plain_group(req, group):
                    rest = [c for i, c in enumerate(left) if i not in chosen]
                    if split(pos + 1, rest):
                        return True
        return False

    return split(0, items)


def timed(fn: Callable[[], object], repeat: int = 3) -> float:
    """Seconds per call: the best of ``repeat`` single calls, so that a pause of the machine (another process, a
    garbage collection) is not counted as the referee's time."""
    best = 1 << 62
    for _ in range(repeat):
        t = time.perf_counter_ns()
        fn()
        best = min(best, time.perf_counter_ns() - t)
    return best / 1e9


def p99(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def summary(label: str, seconds: Sequence[float]) -> None:
    ms = sorted(s * 1000 for s in seconds)
    print(
        f"{label:<58} n={len(ms):<6} median {statistics.median(ms):.3f} ms  p99 {p99(ms):.3f} ms  max {ms[-1]:.3f} ms"
    )


def summary_us(label: str, seconds: Sequence[float]) -> None:
    us = sorted(s * 1e6 for s in seconds)
    print(
        f"{label:<58} n={len(us):<6} median {statistics.median(us):.1f} µs  p99 {p99(us):.1f} µs  max {us[-1]:.1f} µs"
    )


def minimal_section() -> None:
    rules = get_ruleset("standard")
    cases = minimal_laydowns(random.Random(34))
    plain: list[float] = []
    valid: list[float] = []
    checked: list[float] = []
    disagree = 0
    for phase, cards in cases:
        plain.append(timed(lambda c=cards, p=phase: plain_validator(c, p)))
        valid.append(timed(lambda c=cards, p=phase, r=rules: is_valid_phase(c, p, r)))
        checked.append(timed(lambda c=cards, p=phase, r=rules: check_phase(c, p, r)))
        answer = plain_validator(cards, phase)
        disagree += (
            answer != is_valid_phase(cards, phase, rules) or answer != check_phase(cards, phase, rules).valid
        )
    count = sum(plain_validator(c, p) for p, c in cases)
    print(
        f"minimal lay-downs, standard phases 1-10, exactly the cards each needs ({count}/{len(cases)} valid,"
        f" {disagree} verdicts differ from the plain validator):"
    )
    summary_us("  plain exhaustive validator (yes or no)", plain)
    summary_us("  is_valid_phase", valid)
    summary_us("  check_phase (arrangement and reason)", checked)
    print(
        f"  validator / is_valid_phase: {statistics.median(plain) / statistics.median(valid):.1f}x"
        f" (ratio of medians); validator / check_phase: {statistics.median(plain) / statistics.median(checked):.1f}x"
    )


def main() -> None:
    quick = "--quick" in sys.argv
    rng = random.Random(2026)
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f} at the start")
    rule_sets = [get_ruleset("standard"), get_ruleset("playing-cards")]
    per_phase = 30 if quick else 150
    valid_times: list[float] = []
    random_times: list[float] = []
    valid_count = 0
    for rules in rule_sets:
        for phase in rules.phases.values():
            for _ in range(per_phase):
                total, wilds = rng.randint(8, 16), rng.randint(0, 4)
                cards = valid_laydown(phase, rules, rng, total, wilds)
                valid_times.append(timed(lambda c=cards, p=phase, r=rules: check_phase(c, p, r)))
                valid_count += check_phase(cards, phase, rules).valid
                cards = random_cards(rules, rng, total, wilds)
                random_times.append(timed(lambda c=cards, p=phase, r=rules: check_phase(c, p, r)))
    print(
        f"check, ungrouped, 8-16 cards, 0-4 wilds, all 20 phases ({valid_count}/{len(valid_times)} built valid):"
    )
    summary("  valid lay-downs", valid_times)
    summary("  cards dealt at random (invalid, reason built)", random_times)
    summary("  both together", valid_times + random_times)

    for label, make in (("valid lay-downs", valid_laydown), ("cards dealt at random", None)):
        fast: list[float] = []
        slow: list[float] = []
        for rules in rule_sets:
            for phase in rules.phases.values():
                for _ in range(2 if quick else 6):
                    total, wilds = rng.randint(max(8, phase.min_cards), 10), rng.randint(0, 4)
                    if make is None:
                        cards = random_cards(rules, rng, total, wilds)
                    else:
                        cards = make(phase, rules, rng, total, wilds)
                    fast.append(timed(lambda c=cards, p=phase, r=rules: check_phase(c, p, r)))
                    slow.append(timed(lambda c=cards, p=phase, r=rules: oracle_valid(c, p, r), repeat=1))
        print(f"brute-force oracle beside the referee, {label} of 8-10 cards:")
        summary("  referee", fast)
        summary("  oracle", slow)
        print(
            f"  oracle / referee: {statistics.median(slow) / statistics.median(fast):.0f}x (ratio of medians)"
        )

    advice: list[float] = []
    for rules in rule_sets:
        deck = standard_deck() if rules.deck is Deck.STANDARD else playing_deck(2)
        for phase in rules.phases.values():
            for _ in range(per_phase):
                hand = rng.sample(deck, 11)
                advice.append(timed(lambda h=hand, p=phase, r=rules: advise(h, p, r)))
    summary("advisor, 11 cards dealt at random, all 20 phases", advice)

    minimal_section()


if __name__ == "__main__":
    main()
