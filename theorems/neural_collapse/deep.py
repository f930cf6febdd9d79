"""What the results of paper 004 that build deep networks share: the hypotheses of Theorems 4.3/4.6 on an
instance, the resource cost of training networks, the data of an instance (Gaussian mixtures for ResNets,
context-labelled token sequences read on the last position for transformers), and the network that attains
the GUFM optimum exactly (used by ``theorem_4_3`` where its bound binds and by ``lemma_4_1`` as the start of
its trained networks)."""

from __future__ import annotations

import torch

from ..core.result import Cost, Violation
from ..data.classification import context_sequences, gaussian_mixture, min_pairwise_distance, sequences_per_class
from .models import INNER, TRANSFORMERS, ModelSpec, init_params, pack, unpack
from .ufm import closed_form, collapsed_pair


def deep_hypotheses(p: dict, form: str) -> list[Violation]:
    """The hypotheses of Theorems 4.3/4.6 and their corollaries on an instance (the structural domain is in the
    Param declarations; the architectures a result covers are its ``arch`` choices)."""
    out: list[Violation] = []
    K, n, d, arch = p["K"], p["n"], p["d"], p["arch"]
    for name in ("lam", "lam_last"):
        if name in p and p[name] == 0:
            out.append(Violation("λ > 0 (weight decay)", "the theorem needs λ > 0 (without it the GUFM has no "
                                 "collapsed minimiser)", (name,)))
    if arch in TRANSFORMERS:
        V, C = p["V"], p["C"]
        if min(sequences_per_class(K, V, C)) < n:
            out.append(Violation("n distinct contexts per class", "fewer than n sequences of some class (label = Σ "
                                 "tokens mod K) exist", ("V", "C", "K", "n"), bypassable=False))
        if d < 2 * V + 2:
            out.append(Violation("d ≥ 2V+2 (L-Tx1)", "the theorem assumes d ≥ 2V+2 for transformers", ("d", "V")))
    elif d < 4:
        out.append(Violation("d ≥ 4 (L-RN1)", "the theorem assumes inner dimension d ≥ 4 (curves on the LN sphere "
                             "need it)", ("d",)))
    if p.get("duplicates", 0) > n:
        out.append(Violation("duplicates ≤ n", "duplicates counts inputs of class 1 copied from class 0",
                             ("duplicates", "n"), bypassable=False))
    elif p.get("duplicates", 0) > 0:
        out.append(Violation("Assumption 4.4 (distinct inputs)", "duplicated inputs with different labels: R is "
                             "no longer within-class and Lemma 4.2's optimum is not the GUFM optimum",
                             ("duplicates",)))
    if p.get("last_bias", False):
        out.append(Violation("no last-layer bias (f = W_L X_L)", "the GUFM has no bias (erratum A6); a bias is only "
                             "a negative control", ("last_bias",)))
    return out


def deep_cost(p: dict, iterations: int) -> Cost:
    """Elements and arithmetic of ``seeds`` networks of depth L trained ``iterations`` L-BFGS steps (each ~3
    forward/backward passes); transformers: every sequence's C×C attention per block."""
    spec = _spec_of(p)
    N = p["K"] * p["n"]
    tokens = N * (p["C"] if spec.transformer else 1)
    per_block = p["d"] * p["d"] * tokens + (tokens * p["C"] * p["d"] if spec.transformer else 0)
    elements = p["seeds"] * (spec.size * 25 + spec.blocks * p["d"] * tokens * 4)  # θ, L-BFGS history, activations
    return Cost(elements=elements, work=p["seeds"] * max(spec.blocks, 1) * per_block * 6 * (3 * iterations + 2))


def _spec_of(p: dict) -> ModelSpec:
    if p["arch"] in TRANSFORMERS:
        return ModelSpec(p["arch"], p["L"], p["d"], p["K"], V=p["V"], C=p["C"], last_bias=p.get("last_bias", False))
    return ModelSpec(p["arch"], p["L"], p["d"], p["K"], d0=p["d0"], last_bias=p.get("last_bias", False))


def make_data(p: dict, ctx):
    """(spec at depth p['L'], inputs, labels, min distance between inputs) for an instance."""
    K, n, d = p["K"], p["n"], p["d"]
    if p["arch"] in TRANSFORMERS:  # the ViT reading of Appendix B.1: the prediction on the last position
        tokens, labels = context_sequences(ctx, K, n, p["V"], p["C"])
        spec = ModelSpec(p["arch"], p["L"], d, K, V=p["V"], C=p["C"], last_bias=p.get("last_bias", False),
                         ln_gain=p.get("ln_gain", 1.0))
        return spec, tokens, labels, 1.0  # distinct by construction
    X0, labels = gaussian_mixture(ctx, K, n, p["d0"], duplicates=p.get("duplicates", 0))
    spec = ModelSpec(p["arch"], p["L"], d, K, d0=p["d0"], last_bias=p.get("last_bias", False),
                     ln_gain=p.get("ln_gain", 1.0))
    return spec, X0, labels, min_pairwise_distance(X0)


def gufm_optimum(loss: str, K: int, d: int, lam: float):
    return closed_form(loss, K, d, lam)


# ------------------------------------------------------------------------------------------------------


def attaining_network(spec: ModelSpec, X0: torch.Tensor, labels: torch.Tensor, loss: str, lam: float,
                      ctx) -> torch.Tensor:
    """A network whose objective is L*_GUFM to rounding: W_0 = X* X_0^+ puts the (linearly independent, d0 ≥ N)
    inputs exactly on the collapsed optimum X* (LN leaves it unchanged), every block is zero (σ(0) = 0, an exact
    identity of every architecture here, with no inner cost) and W_L is the optimal W*."""
    K, d = spec.K, spec.d
    n = X0.shape[-1] // K
    W_star, X_star = collapsed_pair(loss, K, n, d, closed_form(loss, K, d, lam).row_norm,
                                    dtype=ctx.dtype, device=ctx.device)
    parts = unpack(spec, init_params(spec, ctx, 1))
    groups = {name: group for name, _, group in spec.layout()}
    for name, value in parts.items():
        if groups[name] == INNER or name.startswith("b"):
            parts[name] = torch.zeros_like(value)
    parts["W0"] = (X_star @ torch.linalg.pinv(X0))[None]
    parts["WL"] = W_star[None]
    return pack(spec, parts)
