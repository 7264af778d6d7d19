"""The history page's score chart: running totals as an SVG drawn on the server (no script, no CDN)."""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup, escape

from companion.rules.game import RoundResult

# Colours that stay apart for the common colour-vision deficiencies (Okabe–Ito).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
WIDTH, HEIGHT = 360, 220
LEFT, RIGHT, TOP, BOTTOM = 40, 10, 10, 24


def running_totals(names: Sequence[str], rounds: Sequence[RoundResult]) -> dict[str, list[int]]:
    series = {name: [0] for name in names}
    for r in rounds:
        for name in names:
            series[name].append(r.totals.get(name, series[name][-1]))
    return series


def score_chart(names: Sequence[str], rounds: Sequence[RoundResult]) -> Markup:
    series = running_totals(names, rounds)
    count = len(rounds)
    top = max([max(values) for values in series.values()] + [50])
    top = ((top + 49) // 50) * 50
    span_x = WIDTH - LEFT - RIGHT
    span_y = HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + (span_x * i / count if count else 0)

    def y(v: int) -> float:
        return TOP + span_y * (1 - v / top)

    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="Running totals after each round">'
    ]
    for tick in range(0, top + 1, max(50, (top // 4 // 50) * 50)):
        parts.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" class="grid"/>'
            f'<text x="{LEFT - 4}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick}</text>'
        )
    step = max(1, count // 8)
    for i in range(0, count + 1, step):
        parts.append(f'<text x="{x(i):.1f}" y="{HEIGHT - 6}" text-anchor="middle">{i}</text>')
    for n, name in enumerate(names):
        colour = PALETTE[n % len(PALETTE)]
        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(series[name]))
        parts.append(
            f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2.5">'
            f"<title>{escape(name)}</title></polyline>"
        )
    parts.append("</svg>")
    legend = "".join(
        # A class per colour (app.css), not a style attribute: the pages' CSP allows no inline style.
        f'<li><span class="swatch s{n % len(PALETTE)}"></span>{escape(name)}</li>'
        for n, name in enumerate(names)
    )
    # Markup only around what this function wrote: every player name in it went through escape() above.
    return Markup("".join(parts) + f'<ul class="legend">{legend}</ul>')
