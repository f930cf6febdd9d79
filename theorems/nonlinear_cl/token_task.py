"""The synthetic token task of paper 001 (§5 "Setup" and App. E.2) and its matching scores χ̄₊, χ̄₋.

Data (§5): G generators over K receptive fields (RFs) and d tokens. Each RF R_k has a subset R^g_k of P candidate
tokens; a generator fixes, at ``RF_PER_GEN`` = 5 random RFs, one candidate token of that RF and leaves wildcards
elsewhere. A sample picks a generator uniformly and fills each wildcard with a uniform token; the positive pair is
"another sequence from the same generator" (§5: the data augmentation). Token a is embedded as u_a = ζ_a e_a:
orthonormal directions (§5) with norms ζ_a = 1, or, for the non-uniformity of App. E.2, ζ for ⌊d/2⌋ tokens and
1/ζ for the rest. (Which half gets which is not printed; the authors' released code divides the first half by
ζ and multiplies the second half by ζ; so do we.)

Everything is batched over *streams*: one stream per (seed, P), each with its own generators, drawn from the
context's CPU generator in a fixed order, so a seed fixes every task on every device. A model of the batched
trainer (``token_training``) reads the stream of its (seed, P).

Scores (eq. 16 / 180 and 181): χ₊(R_k) = (1/P) Σ_{a ∈ R^g_k} max_m cos(w_km, u_a), averaged over the RFs.
R^g_k here is the set of candidates that some generator actually uses at RF k (a candidate no generator picks
appears only as a wildcard, i.e. as noise; the authors' code scores the same set). χ₋ averages over the other
tokens with 1/(d − |R^g_k|); eq. 181 prints 1/P, which does not average over the d − P irrelevant tokens (it only
rescales, so comparisons at equal P are unaffected). For activations symmetric under w → −w up to the top layer
(linear: (w, v) → (−w, −v); quadratic: h(−s) = h(s)) the sign of a filter is arbitrary, and the score takes
|cos| (the authors' code does this for linear networks).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

G, K, D, RF_PER_GEN = 40, 10, 20, 5


@dataclass(frozen=True)
class TokenTasks:
    """S token tasks (streams). ``used`` (S, G, K): generator g fixes RF k; ``tok`` (S, G, K): its token there;
    ``cand`` (S, K, D): R^g_k as a mask (tokens some generator fixes at RF k); ``mags`` (D,): ‖u_a‖."""

    used: torch.Tensor
    tok: torch.Tensor
    cand: torch.Tensor
    mags: torch.Tensor

    @property
    def streams(self) -> int:
        return int(self.used.shape[0])


def token_magnitudes(zeta: float, dtype, device) -> torch.Tensor:
    """‖u_a‖: 1/ζ for the first ⌊d/2⌋ tokens, ζ for the rest (App. E.2 non-uniformity; ζ = 1: uniform)."""
    mags = torch.full((D,), float(zeta), dtype=dtype, device=device)
    mags[: D // 2] = 1.0 / zeta
    return mags


def make_tasks(gen: torch.Generator, Ps: list[int], zeta: float, dtype, device) -> TokenTasks:
    """One task per entry of ``Ps`` (the caller lists (seed, P) pairs in a fixed order). Index draws are made on
    the CPU generator ``gen``; the tensors are then moved to ``device``."""
    S = len(Ps)
    # built on the CPU (device named: a default device set by the caller must not capture them), then moved
    used = torch.zeros(S, G, K, dtype=torch.bool, device="cpu")
    tok = torch.zeros(S, G, K, dtype=torch.long, device="cpu")
    cand = torch.zeros(S, K, D, dtype=torch.bool, device="cpu")
    rf_index = torch.arange(K, device="cpu")[None, :].expand(G, K)
    for s, P in enumerate(Ps):
        subsets = torch.stack([torch.randperm(D, generator=gen, device="cpu")[:P] for _ in range(K)])  # (K, P)
        rfs = torch.argsort(torch.rand(G, K, generator=gen, device="cpu"), dim=1)[:, :RF_PER_GEN]  # (G, 5)
        pick = torch.randint(P, (G, RF_PER_GEN), generator=gen, device="cpu")
        used[s].scatter_(1, rfs, True)
        tok[s].scatter_(1, rfs, subsets[rfs, pick])
        cand[s, rf_index[used[s]], tok[s][used[s]]] = True
    return TokenTasks(used.to(device), tok.to(device), cand.to(device), token_magnitudes(zeta, dtype, device))


def sample_tokens(gen: torch.Generator, tasks: TokenTasks, steps: int, batch: int,
                  independent_pairs: bool = False) -> torch.Tensor:
    """Token ids (steps, S, 2, N, K) for ``steps`` minibatches of every stream: view 2 re-draws the wildcards of
    view 1's generator (the positive pair). ``independent_pairs``: view 2 comes from an independent generator
    (nothing is shared within a pair: a negative control)."""
    S = tasks.streams
    g1 = torch.randint(G, (steps, S, batch), generator=gen, device="cpu")
    g2 = torch.randint(G, (steps, S, batch), generator=gen, device="cpu") if independent_pairs else g1
    wild = torch.randint(D, (steps, S, 2, batch, K), generator=gen, device="cpu")
    used, tok = tasks.used.cpu(), tasks.tok.cpu()
    s_idx = torch.arange(S, device="cpu")[None, :, None]
    views = []
    for v, g in enumerate((g1, g2)):
        views.append(torch.where(used[s_idx, g], tok[s_idx, g], wild[:, :, v]))  # (steps, S, N, K)
    return torch.stack(views, dim=2)


def chi_scores(W: torch.Tensor, filt_mask: torch.Tensor, cand: torch.Tensor, symmetric: torch.Tensor):
    """χ̄₊ and χ̄₋ per model. W (B, K, M, D) (padded filters have ``filt_mask`` False, (B, M)); ``cand`` (B, K, D)
    the R^g_k mask of each model's stream; ``symmetric`` (B,) bool: score |cos| (sign-symmetric activations).
    u_a = ζ_a e_a, so cos(w_km, u_a) = w_km[a]/‖w_km‖ whatever ζ_a."""
    cos = W / W.norm(dim=-1, keepdim=True).clamp_min(torch.finfo(W.dtype).tiny)
    cos = torch.where(symmetric[:, None, None, None], cos.abs(), cos)
    cos = cos.masked_fill(~filt_mask[:, None, :, None], -torch.inf)
    best = cos.max(dim=2).values  # (B, K, D): the best filter of the RF for each token
    cand_f = cand.to(W.dtype)
    plus = (best * cand_f).sum(-1) / cand_f.sum(-1)
    minus = (best * (1 - cand_f)).sum(-1) / (1 - cand_f).sum(-1)
    return plus.mean(-1), minus.mean(-1)


def mean(v) -> float:
    return sum(v) / len(v)
