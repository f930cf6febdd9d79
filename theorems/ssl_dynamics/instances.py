"""Instance builders and parameter declarations shared by the results of paper 002: the matrix C of an
instance, its spectrum, and the parameters several results take (declared here once, with their domains)."""

from __future__ import annotations


import numpy as np
import torch

from ..core.params import Param
from ..core.result import Violation
from ..data.haar import PVALUE_MIN, bites, entry_tail_bound  # noqa: F401  (re-exported: lemma_2 imports them from here)
from ..data.spectra import (  # noqa: F401  (re-exported)
    SPECTRUM_START, SPECTRUM_STEP_MAX, gapped_spectrum, gapped_spectrum_values)
from ..data.ssl_pairs import Triplets, dataset
from .trace_form import LOSSES, matrix_from_text, random_symmetric, symmetric_C_violations, trace_matrix

DATASETS = ("gaussian", "moons")
# Default covariance spectrum of the Gaussian data: well separated, so that rates are clean to fit.
GAUSSIAN_SPECTRUM = (4.0, 2.0, 1.0, 0.5, 0.25)
# Two eigenvalues closer than this (relative to the spectral norm) count as repeated.
SIMPLE_GAP_RTOL = 1e-6
# Resource ceilings of one instance (a 2-core, 24 GiB machine): anchors, input dimension, widths.
MAX_N = 20_000
MAX_D = 64
MAX_WIDTH = 1_000_000


# -- declarations several results share ----------------------------------------------------------------------
def data_param(default: str = "gaussian") -> Param:
    return Param("data", str, default, "SSL triplets: Gaussian (covariance 4·2^{-k}, mean of norm 1) or half moons "
                 "(Example 1)", choices=DATASETS, sample=DATASETS)


def loss_param() -> Param:
    return Param("loss", str, "contrastive", "SSL loss (1) contrastive or (2) non-contrastive", choices=LOSSES,
                 sample=LOSSES)


def nc_sign_param() -> Param:
    return Param("nc_sign", float, -1.0, "sign of the non-contrastive C̃ (−1 corrected, +1 as printed: control)",
                 valid="−1", choices=(-1.0, 1.0))


def explicit_C_param(valid: str = "symmetric") -> Param:
    return Param("C", str, "", "explicit symmetric C ('a,b;c,d'), overrides the data", valid=valid)


def n_param(default: int = 400, sample=(100, 400)) -> Param:
    return Param("n", int, default, "anchors", low=2, high=MAX_N, sample=sample)


def d_param(default: int, low: int = 1, sample=None) -> Param:
    return Param("d", int, default, "input dimension", low=low, high=MAX_D, sample=sample)


def spectrum_param(default, doc: str = "eigenvalues of C (random eigenvectors)", valid: str = "",
                   sample=None) -> Param:
    return Param("spectrum", list[float], tuple(default), doc, valid=valid, low=-1e6, high=1e6, length=(1, MAX_D),
                 sample=sample)


def widths_param(default, doc: str = "hidden widths h", low: int = 1, sample=None) -> Param:
    return Param("widths", list[int], tuple(default), doc, low=low, high=MAX_WIDTH, length=(1, 12),
                 increasing=True, sample=sample)


# -- instances -----------------------------------------------------------------------------------------------
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


def matrix_C(p: dict, ctx) -> torch.Tensor:
    """C from an explicit 'C' parameter, else Q diag(spectrum) Qᵀ with a random rotation Q (Theorem 2,
    Proposition 3 and the results on the eigen-coordinate dynamics)."""
    if p.get("C"):
        return ctx.tensor(matrix_from_text(p["C"]))
    return random_symmetric(ctx, list(p["spectrum"]))


def common_C_violations(p: dict) -> list[Violation]:
    """An explicit C must be a symmetric matrix and match d; half moons live in R²; the non-contrastive sign
    must be the corrected one (the printed +Σxᵢxᵢ⁺ᵀ is a negative control)."""
    out, A = symmetric_C_violations(p)
    if A is not None and "d" in p and A.shape[0] != p["d"]:
        out.append(Violation("C is d×d", f"C is {A.shape[0]}×{A.shape[0]} but d = {p['d']}", ("C", "d"),
                             bypassable=False))
    if p.get("data") == "moons" and p.get("d", 2) != 2 and not p.get("C"):
        out.append(Violation("d = 2 for half moons", f"half moons live in R², got d = {p['d']}", ("d", "data"),
                             bypassable=False))
    if p.get("nc_sign", -1.0) == 1.0 and p.get("loss") == "noncontrastive" and not p.get("C"):
        out.append(Violation("non-contrastive C̃ = −Σ xᵢxᵢ⁺ᵀ (corrected sign)",
                             "nc_sign = +1 is the paper's printed C̃ = +Σ xᵢxᵢ⁺ᵀ, which flips the sign of loss (2): "
                             "then C ≻ 0 on generic data and the dynamics are trivial (the appendix's proof of "
                             "Proposition 1 has the minus sign)", ("nc_sign", "loss")))
    return out


def is_simple(lam: np.ndarray, i: int = 0) -> bool:
    scale = max(float(np.abs(lam).max()), 1e-300)
    return len(lam) == 1 or float(lam[i + 1] - lam[i]) > SIMPLE_GAP_RTOL * scale


# Random spectra with gaps (worst-case searches and report instances): theorems.data.spectra.


# Lemma 2's ε_h and the widths its draws can judge: theorems.data.haar (epsilon is its entry_tail_bound).
epsilon = entry_tail_bound
