"""Instance builders shared by the results of paper 002: the matrix C of an instance and its spectrum."""

from __future__ import annotations

import numpy as np
import torch

from ..core.result import Violation
from ..data.ssl_pairs import Triplets, dataset
from .trace_form import matrix_from_text, parse_floats, random_symmetric, symmetric_C_violations, trace_matrix

DATASETS = ("gaussian", "moons")
# Default covariance spectrum of the Gaussian data: well separated, so that rates are clean to fit.
GAUSSIAN_SPECTRUM = (4.0, 2.0, 1.0, 0.5, 0.25)
# Two eigenvalues closer than this (relative to the spectral norm) count as repeated.
SIMPLE_GAP_RTOL = 1e-6


def build_C(p: dict, ctx) -> tuple[torch.Tensor, Triplets | None]:
    """C from an explicit 'C' parameter, else from SSL triplets of the named dataset (mean loss, C/n)."""
    if p.get("C"):
        return ctx.tensor(matrix_from_text(p["C"])), None
    d = p.get("d", 2)
    spec = GAUSSIAN_SPECTRUM[:d] if d <= len(GAUSSIAN_SPECTRUM) else [4.0 * 0.5**k for k in range(d)]
    t = dataset(ctx, p.get("data", "gaussian"), p["n"], d=d, spectrum=spec)
    return trace_matrix(t, p.get("loss", "contrastive"), p.get("nc_sign", -1.0)), t


def spectrum_of(p: dict) -> np.ndarray:
    """The eigenvalues of the instance's C, built on the CPU with the instance's seed (for hypotheses)."""
    from ..core.context import Context

    C, _ = build_C(p, Context.make("cpu", seed=p.get("seed", 0)))
    return np.linalg.eigvalsh(C.cpu().numpy())


def common_C_violations(p: dict) -> list[Violation]:
    """Explicit C must be symmetric; the non-contrastive sign must be the corrected one; moons need d = 2."""
    out, _ = symmetric_C_violations(p)
    if p.get("data") == "moons" and p.get("d", 2) != 2 and not p.get("C"):
        out.append(Violation("d = 2 for half moons", f"half moons live in R², got d = {p['d']}", ("d", "data"),
                             bypassable=False))
    if "nc_sign" in p and p["nc_sign"] not in (-1.0, 1.0):
        out.append(Violation("nc_sign ∈ {−1, +1}", f"nc_sign = {p['nc_sign']}", ("nc_sign",), bypassable=False))
    if p.get("nc_sign", -1.0) == 1.0 and p.get("loss") == "noncontrastive" and not p.get("C"):
        out.append(Violation("non-contrastive C̃ = −Σ xᵢxᵢ⁺ᵀ (corrected sign)",
                             "nc_sign = +1 is the paper's printed C̃ = +Σ xᵢxᵢ⁺ᵀ, which flips the sign of loss (2): "
                             "then C ≻ 0 on generic data and the dynamics are trivial (the appendix's proof of Proposition 1 has the minus sign)",
                             ("nc_sign", "loss")))
    if "n" in p and p["n"] < 2:
        out.append(Violation("n ≥ 2 anchors", f"n = {p['n']}", ("n",), bypassable=False))
    return out


def is_simple(lam: np.ndarray, i: int = 0) -> bool:
    scale = max(float(np.abs(lam).max()), 1e-300)
    return len(lam) == 1 or float(lam[i + 1] - lam[i]) > SIMPLE_GAP_RTOL * scale


def matrix_C(p: dict, ctx) -> torch.Tensor:
    """C from an explicit 'C' parameter, else Q diag(spectrum) Qᵀ with a random rotation Q (Theorem 2,
    Proposition 3 and the results on the eigen-coordinate dynamics)."""
    if p.get("C"):
        return ctx.tensor(matrix_from_text(p["C"]))
    return random_symmetric(ctx, parse_floats(p["spectrum"]))
