"""The formulas inside the suite's prose (statements, corrections, reasons) as MathML, made at build time.

The suite's texts write mathematics in plain Unicode with TeX-like scripts: ``x_i``, ``u_k^⊥``, ``e^{−aρ*}``,
``L*_GUFM``, ``E_{x₁,x₂∈A(x)}``. In a browser those read as raw text. :func:`with_maths` turns each such
token (one letter, possibly with a combining accent or a star, then one or more ``_``/``^`` scripts) into
inline MathML, which every current browser renders natively: no script, no font download, and the page
still works offline. A braced script goes through ``latex2mathml``; everything else is escaped text.
Words with underscores (``noise_lemma``, ``max_iter``, ``a_b_c``) are left alone: a token starts at one
letter that follows no letter, digit, underscore or dot, and has at most one subscript and one superscript.
"""

from __future__ import annotations

import re
from html import escape

from markupsafe import Markup

# One script: _ or ^ and either a braced group (one level of nesting) or a short run of plain characters.
_SCRIPT = r"[_^](?:\{(?:[^{}]|\{[^{}]*\})*\}|[A-Za-z0-9α-ωΑ-Ωℓ⊥⊤*′']{1,5})"
_TOKEN = re.compile(
    r"(?<![A-Za-z0-9_.\\])"  # not inside an identifier, a number or a dotted name
    r"(?P<base>[^\W\d_][\u0300-\u036f]*\*?)"  # one letter, its combining accents (x̃, p̂), a star (L*)
    r"(?P<scripts>(?:" + _SCRIPT + r")+)"
    r"(?![A-Za-z0-9_{])"
)
_ONE_SCRIPT = re.compile(_SCRIPT)
_MATH_OPEN = "<math>"  # inline is MathML's default display


def _script_mathml(text: str) -> str:
    """The MathML of one script's content (without its _ or ^)."""
    if text.startswith("{"):
        inner = text[1:-1]
        if re.fullmatch(r"[A-Za-z0-9α-ωΑ-Ωℓ]+", inner):
            return _plain(inner)
        from latex2mathml.converter import convert

        try:
            mathml = convert(inner)
        except Exception:  # noqa: BLE001 - an odd group stays text, as written
            return f"<mtext>{escape(inner)}</mtext>"
        body = re.sub(r"^<math[^>]*>|</math>$", "", mathml.strip())
        return body or f"<mtext>{escape(inner)}</mtext>"
    return _plain(text)


def _plain(text: str) -> str:
    if text.isdigit():
        return f"<mn>{text}</mn>"
    if text in ("*", "⊥", "⊤", "′", "'"):
        return f"<mo>{escape(text)}</mo>"
    return f"<mi>{escape(text)}</mi>"


def token_mathml(base: str, scripts: str) -> str:
    """``base`` with its ``scripts`` ('_i^T', '_{km}') as one inline <math> element."""
    subs, sups = [], []
    for m in _ONE_SCRIPT.finditer(scripts):
        (subs if m.group(0)[0] == "_" else sups).append(_script_mathml(m.group(0)[1:]))
    star = base.endswith("*") and len(base) > 1
    core = f"<mi>{escape(base[:-1] if star else base)}</mi>"
    if star:
        core = f"<mrow>{core}<mo>*</mo></mrow>"
    sub = subs[0] if len(subs) == 1 else f"<mrow>{''.join(subs)}</mrow>"
    sup = sups[0] if len(sups) == 1 else f"<mrow>{''.join(sups)}</mrow>"
    if subs and sups:
        inner = f"<msubsup>{core}{sub}{sup}</msubsup>"
    elif subs:
        inner = f"<msub>{core}{sub}</msub>"
    else:
        inner = f"<msup>{core}{sup}</msup>"
    return f"{_MATH_OPEN}{inner}</math>"


def with_maths(text: str | None) -> Markup:
    """``text`` escaped, with each formula token as inline MathML (a Jinja filter: ``{{ s.statement|maths }}``)."""
    if not text:
        return Markup("")
    out, last = [], 0
    for m in _TOKEN.finditer(text):
        kinds = [sc.group(0)[0] for sc in _ONE_SCRIPT.finditer(m.group("scripts"))]
        if kinds.count("_") > 1 or kinds.count("^") > 1:  # a_b_c is a name, not a formula
            continue
        out.append(escape(text[last:m.start()]))
        out.append(token_mathml(m.group("base"), m.group("scripts")))
        last = m.end()
    out.append(escape(text[last:]))
    return Markup("".join(out))
