"""How fast the referee and the advisor answer, with the machine they ran on.

Prints medians and 99th percentiles of ``check_phase`` on ungrouped lay-downs of 8-16 cards with 0-4 wilds over
every phase of both phase lists, for lay-downs that are valid (built group by group, then shuffled) and for cards
dealt at random from the deck (nearly always invalid, so the reason is built too); the brute-force oracle of the
tests beside it as a ratio (on 8-10 cards: it tries every split of the cards, 2^n of them); and the advisor on
11-card hands. Each input is timed as the best of 3 calls. Run: ``.venv/bin/python bench/bench_referee.py [--quick]``.
"""

from __future__ import annotations

import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.rules.advisor import advise
from companion.rules.cards import Card, Color, Deck, Suit, playing_deck, standard_deck
from companion.rules.phases import GroupKind, Phase
from companion.rules.referee import check_phase
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


def timed(fn: Callable[[], object], repeat: int = 3) -> float:
    """Seconds per call: the best of ``repeat`` single calls, so that a pause of the machine (another process, a
    garbage collection) is not counted as the referee's time."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def summary(label: str, seconds: Sequence[float]) -> None:
    ms = sorted(s * 1000 for s in seconds)
    p99 = ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))]
    print(
        f"{label:<58} n={len(ms):<6} median {statistics.median(ms):.3f} ms  p99 {p99:.3f} ms  max {ms[-1]:.3f} ms"
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


if __name__ == "__main__":
    main()
