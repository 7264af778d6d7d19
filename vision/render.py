"""Procedural Phase 10 card faces (our own drawing, no copied artwork).

Every face is drawn from a random *design*: font, colour shades, corner style, frame, centre style, paper tone
and wear, so that a model trained on these faces learns numbers and colours rather than one drawing. Fonts,
corner styles and (in ``vision.scene``) table textures are split into a training pool and a held-out pool, so the
held-out test set shows the model designs it has never seen.

A rendered face comes with the *index box*: the card's top-left corner region holding the small index, in card
pixels. That region is what the detector looks for, because it stays visible when cards are fanned.
"""

from __future__ import annotations

import colorsys
import dataclasses
import enum
import functools
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont

from companion.rules.cards import Card, Color, Kind

CARD_W = 240
CARD_H = 372  # 57 x 89 mm, the size of a Phase 10 card

# Printed colours as RGB, before per-design shade jitter.
INKS: dict[Color, tuple[int, int, int]] = {
    Color.RED: (212, 32, 38),
    Color.BLUE: (28, 78, 190),
    Color.GREEN: (22, 150, 64),
    Color.YELLOW: (236, 178, 0),
}


class Split(enum.Enum):
    """Which pool of fonts, corner styles and textures a scene draws from."""

    TRAIN = "train"
    HELDOUT = "heldout"
    # Designs neither training nor the held-out set uses, for choosing between models on unseen faces
    # without spending the held-out set on it.
    DEV = "dev"


# Corner styles: how the small index is printed ("plain" is listed twice: it is the commonest print). The
# held-out styles are only ever used for held-out scenes.
TRAIN_CORNER_STYLES = (
    "plain",
    "plain",
    "patch",
    "tab",
    "underlined",
    "diamond",  # a coloured diamond, the index in paper colour
    "band",  # a coloured band across the card's top edge, the index in paper colour
    "sidebar",  # a coloured stripe down the card's long edge, the index beside it
    "pip",  # a small coloured dot, diamond or star under the index
    "outline",  # hollow letters: coloured outline, paper inside
    "ruled",  # a corner panel: a rule down the index's right side, on some decks one across under it as well
)
HELDOUT_CORNER_STYLES = ("circle", "boxed")
DEV_CORNER_STYLES = (
    "shadowed",  # the index with a grey drop shadow
    "dotted",  # a row of dots under the index
)
# Styles that paint up to the card's edge and so are clipped to its rounded outline.
_EDGE_STYLES = ("diamond", "band", "sidebar", "corner", "triangle")

_FONT_DIRS = (Path("/usr/share/fonts/truetype"), Path("/usr/share/fonts/opentype"))
# Latin text faces only (the Noto package also ships scripts without digits). Held-out families never appear
# in training scenes.
_TRAIN_FONT_PREFIXES = (
    "DejaVuSans.",
    "DejaVuSans-Bold.",
    "DejaVuSans-Oblique",
    "DejaVuSansMono",
    "DejaVuSerif.",
    "DejaVuSerif-Bold.",
    "DejaVuSansCondensed",
    "LiberationSans-",
    "LiberationMono-",
    "LiberationSerif-Bold.",
    "FreeSans",
    "FreeMonoBold",
    "NotoSans-",
    "cmss10",
    # Wider variety, above all serif faces, so the classifier meets more letterforms than two or three families
    # (fonts-urw-base35, fonts-roboto-unhinted, fonts-lato, fonts-open-sans, fonts-crosextra-*, fonts-cantarell).
    # Hairline/thin weights are left out (a worn corner of them is barely ink), so are URW's symbol, dingbat and
    # script faces, and two faces too close to held-out ones: Nimbus Roman (FreeSerif is made from it) and
    # Nimbus Sans Narrow (the same narrow grotesque as Liberation Sans Narrow).
    "C059-",
    "P052-",
    "URWBookman-",
    "URWGothic-",
    "NimbusSans-",
    "NimbusMonoPS-",
    "Caladea-",
    "Carlito-",
    "Cantarell-Regular",
    "Cantarell-Bold",
    "Cantarell-ExtraBold",
    "Roboto-Regular",
    "Roboto-Italic",
    "Roboto-Medium",
    "Roboto-Bold",
    "Roboto-Black",
    "Roboto-Light.",
    "RobotoCondensed-Regular",
    "RobotoCondensed-Bold.",
    "RobotoCondensed-Italic",
    "Lato-Regular",
    "Lato-Italic",
    "Lato-Bold.",
    "Lato-Black.",
    "Lato-Medium.",
    "OpenSans-Regular",
    "OpenSans-Italic",
    "OpenSans-Semibold.",
    "OpenSans-Bold.",
    "OpenSans-ExtraBold.",
    "OpenSans-CondBold",
    # More letterforms still, since unfamiliar digits were what the reader lost most on unseen faces
    # (fonts-inter, -firacode, -hack, -jetbrains-mono, -cabin, -comfortaa, -quicksand, -oxygen, -league-spartan,
    # -bebas-neue, -sil-andika, -go, -manrope, -b612, -roboto-slab, -paratype, -jura, -sora, -tuffy, -mononoki,
    # -sil-charis, -linuxlibertine, -yanone-kaffeesatz, -averia-sans-gwf): rounded, geometric,
    # humanist, slab, monospaced and condensed display faces. Left out: narrow faces like the held-out Liberation
    # Sans Narrow (PT Sans Narrow), Times-like serifs next to the held-out Liberation Serif and FreeSerif, and
    # Vollkorn, whose old-style 1 looks like a capital I.
    "Inter-Regular",
    "Inter-SemiBold.",
    "Inter-Black.",
    "Inter-Italic",
    "FiraCode-Regular",
    "FiraCode-Bold",
    "Hack-Regular",
    "Hack-Bold.",
    "JetBrainsMono-Regular",
    "JetBrainsMono-ExtraBold.",
    "Cabin-Regular",
    "Cabin-Bold.",
    "Comfortaa-Regular",
    "Comfortaa-Bold",
    "Quicksand-Medium",
    "Quicksand-Bold",
    "Oxygen-Sans",
    "LeagueSpartan-Regular",
    "LeagueSpartan-Bold",
    "BebasNeue-Regular",
    "BebasNeue-Bold",
    "Andika-Regular",
    "Andika-Bold.",
    "Go-Regular",
    "Go-Bold.",
    "Go-Mono.",
    "Manrope-Regular",
    "Manrope-ExtraBold",
    "B612-Regular",
    "B612-Bold.",
    "B612Mono-Regular",
    "RobotoSlab-Regular",
    "RobotoSlab-Bold",
    "PTS55F",
    "PTS75F",
    "PTF55F",
    "PTF75F",
    "PTM55F",
    "Jura-Medium",
    "Jura-Bold",
    "Sora-Regular",
    "Sora-Bold",
    "Tuffy.",
    "Tuffy_Bold.",
    "mononoki-Regular",
    "mononoki-Bold.",
    "CharisSIL-Regular",
    "CharisSIL-Bold.",
    "LinBiolinum_R.",
    "LinBiolinum_RB",
    "LinLibertine_R.",
    "LinLibertine_RB.",
    "YanoneKaffeesatz-Regular",
    "YanoneKaffeesatz-Bold",
    "AveriaSansGWF-Regular",
    "AveriaSansGWF-Bold.",
)
_HELDOUT_FONT_PREFIXES = (
    "LiberationSansNarrow-",
    "FreeSerif",
    "NotoSerif-",
    "DejaVuSerifCondensed",
    "DejaVuSerif-Italic",
    "LiberationSerif-Regular",
)

# Faces left out of both pools, for the dev split: Computer Modern, STIX and a few italics.
_DEV_FONT_PREFIXES = (
    "cmr10",
    "cmb10",
    "cmtt10",
    "STIXGeneral.",
    "STIXGeneralBol.",
    "FreeMono.",
    "DejaVuSerif-BoldItalic",
    "LiberationSerif-Italic",
    "Lato-Heavy.",
    "RobotoCondensed-Medium.",
)
_FONT_PREFIXES = {
    Split.TRAIN: _TRAIN_FONT_PREFIXES,
    Split.HELDOUT: _HELDOUT_FONT_PREFIXES,
    Split.DEV: _DEV_FONT_PREFIXES,
}
_CORNER_STYLES = {
    Split.TRAIN: TRAIN_CORNER_STYLES,
    Split.HELDOUT: HELDOUT_CORNER_STYLES,
    Split.DEV: DEV_CORNER_STYLES,
}


def _font_dirs() -> list[Path]:
    dirs = [d for d in _FONT_DIRS if d.is_dir()]
    try:
        import matplotlib

        dirs.append(Path(matplotlib.get_data_path()) / "fonts" / "ttf")
    except ImportError:  # pragma: no cover - matplotlib comes with the train extra
        pass
    return dirs


@functools.cache
def font_files(split: Split) -> tuple[Path, ...]:
    """Font files of a pool, found on this machine (DejaVu always, Debian families when installed)."""
    prefixes = _FONT_PREFIXES[split]
    found: dict[str, Path] = {}
    for d in _font_dirs():
        for p in sorted(d.rglob("*.[ot]tf")):
            if p.name.startswith(prefixes) and "Display" not in p.name and p.name not in found:
                found[p.name] = p
    if not found and split is not Split.TRAIN:
        # Without the Debian fonts this pool would be empty; fall back to a face training rarely uses.
        return font_files(Split.TRAIN)[-1:]
    if not found:
        raise RuntimeError("no fonts found: install matplotlib (train extra) or the Debian font packages")
    return tuple(found.values())


@functools.lru_cache(maxsize=256)
def _font(path: Path, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(path), size)


RGB = tuple[int, int, int]
Ink = tuple[int, ...]  # RGB, or RGBA where the ink is see-through


@dataclass(frozen=True, slots=True)
class Glyph:
    """How a design bends its font's letterforms, so a few dozen font files stand for many more faces:
    narrower or wider, slanted, lighter or bolder. Training designs only; held-out designs print their fonts
    as they are."""

    stretch: float = 1.0  # horizontal scale of the letters
    slant: float = 0.0  # horizontal shift per unit of height (positive leans right, like an italic)
    weight: int = 0  # -1 thinner strokes, +1 bolder


PLAIN_GLYPH = Glyph()


@dataclass(frozen=True, slots=True)
class Design:
    """Everything random about how a face is drawn, drawn once per card (or per deck)."""

    font: Path
    corner_style: str
    paper: tuple[int, int, int]
    radius: int
    frame: int  # 0 = no frame, else frame thickness in px
    centre_style: str  # "plain" | "oval" | "shadow", or a family's: "word", "logo", "medallion", "picture"
    index_height: float  # fraction of card height
    index_x: float
    index_y: float
    shade: float  # ink darkening/lightening factor
    wear: float
    special_style: int  # which Wild/Skip face
    glyph: Glyph = PLAIN_GLYPH
    # A thin printed border line inside the card's edge: (inset, width) in card pixels, width 0 for none. Many
    # decks print one; it runs just left of and above the index, where a stroke must not read as a digit.
    border: tuple[int, int] = (0, 0)
    # What the deck families of ``vision.families`` vary; the defaults draw the original renderer's designs.
    palette: tuple[RGB, RGB, RGB, RGB] | None = None  # the deck's red, blue, green and yellow inks
    face: str = "paper"  # number cards: "paper", "colour" (the face in the card's ink), "dark" or "tint"
    tint: float = 0.25  # with "tint", how much of the card's ink the pale face holds
    dark: RGB = (22, 22, 26)  # the face of a dark deck
    face_margin: int = 6  # the paper rim around a coloured or dark face
    four_corners: bool = False  # an upright index top right as well (and so upside down bottom left)
    colour_mark: bool = False  # a colour-blind shape under the index, one shape per colour
    wild_mark: str = "word"  # "word" (W, WILD across), "letter" (W, a big W), "star" or "joker" (drawn icons)
    skip_mark: str = (
        "word"  # "word" (S, SKIP across), "letter" (S, a big S) or "symbol" (a circle struck through)
    )
    special_ink: str = "fixed"  # "fixed": the three original Wild/Skip faces; "deck": in the deck's own inks
    wild_black: bool = False  # with "deck" ink, Wilds in black rather than one of the four colours
    print_texture: str = (
        "none"  # "none", "halftone" (a printer's dot screen) or "scan" (paper grain, soft ink)
    )


def random_design(rng: np.random.Generator, split: Split) -> Design:
    fonts = font_files(split)
    styles = _CORNER_STYLES[split]
    tone = rng.uniform(228, 255)
    tint = rng.normal(0, 4, 3)
    paper = tuple(int(np.clip(tone + t, 200, 255)) for t in tint)
    design = Design(
        font=fonts[int(rng.integers(len(fonts)))],
        corner_style=str(styles[int(rng.integers(len(styles)))]),
        paper=(paper[0], paper[1], paper[2]),
        radius=int(rng.integers(8, 26)),
        frame=int(rng.choice([0, 0, 4, 7, 10])),
        centre_style=str(rng.choice(["plain", "plain", "oval", "shadow"])),
        index_height=float(rng.uniform(0.09, 0.14)),
        index_x=float(rng.uniform(0.05, 0.10)),
        index_y=float(rng.uniform(0.035, 0.075)),
        shade=float(rng.uniform(0.8, 1.12)),
        wear=float(rng.uniform(0, 1) ** 2),
        special_style=int(rng.integers(3)),
    )
    if split is Split.TRAIN:
        # Drawn after everything else (and never for held-out designs), so held-out scenes stay the same pictures.
        r = rng.random(3)
        glyph = Glyph(
            stretch=float(rng.uniform(0.7, 1.3)) if r[0] < 0.5 else 1.0,
            slant=float(rng.uniform(-0.1, 0.3)) if r[1] < 0.3 else 0.0,
            weight=int(rng.choice([-1, 1])) if r[2] < 0.35 else 0,
        )
        design = dataclasses.replace(design, glyph=glyph)
        if rng.random() < 0.35:
            # Between the card's edge and the index, 2-9 px clear of the index.
            clear = min(design.index_x * CARD_W, design.index_y * CARD_H)
            inset = max(3, int(clear - rng.uniform(2, 9)))
            design = dataclasses.replace(design, border=(inset, int(rng.integers(1, 4))))
    return design


_COLOUR_ORDER = (Color.RED, Color.BLUE, Color.GREEN, Color.YELLOW)


def inks(design: Design) -> dict[Color, RGB]:
    """The deck's printed colours, before per-card jitter."""
    if design.palette is None:
        return INKS
    return dict(zip(_COLOUR_ORDER, design.palette, strict=True))


def _ink(color: Color, design: Design, rng: np.random.Generator) -> RGB:
    base = np.array(inks(design)[color], dtype=float) * design.shade + rng.normal(0, 8, 3)
    r, g, b = (int(v) for v in np.clip(base, 0, 255))
    return (r, g, b)


def _symbol(card: Card) -> str:
    if card.kind is Kind.WILD:
        return "W"
    if card.kind is Kind.SKIP:
        return "S"
    return str(card.number)


def _fit_font(path: Path, text: str, max_w: float, max_h: float) -> ImageFont.FreeTypeFont:
    """Largest size whose ink box fits ``max_w`` x ``max_h``."""
    size = max(8, int(max_h * 1.3))
    while size > 8:
        font = _font(path, size)
        x0, y0, x1, y1 = font.getbbox(text, anchor="lt")
        if x1 - x0 <= max_w and y1 - y0 <= max_h:
            return font
        size = int(size * 0.92)
    return _font(path, 8)


def _draw_text_ink(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    font: ImageFont.FreeTypeFont,
    fill: Ink,
    stroke: int = 0,
    stroke_fill: Ink | None = None,
) -> None:
    """Draw ``text`` so that its *ink* box starts at ``xy`` (PIL anchors on the em box, not the ink)."""
    x0, y0, _, _ = font.getbbox(text, anchor="lt", stroke_width=stroke)
    draw.text(
        (xy[0] - x0, xy[1] - y0),
        text,
        font=font,
        fill=fill,
        anchor="lt",
        stroke_width=stroke,
        stroke_fill=stroke_fill,
    )


def _glyph_mask(text: str, font: ImageFont.FreeTypeFont, glyph: Glyph) -> Image.Image:
    """The ink of ``text`` as an "L" mask cropped to the ink, bent as ``glyph`` says."""
    x0, y0, x1, y1 = font.getbbox(text, anchor="lt")
    pad = 4
    w, h = x1 - x0 + 2 * pad, y1 - y0 + 2 * pad
    mask = Image.new("L", (int(w), int(h)), 0)
    ImageDraw.Draw(mask).text((pad - x0, pad - y0), text, font=font, fill=255, anchor="lt")
    if glyph.stretch != 1.0 or glyph.slant != 0.0:
        sx, k = glyph.stretch, glyph.slant
        # Forward map x' = sx*x - k*y + c (y unchanged), shifted so that nothing falls off the left.
        xs = [sx * x - k * y for x in (0, w) for y in (0, h)]
        c = -min(xs)
        out_w = int(np.ceil(max(xs) + c)) + 1
        mask = mask.transform(
            (out_w, int(h)),
            Image.Transform.AFFINE,
            (1 / sx, k / sx, -c / sx, 0, 1, 0),
            Image.Resampling.BILINEAR,
        )
    if glyph.weight > 0:
        mask = mask.filter(ImageFilter.MaxFilter(3 if h < 90 else 5))
    elif glyph.weight < 0:
        thin = mask.filter(ImageFilter.MinFilter(3 if h < 90 else 5))
        # Thinning a face that is light already breaks its strokes apart: keep it only while most ink stays.
        if np.asarray(thin, np.float32).sum() > 0.55 * np.asarray(mask, np.float32).sum():
            mask = thin
    bbox = mask.getbbox()
    if bbox is None:  # thinned away entirely (a hairline at a tiny size): print the face as it is
        return _glyph_mask(text, font, PLAIN_GLYPH) if glyph != PLAIN_GLYPH else mask
    return mask.crop(bbox)


def _paint_mask(img: Image.Image, xy: tuple[float, float], mask: Image.Image, fill: Ink) -> None:
    """Composite ``fill`` through ``mask`` onto ``img`` with the mask's top-left at ``xy`` (clipped)."""
    solid = Image.new("RGBA", mask.size, (*fill[:3], 255))
    solid.putalpha(mask)
    dx, dy = round(xy[0]), round(xy[1])
    sx, sy = max(0, -dx), max(0, -dy)
    if sx >= mask.size[0] or sy >= mask.size[1]:
        return
    img.alpha_composite(solid, dest=(dx + sx, dy + sy), source=(sx, sy))


@dataclass(frozen=True, slots=True)
class _Figure:
    """A number or letter set in a design's font, fitted to a box: drawn straight from the font when the design
    prints its letters as they are (always for held-out designs), else through an ink mask (bent or hollow)."""

    text: str
    font: ImageFont.FreeTypeFont
    mask: Image.Image | None
    width: float
    height: float

    @classmethod
    def fit(cls, text: str, design: Design, max_w: float, max_h: float, *, hollow: bool = False) -> _Figure:
        if design.glyph == PLAIN_GLYPH and not hollow:
            font = _fit_font(design.font, text, max_w, max_h)
            x0, y0, x1, y1 = font.getbbox(text, anchor="lt")
            return cls(text, font, None, x1 - x0, y1 - y0)
        font = _fit_font(design.font, text, max_w / design.glyph.stretch, max_h)
        mask = _glyph_mask(text, font, design.glyph)
        if hollow:
            ring = 3 if mask.size[1] < 45 else 5
            mask = ImageChops.subtract(mask.filter(ImageFilter.MaxFilter(ring)), mask)
            mask = mask.crop(mask.getbbox())
        return cls(text, font, mask, *mask.size)

    def put(self, img: Image.Image, xy: tuple[float, float], fill: Ink) -> None:
        """Draw with the ink's top-left at ``xy``."""
        if self.mask is None:
            _draw_text_ink(ImageDraw.Draw(img), xy, self.text, self.font, fill)
        else:
            _paint_mask(img, xy, self.mask, fill)


def _special_palette(card: Card, design: Design) -> tuple[RGB, RGB]:
    """(face colour, text colour) of a Wild or Skip card in the three original looks."""
    if card.kind is Kind.WILD:
        faces = [
            ((20, 20, 24), (250, 250, 250)),
            ((30, 30, 90), (255, 255, 255)),
            (design.paper, (20, 20, 20)),
        ]
    else:
        faces = [
            ((28, 78, 190), (255, 255, 255)),
            ((15, 15, 15), (235, 235, 235)),
            (design.paper, (28, 60, 160)),
        ]
    return faces[design.special_style]


def _looks(card: Card, design: Design, rng: np.random.Generator) -> tuple[RGB, RGB]:
    """(face colour, colour of the figures) of one card."""
    if card.kind is not Kind.NUMBER and design.special_ink == "fixed":
        return _special_palette(card, design)
    if card.kind is Kind.NUMBER:
        assert card.color is not None
        ink = _ink(card.color, design, rng)
    elif card.kind is Kind.WILD:
        # Printed decks colour their Wilds like the numbers (two of each colour) or print them black.
        black = (24, 24, 28) if design.face != "dark" else (236, 236, 236)
        ink = black if design.wild_black else _ink(_COLOUR_ORDER[int(rng.integers(4))], design, rng)
    else:
        ink = _ink(Color.BLUE, design, rng)  # a Skip is printed blue on most decks
    if design.face == "colour":
        return ink, design.paper
    if design.face == "dark":
        return design.dark, ink
    if design.face == "tint" and not (card.kind is Kind.WILD and design.wild_black):
        # A pale wash of the card's ink over the face, the figures in a deeper shade of it so that they stand
        # out even where the ink is light (a yellow printed ochre on pale yellow).
        wash = tuple(round(p + design.tint * (i - p)) for p, i in zip(design.paper, ink, strict=True))
        deep = tuple(round(0.72 * i) for i in ink)
        return (wash[0], wash[1], wash[2]), (deep[0], deep[1], deep[2])
    return design.paper, ink


def _mark(card: Card, design: Design) -> str:
    """How a card's kind is printed: "number", or a Wild's or Skip's mark."""
    if card.kind is Kind.WILD:
        return design.wild_mark
    if card.kind is Kind.SKIP:
        return design.skip_mark
    return "number"


_ICONS = ("star", "joker", "symbol")


def _icon_mask(kind: str, w: int, h: int) -> Image.Image:
    """A Wild's star or jester's hat, or a Skip's struck-through circle, as an "L" mask cropped to its ink;
    drawn four times larger and shrunk, for smooth edges."""
    k = 4
    W, H = max(4, w) * k, max(4, h) * k
    mask = Image.new("L", (W, H), 0)
    draw = ImageDraw.Draw(mask)
    if kind == "star":
        cx, cy, r = W / 2, H / 2, min(W, H) / 2
        pts = [
            (
                cx + (r if i % 2 == 0 else 0.42 * r) * np.sin(np.pi * i / 5),
                cy - (r if i % 2 == 0 else 0.42 * r) * np.cos(np.pi * i / 5),
            )
            for i in range(10)
        ]
        draw.polygon(pts, fill=255)
    elif kind == "joker":
        ball = 0.08 * W
        draw.polygon(
            [
                (0.14 * W, 0.76 * H),
                (0.08 * W, 0.2 * H),
                (0.36 * W, 0.56 * H),
                (0.5 * W, 0.1 * H),
                (0.64 * W, 0.56 * H),
                (0.92 * W, 0.2 * H),
                (0.86 * W, 0.76 * H),
            ],
            fill=255,
        )
        draw.rectangle((0.12 * W, 0.76 * H, 0.88 * W, 0.98 * H), fill=255)
        for x, y in ((0.08 * W, 0.2 * H), (0.5 * W, 0.1 * H), (0.92 * W, 0.2 * H)):
            draw.ellipse((x - ball, y - ball, x + ball, y + ball), fill=255)
    elif kind == "symbol":
        s = min(W, H)
        x0, y0 = (W - s) / 2, (H - s) / 2
        stroke = 0.16 * s
        draw.ellipse((x0, y0, x0 + s, y0 + s), fill=255)
        draw.ellipse((x0 + stroke, y0 + stroke, x0 + s - stroke, y0 + s - stroke), fill=0)
        d = 0.5 * s * 0.7071
        c = (x0 + s / 2, y0 + s / 2)
        draw.line((c[0] + d, c[1] - d, c[0] - d, c[1] + d), fill=255, width=int(stroke))
    else:
        raise ValueError(f"unknown icon {kind!r}")
    mask = mask.resize((W // k, H // k), Image.Resampling.LANCZOS)
    return mask.crop(mask.getbbox())


def _index_figure(card: Card, design: Design, max_w: float, h: float, *, hollow: bool) -> _Figure:
    mark = _mark(card, design)
    if mark in _ICONS:
        mask = _icon_mask(mark, round(h * (1.15 if mark == "joker" else 1.0)), round(h))
        return _Figure(_symbol(card), _font(design.font, 12), mask, *mask.size)
    return _Figure.fit(_symbol(card), design, max_w, h, hollow=hollow)


# Corner styles that print the index in the face's colour on a shape in the card's ink.
_SHAPE_STYLES = ("patch", "circle", "tab", "diamond", "band", "block", "corner", "triangle")
Box = tuple[float, float, float, float]


def _shape_corner(
    layer: Image.Image, figure: _Figure, style: str, at: tuple[float, float], pad: float, fill: RGB, text: RGB
) -> Box:
    """Draw a coloured shape holding the index; returns the corner region it marks."""
    draw = ImageDraw.Draw(layer)
    (ix, iy), tw, th = at, figure.width, figure.height
    far = (ix + tw + pad, iy + th + pad)  # the index's far corner, padded
    bx: Box
    if style in ("patch", "block"):
        bx = (ix - pad, iy - pad, *far)
        if style == "patch":
            draw.rounded_rectangle(bx, radius=int(pad), fill=fill)
        else:
            draw.rectangle(bx, fill=fill)
    elif style == "circle":
        cx, cy = ix + tw / 2, iy + th / 2
        r = max(tw, th) / 2 + pad
        bx = (cx - r, cy - r, cx + r, cy + r)
        draw.ellipse(bx, fill=fill)
    elif style == "diamond":
        cx, cy = ix + tw / 2, iy + th / 2
        r = (tw + th) / 2 + pad / 2
        draw.polygon([(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)], fill=fill)
        bx = (cx - r, cy - r, cx + r, cy + r)
    elif style == "band":
        draw.rectangle((0, 0, CARD_W, far[1]), fill=fill)
        bx = (0, 0, *far)
    elif style == "corner":
        draw.rectangle((0, 0, *far), fill=fill)
        bx = (0, 0, *far)
    elif style == "triangle":
        # The long side passes outside the index's far corner: legs twice as long as that corner is far.
        draw.polygon([(0, 0), (2 * far[0], 0), (0, 2 * far[1])], fill=fill)
        bx = (0, 0, *far)
    else:  # "tab": a quarter ellipse through the index's far corner, scaled so the whole index sits inside
        rx, ry = far[0] * 1.45, far[1] * 1.45
        draw.pieslice((-rx, -ry, rx, ry), 0, 90, fill=fill)
        bx = (0, 0, *far)
    figure.put(layer, (ix, iy), text)
    return bx


def _ink_corner(
    layer: Image.Image, figure: _Figure, style: str, at: tuple[float, float], pad: float, fill: RGB, odd: bool
) -> Box:
    """Draw the index in ink, bare or with a rule, frame, dots or pip; returns the corner region it marks."""
    draw = ImageDraw.Draw(layer)
    (ix, iy), tw, th = at, figure.width, figure.height
    if style == "sidebar":
        draw.rectangle((0, 0, 0.55 * ix, CARD_H), fill=fill)
    if style == "shadowed":
        off = max(2.0, 0.07 * th)
        figure.put(layer, (ix + off, iy + off), (110, 110, 110, 160))
    figure.put(layer, (ix, iy), fill)
    bx: Box = (ix, iy, ix + tw, iy + th)
    if style == "boxed":
        bx = (ix - pad, iy - pad, ix + tw + pad, iy + th + pad)
        draw.rectangle(bx, outline=fill, width=max(2, int(pad / 2.5)))
    elif style == "underlined":
        uy = iy + th + pad * 0.6
        draw.line((ix, uy, ix + tw, uy), fill=fill, width=max(2, int(th / 10)))
        bx = (ix, iy, ix + tw, uy + 2)
    elif style == "ruled":
        lw = max(2, int(th / 12))
        rx, by = ix + tw + pad, iy + th + pad
        draw.line((rx, 0, rx, by), fill=fill, width=lw)
        if odd:
            draw.line((0, by, rx, by), fill=fill, width=lw)
        bx = (ix, iy, rx + lw, by + lw)
    elif style == "dotted":
        dot = max(2.0, 0.09 * th)
        cy = iy + th + pad * 0.7
        n = max(3, round(tw / (2.2 * dot)))
        for k in range(n):
            cx = ix + dot / 2 + k * (tw - dot) / max(n - 1, 1)
            draw.ellipse((cx - dot / 2, cy - dot / 2, cx + dot / 2, cy + dot / 2), fill=fill)
        bx = (ix, iy, ix + tw, cy + dot / 2)
    elif style == "pip":
        size = max(4.0, 0.3 * th)
        cx, cy = ix + tw / 2, iy + th + pad * 0.5 + size / 2
        sides = (
            len(figure.text) + int(fill[0]) + int(fill[2])
        ) % 3  # a dot, a diamond or a star, fixed per ink
        if sides == 0:
            draw.ellipse((cx - size / 2, cy - size / 2, cx + size / 2, cy + size / 2), fill=fill)
        else:
            draw.regular_polygon((cx, cy, size / 2), 4 if sides == 1 else 5, fill=fill)
        bx = (ix, iy, ix + tw, cy + size / 2)
    return bx


# Colour-blind decks print a shape beside the number, one per colour.
_COLOUR_SHAPES = {Color.RED: "circle", Color.BLUE: "square", Color.GREEN: "triangle", Color.YELLOW: "diamond"}


def _colour_mark(layer: Image.Image, color: Color, glyph: Box, below: float, fill: RGB) -> Box:
    """Draw the colour's shape centred under the index, its top at ``below``; returns the shape's box."""
    draw = ImageDraw.Draw(layer)
    th = glyph[3] - glyph[1]
    size = max(5.0, 0.32 * th)
    cx, y0 = (glyph[0] + glyph[2]) / 2, below + max(2.0, 0.08 * th)
    box = (cx - size / 2, y0, cx + size / 2, y0 + size)
    shape = _COLOUR_SHAPES[color]
    if shape == "circle":
        draw.ellipse(box, fill=fill)
    elif shape == "square":
        draw.rectangle(box, fill=fill)
    elif shape == "triangle":
        draw.polygon([(cx, y0), (box[2], box[3]), (box[0], box[3])], fill=fill)
    else:
        draw.polygon([(cx, y0), (box[2], y0 + size / 2), (cx, box[3]), (box[0], y0 + size / 2)], fill=fill)
    return box


def _corner_layer(
    card: Card, design: Design, ink: RGB, face: RGB
) -> tuple[Image.Image, tuple[int, int, int, int], Box]:
    """The top-left index on a transparent card-sized layer, the index box (corner region) it marks, and the
    ink box of the index symbol itself."""
    layer = Image.new("RGBA", (CARD_W, CARD_H), (0, 0, 0, 0))
    h = design.index_height * CARD_H
    style = design.corner_style
    max_w = 0.22 * CARD_W if len(_symbol(card)) > 1 else 0.15 * CARD_W
    figure = _index_figure(card, design, max_w, h, hollow=style == "outline")
    ix, iy = design.index_x * CARD_W, design.index_y * CARD_H
    pad = max(3.0, 0.18 * figure.height)
    glyph = (ix, iy, ix + figure.width, iy + figure.height)
    if style in _SHAPE_STYLES:
        bx = _shape_corner(layer, figure, style, (ix, iy), pad, ink, face)
    else:
        bx = _ink_corner(layer, figure, style, (ix, iy), pad, ink, odd=bool(int(design.index_x * 1000) % 2))
    if design.colour_mark and card.color is not None and style != "pip":
        mark = _colour_mark(layer, card.color, glyph, max(bx[3], glyph[3]), ink)
        bx = (bx[0], bx[1], max(bx[2], mark[2]), mark[3])
    # The box marks the whole corner, from the card's own corner to just past the index: the card edges give
    # the detector the context that tells this upright index from the upside-down one at the other end.
    margin = 0.02 * CARD_W
    box = (0, 0, int(min(CARD_W * 0.45, bx[2] + margin)), int(min(CARD_H * 0.3, bx[3] + margin)))
    return layer, box, glyph


def render_card(
    card: Card, design: Design, rng: np.random.Generator
) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """One face as an RGBA array (CARD_H x CARD_W x 4, rounded corners transparent) and its index box."""
    special = card.kind is not Kind.NUMBER
    face, text_ink = _looks(card, design, rng)
    img = Image.new("RGBA", (CARD_W, CARD_H), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    draw.rounded_rectangle((0, 0, CARD_W - 1, CARD_H - 1), radius=design.radius, fill=(*design.paper, 255))
    if face != design.paper:
        b = design.face_margin + design.frame
        draw.rounded_rectangle(
            (b, b, CARD_W - 1 - b, CARD_H - 1 - b), radius=max(4, design.radius - b), fill=face
        )
    elif design.frame:
        b = 5
        draw.rounded_rectangle(
            (b, b, CARD_W - 1 - b, CARD_H - 1 - b),
            radius=max(4, design.radius - b),
            outline=text_ink if not special else (40, 40, 40),
            width=design.frame,
        )
    inset, width = design.border
    if width:
        draw.rounded_rectangle(
            (inset, inset, CARD_W - 1 - inset, CARD_H - 1 - inset),
            radius=max(3, design.radius - inset),
            outline=text_ink,
            width=width,
        )
    _draw_centre(img, draw, card, design, face, text_ink, rng)
    corner, box, _ = _corner_layer(card, design, text_ink, face)
    if design.corner_style in _EDGE_STYLES:
        # Bands and stripes stop at the card's rounded outline.
        corner.putalpha(ImageChops.multiply(corner.getchannel("A"), img.getchannel("A")))
    if design.four_corners:
        # The same index, upright, in the top-right corner: a look-alike the detector must learn to leave.
        inked = corner.getbbox()
        if inked is not None:
            corner.alpha_composite(corner.crop(inked), dest=(CARD_W - inked[2], inked[1]))
    img.alpha_composite(corner)
    img.alpha_composite(corner.rotate(180))
    arr = np.array(img)
    _wear(arr, design, rng)
    _print_texture(arr, design, rng)
    return arr, box


def _draw_centre(
    img: Image.Image,
    draw: ImageDraw.ImageDraw,
    card: Card,
    design: Design,
    face: RGB,
    text_ink: RGB,
    rng: np.random.Generator,
) -> None:
    cx, cy = CARD_W / 2, CARD_H / 2
    mark = _mark(card, design)
    if mark == "number":
        _draw_centre_number(img, draw, card, design, face, text_ink)
        return
    if mark in _ICONS:
        mask = _icon_mask(mark, int(0.6 * CARD_W), int(0.32 * CARD_H))
        _paint_mask(img, (cx - mask.size[0] / 2, cy - mask.size[1] / 2), mask, text_ink)
        return
    if mark == "letter":
        figure = _Figure.fit(_symbol(card), design, 0.55 * CARD_W, 0.32 * CARD_H)
        figure.put(img, (cx - figure.width / 2, cy - figure.height / 2), text_ink)
        return
    word = "WILD" if card.kind is Kind.WILD else "SKIP"
    multi = card.kind is Kind.WILD and design.special_style != 1 and design.special_ink == "fixed"
    colours = list(inks(design).values())
    vertical = bool(rng.random() < 0.4)
    if vertical:
        layer = Image.new("RGBA", (CARD_H, CARD_W), (0, 0, 0, 0))
        ldraw = ImageDraw.Draw(layer)
        font = _fit_font(design.font, word, 0.8 * CARD_H, 0.5 * CARD_W)
        _place_word(ldraw, word, font, (CARD_H / 2, CARD_W / 2), text_ink, colours if multi else None)
        img.alpha_composite(layer.rotate(90, expand=True))
    else:
        font = _fit_font(design.font, word, 0.8 * CARD_W, 0.2 * CARD_H)
        _place_word(draw, word, font, (cx, cy), text_ink, colours if multi else None)


_NUMBER_WORDS = (
    "ONE",
    "TWO",
    "THREE",
    "FOUR",
    "FIVE",
    "SIX",
    "SEVEN",
    "EIGHT",
    "NINE",
    "TEN",
    "ELEVEN",
    "TWELVE",
)


def _draw_centre_number(
    img: Image.Image, draw: ImageDraw.ImageDraw, card: Card, design: Design, face: RGB, text_ink: RGB
) -> None:
    assert card.number is not None
    cx, cy = CARD_W / 2, CARD_H / 2
    style = design.centre_style
    if style == "word":
        figure = _Figure.fit(_NUMBER_WORDS[card.number - 1], design, 0.8 * CARD_W, 0.1 * CARD_H)
        figure.put(img, (cx - figure.width / 2, cy - figure.height / 2), text_ink)
        return
    if style == "picture":
        _draw_picture(img, card, design, face, text_ink)
        return
    if style == "logo":
        # An emblem with no figure in it, as decks that print their brand in the middle.
        r = 0.3 * CARD_W
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=text_ink, width=6)
        q = 0.6 * r
        draw.polygon([(cx, cy - q), (cx + q, cy), (cx, cy + q), (cx - q, cy)], fill=text_ink)
        return
    if style == "medallion":
        r = 0.36 * CARD_W
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=text_ink)
        figure = _Figure.fit(str(card.number), design, 1.2 * r, 1.1 * r)
        fill = face
    else:
        figure = _Figure.fit(str(card.number), design, 0.62 * CARD_W, 0.36 * CARD_H)
        fill = text_ink
    tw, th = figure.width, figure.height
    pos = (cx - tw / 2, cy - th / 2)
    if style == "oval":
        rx, ry = 0.36 * CARD_W, 0.3 * CARD_H
        draw.ellipse((cx - rx, cy - ry, cx + rx, cy + ry), fill=text_ink)
        fill = face
    elif style == "shadow":
        figure.put(img, (pos[0] + 5, pos[1] + 5), (60, 60, 60))
    figure.put(img, pos, fill)
    if card.number in (6, 9):
        uy = pos[1] + th + 8
        draw.line((pos[0], uy, pos[0] + tw, uy), fill=fill, width=6 if style != "medallion" else 3)


def _draw_picture(img: Image.Image, card: Card, design: Design, face: RGB, text_ink: RGB) -> None:
    """A picture in the middle of the card, as some children's and licensed decks print: shapes in many colours
    (the four inks among them), every card's its own, with the card's figure on a badge in front of it."""
    assert card.number is not None and card.color is not None
    # The card's own stream: the same card of one deck always shows the same picture.
    deck = zlib.crc32(f"{design.font.name}{design.paper}{design.radius}{design.index_height}".encode())
    rng = np.random.default_rng([deck, card.number, _COLOUR_ORDER.index(card.color)])
    x0, y0, x1, y1 = 0.14 * CARD_W, 0.24 * CARD_H, 0.86 * CARD_W, 0.78 * CARD_H
    w, h = round(x1 - x0), round(y1 - y0)
    art = Image.new("RGBA", (w, h), (*face, 255))
    draw = ImageDraw.Draw(art)
    palette = list(inks(design).values())
    for _ in range(int(rng.integers(8, 17))):
        if rng.random() < 0.4:
            colour = palette[int(rng.integers(4))]
        else:
            r, g, b = colorsys.hsv_to_rgb(rng.random(), rng.uniform(0.25, 0.9), rng.uniform(0.35, 0.95))
            colour = (int(r * 255), int(g * 255), int(b * 255))
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        size = rng.uniform(0.1, 0.45) * w
        kind = int(rng.integers(4))
        if kind == 0:
            draw.ellipse((cx - size, cy - 0.7 * size, cx + size, cy + 0.7 * size), fill=colour)
        elif kind == 1:
            n = int(rng.integers(3, 7))
            angles = np.sort(rng.uniform(0, 2 * np.pi, n))
            draw.polygon([(cx + size * np.cos(a), cy + size * np.sin(a)) for a in angles], fill=colour)
        elif kind == 2:
            dx, dy = rng.normal(0, size, 2)
            draw.line((cx - dx, cy - dy, cx + dx, cy + dy), fill=colour, width=int(rng.integers(4, 14)))
        else:
            draw.rounded_rectangle(
                (cx - size, cy - size / 2, cx + size, cy + size / 2), radius=8, fill=colour
            )
    frame = Image.new("L", (w, h), 0)
    ImageDraw.Draw(frame).rounded_rectangle((0, 0, w - 1, h - 1), radius=18, fill=255)
    art.putalpha(frame)
    img.alpha_composite(art, dest=(round(x0), round(y0)))
    r = 0.2 * CARD_W
    bx, by = CARD_W / 2, y1 - 0.9 * r
    ImageDraw.Draw(img).ellipse((bx - r, by - r, bx + r, by + r), fill=face, outline=text_ink, width=4)
    figure = _Figure.fit(str(card.number), design, 1.3 * r, 1.2 * r)
    figure.put(img, (bx - figure.width / 2, by - figure.height / 2), text_ink)


def _place_word(
    draw: ImageDraw.ImageDraw,
    word: str,
    font: ImageFont.FreeTypeFont,
    centre: tuple[float, float],
    ink: RGB,
    colours: list[RGB] | None,
) -> None:
    x0, y0, x1, y1 = font.getbbox(word, anchor="lt")
    x = centre[0] - (x1 - x0) / 2
    y = centre[1] - (y1 - y0) / 2
    if colours is None:
        _draw_text_ink(draw, (x, y), word, font, ink)
        return
    # A Wild often prints its letters in the four card colours.
    for i, ch in enumerate(word):
        _draw_text_ink(draw, (x, y), ch, font, colours[i % 4], stroke=2, stroke_fill=(255, 255, 255))
        x += font.getlength(ch)


def _wear(arr: np.ndarray, design: Design, rng: np.random.Generator) -> None:
    """Fade, scuffs and dirt, stronger on older decks; only where the card is opaque."""
    if design.wear < 0.05:
        return
    rgb = arr[..., :3].astype(np.float32)
    fade = 1.0 - 0.25 * design.wear
    rgb = 255 - (255 - rgb) * fade
    n = int(design.wear * 12)
    scratch = Image.new("L", (CARD_W, CARD_H), 0)
    sd = ImageDraw.Draw(scratch)
    for _ in range(n):
        x, y = rng.uniform(0, CARD_W), rng.uniform(0, CARD_H)
        dx, dy = rng.normal(0, 40, 2)
        sd.line((x, y, x + dx, y + dy), fill=int(rng.uniform(40, 120)), width=1)
    scratch = scratch.filter(ImageFilter.GaussianBlur(0.6))
    s = np.asarray(scratch, dtype=np.float32)[..., None] / 255.0
    tone = rng.choice([255.0, 90.0])
    rgb = rgb * (1 - s) + tone * s
    rgb += rng.normal(0, 3 * design.wear, rgb.shape[:2])[..., None]
    arr[..., :3] = np.clip(rgb, 0, 255).astype(np.uint8)


def _print_texture(arr: np.ndarray, design: Design, rng: np.random.Generator) -> None:
    """A printer's dot screen or a scan's paper grain and soft ink, only where the card is opaque."""
    if design.print_texture == "none":
        return
    rgb: np.ndarray = arr[..., :3].astype(np.float32)
    paper = np.array(design.paper, np.float32)
    yy, xx = np.mgrid[0:CARD_H, 0:CARD_W].astype(np.float32)
    if design.print_texture == "halftone":
        # Ink printed as dots on a screen turned 45 degrees: coverage falls between the dots.
        period = float(rng.uniform(2.5, 5.0))
        u, v = (xx + yy) / period, (xx - yy) / period
        screen = 0.5 + 0.5 * np.cos(2 * np.pi * u) * np.cos(2 * np.pi * v)
        cover = float(rng.uniform(0.55, 0.85)) + (1 - float(rng.uniform(0.55, 0.85))) * screen
        rgb = paper + (rgb - paper) * cover[..., None]
    else:
        grain = _blurred_noise(
            rng.normal(0, 1, (CARD_H, CARD_W)).astype(np.float32), float(rng.uniform(0.6, 1.6))
        )
        rgb = rgb + grain[..., None] * float(rng.uniform(4, 10))
        soft = Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8)).filter(
            ImageFilter.GaussianBlur(float(rng.uniform(0.4, 1.0)))
        )
        rgb = np.asarray(soft, np.float32)
    arr[..., :3] = np.clip(rgb, 0, 255).astype(np.uint8)


def _blurred_noise(a: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur of a float image with PIL alone (the renderer does not need OpenCV)."""
    lo, hi = float(a.min()), float(a.max())
    img = Image.fromarray(((a - lo) / max(hi - lo, 1e-6) * 255).astype(np.uint8)).filter(
        ImageFilter.GaussianBlur(sigma)
    )
    out = np.asarray(img, np.float32) / 255 * (hi - lo) + lo
    return np.asarray((out - out.mean()) / max(float(out.std()), 1e-6), np.float32)


def card_face_preview(cards: list[Card], seed: int = 0, split: Split = Split.TRAIN) -> np.ndarray:
    """A strip of faces side by side (RGB), each with its index box drawn: for eyeballing the renderer."""
    rng = np.random.default_rng(seed)
    tiles = []
    for card in cards:
        face, (x1, y1, x2, y2) = render_card(card, random_design(rng, split), rng)
        tile = face[..., :3].copy()
        tile[face[..., 3] == 0] = (90, 120, 90)
        tile[y1 : y1 + 2, x1:x2] = tile[max(y2 - 2, 0) : y2, x1:x2] = (255, 0, 255)
        tile[y1:y2, x1 : x1 + 2] = tile[y1:y2, max(x2 - 2, 0) : x2] = (255, 0, 255)
        tiles.append(tile)
    return np.concatenate(tiles, axis=1)
