"""Figures 12–13 of paper 001 (App. E.3): filters of the 2-layer network learned on MNIST, without and with data
augmentation; here on scikit-learn's 8×8 digits as a small-scale stand-in.

Statement as printed (App. E.3, captions of Figs. 12 and 13)
------------------------------------------------------------
"We split the 28-by-28 images into 4 disjoint receptive fields, each with a size of 14 by 14 [...] We use smaller
batchsize (8) [...] We train for 50000 minibatches." "Fig 12 shows [...] that indeed filters in each receptive field
capture a diverse set of pattern of the input data points (e.g., part of the digits). Furthermore, with additional
data augmentation (i.e., random cropping and resizing [RandomResizedCrop((28,28), scale=(0.5, 1.0), ratio=(0.5,
1.5))]), the resulting learned patterns becomes smoother with much weaker high-frequency components. This is because
the augmentation implicitly removes some of the local optima (Sec. B.5)." Fig. 13: "The learned filters are smoother."

Quantifiers: an empirical claim about one training protocol on one data set (no theorem, nothing existential).

Reading chosen: ``details["dataset"] = "digits"``: the 1,797 8×8 images of ``theorems.data.digits`` (pixels in [0, 1],
not centred), split into 4 disjoint 4×4 receptive fields (the paper's 2×2 split of the image). Network (§4, §5, App.
E.2 as in ``token_training``'s authors' protocol): f₁ = ReLU(w_kmᵀx_k), M filters per RF, BatchNorm on f₁ with
per-view statistics (μ backpropagated, σ² not: Def. 5), V ∈ ℝ^{d_out×4M}, ℓ2-normalised outputs, dot-product InfoNCE
at τ = 0.1 with negatives from the same view; SGD lr 0.02, momentum 0.9, weight decay 5e-3, minibatches of 8 (as
printed). Without augmentation the two views are the same image; with it, each view is an independent
RandomResizedCrop of the image with the printed scale (0.5, 1) and ratio (0.5, 1.5), resized back to 8×8 (bilinear).
Both arms start from the same initialisation and see the same images in the same order (paired), and ``seeds``
such pairs train as one batched problem. "Smoother, with weaker high-frequency components" is measured by the
roughness of a filter, its Dirichlet energy over the 4×4 grid relative to its norm, Σ_{neighbours i~j} (w_i − w_j)² /
Σ_i w_i² (≈ 3 for i.i.d. weights, 0 for a constant filter, largest for a checkerboard).

* ``augmentation_smooths_filters`` [bound]: mean roughness with augmentation ≤ (1 − MARGIN) × mean roughness without;
* measurements: the two mean roughnesses, their value at initialisation, the filters' diversity within an RF (mean
  pairwise |cos|, "a diverse set of patterns") in both arms, the final losses.

Negative control: ``crop_scale_min`` = 1 with ratio (1, 1) (the crop is the whole image: no augmentation, the
regime where the paper predicts no smoothing; both arms then train identically and the ratio is exactly 1).

What the runs show (CPU, float32, mean over the two initialisations): the ci instance (150 minibatches of 8):
roughness 2.97 without augmentation against 1.02 with it (3.09 at initialisation); 2000 minibatches (``steps=2000``,
21 s of a contended core): 2.31 against 1.02. Without augmentation the two views are equal, InfoNCE is solved almost
at once (final loss ≈ 0.002), and the filters stay close to their initialisation, shrinking by weight decay; with it
they become smooth blobs. With augmentation the filters of an RF are also more alike (mean |cos| 0.48 against 0.26
at 2000 steps): the diversity of Fig. 12 is recorded, not asserted.

Not comparable with the printed figures (``theorems.data.digits``): 8×8 images against 28×28 (receptive fields of
16 pixels against 196), 1,797 images against 50,000, and far fewer minibatches (the ci instance: a few hundred
against 50,000), so only the direction of the effect is compared, never a printed value.
"""

from __future__ import annotations

import math

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, Binding, Cost, Logic, Outcome, Param, Result, Status, Violation, seed_param
from ..data.digits import DATASET, STAND_IN_NOTE, _load
from .common import registered_strategy
from .paper import PAPER
from .token_training import single_thread

ID = "nonlinear_cl.figure_12"
MARGIN = 0.1  # "much weaker high-frequency components": at least 10 % less roughness
SIDE, RF_SIDE = 8, 4  # 8×8 digits, 2×2 disjoint receptive fields of 4×4 (the paper: 28×28 in 14×14)
K = (SIDE // RF_SIDE) ** 2
TAU, D_OUT, BN_EPS = 0.1, 50, 1e-5  # the authors' protocol (as ``token_training``)
MOMENTUM, WEIGHT_DECAY = 0.9, 5e-3


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = []
    if p["crop_scale_min"] != 0.5 or p["ratio_low"] != 0.5 or p["ratio_high"] != 1.5:
        out.append(Violation("RandomResizedCrop(scale=(0.5, 1), ratio=(0.5, 1.5)) (App. E.3)",
                             f"crop_scale_min = {p['crop_scale_min']}, ratio = ({p['ratio_low']}, {p['ratio_high']}) "
                             "(another augmentation; scale 1 and ratio 1 is none: negative control)",
                             ("crop_scale_min", "ratio_low", "ratio_high")))
    if p["ratio_low"] > p["ratio_high"]:
        out.append(Violation("ratio_low ≤ ratio_high", f"({p['ratio_low']}, {p['ratio_high']})",
                             ("ratio_low", "ratio_high"), bypassable=False))
    return out


def cost(p: dict) -> Cost:
    S, M, N = 2 * p["seeds"], p["M"], p["batch"]
    units = S * K * M
    return Cost(elements=float(8 * units * 2 * N + S * D_OUT * K * M + 1797 * 64),
                work=float(p["steps"] * (6 * units * 2 * N * (RF_SIDE**2 + D_OUT) + 6 * S * N * N * D_OUT)))


def patches(img: torch.Tensor) -> torch.Tensor:
    """(..., 8, 8) → (..., K, 16): the 4 disjoint 4×4 receptive fields, row-major (upper left, upper right, lower
    left, lower right, as Fig. 12 numbers them)."""
    x = img.unflatten(-2, (2, RF_SIDE)).unflatten(-1, (2, RF_SIDE))  # (..., 2, 4, 2, 4)
    return x.transpose(-3, -2).flatten(-4, -3).flatten(-2)


def random_resized_crop(img: torch.Tensor, gen: torch.Generator, scale_min: float, ratio: tuple[float, float]
                        ) -> torch.Tensor:
    """torchvision's RandomResizedCrop on (B, 8, 8) images, batched: area share s ~ U(scale_min, 1), aspect ratio
    r = exp(U(log ratio[0], log ratio[1])), box w = √(s r), h = √(s/r) of the side (clipped to the image, where
    torchvision redraws), uniform position; resampled to 8×8 bilinearly (a continuous box: no rounding to pixels)."""
    B = img.shape[0]
    u = torch.rand(B, 3, generator=gen, dtype=img.dtype, device="cpu").to(img.device)
    s = scale_min + (1 - scale_min) * u[:, 0]
    lo, hi = math.log(ratio[0]), math.log(ratio[1])
    r = torch.exp(lo + (hi - lo) * u[:, 1])
    w = torch.sqrt(s * r).clamp(max=1.0)
    h = torch.sqrt(s / r).clamp(max=1.0)
    t = torch.rand(B, 2, generator=gen, dtype=img.dtype, device="cpu").to(img.device)
    theta = torch.zeros(B, 2, 3, dtype=img.dtype, device=img.device)
    theta[:, 0, 0], theta[:, 1, 1] = w, h
    theta[:, 0, 2], theta[:, 1, 2] = (2 * t[:, 0] - 1) * (1 - w), (2 * t[:, 1] - 1) * (1 - h)
    grid = torch.nn.functional.affine_grid(theta, (B, 1, SIDE, SIDE), align_corners=False)
    return torch.nn.functional.grid_sample(img[:, None], grid, mode="bilinear", align_corners=False)[:, 0]


def roughness(W: torch.Tensor) -> torch.Tensor:
    """Dirichlet energy of each 4×4 filter over its grid, relative to its squared norm: W (..., 16) → (...)."""
    g = W.unflatten(-1, (RF_SIDE, RF_SIDE))
    e = ((g[..., 1:, :] - g[..., :-1, :]) ** 2).sum((-1, -2)) + ((g[..., :, 1:] - g[..., :, :-1]) ** 2).sum((-1, -2))
    return e / (W**2).sum(-1).clamp_min(torch.finfo(W.dtype).tiny)


def diversity(W: torch.Tensor) -> torch.Tensor:
    """Mean pairwise |cos| between the M filters of each RF, averaged: W (S, K, M, 16) → (S,)."""
    Wn = torch.nn.functional.normalize(W, dim=-1)
    C = (Wn @ Wn.transpose(-1, -2)).abs()
    M = W.shape[2]
    return ((C.sum((-1, -2)) - M) / (M * (M - 1))).mean(-1)


def train(p: dict, ctx) -> dict:
    """Train 2·seeds networks as one problem: networks 0..seeds−1 without augmentation, the next seeds with it, the
    i-th of each arm from the same initialisation and on the same images."""
    images = torch.as_tensor(_load()[0], dtype=torch.float32, device=ctx.device).view(-1, SIDE, SIDE)
    S, M, N, n = p["seeds"], p["M"], p["batch"], images.shape[0]
    gen = ctx.generator
    W0 = (2 * torch.rand(S, K, M, RF_SIDE**2, generator=gen, device="cpu") - 1) / RF_SIDE  # U(±1/√fan_in)
    V0 = (2 * torch.rand(S, D_OUT, K * M, generator=gen, device="cpu") - 1) / math.sqrt(K * M)
    W = torch.cat([W0, W0]).to(ctx.device).requires_grad_(True)
    V = torch.cat([V0, V0]).to(ctx.device).requires_grad_(True)
    opt = torch.optim.SGD([W, V], lr=p["lr"], momentum=MOMENTUM, weight_decay=WEIGHT_DECAY)
    idx = torch.randint(n, (p["steps"], S, N), generator=gen, device="cpu").to(ctx.device)
    eye = torch.eye(N, dtype=torch.bool, device=ctx.device)
    losses = []
    for step in range(p["steps"]):
        x = images[idx[step]].flatten(0, 1)  # (S·N, 8, 8)
        views = [random_resized_crop(x, gen, p["crop_scale_min"], (p["ratio_low"], p["ratio_high"])) for _ in range(2)]
        plain = patches(x).view(S, N, K, -1)
        aug = [patches(v).view(S, N, K, -1) for v in views]
        xs = torch.stack([torch.cat([plain, aug[0]]), torch.cat([plain, aug[1]])], 1)  # (2S, 2, N, K, 16)
        f = torch.relu(torch.einsum("skmd,svnkd->svnkm", W, xs)).flatten(-2)  # (2S, 2, N, K·M)
        mu = f.mean(2, keepdim=True)  # per-view statistics; Def. 5: σ² detached
        c = f - mu
        f = c * torch.rsqrt((c * c).mean(2, keepdim=True).detach() + BN_EPS)
        z = torch.nn.functional.normalize(torch.einsum("sok,svnk->svno", V, f), dim=-1)
        z1, z2 = z[:, 0], z[:, 1]
        pos = (z1 * z2).sum(-1)
        logits = torch.where(eye, pos[:, :, None], z1 @ z1.transpose(1, 2)) / TAU
        loss = (torch.logsumexp(logits, -1) - pos / TAU).mean(-1)  # (2S,)
        opt.zero_grad(set_to_none=True)
        loss.sum().backward()
        opt.step()
        if step >= p["steps"] - 20:
            losses.append(loss.detach())
    Wt = W.detach()
    return {"W": Wt, "W0": torch.cat([W0, W0]).to(ctx.device), "loss": torch.stack(losses).mean(0),
            "finite": bool(torch.isfinite(Wt).all() and torch.isfinite(V).all())}


def evaluate(p: dict, form: str, ctx) -> Outcome:
    with single_thread():
        run = train(p, ctx)
    S = p["seeds"]
    rough = roughness(run["W"]).mean((1, 2))  # (2S,)
    plain, aug = float(rough[:S].mean()), float(rough[S:].mean())
    div = diversity(run["W"])
    claims = [
        Claim.at_most("augmentation_smooths_filters", aug, (1 - MARGIN) * plain, "mean filter roughness (Dirichlet "
                      "energy / norm²) with RandomResizedCrop, against (1 − MARGIN) × without"),
        Claim.measurement("roughness_without_augmentation", plain, message="mean roughness, no augmentation"),
        Claim.measurement("roughness_with_augmentation", aug, message="mean roughness, RandomResizedCrop"),
        Claim.measurement("roughness_at_init", float(roughness(run["W0"]).mean()), message="mean roughness of the "
                          "shared initialisation (i.i.d. U(±1/4): ≈ 3)"),
        Claim.measurement("filter_similarity_without_augmentation", float(div[:S].mean()), message="mean pairwise "
                          "|cos| of the filters of an RF (low: diverse patterns)"),
        Claim.measurement("filter_similarity_with_augmentation", float(div[S:].mean()), message="the same with "
                          "augmentation"),
    ]
    details = {"dataset": DATASET, "stand_in": STAND_IN_NOTE, "roughness_per_network": rough.tolist(),
               "final_loss_per_network": run["loss"].tolist(), "receptive_fields": "4 disjoint 4×4 (2×2 split)"}
    return Outcome(claims=claims, details=details, converged=run["finite"], headline="augmentation_smooths_filters")


NO_AUGMENTATION = dict(crop_scale_min=1.0, ratio_low=1.0, ratio_high=1.0)  # the whole image: the identity
CONTROLS = (dict(NO_AUGMENTATION, allow_violation=True),)
BINDING = dict(seeds=1)  # one pair: no averaging over initialisations


def report_instances(suite):
    yield AS_PRINTED, {}, False
    yield AS_PRINTED, dict(BINDING), False
    yield AS_PRINTED, dict(NO_AUGMENTATION), True
    if suite.name == "thorough":
        yield AS_PRINTED, dict(steps=20000, seeds=3, M=16), False


RESULT = register(Result(
    id=ID,
    paper=PAPER,
    section="App. E.3 (MNIST experiments with 2-layer setting), Figures 12 and 13",
    title="Figures 12–13 (App. E.3), on 8×8 digits: random-resized-crop augmentation makes the learned filters smoother",
    statement="Trained contrastively on MNIST split into 4 disjoint receptive fields (batch 8), the 2-layer network's "
              "filters capture diverse parts of the digits; with RandomResizedCrop augmentation (scale (0.5, 1), "
              "ratio (0.5, 1.5)) they become smoother, with much weaker high-frequency components (App. E.3, "
              "Figs. 12–13).",
    status=Status.VERIFIED,
    params=(
        Param("M", int, 8, "filters per receptive field", low=2, high=64),
        Param("seeds", int, 2, "initialisations (each trained with and without augmentation)", low=1, high=8),
        Param("steps", int, 150, "SGD minibatches (the paper: 50,000)", low=1, high=100_000),
        Param("batch", int, 8, "minibatch size (App. E.3: 8)", low=4, high=256),
        Param("lr", float, 0.02, "learning rate (unprinted for E.3; the authors' README command's 0.02)",
              low=1e-6, high=1.0),
        Param("crop_scale_min", float, 0.5, "RandomResizedCrop's least area share (printed: 0.5)", valid="= 0.5",
              low=0.05, high=1.0),
        Param("ratio_low", float, 0.5, "RandomResizedCrop's least aspect ratio (printed: 0.5)", valid="= 0.5",
              low=0.1, high=4.0),
        Param("ratio_high", float, 1.5, "RandomResizedCrop's largest aspect ratio (printed: 1.5)", valid="= 1.5",
              low=0.1, high=4.0),
        seed_param("seed of the initialisations, minibatches and crops"),
    ),
    cost=cost,
    evaluate=evaluate,
    hypotheses=hypotheses,
    forms=(AS_PRINTED,),
    report_instances=report_instances,
    module=__name__,
    logic=Logic(for_all="the paper's MNIST protocol (here the 8×8 digits stand-in), with and without its augmentation "
                        "(empirical claim)"),
    controls=CONTROLS,
    binding=(Binding("an effect of augmentation on one initialisation", BINDING, "seeds = 1: no averaging"),),
    strategy=lambda: registered_strategy({}, BINDING),
))
