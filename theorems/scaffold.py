"""``python -m theorems new PKG.RESULT --out DIR``: a small installable package that checks a theorem of your own.

The package it writes is a plugin (`theorems.core.registry`, "Plugins"): installed (``pip install -e DIR``) its
entry point ``theorems.results`` registers the result; not installed, ``PYTHONPATH=DIR THEOREMS_PLUGINS=PKG`` does.
Either way ``python -m theorems list | show | check | report`` and ``pytest --theorems-conformance PKG`` treat it
like a built-in paper's result. It holds, ready to run and to pass the conformance checks:

* ``pyproject.toml`` with the entry point, and ``PKG/paper.py`` with the `Paper`;
* ``PKG/RESULT.py``: the statement as printed, its quantifiers (`Logic`), one theorem parameter, an effort knob
  and a control switch (each declared with its role), the hypotheses, an ``evaluate`` that returns claims, an
  instance where the bound is attained (`Binding`), a negative control that fails it, and a worst-case search;
* ``checks/PKG/test_RESULT.py``: the result's own checks beside the conformance checks, where the suite keeps a
  result's (``checks/<paper package>/test_<result>.py``: its pins, hypothesis edges, replays).

The placeholder theorem (‖x‖₂ ≤ ‖x‖₁) is true and is checked for real, so the package passes from the start;
every ``TODO`` marks where your statement, hypotheses and mathematics replace it.
"""

from __future__ import annotations

import keyword
import os
import shutil
import tempfile
from pathlib import Path
from string import Template

from .core.errors import ParameterError

PYPROJECT = Template('''\
[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "$dist"
version = "0.1.0"
description = "TODO: what theorem this package checks"
requires-python = ">=3.10"
dependencies = ["theorems"]

# `theorems` imports this module, which registers the results (ids $pkg.*), in every command and in the report.
[project.entry-points."theorems.results"]
$pkg = "$pkg"

[tool.setuptools.packages.find]
include = ["$pkg*"]

[tool.pytest.ini_options]
testpaths = ["checks"]
''')

INIT = Template('''\
"""$pkg: theorems checked with the `theorems` suite. Importing this package registers its results."""

from . import $result  # noqa: F401  (registers $pkg.$result)
''')

PAPER = Template('''\
"""The paper this package checks: its metadata, written once (results pass ``paper=PAPER``)."""

from theorems.core.result import Paper

# TODO: your paper. `number` orders the papers on the report (the built-in papers are 000-004).
PAPER = Paper(number="$pkg", title="TODO: the title of the paper", authors="TODO: the authors", venue="", year=None)
''')

RESULT = Template('''\
"""$title_line

Statement as printed (TODO: copy your statement here, word for word, with its number in the paper):

    For every n ≥ 1 and every x ∈ ℝⁿ, ‖x‖₂ ≤ ‖x‖₁.

How it is checked: `draws` random vectors and the 1-sparse vector e₁ (where the bound is attained), the worst
ratio ‖x‖₂/‖x‖₁ against the bound 1. The control switch `bound_scale` multiplies the bound: below 1 it is
deliberately wrong, and the instance e₁ must fail it (a check that cannot fail is a defect).
"""

from __future__ import annotations

from theorems.core.registry import register
from theorems.core.result import (AS_PRINTED, Binding, Cost, Logic, Outcome, Param, Result, Status, Violation,
                                  seed_param)

from .paper import PAPER

RESULT_ID = "$pkg.$result"
# ‖x‖₂ and ‖x‖₁ are each a few roundings from exact in float64: a relative tolerance of 1e-12 is 10⁴ of them.
# The control BOUND_PINNED sits just outside it. TODO: your tolerance, and why.
RTOL = 1e-12

PARAMS = (
    # TODO: the theorem's own parameters (sizes, constants), each with its domain and the range drawn from.
    Param("n", int, 5, "dimension of x", valid="n ≥ 1", low=1, high=4096, sample=(1, 64)),
    # Effort: how hard the suite looks (not part of the statement).
    Param("draws", int, 256, "random vectors tried besides e₁", low=1, high=1_000_000, role="effort"),
    # Control switch: 1 is the statement; any other value breaks it on purpose (a negative control). ``breaks``
    # names the hypothesis it breaks: the suite records that violation itself whenever the switch is off its default.
    Param("bound_scale", float, 1.0, "multiplies the bound; ≠ 1 is a deliberately wrong constant", valid="= 1",
          low=0.0, high=10.0, role="control", breaks="the bound as printed"),
    seed_param(),
)


def hypotheses(p: dict, form: str) -> list[Violation]:
    """The theorem's hypotheses (TODO: yours); the control switches' are declared with ``Param(breaks=...)``."""
    out: list[Violation] = []
    return out


def cost(p: dict) -> Cost:
    """What one instance needs (tensor elements, arithmetic): `check` refuses an instance beyond the machine."""
    return Cost(elements=(p["draws"] + 1) * p["n"], work=3.0 * (p["draws"] + 1) * p["n"])


def evaluate(p: dict, form: str, ctx) -> Outcome:
    """TODO: your mathematics. Build the instance on ``ctx.device`` from ``ctx.generator`` (seeded), compute both
    sides, and return one Claim per assertion (kind "bound" for what the statement asserts)."""
    import torch  # here, not at the top: `python -m theorems list | show` then never import torch or numpy

    from theorems.core.evidence import Claim

    n = p["n"]
    x = ctx.randn(p["draws"], n)  # seeded, drawn on the CPU, moved to ctx.device
    e1 = torch.zeros(1, n, dtype=ctx.dtype, device=ctx.device)
    e1[0, 0] = 1.0  # attains the bound: ‖e₁‖₂ = ‖e₁‖₁ = 1
    x = torch.cat([e1, x])
    ratio = x.norm(dim=1) / x.abs().sum(dim=1)
    worst = float(ratio.max())
    claims = [Claim.at_most("l2_at_most_l1", worst, p["bound_scale"] * 1.0,
                            "max over the vectors tried of ‖x‖₂/‖x‖₁, against the bound 1", rtol=RTOL)]
    return Outcome(claims=claims, details={"vectors": int(x.shape[0]), "worst_ratio": worst})


BOUND_PINNED = dict(bound_scale=1 - 1e-9, allow_violation=True)  # just outside RTOL: pins the tolerance


def _strategy():
    from theorems.strategies import declared_params  # hypothesis: a test extra

    return declared_params(RESULT_ID)


RESULT = register(Result(
    id=RESULT_ID,
    paper=PAPER,
    section="TODO: Section 1, Theorem 1",
    title="TODO: a one-line title (placeholder: the ℓ2 norm is at most the ℓ1 norm)",
    statement="For every n ≥ 1 and every x ∈ ℝⁿ, ‖x‖₂ ≤ ‖x‖₁.",
    status=Status.VERIFIED,  # what the evidence supports; the conformance checks re-derive it
    logic=Logic(for_all="n ≥ 1 and x ∈ ℝⁿ"),
    params=PARAMS,
    evaluate=evaluate,
    hypotheses=hypotheses,
    cost=cost,
    forms=(AS_PRINTED,),
    binding=(Binding("‖x‖₂ ≤ ‖x‖₁ attained", {"n": 1}, "n = 1: every x is 1-sparse, equality"),),
    controls=(BOUND_PINNED, dict(bound_scale=0.5, allow_violation=True)),
    strategy=_strategy,
    module=__name__,
))
''')

TEST = Template('''\
"""$pkg.$result's own checks (one file per result, named after it). The checks every result must pass run with

    pytest --theorems-conformance $pkg
"""

import pytest

import theorems
from theorems import HypothesisViolation

RESULT_ID = "$pkg.$result"


def test_default_instance_holds():
    ev = theorems.check(RESULT_ID)
    assert ev.holds, ev.explain()


def test_the_pinned_control_fails():
    ev = theorems.check(RESULT_ID, bound_scale=1 - 1e-9, allow_violation=True)
    assert not ev.holds, ev.explain()


def test_a_wrong_constant_is_refused_without_allow_violation():
    with pytest.raises(HypothesisViolation, match="bound_scale"):
        theorems.check(RESULT_ID, bound_scale=0.5)
''')

README = Template('''\
# $pkg

Theorems checked with the `theorems` suite (TODO: which paper). `python -m theorems new` wrote this package.

    pip install -e .                            # or: PYTHONPATH=$$PWD THEOREMS_PLUGINS=$pkg
    python -m theorems show $pkg.$result
    python -m theorems check $pkg.$result
    pytest --theorems-conformance $pkg           # the checks every result must pass
    pytest                                      # this package's own checks (checks/$pkg/test_<result>.py)
''')


def _split(target: str) -> tuple[str, str]:
    pkg, dot, result = target.partition(".")
    for what, name in (("package", pkg), ("result", result)):
        if not dot or not name.isidentifier() or keyword.iskeyword(name) or not name.islower():
            raise ParameterError(f"new {target!r}: expected PKG.RESULT, two lower-case Python identifiers such as "
                                 f"'mytheorems.theorem_1' (the {what} name {name!r} is not one)", name="id",
                                 value=target)
    from .core.registry import BUILTIN_PREFIXES

    if pkg in BUILTIN_PREFIXES or pkg == "theorems":
        raise ParameterError(f"new {target!r}: {pkg!r} is a package of the suite itself; a plugin's ids carry its "
                             "own prefix and can never shadow a built-in id", name="id", value=target)
    return pkg, result


def files(target: str) -> dict[str, str]:
    """Relative path -> text of every file of the package for ``PKG.RESULT``."""
    pkg, result = _split(target)
    subs = dict(pkg=pkg, result=result, dist=pkg.replace("_", "-"),
                title_line=f"{pkg}.{result}: TODO: the title of your result.")
    return {
        "pyproject.toml": PYPROJECT.substitute(subs),
        "README.md": README.substitute(subs),
        f"{pkg}/__init__.py": INIT.substitute(subs),
        f"{pkg}/paper.py": PAPER.substitute(subs),
        f"{pkg}/{result}.py": RESULT.substitute(subs),
        f"checks/{pkg}/test_{result}.py": TEST.substitute(subs),
    }


def write(target: str, out: str | os.PathLike) -> Path:
    """Write the package for ``PKG.RESULT`` into the folder ``out`` (created; it must not exist or be empty),
    complete or not at all: the files go to a temporary folder beside it, renamed into place at the end."""
    contents = files(target)
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ParameterError(f"--out {out}: the folder exists and is not empty; name a new folder", name="out",
                             value=str(out))
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        for rel, text in contents.items():
            path = staging / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        if out.exists():
            out.rmdir()
        staging.rename(out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return out
