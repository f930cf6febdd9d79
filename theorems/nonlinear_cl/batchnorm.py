"""BatchNorm in the 2-layer network of paper 001 (App. D): Definition 5, Lemma 6, Corollary 3, and whether detaching
the batch mean μ can change the gradient (App. E.2, Table 1's four variants).

Statement as printed (App. D)
-----------------------------
BatchNorm right after f₁: f^bn_k[i] = (f_k[i] − μ_k)/σ_k with μ_k, σ_k² the statistics of "all 2N samples in a
batch" (eq. 164–165). "Definition 5 (mean-backprop BatchNorm). When computing backpropagated gradient through
BatchNorm, we only backprop through μ_k." "Lemma 6. With mean-backprop BatchNorm, the dynamics is
V̇ = V ℂ_α[f₁^bn], ẇ = [(S ⊗ 1_d1_dᵀ) ∘ ℂ_α[x̃^bn]] w" (eq. 166), x̃^bn_k = σ_k⁻¹x̃_k, S = VᵀV. Its proof rests on
"ℂ_α[·, ∂μ_k/∂w_k] = 0" (∂μ_k/∂w_k is the same for every sample of the batch). "Corollary 3. Under conditional
independence [Assumption 2, C = 2, M = 1]: (1) λ^bn ≥ max_k d^bn_k; (2) s^bn ∝ [w_kᵀΔ^bn_k/(λ^bn − d^bn_k)]_k is the
top eigenvector of 𝕍[f₁^bn]; (3) ẇ_k = [(s^bn_k)²A^bn_k + δ^bn_k Δ^bn_kΔ^bnᵀ_k] w_k (eq. 178) with δ^bn_k ≥ 0 (eq. 179)",
and the remark d^bn_k → 1/(1 + p₀p₁(w_kᵀΔ_k/√d_k)²) ("becomes more uniform").

Quantifiers: for every batch (two views, N samples), every fixed α ≥ 0, every (W, V) and homogeneous h (Lemma 6);
for every distribution satisfying Assumption 2 with C = 2, M = 1 and every W (Corollary 3). Nothing existential.

Reading chosen: the gradient is that of the energy ℰ_α = ½ tr ℂ_α[f₂], f₂ = V f₁^bn, with α held fixed (eq. 2);
"dynamics" is ∂ℰ/∂θ without projection (the proof of Lemma 6 has none). Corollary 3 is read at the population
(N → ∞, uniform α, ℂ_α = 𝕍, as in Theorem 5) with σ_k² = 𝕍[f_k]; (3) with S = ssᵀ, s the top eigenvector of 𝕍[f₁^bn].
The "β_k (Eqn. 143)" of App. D's first paragraph is δ_k (a typo).

What one check does
-------------------
1. Lemma 6 on a random finite batch (x' = x + ``aug``·noise, random α ≥ 0 or α ≡ 1): autograd of ℰ under the four
   BatchNorm variants (μ, σ² each backpropagated or detached; same forward pass) against eq. (166).
2. Whether detaching μ can change the gradient: for ℰ_α and for the stated InfoNCE (eq. 1: distances d_ij within
   the first view, d_i between the views; ``eps_nce`` = ε), with the statistics of eq. 164 (all 2N rows) both are
   invariant to translating every representation, so Σ_i ∂L/∂f^bn[i] = 0 and the μ-path adds nothing, whatever σ².
   Measured too (not asserted): the relative gradient change from detaching μ in the authors' released
   implementation (statistics of each view's own forward pass, ℓ2-normalised outputs, dot-product InfoNCE), and
   with each of the two departures alone.
3. Corollary 3 on an exact binary-latent population (``two_layer_population``): autograd of ½𝕍[sᵀf₁^bn] (σ
   detached, μ through) against eq. (178), the BNS vector s^bn against the top eigenvector, and the identities.

Claims (kind in brackets): ``lemma_6_w`` [bound]; ``lemma_6_v`` [identity: ∂/∂V ½tr ℂ_α[Vf] = Vℂ_α[f] for any f];
``mean_detach_inert_energy``, ``mean_detach_inert_infonce`` [bound: the proof's ℂ_α[·, ∂μ/∂w] = 0, for ℰ and for
eq. (1)]; ``corollary_3_dynamics``, ``s_bn_eigenvector`` [bound]; ``lambda_bn_above_d_bn`` (λ_max ≥ every diagonal
entry ≥ d_k), ``delta_bn_nonnegative`` (follows from it), ``d_bn_closed_form`` (law of total variance for a binary z)
[identity]; ``mu_detach_change_authors`` and the two single causes, ``rf_spread_plain`` / ``rf_spread_bn``
(max/min over RFs of λ − d_k, with and without BN: App. D's "almost constant") [measurement].

Negative controls (``Result.controls``): ``activation="tanh"`` (not homogeneous: Assumption 1), ``var_backprop=True``
(vanilla BN instead of Def. 5), ``bn_stats="per_view"`` and ``l2_normalise=True`` (the two departures of the authors'
code from eq. 164 and from f₂ = Vf₁^bn), ``dependent=True`` (Assumption 2(iii) fails), ``formula_scale`` = 1 + 3e-10
(3× RTOL: pins the tolerance of eqs. 166 and 178), and the tolerance pin ``weak_rf`` = 0.002 with ``formula_scale``
= 1 + 2e-9 (2.8 allowances outside eq. 178's tolerance, which SECULAR_AMPLIFICATION grows to 7e-10 where the
secular equation is near-degenerate).

Binding instances: ``weak_rf`` = 0.01 (RFs 2..K nearly lose their z-signal: λ^bn − max d^bn_k falls from 0.18 to 0.009
and δ^bn is small, so eq. 178's δ-term and the BNS vector are checked where the secular equation is near-degenerate;
agreement 1.6e-13) and ``n_small`` (RF 1 nearly constant over the batch: min σ = 1.4e-3 against 0.26 by default, where
x̃^bn = x̃/σ is largest; agreement 2.9e-14).

Findings
--------
* Table 1: under the paper's stated loss and statistics, detaching μ provably cannot change the gradient (on the
  default instance the change is 1.6e-16 for ℰ_α and 1.2e-16 for eq. 1, at both σ² settings), so the two "μ_k"
  halves of Table 1 would agree run for run; the printed table has them differ by up to 0.27 (β = 2, P = 1). The
  authors' implementation departs in two ways, each of which makes μ matter: with their cross-entropy (ε = 1),
  ℓ2-normalised outputs and per-view statistics, detaching μ changes ∂L/∂W by 56 % (ℓ2 normalisation alone 85 %,
  per-view statistics alone 7 %) on the default instance. (With ε = 0 in eq. 1 per-view statistics alone leave μ
  inert: every ∂L/∂d_i² is 1, and the per-view means of f^bn are 0.)
* App. D's remark that with BN "λ^bn − d^bn_k becomes almost constant across different receptive fields" is not
  general: on the default instance BN widens the spread max/min of λ − d_k from 1.2 to 5.5 (``rf_spread_*``); where
  one RF dominates (weak_rf = 0.01) it narrows it from 1.0e4 to 39. Recorded as measurements (a remark, not part
  of Corollary 3).
* Lemma 6 is the gradient of mean-backprop BN only: with σ² backpropagated (vanilla BN) eq. (166) misses ∂ℰ/∂W by
  102 % (``vanilla_bn_vs_eq_166``).

Status: new → verified. Every bound claim holds on the default instance (≤ 1.6e-15 relative), the two binding
instances and the worst-case search (``Result.strategy``), and each is broken by a control.
"""

from __future__ import annotations


import torch

from ..core.errors import HypothesisViolation
from ..core.evidence import Claim
from ..core.registry import register
from ..core.params import declared_instances
from ..core.result import Pin, AS_PRINTED, Binding, Cost, Logic, Outcome, Param, Result, Status, Violation, seed_param
from .covariance import contrastive_covariance
from .paper import PAPER
from .token_training import single_thread
from .two_layer_population import binary_latent_population, weighted_cov

ID = "nonlinear_cl.batchnorm"
ACTIVATIONS = ("relu", "leaky", "linear", "tanh")  # tanh: not homogeneous (negative control)
LEAK = 0.1
# Autograd and the closed forms sum O(N²) float64 terms of size O(1/σ²): agreement is ≲ 1e-13 relative on every
# instance the search drew; 1e-10 leaves room for ill-conditioned draws, and formula_scale = 1 + 3e-10 falls 3× outside.
RTOL = 1e-10
# The population check divides by Z²(λ − d_k): near-degenerate secular equations (weak_rf → 0) amplify rounding
# by 1/(λ − max d_k)²; the tolerance grows with it, with a factor 10 of margin (as for Theorem 5).
SECULAR_AMPLIFICATION = 10.0
EPS64 = torch.finfo(torch.float64).eps
DEF_5 = (True, False)  # (μ backprop, σ² backprop) of mean-backprop BatchNorm


# ------------------------------------------------------------------------------------------------------
# The network and its BatchNorm variants on a finite batch
# ------------------------------------------------------------------------------------------------------
def act(s: torch.Tensor, kind: str) -> torch.Tensor:
    if kind == "relu":
        return torch.relu(s)
    if kind == "leaky":
        return torch.nn.functional.leaky_relu(s, LEAK)
    if kind == "tanh":
        return torch.tanh(s)
    return s


def act_grad(s: torch.Tensor, kind: str) -> torch.Tensor:
    """h'(s) (h'(0) = 0 for ReLU, the paper's convention, B.1; torch's ReLU backward agrees)."""
    if kind == "relu":
        return (s > 0).to(s.dtype)
    if kind == "leaky":
        return torch.where(s > 0, torch.ones_like(s), torch.full_like(s, LEAK))
    if kind == "tanh":
        return 1 - torch.tanh(s) ** 2
    return torch.ones_like(s)


def bn(f: torch.Tensor, mu_bp: bool, var_bp: bool, per_view: bool) -> torch.Tensor:
    """f (2, N, U) → (f − μ)/σ over the 2N rows (eq. 164–165) or over each view; no ε, as eq. 165."""
    dims = (1,) if per_view else (0, 1)
    mu = f.mean(dims, keepdim=True)
    var = f.var(dims, keepdim=True, unbiased=False)
    return (f - (mu if mu_bp else mu.detach())) / torch.sqrt(var if var_bp else var.detach())


def hidden(W: torch.Tensor, x: torch.Tensor, kind: str) -> torch.Tensor:
    """f₁ (2, N, K·M) = h(w_kmᵀx_k) for x (2, N, K, d), W (K, M, d)."""
    return act(torch.einsum("kmd,vnkd->vnkm", W, x), kind).flatten(2)


def energy(f2: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    """ℰ_α = ½ tr ℂ_α[f₂] (eq. 2–3) for the two views f2 (2, N, d_out)."""
    return 0.5 * torch.diagonal(contrastive_covariance(f2[0], f2[0], f2[1], f2[1], alpha)).sum()


def infonce(f2: torch.Tensor, tau: float, eps: float, l2: bool) -> torch.Tensor:
    """Eq. (1): d_ij² = ½‖f[i] − f[j]‖² within the first view, d_i² = ½‖f[i] − f[i']‖²; with ``l2`` the outputs are
    ℓ2-normalised first and ½‖a − b‖² = 1 − a·b (the authors' dot-product similarity)."""
    if l2:
        f2 = torch.nn.functional.normalize(f2, dim=-1)
    f, g = f2[0], f2[1]
    N = f.shape[0]
    dij = 0.5 * torch.cdist(f, f) ** 2
    di = 0.5 * ((f - g) ** 2).sum(-1)
    off = ~torch.eye(N, dtype=torch.bool, device=f.device)
    neg = torch.logsumexp(torch.where(off, -dij / tau, torch.full_like(dij, -torch.inf)), dim=1)
    denom = torch.logaddexp(neg, -di / tau + torch.log(torch.as_tensor(eps, dtype=f.dtype, device=f.device))) \
        if eps > 0 else neg
    return -tau * (-di / tau - denom).sum()


def grads(loss_fn, W: torch.Tensor, V: torch.Tensor, x: torch.Tensor, p: dict, mu_bp: bool, var_bp: bool,
          per_view: bool) -> tuple[torch.Tensor, torch.Tensor]:
    W = W.clone().requires_grad_(True)
    V = V.clone().requires_grad_(True)
    f2 = bn(hidden(W, x, p["activation"]), mu_bp, var_bp, per_view) @ V.T
    gW, gV = torch.autograd.grad(loss_fn(f2), (W, V))
    return gW, gV


def variant_grads(loss_fn, W, V, x, p, per_view: bool) -> dict:
    """(∂L/∂W, ∂L/∂V) for the four BatchNorm variants {(μ backprop, σ² backprop)} (same forward pass);
    ``var_backprop=True`` (a negative control) backpropagates σ² in all four."""
    return {(mu, var): grads(loss_fn, W, V, x, p, mu, var or p["var_backprop"], per_view)
            for mu in (True, False) for var in (False, True)}


def rel(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a - b).abs().max() / b.abs().max().clamp_min(torch.finfo(b.dtype).tiny))


# ------------------------------------------------------------------------------------------------------
# Step 1: Lemma 6 against autograd
# ------------------------------------------------------------------------------------------------------
def batch_instance(p: dict, ctx):
    K, M, d, N = p["K"], p["M"], p["d"], p["N"]
    x = ctx.randn(1, N, K, d) + 0.3
    x = torch.cat([x, x + p["aug"] * ctx.randn(1, N, K, d)])  # (2, N, K, d): two views
    W, V = ctx.randn(K, M, d), ctx.randn(p["d_out"], K * M)
    if p["n_small"]:  # RF 1 nearly constant over the batch: σ → 0 where x̃/σ is largest
        x[..., 0, :] = x[0:1, 0:1, 0, :] + 1e-3 * (x[..., 0, :] - x[0:1, 0:1, 0, :])
    # BatchNorm divides by σ: a ReLU unit that is off on the whole batch (σ = 0) is turned on by flipping its filter
    s = torch.einsum("kmd,vnkd->vnkm", W, x).flatten(0, 1)  # (2N, K, M)
    W = torch.where(((s <= 0).all(0) & (p["activation"] == "relu"))[..., None], -W, W)
    if not bool((hidden(W, x, p["activation"]).var((0, 1)) > 0).all()):
        raise HypothesisViolation("σ_k > 0 for every unit (BatchNorm divides by it)", "a unit is constant over the "
                                  "batch", values={"seed": p["seed"]}, bypassable=False)
    alpha = ctx.rand(N, N) if p["alpha"] == "random" else torch.ones(N, N, dtype=ctx.dtype, device=ctx.device)
    return x, W, V, alpha


def lemma_6_formula(W, V, x, alpha, p):
    """Eq. (166): ẇ = [(S ⊗ 1_d1_dᵀ) ∘ ℂ_α[x̃^bn]] w and V̇ = V ℂ_α[f₁^bn], with σ of the chosen statistics."""
    K, M, d = W.shape
    s = torch.einsum("kmd,vnkd->vnkm", W, x)
    f1 = act(s, p["activation"]).flatten(2)
    dims = (1,) if p["bn_stats"] == "per_view" else (0, 1)
    sigma = f1.var(dims, keepdim=True, unbiased=False).sqrt()  # (·, 1, KM)
    xt = (act_grad(s, p["activation"])[..., None] * x[:, :, :, None, :]).flatten(2, 3)  # (2, N, KM, d): x̃
    xt = (xt / sigma[..., None]).flatten(2)  # x̃^bn, (2, N, KM·d)
    # ℂ_α ignores a shift shared by all 2N rows; removing the mean first avoids cancelling O(|x̃|²/σ²) sums
    # where σ is small (the n_small binding instance)
    xt = xt - xt.mean((0, 1), keepdim=True)
    C = contrastive_covariance(xt[0], xt[0], xt[1], xt[1], alpha).reshape(K * M, d, K * M, d)
    S = V.T @ V
    gw = torch.einsum("ab,aibj,bj->ai", S, C, W.reshape(K * M, d)).reshape(K, M, d)
    fbn = (f1 - f1.mean(dims, keepdim=True)) / sigma
    gv = V @ contrastive_covariance(fbn[0], fbn[0], fbn[1], fbn[1], alpha)
    return p["formula_scale"] * gw, gv


def lemma_6_claims(p, ctx):
    x, W, V, alpha = batch_instance(p, ctx)
    per_view = p["bn_stats"] == "per_view"
    e_fn = (lambda f2: energy(torch.nn.functional.normalize(f2, dim=-1), alpha)) if p["l2_normalise"] \
        else (lambda f2: energy(f2, alpha))
    n_fn = lambda f2: infonce(f2, p["tau"], p["eps_nce"], p["l2_normalise"])  # noqa: E731
    ge = variant_grads(e_fn, W, V, x, p, per_view)
    gn = variant_grads(n_fn, W, V, x, p, per_view)
    fw, fv = lemma_6_formula(W, V, x, alpha, p)
    err_w, err_v = rel(ge[DEF_5][0], fw), rel(ge[DEF_5][1], fv)
    # μ detached vs backpropagated, at both σ² settings
    det_e = max(rel(ge[(True, var)][0], ge[(False, var)][0]) for var in (False, True))
    det_n = max(max(rel(gn[(True, var)][0], gn[(False, var)][0]), rel(gn[(True, var)][1], gn[(False, var)][1]))
                for var in (False, True))
    claims = [
        Claim.at_most("lemma_6_w", err_w, 0.0, "max |∂ℰ/∂W (autograd, Def. 5) − eq. (166)| / max |eq. (166)|",
                      atol=RTOL),
        Claim.at_most("lemma_6_v", err_v, 0.0, "max |∂ℰ/∂V (autograd) − Vℂ_α[f₁^bn]| / max |Vℂ_α[f₁^bn]|",
                      kind="identity", atol=RTOL),
        Claim.at_most("mean_detach_inert_energy", det_e, 0.0, "ℰ_α: max relative change of ∂ℰ/∂W when μ is "
                      "detached (σ² detached or not); proof of Lemma 6: ℂ_α[·, ∂μ_k/∂w_k] = 0", atol=RTOL),
        Claim.at_most("mean_detach_inert_infonce", det_n, 0.0, "InfoNCE (eq. 1): max relative change of ∂L/∂W, "
                      "∂L/∂V when μ is detached (σ² detached or not)", atol=RTOL),
    ]
    details = {"lemma_6_w_rel_err": err_w, "lemma_6_v_rel_err": err_v, "mu_detach_change_energy": det_e,
               "mu_detach_change_infonce": det_n,
               "vanilla_bn_vs_eq_166": rel(ge[(True, True)][0], fw),  # σ² backprop: eq. (166) is not the gradient
               "min_sigma": float(hidden(W, x, p["activation"]).var((0, 1), unbiased=False).sqrt().min())}
    return claims, details


def authors_implementation(p, ctx):
    """How much detaching μ changes ∂L/∂W in the authors' implementation, and with each departure alone."""
    x, W, V, _ = batch_instance(p, ctx)
    out = {}
    for name, per_view, l2 in (("authors", True, True), ("per_view_only", True, False), ("l2_only", False, True)):
        # ε = 1: the authors' cross-entropy has the positive pair in its denominator (with ε = 0 every ∂L/∂d_i² is
        # τ·1/τ = 1, and per-view statistics alone would leave the μ-path inert)
        fn = lambda f2, l2=l2: infonce(f2, p["tau"], 1.0, l2)  # noqa: E731
        g_mu = grads(fn, W, V, x, p, *DEF_5, per_view)[0]
        g_no = grads(fn, W, V, x, p, False, DEF_5[1], per_view)[0]
        out[name] = rel(g_no, g_mu)
    return [Claim.measurement("mu_detach_change_authors", out["authors"], message="relative change of ∂L/∂W when μ "
                              "is detached: per-view statistics, ℓ2-normalised outputs, dot-product InfoNCE"),
            Claim.measurement("mu_detach_change_per_view_only", out["per_view_only"], message="the same, per-view "
                              "statistics with eq. (1) on f₂"),
            Claim.measurement("mu_detach_change_l2_only", out["l2_only"], message="the same, 2N-row statistics "
                              "with ℓ2-normalised outputs")], {f"mu_detach_change_{k}": v for k, v in out.items()}


# ------------------------------------------------------------------------------------------------------
# Step 3: Corollary 3 on an exact population
# ------------------------------------------------------------------------------------------------------
def population_bn_quantities(pop, W):
    """x̃, f₁ and their BN versions, the moments of Corollary 3, at the population (σ_k² = 𝕍[f_k])."""
    P = pop.probs
    s = torch.einsum("jkd,kd->jk", pop.X, W)
    gate = (s > 0).to(s.dtype)
    f1 = gate * s
    var_f = P @ f1**2 - (P @ f1) ** 2
    sig = var_f.sqrt()
    xt = gate[..., None] * pop.X / sig[None, :, None]  # x̃^bn (J, K, d)
    K, d = W.shape
    m = {}
    for z in (False, True):
        Pz = torch.where(pop.z == z, P, torch.zeros_like(P))
        Pz = Pz / Pz.sum()
        m[z] = (Pz @ xt.reshape(-1, K * d), weighted_cov(xt.reshape(-1, K * d), xt.reshape(-1, K * d), Pz))
    q1 = float(P[pop.z].sum())
    q0 = 1 - q1
    Delta = (m[True][0] - m[False][0]).reshape(K, d)  # Δ^bn_k
    L = q0 * m[False][1] + q1 * m[True][1]
    Lk = torch.stack([L[k * d:(k + 1) * d, k * d:(k + 1) * d] for k in range(K)])
    Vx = weighted_cov(xt.reshape(-1, K * d), xt.reshape(-1, K * d), P)
    Ak = torch.stack([Vx[k * d:(k + 1) * d, k * d:(k + 1) * d] for k in range(K)])  # A^bn_k = σ_k⁻²A_k
    dk = torch.einsum("ki,kij,kj->k", W, Lk, W)  # d^bn_k
    bk = (W * Delta).sum(1)
    fbn = (f1 - P @ f1) / sig
    return dict(q0=q0, q1=q1, Delta=Delta, Ak=Ak, dk=dk, bk=bk, Vf=weighted_cov(fbn, fbn, P), sig=sig,
                d_plain=dk * sig**2, b_plain=bk * sig, Vf_plain=weighted_cov(f1, f1, P))


def live_filters(ctx, pop, tries: int = 50) -> torch.Tensor:
    """Random unit filters, one per RF, each with 𝕍[f_k] > 0 (BatchNorm divides by σ_k; a filter that no atom
    activates is constant). Redrawn from the context's generator until every RF has one."""
    K, d = pop.X.shape[1:]
    for _ in range(tries):
        W = ctx.randn(K, d)
        W = W / W.norm(dim=1, keepdim=True)
        f1 = torch.relu(torch.einsum("jkd,kd->jk", pop.X, W))
        var = pop.probs @ f1**2 - (pop.probs @ f1) ** 2
        if bool((var > 1e-6 * (pop.probs @ f1**2).clamp_min(1e-300)).all()):
            return W
    raise HypothesisViolation("𝕍[f_k] > 0 for every RF", f"no filter set with live units in {tries} draws",
                              bypassable=False)


def corollary_3_autograd(pop, W, s):
    """∂/∂W of ½𝕍[sᵀf₁^bn] with σ detached and μ backpropagated (Lemma 6 with S = ssᵀ, at the population)."""
    W = W.clone().requires_grad_(True)
    P = pop.probs
    f1 = torch.relu(torch.einsum("jkd,kd->jk", pop.X, W))
    sig = (P @ f1**2 - (P @ f1) ** 2).sqrt().detach()
    y = ((f1 - P @ f1) / sig) @ s
    return torch.autograd.grad(0.5 * (P @ y**2 - (P @ y) ** 2), W)[0]


def corollary_3_claims(p, ctx):
    pop = binary_latent_population(ctx, p["K"], p["d"], p["atoms"], p["p1"], p["weak_rf"], p["rf_scale"],
                                   p["dependent"])
    W = live_filters(ctx, pop)
    q = population_bn_quantities(pop, W)
    evals, evecs = torch.linalg.eigh(q["Vf"])
    lam, s = evals[-1], evecs[:, -1]
    dk, bk, q0, q1 = q["dk"], q["bk"], q["q0"], q["q1"]
    inv = 1 / (lam - dk)
    Z2 = ((bk * inv) ** 2).sum()
    s_bns = bk * inv / Z2.sqrt()
    delta = q0 * q1 * inv / Z2 * ((bk**2 * inv).sum() - bk**2 * inv)
    g178 = p["formula_scale"] * (torch.einsum("k,kij,kj->ki", s_bns**2, q["Ak"], W)
                                 + delta[:, None] * q["Delta"] * bk[:, None])
    g_auto = corollary_3_autograd(pop, W, s)
    gap = float(lam - dk.max())
    tol = max(RTOL, SECULAR_AMPLIFICATION * EPS64 / max(gap, EPS64) ** 2)
    d_formula = 1 / (1 + q0 * q1 * (q["b_plain"] / q["d_plain"].sqrt()) ** 2)
    plain_lam = torch.linalg.eigvalsh(q["Vf_plain"])[-1]
    spread = lambda v: float(v.max() / v.min())  # noqa: E731
    claims = [
        Claim.at_most("corollary_3_dynamics", rel(g_auto, g178), 0.0, "max |∂/∂W ½𝕍[sᵀf₁^bn] (autograd, σ "
                      "detached) − eq. (178)| / max |eq. (178)|", atol=tol),
        Claim.close("s_bn_eigenvector", float((s * s_bns).sum().abs()), 1.0, "|⟨top eigenvector of 𝕍[f₁^bn], s^bn "
                    "of Cor. 3(2)⟩|", atol=tol),
        Claim.at_least("lambda_bn_above_d_bn", gap, 0.0, "λ^bn − max_k d^bn_k (Cor. 3(1))", kind="identity"),
        Claim.at_least("delta_bn_nonnegative", float(delta.min()), 0.0, "min_k δ^bn_k (eq. 179)", kind="identity",
                       atol=tol * float(delta.abs().max())),
        Claim.at_most("d_bn_closed_form", rel(dk, d_formula), 0.0, "max |d^bn_k − 1/(1 + p₀p₁(w_kᵀΔ_k/√d_k)²)| / "
                      "max d^bn (App. D remark)", kind="identity", atol=RTOL),
        Claim.measurement("rf_spread_plain", spread(plain_lam - q["d_plain"]), message="max/min over RFs of λ − d_k "
                          "without BN (1/(λ − d_k) slows the RF, App. D)"),
        Claim.measurement("rf_spread_bn", spread(lam - dk), message="the same with BN: λ^bn − d^bn_k"),
    ]
    details = {"delta_bn": delta.tolist(), "d_bn": dk.tolist(), "lambda_bn": float(lam), "lambda_gap_bn": gap,
               "sigma": q["sig"].tolist(), "d_plain": q["d_plain"].tolist(), "cor3_tolerance": tol}
    return claims, details


# ------------------------------------------------------------------------------------------------------
# The result
# ------------------------------------------------------------------------------------------------------
def hypotheses(p: dict, form: str) -> list[Violation]:
    """The hypotheses of Lemma 6 and Corollary 3, and the deliberately wrong settings of the negative controls
    (types and ranges are in the Param declarations)."""
    out = []
    if p["activation"] == "tanh":
        out.append(Violation("Assumption 1: h(x) = h'(x)x", "tanh is not homogeneous (negative control)",
                             ("activation",)))
    if p["var_backprop"]:
        out.append(Violation("Definition 5: σ² not backpropagated", "var_backprop=True is vanilla BatchNorm "
                             "(negative control)", ("var_backprop",)))
    if p["bn_stats"] == "per_view":
        out.append(Violation("eq. (164): μ_k, σ_k over all 2N samples", "per-view statistics (the authors' code; "
                             "negative control)", ("bn_stats",)))
    if p["l2_normalise"]:
        out.append(Violation("f₂ = V f₁^bn", "ℓ2-normalised outputs (the authors' code; negative control)",
                             ("l2_normalise",)))
    if p["dependent"]:
        out.append(Violation("Assumption 2(iii): x_k conditionally independent given z", "dependent=True couples "
                             "the RFs (negative control)", ("dependent",)))
    return out


def evaluate(p: dict, form: str, ctx) -> Outcome:
    with single_thread():  # small tensors: a second thread only adds synchronisation
        claims6, details6 = lemma_6_claims(p, ctx)
        claims_a, details_a = authors_implementation(p, ctx)
        claims3, details3 = corollary_3_claims(p, ctx)
    return Outcome(claims=claims6 + claims3 + claims_a, details={**details6, **details_a, **details3})


BINDING_WEAK = dict(weak_rf=0.01)
BINDING_SIGMA = dict(n_small=True)


def report_instances(suite):
    yield from declared_instances(RESULT, suite, dict(activation="leaky", alpha="uniform", rf_scale=3.0, seed=1),
                                  draws_seed=16)


CONTROLS = (dict(activation="tanh", allow_violation=True), dict(var_backprop=True, allow_violation=True),
            dict(bn_stats="per_view", allow_violation=True), dict(l2_normalise=True, allow_violation=True),
            dict(dependent=True, allow_violation=True), dict(formula_scale=1 + 3e-10, allow_violation=True))
# Where the secular equation is near-degenerate (weak_rf = 0.002: λ^bn − max d^bn_k = 1.8e-3) the Corollary-3
# tolerance is SECULAR_AMPLIFICATION·ε/gap² = 7.0e-10, 7× RTOL: eq. (178) off by 2e-9 fails it by 2.8 allowances, so
# the amplification loosened ×10 (or dropped to RTOL) is caught (its declared Pin).
PINS = (Pin('corollary_3_dynamics', 'formula_scale', fails=1.000000002, within=10,
            params=dict(weak_rf=0.002, allow_violation=True),
            why='SECULAR_AMPLIFICATION: the Corollary-3 tolerance where λ^bn − max d^bn_k = 1.8e-3 (7.0e-10, not RTOL)'),
    Pin(('lemma_6_w', 'corollary_3_dynamics'), 'formula_scale', fails=1.0000000003, within=10,
        params=dict(allow_violation=True), reported=True),
)


def cost(p: dict) -> Cost:
    """Sixteen autograd passes over a batch (2N rows of K·M units, ℂ_α of the (K·M·d)² gated inputs) and the
    population of 2·atoms^K joint atoms."""
    kmd = p["K"] * p["M"] * p["d"]
    joint = 2 * p["atoms"] ** p["K"]
    return Cost(elements=float(kmd**2 + 2 * p["N"] ** 2 + joint * p["K"] * p["d"]),
                work=float(16 * (p["N"] ** 2 * (p["d_out"] + kmd) + p["N"] * kmd**2) + 10 * joint * (p["K"] * p["d"]) ** 2))


def _strategy():
    from ..strategies.nonlinear_cl_training import batchnorm_params

    return batchnorm_params()


RESULT = register(Result(
    id=ID,
    paper=PAPER,
    section="Appendix D: Definition 5, Lemma 6 (eq. 166), Corollary 3 (eqs. 175–179); App. E.2, Table 1",
    title="Definition 5, Lemma 6, Corollary 3 (App. D): mean-backprop BatchNorm dynamics; detaching μ changes nothing "
          "for the stated loss",
    statement="With BatchNorm statistics over the 2N samples (eq. 164–165) and mean-backprop BatchNorm (Def. 5), "
              "V̇ = Vℂ_α[f₁^bn] and ẇ = [(S ⊗ 1_d1_dᵀ) ∘ ℂ_α[x̃^bn]]w (Lemma 6, eq. 166), the μ-path contributing "
              "ℂ_α[·, ∂μ_k/∂w_k] = 0; under Assumption 2 (C = 2, M = 1): λ^bn ≥ max_k d^bn_k, s^bn is the top "
              "eigenvector of 𝕍[f₁^bn], and ẇ_k = [(s^bn_k)²A^bn_k + δ^bn_kΔ^bn_kΔ^bnᵀ_k]w_k with δ^bn_k ≥ 0 "
              "(Corollary 3, eq. 178–179).",
    status=Status.VERIFIED,
    params=(
        Param("K", int, 3, "receptive fields", low=2, high=4, sample=(2, 4)),
        Param("M", int, 2, "filters per RF (Lemma 6; Corollary 3 has M = 1)", low=1, high=3, sample=(1, 3)),
        Param("d", int, 3, "dimension of each RF", low=2, high=5, sample=(2, 5)),
        Param("N", int, 16, "batch size (two views each)", low=4, high=64, sample=(4, 64)),
        Param("d_out", int, 3, "outputs of the top layer V", low=1, high=4, sample=(1, 4)),
        Param("activation", str, "relu", "the activation; tanh (not homogeneous) is a negative control",
              valid="homogeneous: relu | leaky | linear", choices=ACTIVATIONS, sample=("relu", "leaky", "linear")),
        Param("alpha", str, "random", "α: random non-negative N×N, or uniform (the quadratic loss)",
              choices=("random", "uniform"), sample=("random", "uniform")),
        Param("aug", float, 0.3, "second view x' = x + aug·noise", low=0.0, high=10.0, sample=(0.0, 2.0)),
        Param("tau", float, 0.5, "InfoNCE temperature (eq. 1)", low=1e-3, high=10.0, sample=(0.05, 2.0), log=True),
        Param("eps_nce", float, 0.0, "ε of eq. (1) (0: the α-CL case)", low=0.0, high=10.0, sample=(0.0, 1.0)),
        Param("bn_stats", str, "joint", "BN statistics over both views (eq. 164) or per view (the authors' code; "
              "negative control)", valid="joint (eq. 164)", choices=("joint", "per_view")),
        Param("l2_normalise", bool, False, "ℓ2-normalise f₂ before the loss (the authors' code; negative control)",
              valid="False (f₂ = Vf₁^bn)"),
        Param("var_backprop", bool, False, "backpropagate σ² too (vanilla BN; negative control)",
              valid="False (Def. 5)"),
        Param("n_small", bool, False, "RF 1 nearly constant over the batch (σ → 0)", sample=(False, True)),
        Param("atoms", int, 3, "atoms per (RF, z) of the Corollary-3 population", low=2, high=4, sample=(2, 3)),
        Param("p1", float, 0.4, "P[z = 1]", low=1e-6, high=1 - 1e-6, sample=(0.05, 0.95)),
        Param("weak_rf", float, 1.0, "z-signal of RFs 2..K (small: δ^bn_1 → 0)", low=1e-6, high=1.0,
              sample=(1e-3, 1.0), log=True),
        Param("rf_scale", float, 2.0, "atoms of RF k scaled by rf_scale^k (RF variances differ)", low=0.1, high=10.0,
              sample=(0.2, 5.0)),
        Param("dependent", bool, False, "couple the RFs given z (violates Assumption 2(iii); negative control)",
              valid="False (Assumption 2(iii))"),
        Param("formula_scale", float, 1.0, "multiplies eqs. (166), (178) (≠ 1 falsifies them: negative control)",
              valid="= 1", low=0.5, high=2.0, breaks="exact eqs. (166), (178)"),
        seed_param("seed of the batch, weights, α and population"),
    ),
    cost=cost,
    evaluate=evaluate,
    hypotheses=hypotheses,
    forms=(AS_PRINTED,),
    report_instances=report_instances,
    module=__name__,
    logic=Logic(for_all="every batch, fixed α ≥ 0, (W, V) and homogeneous h (Lemma 6); every distribution under "
                        "Assumption 2 with C = 2, M = 1 and every W (Corollary 3)"),
    binding=(Binding("λ^bn > max_k d^bn_k and δ^bn_k ≥ 0 (Cor. 3)", BINDING_WEAK,
                     "weak_rf = 0.01: RFs 2..K nearly lose their z-signal, δ^bn_1 ≈ 0"),
             Binding("σ_k > 0 (x̃^bn = x̃/σ)", BINDING_SIGMA, "one unit with batch standard deviation ~1e-3 of the "
                     "others'")),
    controls=CONTROLS,
    pins=PINS,
    strategy=_strategy,
))
