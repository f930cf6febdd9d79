"""Lemma 2 of paper 002: the entries of a uniformly random semi-orthonormal matrix are O(log h/√h).

Statement as printed (Appendix, after the proof of Theorem 1)
--------------------------------------------------------------
"Given any d ≤ p, Let Q be a uniformly random h × d semi-orthonormal matrix. I.e. Q is the first d columns of an
uniformly random h × h orthonormal matrix. Then there are constants L and a sequence ε_p converging to 0 as h goes
to infinity such that, P(max|Q_ij| ≥ L log h/√h) ≤ ε_n."  ("p" and "n" are read as h: the only size in play.)

Quantifiers: ∃ L, ∃ (ε_h) with ε_h → 0, ∀ h ≥ d: P(max_ij |Q_ij| ≥ L log h/√h) ≤ ε_h (Q Haar on St(h, d)).

The witness is the proof's own: its chain (a Gaussian tail and union bound over the d·h entries of Q = X/‖X‖
column-wise, plus a lower-tail bound on ‖X‖²) with explicit constants. For t, s with L = t/√(1 − s),
ε_h = d·h·2Φ̄(t log h) + d·e^{−hs²/4} (the exact normal tail, and Laurent–Massart's P(χ²_h ≤ h − 2√(hx)) ≤ e^{−x} for
the paper's unspecified "C'e^{−c'hs²}"); ε_h → 0 for every L > 0. Default witness L = 1, s = ½.

What one check does
-------------------
``draws`` Haar draws of Q ∈ St(h, d) for each width (batched QR of Gaussians), and:
* ``exceedance_consistent_with_epsilon`` (bound): for every width where the draws can contradict ε_h, the number
  K_h of draws with max|Q_ij| ≥ L log h/√h is not significantly above ε_h: the binomial tail
  P(Bin(draws, ε_h) ≥ K_h) is at least PVALUE_MIN. A width is judged only where even K_h = draws would be
  significant, ε_h^draws < PVALUE_MIN (ε_h < 0.81 at 64 draws): elsewhere, ε_h ≥ 1 included, every count passes
  (100 % exceedances passed there), and a sweep with no such width records the p-values as a measurement, never a
  bound that cannot fail. Negative control:
  ``law='coordinate'`` (Q = [e₁ … e_d], orthonormal but not uniformly random, a hypothesis violation: max|Q_ij| = 1
  on every draw, so K_h = draws at every width with ε_h < 1). The union bound is loose (at h = 100 the Haar rate is
  ~1e-3 against ε_h = 0.33), so the check detects gross departures from Haar only.
* ``gaussian_tail_step`` (proof_step): the proof's first display, P(max_{i≤h}|X_i| ≥ t log h) ≤ h e^{−t²log²h/2}/√(2π),
  against the exact 1 − (1 − 2Φ̄(t log h))^h, largest excess over the widths. It needs t log h ≳ 1 (the Mills
  ratio gives the printed constant only for a = t log h ≥ 2): proof erratum at h = 2, t = 1 (L = √2, s = ½),
  0.738 > 0.628.
* ``norm_event_implication`` (proof_step): the proof's step "max|X_i| ≤ t log h and ΣX_i²/h ≤ (1 + s) implies
  max|X_i|/‖X‖ ≤ t log h/√(h(1 − s))" at X = (t log h)e₁, which satisfies both premises once t²log²h ≤ h(1 + s):
  the implication needs the opposite event ΣX_i²/h ≥ 1 − s (the Chernoff bound the proof quotes is on that
  event). Proof erratum on the default instance (h = 1000: 1 > 0.22).
* measurements: the constant the draws need, L_needed = max over widths of the largest max|Q_ij|√h/log h drawn,
  and the truth √(2 log(hd))/log h at the largest width: the lemma holds with room (L_needed decreases with h, the
  entries are O(√(log(hd)/h)), Lemma 2's log h is a √log h).

Status ``verified``: the statement is true (the proof's chain is correct in the limit, with the two slips above), and
the explicit ε_h(L = 1) is consistent with every sweep drawn, including d = h (the hypothesis d ≤ h binding).
"""

from __future__ import annotations

import math

import torch
from scipy.special import ndtr
from scipy.stats import binom

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import (AS_PRINTED, Binding, Cost, Logic, Outcome, Param, ProofErratum, Result, Status, Violation,
                           seed_param)
from ..optim.stiefel import haar_stiefel
from ..optim.threads import one_thread
from .instances import PVALUE_MIN, bites, epsilon, widths_param
from .paper import PAPER

ID = "ssl_dynamics.lemma_2"
LAWS = ("haar", "coordinate")
# The printed tail bound vs the exact probability: both closed forms, so only rounding separates them.
TAIL_ATOL = 1e-12


def _draws(ctx, p, h):
    if p["law"] == "coordinate":
        return torch.eye(h, p["d"], dtype=ctx.dtype, device=ctx.device).expand(p["draws"], h, p["d"])
    return haar_stiefel(ctx, p["draws"], h=h, k=p["d"])


def _tail_steps(widths, t, s):
    """Largest excess of the exact P(max_{i≤h}|X_i| ≥ t log h) over the printed bound, and the implication at
    X = (t log h)e₁ (max|X_i|/‖X‖ = 1 against t log h/√(h(1 − s))) at the largest width whose premises hold."""
    excess = max(1 - (1 - 2 * float(ndtr(-t * math.log(h)))) ** h
                 - h * math.exp(-(t * math.log(h)) ** 2 / 2) / math.sqrt(2 * math.pi) for h in widths)
    ok = [h for h in widths if (t * math.log(h)) ** 2 <= h * (1 + s)]
    h = max(ok) if ok else max(widths)
    return excess, t * math.log(h) / math.sqrt(h * (1 - s)), h


@one_thread
def evaluate(p: dict, form: str, ctx) -> Outcome:
    widths = list(p["widths"])
    L, s, R = p["L"], p["s"], p["draws"]
    t = L * math.sqrt(1 - s)
    counts, eps, pvals, needed = [], [], [], []
    for h in widths:
        scaled = _draws(ctx, p, h).abs().amax(dim=(-1, -2)) * math.sqrt(h) / math.log(h)  # max|Q_ij|·√h/log h
        k = int((scaled >= L).sum())
        e = min(epsilon(h, p["d"], L, s), 1.0)
        counts.append(k)
        eps.append(e)
        pvals.append(float(binom.sf(k - 1, R, e)) if k > 0 else 1.0)
        needed.append(float(scaled.max()))
    excess, implied, h_imp = _tail_steps(widths, t, s)
    hmax = max(widths)
    # A width can contradict ε_h only if even K_h = draws is significant there: P(Bin(R, ε_h) ≥ R) = ε_h^R below
    # PVALUE_MIN (ε_h < 0.81 at 64 draws). Elsewhere (ε_h ≥ 1 included: the bound says nothing) every count passes,
    # so only the widths that can bite are judged, and a sweep with none records the p-values as a measurement
    # instead of a bound that cannot fail.
    informative = [i for i, e in enumerate(eps) if bites(e, R)]
    judged = min(pvals[i] for i in informative) if informative else min(pvals)
    what = (f"min over the widths where ε_h^{R} < {PVALUE_MIN:g} ({[widths[i] for i in informative]}) of "
            f"P(Bin({R}, ε_h) ≥ K_h): "
            f"K_h = {counts}, ε_h = {[float(f'{v:.3g}') for v in eps]}")
    consistency = (Claim.at_least("exceedance_consistent_with_epsilon", judged, PVALUE_MIN, what) if informative else
                   Claim.measurement("exceedance_consistent_with_epsilon", judged, PVALUE_MIN,
                                     f"no width where {R} draws can contradict ε_h (ε_h^{R} ≥ {PVALUE_MIN:g}; ε_h = "
                                     f"{[float(f'{v:.3g}') for v in eps]}): nothing to assert on this sweep"))
    claims = [
        consistency,
        Claim.at_most("gaussian_tail_step", excess, 0.0,
                      f"max_h [exact P(max|X_i| ≥ t log h) − h e^(−t²log²h/2)/√(2π)], t = {t:.4g}", kind="proof_step",
                      atol=TAIL_ATOL),
        Claim.at_most("norm_event_implication", 1.0, implied,
                      f"X = (t log h)e₁, h = {h_imp}: max|X_i|/‖X‖ = 1 vs t log h/√(h(1 − s)) under ΣX²/h ≤ 1 + s",
                      kind="proof_step"),
        Claim.measurement("L_needed", max(needed), L, "largest max|Q_ij|·√h/log h drawn, against the witness L"),
        Claim.measurement("truth_at_largest_width", math.sqrt(2 * math.log(hmax * p["d"])) / math.log(hmax),
                          needed[widths.index(hmax)], "√(2 log(hd))/log h (extreme-value scale) vs the largest drawn"),
    ]
    details = {"widths": widths, "exceedances": counts, "epsilon": eps, "p_values": pvals, "L_needed_per_width": needed,
               "informative_widths": [widths[i] for i in informative],
               "t": t, "tail_step_excess": excess}
    return Outcome(claims=claims, details=details)


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = []
    if p["d"] > min(p["widths"]):
        out.append(Violation("d ≤ h", f"d = {p['d']} > smallest width {min(p['widths'])}", ("d", "widths"),
                             bypassable=False))
    if not any(bites(epsilon(h, p["d"], p["L"], p["s"]), p["draws"]) for h in p["widths"]):
        out.append(Violation("a width with ε_h < 1 that the draws can contradict (ε_h^draws < PVALUE_MIN)",
                             f"at every width {list(p['widths'])} (L = {p['L']}, s = {p['s']}, d = {p['d']}) "
                             f"ε_h^{p['draws']} ≥ {PVALUE_MIN:g}: every exceedance count is consistent with ε_h",
                             ("widths", "L", "s", "d", "draws")))
    if p["law"] != "haar":
        out.append(Violation("Q uniformly random (Haar)", f"law = {p['law']!r}: the coordinate frame [e₁ … e_d]",
                             ("law",)))
    return out


def cost(p: dict) -> Cost:
    """draws × h × d Gaussians per width and their QR."""
    size = p["draws"] * max(p["widths"]) * p["d"]
    return Cost(elements=3 * size, work=8 * p["draws"] * sum(p["widths"]) * p["d"] ** 2)


BINDING_SQUARE = dict(d=30, widths=(30, 100, 300))  # d = h at the smallest width
ERRATUM_TAIL = dict(widths=[2, 3, 10], d=1, L=math.sqrt(2))  # t = 1, h = 2: 0.738 > 0.628


def report_instances(suite):
    yield AS_PRINTED, dict(), False
    yield AS_PRINTED, BINDING_SQUARE, False
    yield AS_PRINTED, ERRATUM_TAIL, False
    if suite.name == "thorough":
        yield AS_PRINTED, dict(widths=(10, 30, 100, 300, 1000, 3000, 10_000), draws=400), False
    yield AS_PRINTED, dict(law="coordinate"), True


def _strategy():
    from ..strategies.ssl_dynamics import ssl_lemma2_params

    return ssl_lemma2_params()  # widths from d upwards: the hypothesis d ≤ h ties them


RESULT = register(Result(
    id=ID, paper=PAPER, section="Appendix, Lemma 2 (used in the proof of Theorem 1)",
    title="Lemma 2: the entries of a Haar semi-orthonormal matrix are O(log h/√h) with probability → 1",
    statement="For Q the first d ≤ h columns of a uniformly random h × h orthonormal matrix there are L and ε_h → 0 with "
              "P(max|Q_ij| ≥ L log h/√h) ≤ ε_h.",
    status=Status.VERIFIED,
    logic=Logic(for_all="every h ≥ d and Q Haar on St(h, d)",
                exists="a constant L and a sequence ε_h → 0 (witness: L = 1 and the proof's ε_h with explicit constants)"),
    binding=(Binding("d ≤ h", BINDING_SQUARE, "d = h = 30 at the smallest width"),),
    proof_errata=(
        ProofErratum(step="Appendix, proof of Lemma 2, first display",
                     printed="P(max_{1≤i≤h}|X_i| ≥ t log h) ≤ (1/√(2π)) h e^{−t² log² h/2}",
                     why="exact 1 − (1 − 2Φ̄(t log h))^h = 0.738 > 0.628 at h = 2, t = 1: a normal tail is ≤ φ(a)·2/a, "
                         "which is ≤ φ(a) only for a = t log h ≥ 2 (harmless as h → ∞)",
                     params=ERRATUM_TAIL, claim="gaussian_tail_step"),
        ProofErratum(step="Appendix, proof of Lemma 2, the norm event",
                     printed="max|X_i| ≤ t log h and ΣX_i²/h ≤ (1 + s) implies max|X_i|/‖X‖ ≤ t log h/√(h(1 − s))",
                     why="X = (t log h)e₁ meets both premises and has max|X_i|/‖X‖ = 1 > t log h/√(h(1 − s)) (0.22 at "
                         "h = 1000): the implication needs ΣX_i²/h ≥ 1 − s, the event the quoted Chernoff bound controls",
                     params={}, claim="norm_event_implication"),
    ),
    controls=(dict(law="coordinate", allow_violation=True),),
    strategy=_strategy,
    params=(
        widths_param((30, 100, 300, 1000), "widths h", low=2),
        Param("d", int, 3, "columns of Q", "d ≤ h", low=1, high=4096, sample=(1, 8)),
        Param("draws", int, 64, "Haar draws per width, batched", low=1, high=100_000, sample=(8, 64)),
        Param("L", float, 1.0, "the witness constant L", low=1e-6, high=1e3, sample=(0.6, 3.0)),
        Param("s", float, 0.5, "the proof's split between the two tails (L = t/√(1 − s))", low=1e-6, high=1 - 1e-6,
              sample=(0.1, 0.9)),
        Param("law", str, "haar", "law of Q: haar, or the coordinate frame (control)", "haar", choices=LAWS),
        seed_param(),
    ),
    cost=cost, evaluate=evaluate, hypotheses=hypotheses, forms=(AS_PRINTED,), report_instances=report_instances,
    module=__name__,
))
