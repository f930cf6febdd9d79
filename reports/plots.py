"""Figures of the report, rendered to inline SVG so that the page needs no other file.

The overview is a strip plot: one row per result, one marker per instance at its relative slack (a
symmetric-log axis over [−1, 1]; 0 = the bound is attained). Colour *and* marker shape give the outcome,
so the figure still reads in greyscale and for colour-blind readers. Results that are sweeps also get their
sweep (measured points, fitted and predicted exponents); ``Evidence.plot`` draws one evidence.
"""

from __future__ import annotations

import hashlib
import io
import math
import re
from typing import Sequence

import matplotlib

matplotlib.use("Agg")  # no display, and no GUI toolkit to import

import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
import numpy as np  # noqa: E402

from theorems.core.evidence import Evidence  # noqa: E402
from theorems.metrics.scaling import SCALING_KEY, predicted_text  # noqa: E402

from .model import FAILS, HOLDS, MEASURED, NOT_CONVERGED, outcome_of  # noqa: E402

# outcome -> (colour, marker); the colours are ColorBrewer's RdYlGn ends and an orange.
OUTCOME_STYLE = {
    HOLDS: ("#1a9850", "o"),
    FAILS: ("#d73027", "X"),
    NOT_CONVERGED: ("#f08c00", "s"),
    MEASURED: ("#777777", "d"),
}
CONTROL_ROW = "negative control"
# (outcome, is a negative control) -> legend label, in legend order.
_LEGEND = {
    **{(name, False): name for name in OUTCOME_STYLE},
    **{(name, True): f"{name} ({CONTROL_ROW})" for name in OUTCOME_STYLE},
}
# Deterministic jitter, so that the same evidence gives the same page.
_JITTER_SEED = 0
_JITTER_HALF_WIDTH = 0.22
_NO_METADATA = {"Date": None, "Creator": None, "Format": None, "Type": None}


def row_of(evidence: Evidence) -> str:
    """Negative controls get their own row: they are meant to fail, and mixing them in would hide that."""
    return CONTROL_ROW if evidence.violations else evidence.form.replace("_", " ")


# The relative slack axis: symmetric-log, linear within ±SLACK_LINEAR (below float64 rounding of O(1) values,
# where "attained" and "attained up to rounding" are the same thing), logarithmic beyond, to ±1 exactly.
SLACK_LINEAR = 1e-12


def slack_overview_svg(rows: Sequence[tuple[str, Sequence[Evidence]]], *, salt: str) -> str:
    """Every instance's relative slack (its tightest bound claim), one row per result, as an ``<svg>``.

    The relative slack lies in [−1, 1] by definition (`theorems.core.evidence`), so nothing is clipped:
    0 is the edge of the bound, the right side has room (1 = all the room there is), the left side fails.
    Negative controls are hollow markers: they are meant to fail. ``salt`` prefixes every id inside the SVG
    (several inline SVGs share one document, and matplotlib writes the same ids in each).
    """
    rng = np.random.default_rng(_JITTER_SEED)
    unplotted = 0
    with _style():
        fig, ax = plt.subplots(figsize=(7.5, 0.9 + 0.24 * len(rows)))
        try:
            for y, (_, evidences) in enumerate(rows):
                for (name, control), label in _LEGEND.items():
                    colour, marker = OUTCOME_STYLE[name]
                    slack = [e.slack for e in evidences if outcome_of(e) == name and bool(e.violations) == control]
                    finite = np.array([v for v in slack if not math.isnan(v)], dtype=float)
                    unplotted += len(slack) - finite.size
                    if not finite.size:
                        continue
                    ax.scatter(finite, y + rng.uniform(-_JITTER_HALF_WIDTH, _JITTER_HALF_WIDTH, finite.size),
                               marker=marker, s=22, alpha=0.85, label=label, zorder=3,
                               facecolors="none" if control else colour, edgecolors=colour if control else "white",
                               linewidths=1.0 if control else 0.5)
            _decorate(ax, [label for label, _ in rows],
                      f"{unplotted} instance(s) without an asserted bound (measurements only) not drawn"
                      if unplotted else "")
            return figure_svg(fig, salt=salt)
        finally:
            plt.close(fig)


def figure_svg(fig, *, salt: str) -> str:
    """``fig`` as an inline ``<svg>`` element whose ids are prefixed with ``salt`` (see tightness_svg)."""
    buf = io.StringIO()
    # No metadata: a date would make equal reports differ, and the RDF block only adds links.
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata=_NO_METADATA)
    svg = buf.getvalue()
    prefix = "f" + hashlib.sha1(salt.encode()).hexdigest()[:8] + "-"
    return _style_classes(_compact(_namespace_ids(svg[svg.index("<svg"):], prefix)), prefix)


_NUMBER = re.compile(r"(?<![\w#.-])(-?\d+\.\d{2,})")
_FONT = r"font-family:([^;\"]*)"  # a declaration inside an inline style (up to ; or its closing quote)
_DECIMAL = re.compile(r"(?<![\w#.-])(-?)(\d+)\.(\d)(?![\w.])")  # a number of one decimal, inside a tag
_PATH_TOKEN = re.compile(r"[A-Za-z]|-?(?:\d+\.?\d*|\.\d+)(?:e-?\d+)?")
_NO_ROTATION = re.compile(r'\stransform="rotate\(-?0 [^")]*\)"')


def _compact(svg: str) -> str:
    """The same picture in fewer bytes (about a quarter of matplotlib's SVG). Geometry only: a number is
    rounded inside a tag (coordinates, path data, transforms) to a tenth of a point (below what a screen
    shows), never in the character data between tags, which is the figure's text ("α = −1.52 ± 0.016" is
    the evidence's number). Then: no indentation or comments; path data relative (the steps between the
    rounded points, so nothing drifts) in the shortest numbers; no identity rotations; ids only where something
    refers to them (matplotlib names every group); groups without attributes unwrapped; the one font family
    said once; SVG 2's ``href`` for ``xlink:href``."""
    svg = re.sub(r"<[^<>]*>", lambda tag: _NUMBER.sub(lambda m: f"{float(m.group(1)):.1f}", tag.group(0)), svg)
    svg = re.sub(r"<!--.*?-->", "", svg, flags=re.S)
    svg = _NO_ROTATION.sub("", svg)  # matplotlib writes rotate(-0 x y) on every label: the identity
    svg = re.sub(r'\sd="([^"]*)"', lambda m: f' d="{_relative_path(m.group(1))}"', svg)
    svg = re.sub(r"<[^<>]*>", lambda tag: _DECIMAL.sub(_short_decimal, tag.group(0)), svg)
    svg = svg.replace("xlink:href=", "href=").replace(' xmlns:xlink="http://www.w3.org/1999/xlink"', "")
    used = set(re.findall(r"url\(#([^)]+)\)", svg)) | set(re.findall(r'href="#([^"]+)"', svg))
    svg = re.sub(r'\sid="([^"]+)"', lambda m: m.group(0) if m.group(1) in used else "", svg)
    svg = _unwrap_bare_groups(re.sub(r">\s+<", "><", svg))
    families = set(re.findall(_FONT, svg))
    if len(families) == 1:  # every text says the same family in its inline style: say it once
        svg = re.sub(r'(?<=")' + _FONT + r'(?:; |(?="))|; ' + _FONT + r'(?=[;"])', "", svg)
        svg = svg.replace('<style type="text/css">', f'<style type="text/css">text{{font-family:{families.pop()}}}', 1)
    return svg


def _short_decimal(m: re.Match) -> str:
    """'51.0' -> '51', '0.5' -> '.5', '-0.5' -> '-.5' (the same number)."""
    sign, whole, tenth = m.groups()
    if tenth == "0":
        return "0" if whole.strip("0") == "" else f"{sign}{whole}"
    return f"{sign}{'' if whole.strip('0') == '' else whole}.{tenth}"


def _tenths(value: int) -> str:
    """An integer number of tenths as the shortest decimal: 510 -> '51', 5 -> '.5', -15 -> '-1.5'."""
    sign, value = ("-", -value) if value < 0 else ("", value)
    whole, tenth = divmod(value, 10)
    return sign + (str(whole) if whole else ("" if tenth else "0")) + (f".{tenth}" if tenth else "")


# A vertex of a polyline that lies within this distance (tenths of a point) of the straight segment joining
# the vertices kept around it is dropped. Rounding to the tenth-of-a-point grid already moves each vertex by up
# to 0.07 pt; a tenth of a point (0.13 px on screen) is what lets a rounded straight line be straight again
# (matplotlib draws a power law on log axes through all 50 of its points, to place the legend off the line).
COLLINEAR_TENTHS = 1.0


def _relative_path(data: str) -> str:
    """Path data (M, L, H, V, C, Q, Z of absolute points, as matplotlib writes them) with every point on the
    tenth-of-a-point grid, written as the steps between those grid points (lower-case commands, a repeated
    command said once): exact integers of tenths, so the points are the rounded absolute ones, with no drift.
    Vertices of a straight run of line segments are dropped (`COLLINEAR_TENTHS`). Anything else (an arc,
    relative input, an exponent) is left absolute and only tightened."""
    tokens = _PATH_TOKEN.findall(data)
    tightened = re.sub(r" ?([A-Za-z]) ?", r"\1", " ".join(data.split()))
    if any(t.isalpha() and t not in "MLHVCQZz" for t in tokens) or any("e" in t for t in tokens):
        return tightened
    arity = {"M": 2, "L": 2, "H": 1, "V": 1, "C": 6, "Q": 4}
    segments: list[tuple[str, list[int]]] = []  # (M, L, C, Q or Z, absolute numbers in tenths)
    x = y = x0 = y0 = 0
    i, cmd = 0, ""
    while i < len(tokens):
        if tokens[i].isalpha():
            cmd = tokens[i].upper()
            i += 1
            if cmd == "Z":
                segments.append(("Z", []))
                x, y = x0, y0
                continue
        if cmd not in arity or len(tokens) - i < arity[cmd]:
            return tightened
        values = [round(float(t) * 10) for t in tokens[i:i + arity[cmd]]]
        i += arity[cmd]
        if cmd == "H":
            values = [values[0], y]
        elif cmd == "V":
            values = [x, values[0]]
        x, y = values[-2], values[-1]
        if cmd == "M":
            x0, y0 = x, y
            segments.append(("M", values))
            cmd = "L"  # further pairs after a moveto are linetos
        else:
            segments.append(("L" if cmd in "LHV" else cmd, values))
    out: list[tuple[str, list[int]]] = []  # (relative command, its numbers in tenths)
    x = y = x0 = y0 = 0
    for letter, values in _without_collinear(segments):
        if letter == "Z":
            out.append(("z", []))
            x, y = x0, y0
            continue
        steps = [v - (x if k % 2 == 0 else y) for k, v in enumerate(values)]
        x, y = values[-2], values[-1]
        if letter == "M":
            x0, y0 = x, y
            out.append(("m", steps))
        elif letter == "L" and steps[1] == 0:
            out.append(("h", steps[:1]))
        elif letter == "L" and steps[0] == 0:
            out.append(("v", steps[1:]))
        else:
            out.append((letter.lower(), steps))
    merged: list[tuple[str, list[int]]] = []
    for letter, numbers in out:
        if merged and letter == merged[-1][0] and letter not in "mz":
            merged[-1][1].extend(numbers)
        else:
            merged.append((letter, list(numbers)))
    text = "".join(_join(letter, numbers) for letter, numbers in merged)
    return "M" + text[1:] if text.startswith("m") else text  # the first moveto is from the origin: absolute


def _without_collinear(segments: list[tuple[str, list[int]]]) -> list[tuple[str, list[int]]]:
    """``segments`` with each run of line segments reduced to the vertices it needs: from each kept vertex,
    the farthest next vertex such that every vertex skipped lies within `COLLINEAR_TENTHS` of the straight
    segment between the two (and between them along it)."""
    out: list[tuple[str, list[int]]] = []
    k = 0
    while k < len(segments):
        letter, values = segments[k]
        if letter != "L" or not out or out[-1][0] == "Z":
            out.append((letter, values))
            k += 1
            continue
        run_end = k
        while run_end < len(segments) and segments[run_end][0] == "L":
            run_end += 1
        points = [tuple(out[-1][1][-2:])] + [tuple(v) for _, v in segments[k:run_end]]
        a = 0
        while a < len(points) - 1:
            b = a + 1
            while b + 1 < len(points) and all(_near_segment(points[m], points[a], points[b + 1])
                                              for m in range(a + 1, b + 1)):
                b += 1
            out.append(("L", list(points[b])))
            a = b
        k = run_end
    return out


def _near_segment(p, a, b) -> bool:
    """Whether point ``p`` lies within `COLLINEAR_TENTHS` of the segment from ``a`` to ``b``, between its ends."""
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    if length2 == 0:
        return (px - ax) ** 2 + (py - ay) ** 2 <= COLLINEAR_TENTHS ** 2
    t = ((px - ax) * dx + (py - ay) * dy) / length2
    if not 0.0 <= t <= 1.0:
        return False
    cross = (px - ax) * dy - (py - ay) * dx
    return cross * cross <= COLLINEAR_TENTHS ** 2 * length2


def _join(letter: str, numbers: list[int]) -> str:
    """``letter`` and ``numbers`` (tenths) with a separator only where the next number would merge into
    the previous one (a '-', or a '.' after a number that has one, separates by itself)."""
    text, prev = letter, ""
    for n in numbers:
        s = _tenths(n)
        glued = not prev or s[0] == "-" or (s[0] == "." and "." in prev)
        text += s if glued else " " + s
        prev = s
    return text


def _style_classes(svg: str, prefix: str = "") -> str:
    """Each inline style that two or more elements repeat (a scatter's markers, the ticks) becomes a class
    named after its declarations (``s`` and a hash of them): CSS inside an inline SVG applies to the whole
    page, and a name that says its content means the same rule in every figure, so figures of one page
    share their rules (`shared_styles` says each once). Same picture: the only other rules are matplotlib's
    ``*`` and the font family of ``text``, both less specific than a class. Declarations lose their spaces;
    a ``<use>`` loses a class its referenced path already has (it sets the same properties on the path),
    and a run of ``<use>`` of one class becomes a group of that class (the uses inherit it)."""
    if '<style type="text/css">' not in svg:
        return svg
    svg = re.sub(r'\sstyle="([^"]*)"', lambda m: f' style="{_tight_css(m.group(1))}"', svg)
    svg = re.sub(r"<[a-z]+\s[^<>]*\bclip-path=[^<>]*>", _clip_into_style, svg)
    counts: dict[str, int] = {}
    for style in re.findall(r'\sstyle="([^"]*)"', svg):
        counts[style] = counts.get(style, 0) + 1
    classes = {style: style_class(style) for style, n in counts.items() if n >= 2}
    svg = re.sub(r'\sstyle="([^"]*)"', lambda m: f' class="{classes[m.group(1)]}"' if m.group(1) in classes
                 else m.group(0), svg)
    svg = _group_uses(svg)
    rules = "".join(f".{name}{{{style}}}" for style, name in classes.items())
    head, _, rest = svg.partition('<style type="text/css">')
    own, _, tail = rest.partition("</style>")
    return f'{head}<style type="text/css">{rules}{_tight_css(own)}</style>{tail}'


def _clip_into_style(tag: re.Match) -> str:
    """A ``clip-path`` attribute said as the same CSS property in the element's style (the attribute is a
    presentation attribute of that property, and no rule of the figure sets it otherwise): the grid lines of
    a panel, which differ only in their path, then share one class."""
    text = tag.group(0)
    clip = re.search(r'\sclip-path="([^"]*)"', text)
    if clip is None:
        return text
    text = text.replace(clip.group(0), "", 1)
    style = re.search(r'\sstyle="([^"]*)"', text)
    if style is None:
        return re.sub(r"(/?>)$", f' style="clip-path:{clip.group(1)}"\\1', text)
    return text.replace(style.group(0), f' style="{style.group(1)};clip-path:{clip.group(1)}"', 1)


def style_class(style: str) -> str:
    """The class of an inline style: the same declarations, the same name, in every figure."""
    return "s" + hashlib.sha1(style.encode()).hexdigest()[:7]


def _tight_css(css: str) -> str:
    """CSS without the spaces around ':', ';', ',', '{' and '}' (quoted font names keep theirs)."""
    return re.sub(r"\s*([:;,{}])\s*", r"\1", css).strip()


_USE = re.compile(r'<use href="#([^"]+)"([^>]*?)(?: class="([^"]+)")?/>')


def _group_uses(svg: str) -> str:
    """Drop a ``<use>``'s class where its path has that class; wrap each run of two or more ``<use>`` of one
    class in a ``<g>`` of that class."""
    own = dict(re.findall(r'<path id="([^"]+)"[^>]*? class="([^"]+)"', svg))

    def bare(m: re.Match) -> str:
        ref, attrs, cls = m.groups()
        return f'<use href="#{ref}"{attrs}/>' if cls is None or own.get(ref) == cls else m.group(0)

    svg = _USE.sub(bare, svg)

    def group(run: re.Match) -> str:
        uses = _USE.findall(run.group(0))
        return f'<g class="{uses[0][2]}">' + "".join(f'<use href="#{r}"{a}/>' for r, a, _ in uses) + "</g>"

    # a run: two or more consecutive uses of one class (the backreference keeps the class equal)
    return re.sub(r'<use href="#[^"]+"[^>]*? class="([^"]+)"/>(?:<use href="#[^"]+"[^>]*? class="\1"/>)+',
                  group, svg)


def shared_styles(html: str) -> str:
    """A page's inline figures with their style rules said once, in a ``<style>`` before ``</head>``: each
    figure's ``<style>`` carries the same rules as its neighbours' (content-named classes, the font family,
    matplotlib's ``*`` rule), and CSS in an inline SVG applies to the whole page anyway. Where two figures
    give one selector different rules, the page is returned unchanged."""
    blocks = re.findall(r'<style type="text/css">(.*?)</style>', html, flags=re.S)
    rules: dict[str, str] = {}
    for block in blocks:
        for selector, body in re.findall(r"([^{}]+)\{([^{}]*)\}", block):
            if rules.setdefault(selector, body) != body:
                return html
    if not blocks or "</head>" not in html:
        return html
    html = re.sub(r'<defs><style type="text/css">.*?</style></defs>|<style type="text/css">.*?</style>', "",
                  html, flags=re.S)
    css = "".join(f"{sel}{{{body}}}" for sel, body in rules.items())
    return html.replace("</head>", f"<style>{css}</style>\n</head>", 1)


def _unwrap_bare_groups(svg: str) -> str:
    """Drop each ``<g>`` without attributes together with its own ``</g>`` (it groups nothing a renderer uses)."""
    out, bare, last = [], [], 0
    for m in re.finditer(r"<g>|<g\s[^>]*>|</g>", svg):
        tag = m.group(0)
        if tag == "</g>":
            drop = bare.pop() if bare else False
        else:
            drop = tag == "<g>"
            bare.append(drop)
        if drop:
            out.append(svg[last:m.start()])
            last = m.end()
    out.append(svg[last:])
    return "".join(out)


def _style():
    # fonttype 'none' keeps labels as text (small, searchable); hashsalt fixes the otherwise random ids.
    return plt.rc_context({"svg.hashsalt": "theorems", "svg.fonttype": "none", "font.size": 9})


# ---------------------------------------------------------------------------------------------------
# Scaling plots of trend results (details["scaling"], see theorems.metrics.scaling.scaling_series)
# ---------------------------------------------------------------------------------------------------
# A sweep panel's size in inches (at 96 px per inch on screen, about 430 × 320 px: the 9-point labels read
# at the page's own text size), and at most three side by side (the page is 84rem wide).
PANEL_SIZE = (4.5, 3.4)
SCALING_COLUMNS = 3


def _log_axis(axis, lo: float, hi: float) -> None:
    """Ticks at 1, 2, 5 × powers of ten (whole decades only where the range spans many), labelled as plain
    numbers ('20', '0.005'), no labelled minor ticks: matplotlib's default labels every minor tick of a
    short log axis as '2×10¹', and the labels overlap. A range too short to hold two such ticks gets
    three ticks spread evenly (in log) over it, at two significant digits."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter

    decades = math.log10(hi / lo) if lo > 0 and hi > lo else 0.0
    subs = (1.0,) if decades > 4 else (1.0, 2.0, 5.0)
    ticks = [m * 10.0 ** e for e in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1)
             for m in subs] if decades > 0 else []
    if sum(lo <= t <= hi for t in ticks) >= 2:
        axis.set_major_locator(LogLocator(base=10, subs=subs, numticks=12))
    elif hi > lo > 0:
        axis.set_major_locator(FixedLocator([float(f"{t:.2g}") for t in np.geomspace(lo, hi, 3)]))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}".replace("-", "−")))
    axis.set_minor_formatter(NullFormatter())


def scaling_of(evidence: Evidence) -> list[dict]:
    """The sweep series an evidence carries (empty for a result that is not a sweep)."""
    series = evidence.details.get(SCALING_KEY) or []
    return [s for s in series if isinstance(s, dict) and s.get("x")]


def scaling_figure(evidence: Evidence):
    """One panel per series: the measured points, the fitted power law, and the predicted slope range
    drawn through the points' centre, so that fitted and predicted exponents compare by eye."""
    series = scaling_of(evidence)
    if not series:
        raise ValueError(f"{evidence.result_id} carries no sweep (details['{SCALING_KEY}']) to plot")
    ncols = min(len(series), SCALING_COLUMNS)
    nrows = -(-len(series) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(PANEL_SIZE[0] * ncols, PANEL_SIZE[1] * nrows), squeeze=False)
    for ax, s in zip(axes.flat, series, strict=False):
        _scaling_panel(ax, s)
    for ax in list(axes.flat)[len(series):]:
        ax.set_visible(False)
    fig.tight_layout()
    return fig


def scaling_svg(evidence: Evidence, *, salt: str) -> str:
    return svg_of(scaling_figure, evidence, salt)


def evidence_svg(evidence: Evidence, *, salt: str) -> str:
    return svg_of(_picture, evidence, salt)


def svg_of(make_figure, evidence: Evidence, salt: str) -> str:
    """``make_figure(evidence)`` as an inline ``<svg>`` in the report's style (the figure is closed)."""
    with _style():
        fig = make_figure(evidence)
        try:
            return figure_svg(fig, salt=salt)
        finally:
            plt.close(fig)


def _scaling_panel(ax, s: dict) -> None:
    x, y = np.asarray(s["x"], dtype=float), np.asarray(s["y"], dtype=float)
    log = bool(s.get("log", True))
    ok = np.isfinite(x) & np.isfinite(y) & ((x > 0) & (y > 0) if log else True)
    ax.plot(x[ok], y[ok], "o", color="#4575b4", ms=5, zorder=3, label="measured")
    if (~ok).any():
        ax.annotate(f"{int((~ok).sum())} point(s) not drawn (non-finite{' or ≤ 0' if log else ''})",
                    xy=(0, 1), xycoords="axes fraction", fontsize=7, color="#555555", va="bottom")
    title = []
    fit = s.get("fit")
    if fit and ok.sum() >= 2 and math.isfinite(fit.get("exponent", math.nan)):
        grid = np.geomspace(x[ok].min(), x[ok].max(), 50) if log else np.linspace(x[ok].min(), x[ok].max(), 50)
        ax.plot(grid, fit["prefactor"] * grid ** fit["exponent"], "-", color="#1a9850", lw=1.4, zorder=2,
                label=f"fit α = {fit['exponent']:.3g}")
        err = fit.get("stderr")
        title.append(f"fitted α = {fit['exponent']:.3g}" + (f" ± {err:.2g}" if err and math.isfinite(err) else ""))
    rng = s.get("predicted")
    if log and rng and ok.any():
        _predicted_band(ax, x[ok], y[ok], rng)
    pred = predicted_text(s)
    if pred:
        title.append(f"predicted {pred}" if rng else pred)
    if log:
        ax.set_xscale("log")
        ax.set_yscale("log")
        if ok.any():
            _log_axis(ax.xaxis, float(x[ok].min()), float(x[ok].max()))
            _log_axis(ax.yaxis, float(y[ok].min()), float(y[ok].max()))
    ax.set_xlabel(s["x_name"])
    ax.set_ylabel(s["y_name"])
    ax.set_title("\n".join(title), fontsize=9)
    ax.grid(color="#e6e6e6", which="both", lw=0.5)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, frameon=False)


def _predicted_band(ax, x: np.ndarray, y: np.ndarray, rng) -> None:
    """The predicted exponents as lines (or a shaded wedge) through the geometric centre of the points."""
    x0, y0 = float(np.exp(np.log(x).mean())), float(np.exp(np.log(y).mean()))
    grid = np.geomspace(x.min(), x.max(), 50)
    lo, hi = rng
    slopes = [v for v in (lo, hi) if v is not None]
    lines = [y0 * (grid / x0) ** a for a in slopes]
    for a, line in zip(slopes, lines, strict=True):
        ax.plot(grid, line, "--", color="#d73027", lw=0.9, zorder=1)
    if len(lines) == 2:
        ax.fill_between(grid, np.minimum(*lines), np.maximum(*lines), color="#d73027", alpha=0.12, lw=0, zorder=0)
    ax.plot([], [], "--", color="#d73027", lw=0.9, label="predicted slope")


# ---------------------------------------------------------------------------------------------------
# Claims of one evidence (Evidence.plot for results that are not sweeps)
# ---------------------------------------------------------------------------------------------------
def claims_figure(evidence: Evidence):
    """One row per claim: where the observed value sits against its bound, each row on its own scale
    (claims compare quantities of different units). Green when the claim passes, red when it fails."""
    claims = evidence.claims
    if not claims:
        raise ValueError(f"{evidence.result_id} evidence has no claims to plot")
    fig, axes = plt.subplots(len(claims), 1, figsize=(6.5, 0.75 * len(claims) + 0.6), squeeze=False)
    for ax, c in zip(axes[:, 0], claims, strict=True):
        colour, marker = OUTCOME_STYLE[HOLDS if c.passed else FAILS]
        values = [v for v in (c.observed, c.bound) if v is not None and math.isfinite(v)]
        if values:
            lo, hi = min(values), max(values)
            pad = 0.15 * (hi - lo) or 0.15 * max(abs(hi), 1e-12)
            ax.set_xlim(lo - pad, hi + pad)
        if c.bound is not None and math.isfinite(c.bound):
            ax.axvline(c.bound, color="#555555", lw=1.2)
            ax.annotate(f"bound ({'≤' if c.relation == '<=' else '≥'})", xy=(c.bound, 0.55), fontsize=7,
                        color="#555555", xytext=(3, 0), textcoords="offset points")
        if c.observed is not None and math.isfinite(c.observed):
            ax.plot([c.observed], [0], marker=marker, color=colour, ms=8, ls="none")
        ax.set_yticks([])
        ax.set_ylim(-1, 1)
        ax.set_title(f"{c.name}: observed {c.observed:.4g}, bound {c.bound:.4g}", fontsize=8, loc="left")
        for side in ("top", "right", "left"):
            ax.spines[side].set_visible(False)
    fig.tight_layout()
    return fig


def evidence_figure(evidence: Evidence):
    """The picture of one evidence: its sweep if it has one, else its claims against their bounds."""
    with _style():
        return _picture(evidence)


def has_picture(evidence: Evidence) -> bool:
    return bool(scaling_of(evidence) or evidence.claims)


def _picture(evidence: Evidence):
    return scaling_figure(evidence) if scaling_of(evidence) else claims_figure(evidence)


def _namespace_ids(svg: str, prefix: str) -> str:
    """Each id and each reference to one (``url(#id)``, ``href="#id"``) renamed to a short one that starts
    with ``prefix`` (a hash of the figure's salt) and counts up: matplotlib's own ids are long, and repeat
    in every figure of a page."""
    names: dict[str, str] = {}

    def short(name: str) -> str:
        return names.setdefault(name, f"{prefix}{len(names):x}")

    svg = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{short(m.group(1))}"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{short(m.group(1))})", svg)
    return re.sub(r'href="#([^"]+)"', lambda m: f'href="#{short(m.group(1))}"', svg)


def _decorate(ax, labels: list[str], note: str) -> None:
    ax.set_xscale("symlog", linthresh=SLACK_LINEAR, linscale=0.5)
    ax.set_xlim(-1.05, 1.05)
    ax.set_ylim(len(labels) - 0.5, -0.5)  # first row on top
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xticks([-1, -1e-3, -1e-6, -1e-9, 0, 1e-9, 1e-6, 1e-3, 1],
                  ["−1", "−1e-3", "−1e-6", "−1e-9", "0", "1e-9", "1e-6", "1e-3", "1"])
    ax.set_xlabel("relative slack of the tightest bound claim  (← fails | 0 = at the bound | room →)")
    ax.axvline(0.0, color="#888888", lw=0.8, ls=":", zorder=1)
    ax.grid(axis="x", color="#e6e6e6", zorder=0)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    # One legend entry per outcome, however many rows drew it, in a fixed order.
    drawn = {h.get_label(): h for h in ax.collections}
    names = [label for label in _LEGEND.values() if label in drawn]
    if names:
        ax.legend([drawn[n] for n in names], names, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    if note:
        ax.annotate(note, xy=(0, 0), xycoords="axes fraction", xytext=(0, -30), textcoords="offset points",
                    fontsize=8, color="#555555", va="top")
