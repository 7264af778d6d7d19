"""The renderer and its labels agree: every label marks the upright index of a card that is really there."""

from __future__ import annotations

import dataclasses
import itertools

import cv2
import numpy as np
import pytest

from companion.rules.cards import Card, Color, parse_cards
from vision.render import (
    CARD_H,
    CARD_W,
    DEV_CORNER_STYLES,
    HELDOUT_CORNER_STYLES,
    PLAIN_GLYPH,
    TRAIN_CORNER_STYLES,
    Glyph,
    Split,
    _corner_layer,
    font_files,
    random_design,
    render_card,
)
from vision.scene import (
    BOLD_TEXTURES,
    HELDOUT_TEXTURES,
    LONE_EXTRA,
    LONE_TILT,
    LOOSE_EXTRA,
    LOOSE_TILT,
    TRAIN_TEXTURES,
    VIGNETTE,
    _distractor,
    make_scene,
    make_vignette,
    yolo_lines,
)

CARDS = parse_cards("R1 B6 G9 Y10 R12 B11 W S")


@pytest.mark.parametrize(
    "style", sorted(set(TRAIN_CORNER_STYLES + HELDOUT_CORNER_STYLES + DEV_CORNER_STYLES))
)
@pytest.mark.parametrize("card", CARDS, ids=str)
def test_index_box_holds_the_whole_printed_index(card: Card, style: str) -> None:
    rng = np.random.default_rng(1)
    for split in Split:
        design = dataclasses.replace(random_design(rng, split), corner_style=style)
        face, _ = render_card(card, design, rng)
        layer, (x1, y1, x2, y2), (gx1, gy1, gx2, gy2) = _corner_layer(
            card, design, (200, 30, 30), design.paper
        )
        # The symbol lies inside the labelled box, and something is drawn where the symbol is said to be.
        assert x1 <= gx1 < gx2 < x2 and y1 <= gy1 < gy2 < y2, (card, style)
        alpha = np.asarray(layer)[..., 3]
        assert (alpha[round(gy1) : round(gy2), round(gx1) : round(gx2)] > 0).sum() > 20
        if style not in ("tab", "circle", "patch", "diamond", "band", "sidebar"):
            # Bare, boxed, underlined, hollow or pip indexes: every drawn pixel is inside the box.
            ys, xs = np.nonzero(alpha)
            assert xs.max() < x2 and ys.max() < y2, (card, style)
        assert (x1, y1) == (0, 0) and x2 < CARD_W / 2 and y2 < CARD_H / 3
        assert face.shape == (CARD_H, CARD_W, 4)


@pytest.mark.parametrize(
    "glyph",
    [Glyph(stretch=0.7), Glyph(stretch=1.3, slant=0.3, weight=1), Glyph(slant=-0.1, weight=-1)],
    ids=str,
)
@pytest.mark.parametrize("style", ["plain", "outline", "patch", "pip"])
def test_bent_letterforms_stay_inside_the_index_box(glyph: Glyph, style: str) -> None:
    rng = np.random.default_rng(3)
    for card in CARDS:
        design = dataclasses.replace(random_design(rng, Split.TRAIN), corner_style=style, glyph=glyph)
        layer, (x1, y1, x2, y2), (gx1, gy1, gx2, gy2) = _corner_layer(
            card, design, (30, 80, 200), design.paper
        )
        assert x1 <= gx1 < gx2 < x2 and y1 <= gy1 < gy2 < y2, (card, style, glyph)
        alpha = np.asarray(layer)[..., 3]
        assert (alpha[round(gy1) : round(gy2), round(gx1) : round(gx2)] > 0).sum() > 20
        render_card(card, design, rng)


def test_only_training_designs_bend_their_letterforms() -> None:
    """Held-out designs print their fonts as they are, so the held-out set measures unseen faces."""
    rng = np.random.default_rng(9)
    train = [random_design(rng, Split.TRAIN).glyph for _ in range(200)]
    heldout = [random_design(rng, Split.HELDOUT).glyph for _ in range(200)]
    assert all(g == PLAIN_GLYPH for g in heldout)
    bent = [g for g in train if g != PLAIN_GLYPH]
    assert 0.5 < len(bent) / len(train) < 0.9
    assert min(g.stretch for g in bent) < 0.8 and max(g.stretch for g in bent) > 1.2
    assert {g.weight for g in bent} == {-1, 0, 1}


def test_training_designs_print_border_lines_clear_of_the_index() -> None:
    """Some training decks print a thin border just outside the index, so a stroke beside a 1 does not read as
    11; held-out designs never get one (drawn after everything else, the held-out pictures are unchanged)."""
    rng = np.random.default_rng(11)
    heldout = [random_design(rng, Split.HELDOUT) for _ in range(100)]
    assert all(d.border == (0, 0) for d in heldout)
    bordered = [d for d in (random_design(rng, Split.TRAIN) for _ in range(300)) if d.border[1]]
    assert 0.25 < len(bordered) / 300 < 0.45
    for d in bordered:
        inset, width = d.border
        assert 1 <= width <= 3 and inset >= 3
        assert inset + width <= min(d.index_x * CARD_W, d.index_y * CARD_H)
        plain = dataclasses.replace(d, frame=0, corner_style="plain", wear=0.0)
        face, _ = render_card(Card.number_card(1, Color.BLUE), plain, rng)
        line = face[CARD_H // 2, inset : inset + width, :3].astype(int)
        inside = face[CARD_H // 2, inset + width + 2, :3].astype(int)
        assert (line[:, 2] - line[:, 0]).max() > (inside[2] - inside[0]) + 40, "border not drawn"


def test_every_font_draws_every_index_symbol() -> None:
    from PIL import ImageFont

    for split in Split:
        for path in font_files(split):
            font = ImageFont.truetype(str(path), 40)
            for symbol in ("1", "6", "9", "10", "12", "W", "S"):
                x0, y0, x1, y1 = font.getbbox(symbol)
                assert x1 > x0 and y1 > y0, (path.name, symbol)


def test_held_out_pools_share_nothing_with_training() -> None:
    assert not set(font_files(Split.TRAIN)) & set(font_files(Split.HELDOUT))
    assert not set(TRAIN_CORNER_STYLES) & set(HELDOUT_CORNER_STYLES)
    assert not set(TRAIN_TEXTURES) & set(HELDOUT_TEXTURES)
    assert not set(BOLD_TEXTURES) & set(HELDOUT_TEXTURES)


def test_printed_cloths_are_bold_tables_and_leave_the_scenes_of_record_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``bold_tables`` lays training scenes on printed cloths (stripes, dots, blotches: issue 17, part 1, "more
    of your own"), whose colour edges run all over the table, as the quiet training tables' never do; the
    labels still mark indexes that are there. Held-out scenes keep their own tables, and without the option a
    scene is the one it always was."""
    import vision.scene

    drawn: list[str] = []
    real = vision.scene._texture

    def spy(kind: str, w: int, h: int, rng: np.random.Generator) -> np.ndarray:
        drawn.append(kind)
        return real(kind, w, h, rng)

    monkeypatch.setattr(vision.scene, "_texture", spy)
    for i, kind in enumerate(BOLD_TEXTURES):
        cloth = real(kind, 320, 240, np.random.default_rng(i))
        quiet = real(TRAIN_TEXTURES[i], 320, 240, np.random.default_rng(i))
        # Strong edges: many neighbouring pixels far apart in some channel, as on no quiet table.
        assert (np.abs(np.diff(cloth, axis=1)).max(axis=2) > 40).mean() > 0.01, kind
        assert (np.abs(np.diff(quiet, axis=1)).max(axis=2) > 40).mean() < 0.001, TRAIN_TEXTURES[i]
    for seed in range(12):
        drawn.clear()
        scene = make_scene(40_000 + seed, bold_tables=1.0)
        assert drawn == [drawn[0]] and drawn[0] in BOLD_TEXTURES
        for pc in scene.cards:
            if pc.visible:
                x1, y1, x2, y2 = (round(v) for v in pc.box)
                assert scene.image[y1:y2, x1:x2].astype(np.float32).std() > 12, (pc.card, pc.box)
        drawn.clear()
        make_scene(40_000 + seed, Split.HELDOUT, bold_tables=1.0)
        assert drawn[0] in HELDOUT_TEXTURES
    kinds = set()
    for seed in range(30):
        drawn.clear()
        make_scene(41_000 + seed, bold_tables=0.5)
        kinds.add(drawn[0] in BOLD_TEXTURES)
    assert kinds == {True, False}
    # Without the option the draw is untouched: the hands test below pins the groups of the scenes of record,
    # which an extra draw from the scene's generator would change.


def test_loose_throws_cards_further_askew_and_leaves_the_scenes_of_record_alone() -> None:
    """``loose`` throws more loose cards, each its own group and turned up to ``LOOSE_TILT`` degrees, where the
    usual draw turns one at most 25 (plus the camera's few): a card dropped on the table lies at any angle
    (issue 17, part 1, "more of your own"). Their labels mark indexes that are there; held-out scenes keep their
    own draw, so the figures of record stay comparable."""
    plain_loose, thrown_loose, askew = 0, 0, []
    for seed in range(12):
        plain = make_scene(42_000 + seed)
        thrown = make_scene(42_000 + seed, loose=1.0)
        plain_loose += sum(len(g) == 1 for g in plain.groups)
        thrown_loose += sum(len(g) == 1 for g in thrown.groups)
        askew += [pc.askew() for pc in thrown.cards]
        for pc in thrown.cards:
            if pc.visible:
                # The label turns with its card: its index box sits on the card, at the face's top-left corner
                # (or, for a card lying upside down, its far corner), however far the card is turned.
                x1, y1, x2, y2 = pc.box
                centre = np.array([(x1 + x2) / 2, (y1 + y2) / 2])
                width = float(np.linalg.norm(pc.outline[1] - pc.outline[0]))
                assert cv2.pointPolygonTest(pc.outline.astype(np.float32), tuple(centre), False) >= 0, pc.card
                corner = min(np.linalg.norm(pc.outline[i] - centre) for i in (0, 2))
                assert corner < 0.4 * width, (pc.card, pc.box)
        held = make_scene(42_000 + seed, Split.HELDOUT, loose=1.0)
        assert np.array_equal(held.image, make_scene(42_000 + seed, Split.HELDOUT).image)
    assert thrown_loose >= plain_loose + 12 * LOOSE_EXTRA[0] // 2
    # Further askew than the usual draw and the camera together ever turn a card (25 + 9 degrees).
    assert max(askew) > 34
    assert max(askew) <= LOOSE_TILT + 10


def test_lone_lays_more_cards_alone_nearly_upright_and_leaves_the_scenes_of_record_alone() -> None:
    """``lone`` lays more cards alone, each its own group and turned at most ``LONE_TILT`` degrees (plus the
    camera's few): players lay a hit or a Skip beside their phases, and a lone card was missed far more often
    than the same faces in a row (issue 17, part 1, "more of your own"). Its labels mark indexes that are there;
    held-out scenes keep their own draw."""
    plain_lone, laid_lone = 0, 0
    for seed in range(12):
        # No hand: it is planned after the lone cards, so the groups before them are the plain scene's.
        plain = make_scene(43_000 + seed, hands=0.0, loose=0.5)
        laid = make_scene(43_000 + seed, hands=0.0, loose=0.5, lone=1.0)
        plain_lone += sum(len(g) == 1 for g in plain.groups)
        laid_lone += sum(len(g) == 1 for g in laid.groups)
        assert laid.groups[: len(plain.groups)] == plain.groups
        extra = [pc for pc in laid.cards if pc.group >= len(plain.groups)]
        assert all(len(laid.groups[pc.group]) == 1 for pc in extra)  # none where the table is full
        # Nearly upright: the draw's turn and the camera's few degrees (a card upside down folds onto upright).
        assert all(pc.askew() <= LONE_TILT + 10 for pc in extra)
        for pc in extra:
            if pc.visible:
                x1, y1, x2, y2 = pc.box
                centre = ((x1 + x2) / 2, (y1 + y2) / 2)
                assert cv2.pointPolygonTest(pc.outline.astype(np.float32), centre, False) >= 0, pc.card
        held = make_scene(43_000 + seed, Split.HELDOUT, lone=1.0)
        assert np.array_equal(held.image, make_scene(43_000 + seed, Split.HELDOUT).image)
    assert laid_lone >= plain_lone + 12 * LONE_EXTRA[0] // 2


def test_dev_designs_are_neither_training_nor_held_out_ones() -> None:
    """Models are chosen on the dev split's unseen faces, so it must share no font or corner style with either."""
    dev_fonts = set(font_files(Split.DEV))
    assert len(dev_fonts) >= 6
    assert not dev_fonts & (set(font_files(Split.TRAIN)) | set(font_files(Split.HELDOUT)))
    assert not set(DEV_CORNER_STYLES) & set(TRAIN_CORNER_STYLES + HELDOUT_CORNER_STYLES)
    rng = np.random.default_rng(3)
    designs = [random_design(rng, Split.DEV) for _ in range(60)]
    assert {d.corner_style for d in designs} == set(DEV_CORNER_STYLES)
    assert all(d.glyph == PLAIN_GLYPH and d.border == (0, 0) for d in designs)


def test_same_seed_same_scene() -> None:
    a, b = make_scene(42), make_scene(42)
    assert np.array_equal(a.image, b.image)
    assert yolo_lines(a) == yolo_lines(b)


@pytest.mark.parametrize("seed", range(8))
def test_labels_mark_visible_card_corners(seed: int) -> None:
    scene = make_scene(10_000 + seed, Split.TRAIN if seed % 2 else Split.HELDOUT)
    h, w = scene.image.shape[:2]
    lines = yolo_lines(scene)
    assert len(lines) == sum(pc.visible for pc in scene.cards)
    assert sum(len(g) for g in scene.groups) == len(scene.cards)
    for line in lines:
        cls, cx, cy, bw, bh = line.split()
        assert cls == "0"
        assert 0 < float(cx) < 1 and 0 < float(cy) < 1 and 0 < float(bw) < 0.5 and 0 < float(bh) < 0.5
    for pc in scene.cards:
        if not pc.visible:
            continue
        x1, y1, x2, y2 = (round(v) for v in pc.box)
        crop = scene.image[y1:y2, x1:x2].astype(np.float32)
        # A printed index has strong contrast (ink against paper or patch); bare table texture mostly does not.
        assert crop.std() > 12, (pc.card, pc.box)
        assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h


def test_hands_option_draws_hand_fans_and_leaves_the_original_scenes_alone() -> None:
    # Hands held in a fan were drawn on about 1 % of training scenes (the hand seldom fitted at its one place),
    # yet 17 of the 600 dev scenes show one and 11 of those were read wrong. ``hands`` draws them on purpose.
    # Without it a scene is the one it always was, so the data sets and figures of record stay reproducible:
    # these are the groups of the first training, held-out and dev scenes as they were rendered.
    assert [[str(c) for c in g] for g in make_scene(0).groups] == [
        ["Y1", "R1", "Y3", "R2", "B4", "Y12", "G10", "G5"],
        ["Y8"],
        ["G9"],
    ]
    assert [[str(c) for c in g] for g in make_scene(900_000, Split.HELDOUT).groups] == [
        ["B10", "B8", "G9", "R2", "B12", "Y3", "R4", "G9", "R7"],
        ["R10"],
        ["B3"],
    ]
    assert [[str(c) for c in g] for g in make_scene(800_000, Split.DEV).groups] == [
        ["G3", "R6", "R8", "G11"],
        ["R2", "B2", "G1", "B11", "B10", "S", "R4"],
    ]
    hands = 0
    for seed in range(20):
        never, always = make_scene(30_000 + seed, hands=0.0), make_scene(30_000 + seed, hands=1.0)
        # Rows and loose cards are drawn before the hand: the same in both; the hand, if it fits, comes last.
        assert always.groups[: len(never.groups)] == never.groups
        extra = always.groups[len(never.groups) :]
        assert len(extra) <= 1
        if extra:
            hands += 1
            assert 3 <= len(extra[0]) <= 7
            fan = [pc for pc in always.cards if pc.group == len(never.groups)]
            assert sum(pc.visible for pc in fan) >= 2  # at least the top card and its neighbour show
    assert hands >= 8  # about half the scenes have room for one


def test_fanned_groups_come_in_table_order() -> None:
    for seed in range(20):
        scene = make_scene(20_000 + seed)
        for gi, group in enumerate(scene.groups):
            placed = [pc for pc in scene.cards if pc.group == gi]
            assert [pc.card for pc in placed] == group
            if len(group) > 1 and all(pc.visible for pc in placed):
                xs = [pc.box[0] for pc in placed]
                # A fan runs left to right on the table; the camera turns it by 10 degrees at most.
                assert sum(b > a for a, b in itertools.pairwise(xs)) >= len(xs) - 2


def test_vignettes_label_their_cards_and_draw_training_designs_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Vignettes (a few cards, each its own design) feed the classifier: same seed same picture, every visible
    index labelled inside the picture, and only training pools used, so the held-out set stays unseen."""
    import vision.scene
    from vision.crops import CLASS_OF, NONE_CLASS
    from vision.dataset import _vignette_crops

    splits: list[Split] = []
    real = vision.scene.random_design

    def spy(rng: np.random.Generator, split: Split):
        splits.append(split)
        return real(rng, split)

    monkeypatch.setattr(vision.scene, "random_design", spy)
    a, b = make_vignette(7), make_vignette(7)
    assert np.array_equal(a.image, b.image) and a.image.shape == (VIGNETTE, VIGNETTE, 3)
    visible = 0
    for seed in range(12):
        v = make_vignette(seed)
        assert 1 <= len(v.cards) <= 4
        for pc in v.cards:
            if pc.visible:
                visible += 1
                x0, y0, x1, y1 = pc.box
                assert 0 <= x0 < x1 < VIGNETTE and 0 <= y0 < y1 < VIGNETTE
    assert visible >= 12
    assert splits and set(splits) == {Split.TRAIN}
    x, y = _vignette_crops((range(12), None))
    assert len(x) == len(y)
    cards = y[y != NONE_CLASS]
    assert len(cards) == 2 * visible  # two jittered views of each visible index
    assert set(cards) <= set(CLASS_OF.values()) and (y == NONE_CLASS).any()


@pytest.mark.parametrize("seed", range(6))
def test_score_pad_numbers_are_boxed_as_what_an_index_is_not(seed: int) -> None:
    """Numbers written on a score pad next to the cards were read as cards on unseen faces (most of the dev
    scenes' false readings), so the scene marks each one for the classifier's "none" class: every box holds
    ink and together they hold nearly all of it."""
    img, boxes = _distractor("pad", np.random.default_rng(seed))
    ink = img[..., :3].astype(int).sum(axis=-1) < 450  # paper sums to 640 or 735, ink to 310 at most
    covered = np.zeros_like(ink)
    assert boxes
    for x0, y0, x1, y1 in boxes:
        box = (slice(max(int(y0), 0), int(y1) + 1), slice(max(int(x0), 0), int(x1) + 1))
        assert ink[box].any()
        covered[box] = True
    assert ink[~covered].sum() <= 0.02 * ink.sum()
    for kind in ("coin", "pen", "die"):
        assert _distractor(kind, np.random.default_rng(seed))[1] == []
