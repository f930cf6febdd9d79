"""Theorem 2 of paper 001 (Tian, §3.2): a bound on the local roughness ρ for ReLU.

Statement as printed
--------------------
"If ‖x‖₂ ≤ C₀, α has kernel structure and N → ∞, then ρ(w_*) ≤ (C₀³ vol(C₀)/π)·r(w_*, α), with
r(w, α) = Σ_l z_l²(α) max_{wᵀx=0} p̃_l(x; α)," vol(C₀) the volume of the d-ball of radius C₀.

Quantifiers: ∀ distributions with ‖x‖₂ ≤ C₀ (α with kernel structure, N → ∞) and ∀ w_*: ρ(w_*) ≤ bound. Nothing
existential, so one instance inside the hypotheses on which the bound fails refutes the printed form.

Correction (the proof's step (88)→(89), App. B.3)
-------------------------------------------------
The power of C₀ is wrong: ρ ~ [x]², r ~ [x]^{−d}, vol ~ [x]^d, so the bound must scale as C₀²; the chain
(88)→(89) of the proof turns C₀² into C₀³. Corrected: ρ(w_*) ≤ C₀² vol(C₀) r(w_*, α)/π. The printed bound
therefore fails for small C₀: on the uniform disk of radius C₀, ρ = (2C₀/3π)² exactly, and the printed bound
C₀³/π is violated for C₀ < 4/(9π) ≈ 0.1415.

Reading chosen
--------------
Uniform α (z₀ = 1, p̃₀ = p), no augmentation (used by the proof via Corollary 1, not listed in the statement),
d = 2, radially symmetric densities p(x) = g(‖x‖) supported on the disk of radius C₀ (the distribution is the
instance; every w is equivalent by symmetry, so w_* = e₁): ``profile='uniform'`` (g constant) or
``'bump'`` (g ∝ (1 − r²/C₀²)^k). Then r = max_{plane} p = g(0) and vol(C₀) = πC₀².

How ρ is measured, independently of any formula for it: A(w) = 𝕍[x·1{wᵀx > 0}] by tensor Gauss–Legendre
quadrature in polar coordinates over the half-disk (the gating boundary is a boundary of the quadrature
domain, so A(w) is exact to rounding for these polynomial profiles), then ρ = ‖(A(v₊) − A(v₋))w/2ε‖ by central
differences on the circle. The reference value ρ = 𝔼[ReLU(wᵀx)]·∫r²p(rt)dr (the exact 2-D formula D = −𝔼[h]M restricted to radial densities),
evaluated by 1-D quadrature, is compared with it (``fd_matches_exact_formula``, an identity: two computations of
the same ρ, a test of the code).

Claims: ``roughness_below_printed_bound`` / ``roughness_below_corrected_bound`` (bound).
Counterexamples to the printed form: the uniform disk of radius C₀ = 0.1: ρ = (2C₀/3π)² = 4.50e-4 > C₀³/π = 3.18e-4
(ρ/bound = 4/(9πC₀) = 1.415, exact closed form; the FD value agrees to 1e-6), and C₀ = 0.01 (ρ/bound = 14.15).
The corrected bound is attained nowhere: ρ/bound = 4/(9π) ≈ 0.141 on the uniform disk at every C₀ (the hypothesis
‖x‖ ≤ C₀ is active there: the support reaches C₀), and smaller on the bump profiles.

Status: verified-corrected → verified-corrected (the counterexample is to the statement, not to a proof step).

Negative controls: ``bound_radius_scale`` < 1 evaluates the bound at a radius C₀' smaller than the support
(violating ‖x‖ ≤ C₀'); ``closed_form_scale`` ≠ 1 falsifies the reference formula (1 + 3e-6: the tolerance pin of
``fd_matches_exact_formula``).
"""

from __future__ import annotations

import math
import random

import numpy as np
import torch

from ..core.evidence import Claim
from ..core.params import sample_params
from ..core.registry import register
from ..core.result import Pin, AS_PRINTED, CORRECTED, Binding, Cost, Logic, Outcome, Param, Result, Status, Violation
from .common import declared_strategy
from .paper import PAPER

ID = "nonlinear_cl.theorem_2"
PROFILES = ("uniform", "bump")
# Gauss–Legendre nodes: exact for polynomials in r of degree < 2·N_R; the angular integrands are entire
# functions of φ on a half-period, where N_PHI nodes converge to rounding.
N_R, N_PHI = 48, 48
FD_EPS = 1e-4  # A(θ) is analytic in θ: truncation ε²·A''' ~ 1e-8 relative, rounding 1e-16/ε ~ 1e-12
FD_RTOL = 1e-6  # ρ by FD vs the exact formula, relative
PRINTED_BREAK = 4 / (9 * math.pi)  # uniform disk: the printed bound fails for C₀ below this


def radial_profile(profile: str, C0: float, k: int):
    """g(r) on [0, C0] (numpy), normalised so that ∫ g(‖x‖) dx = 1 over the disk."""
    if profile == "uniform":
        c = 1.0 / (math.pi * C0**2)
        return lambda r: c * np.ones_like(r)
    c = (k + 1) / (math.pi * C0**2)
    return lambda r: c * (1 - (r / C0) ** 2) ** k


def A_half_disk(g, C0: float, theta: torch.Tensor, dtype=torch.float64, device=None) -> torch.Tensor:
    """A(w(θ)) = 𝕍[x 1{w(θ)ᵀx > 0}] (B, 2, 2) for w(θ) = (cos θ, sin θ), by polar Gauss–Legendre quadrature
    over the half-disk φ ∈ [θ − π/2, θ + π/2]."""
    tr, wr = np.polynomial.legendre.leggauss(N_R)
    tp, wp = np.polynomial.legendre.leggauss(N_PHI)
    r = 0.5 * C0 * (tr + 1)
    wr = 0.5 * C0 * wr * r * g(r)  # includes the Jacobian r and the density
    r, wr = (torch.as_tensor(a, dtype=dtype, device=device) for a in (r, wr))
    tp, wp = (torch.as_tensor(a, dtype=dtype, device=device) for a in (tp, wp))
    phi = theta[:, None] + 0.5 * math.pi * tp[None, :]  # (B, N_PHI)
    wphi = 0.5 * math.pi * wp  # (N_PHI,)
    u = torch.stack([torch.cos(phi), torch.sin(phi)], dim=-1)  # (B, N_PHI, 2)
    m1 = (wr * r).sum()  # ∫ r·(r g) dr
    m2 = (wr * r**2).sum()
    e = m1 * torch.einsum("p,bpi->bi", wphi, u)
    E = m2 * torch.einsum("p,bpi,bpj->bij", wphi, u, u)
    return E - e[:, :, None] * e[:, None, :]


def rho_fd(g, C0: float, theta0: float = 0.0, dtype=torch.float64, device=None) -> float:
    th = torch.tensor([theta0 + FD_EPS, theta0 - FD_EPS], dtype=dtype, device=device)
    A = A_half_disk(g, C0, th, dtype, device)
    w = torch.tensor([math.cos(theta0), math.sin(theta0)], dtype=dtype, device=device)
    # ‖v₊ − v₋‖ = 2 sin ε; the derivative along the circle per unit of arc
    return float(((A[0] - A[1]) @ w).norm() / (2 * FD_EPS))


def rho_exact(g, C0: float) -> float:
    """The exact 2-D formula ρ = 𝔼[ReLU(wᵀx)]·∫_ℝ r²p(rt)dr = (2∫₀^C r²g)² for radial p (1-D quadrature)."""
    from scipy.integrate import quad
    R2 = quad(lambda r: r * r * g(np.asarray(r)), 0, C0, epsabs=0, epsrel=1e-13)[0]
    return (2 * R2) ** 2


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = []
    if p["bound_radius_scale"] < 1:
        out.append(Violation("‖x‖₂ ≤ C₀", f"the bound is evaluated at C₀' = {p['bound_radius_scale']:g}·C₀, "
                             "smaller than the support radius (negative control)", ("bound_radius_scale",)))
    return out


def cost(p: dict) -> Cost:
    """Two polar tensor quadratures of N_R × N_PHI nodes and a 1-D adaptive quadrature."""
    return Cost(elements=4 * N_R * N_PHI, work=40 * N_R * N_PHI + 1e5)


def evaluate(p: dict, form: str, ctx) -> Outcome:
    C0 = p["C0"]
    g = radial_profile(p["profile"], C0, p["k"])
    rho = rho_fd(g, C0, dtype=ctx.dtype, device=ctx.device)
    exact = p["closed_form_scale"] * rho_exact(g, C0)
    Cb = p["bound_radius_scale"] * C0
    vol = math.pi * Cb**2
    r = float(g(np.array(0.0)))  # max of p on the plane wᵀx = 0 (radial profiles are maximal at 0)
    power = 3 if form == AS_PRINTED else 2
    bound = Cb**power * vol * r / math.pi
    name = "roughness_below_printed_bound" if form == AS_PRINTED else "roughness_below_corrected_bound"
    claims = [
        Claim.at_most(name, rho, bound, f"ρ (finite differences) ≤ C₀^{power}·vol(C₀)·r/π"),
        Claim.close("fd_matches_exact_formula", rho, exact, "ρ_fd vs 𝔼[ReLU]∫r²p(rt)dr", kind="identity",
                    rtol=FD_RTOL),
    ]
    details = {"rho_fd": rho, "rho_exact_formula": exact, "bound": bound, "C0": C0, "bound_radius": Cb,
               "vol": vol, "r": r, "power_of_C0": power,
               "uniform_disk_rho_(2C0/3pi)^2": (2 * C0 / (3 * math.pi)) ** 2,
               "printed_bound_fails_below_C0_(uniform)": PRINTED_BREAK}
    return Outcome(claims=claims, details=details, headline=name)


def report_instances(suite):
    for C0 in (0.05, 0.1, 1.0, 10.0):
        yield CORRECTED, dict(C0=C0), False
        yield AS_PRINTED, dict(C0=C0), False  # fails for C0 < 0.1415: the counterexample
    yield CORRECTED, dict(profile="bump", k=2, C0=0.1), False
    yield AS_PRINTED, dict(profile="bump", k=2, C0=0.1), False
    rng = random.Random(1)
    for _ in range(suite.report_examples):
        yield CORRECTED, sample_params(RESULT, CORRECTED, rng), False
    yield CORRECTED, dict(bound_radius_scale=0.5), True
    yield CORRECTED, dict(closed_form_scale=1.001), True


# FD_RTOL's pin: the reference formula 3e-6 off, 3 FD_RTOLs (ρ_fd agrees with it to 7e-9); its declared Pin
PINS = (
    Pin('fd_matches_exact_formula', 'closed_form_scale', fails=1.000003, within=10,
        params=dict(form='corrected', allow_violation=True),
        why='FD_RTOL of theorem_2: ρ by finite differences against the 1-D reference formula'),
)


RESULT = register(Result(
    id=ID,
    paper=PAPER,
    section="Section 3.2, Theorem 2 (proof in Appendix B.3)",
    title="Theorem 2: ρ(w_*) ≤ C₀³ vol(C₀) r/π for ReLU (corrected: C₀²)",
    statement="If ‖x‖₂ ≤ C₀, α has kernel structure and N → ∞, then ρ(w_*) ≤ (C₀³ vol(C₀)/π)·r(w_*, α), "
              "r(w, α) = Σ_l z_l² max_{wᵀx=0} p̃_l(x; α).",
    correction="ρ(w_*) ≤ (C₀² vol(C₀)/π)·r(w_*, α) (and no augmentation, which the proof uses via Corollary 1).",
    correction_reason="Dimensional analysis: ρ scales as [x]², r·vol is scale-free, so the power of C₀ must be 2; "
                      "the proof's step (88)→(89) turns C₀² into C₀³. The uniform disk with C₀ < 4/(9π) ≈ 0.1415 "
                      "violates the printed bound.",
    status=Status.VERIFIED_CORRECTED,
    params=(
        Param("C0", float, 0.1, "support radius of the 2-D density (the data scale)", low=1e-4, high=1e4,
              sample=(0.01, 100.0), log=True),
        Param("profile", str, "uniform", "radial profile: uniform disk or bump (1 − r²/C₀²)^k", choices=PROFILES,
              sample=PROFILES),
        Param("k", int, 2, "bump exponent", low=0, high=20, sample=(0, 4)),
        Param("bound_radius_scale", float, 1.0, "the bound is evaluated at this multiple of C₀; < 1 violates "
              "‖x‖ ≤ C₀ (negative control)", "≥ 1", low=1e-3, high=1e3),
        Param("closed_form_scale", float, 1.0,
              "multiplies the reference formula for ρ (≠ 1 deliberately falsifies it: negative control)", "1", low=1e-3,
              high=1e3, breaks="exact reference formula for ρ"),
    ),
    evaluate=evaluate,
    hypotheses=hypotheses,
    cost=cost,
    forms=(AS_PRINTED, CORRECTED),
    report_instances=report_instances,
    module=__name__,
    logic=Logic(for_all="every distribution with ‖x‖₂ ≤ C₀ (α with kernel structure, N → ∞) and every w_*"),
    counterexamples=(dict(C0=0.1), dict(C0=0.01)),
    binding=(Binding("‖x‖₂ ≤ C₀", dict(C0=1.0), "the support reaches C₀ (uniform disk): ρ/bound = 4/(9π) ≈ 0.141, "
                     "the largest ratio over the profiles tried", form=CORRECTED),
             Binding("‖x‖₂ ≤ C₀", dict(C0=0.1, profile="bump", k=1), "support reaches C₀, bump profile",
                     form=CORRECTED)),
    controls=(dict(bound_radius_scale=0.5, allow_violation=True),),
    pins=PINS,
    strategy=lambda: declared_strategy(ID),
))
