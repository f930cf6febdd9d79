"""The instance every paper-003 check is run on: a finite population, an encoder, and the (δ, ε) grid.

Shared by Lemma 1, Theorems 1–2 and the InfoNCE/Barlow Twins checks, so the parameters mean the same thing
everywhere: ``harness`` (``sphere`` = H1 with the identity encoder, ``style_content`` = H2 with a random feature
map or a trained MLP), ``sizes`` (points per class, comma-separated), ``m`` views per point (view 0 is the clean
point unless ``identity_view=False``), and so on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from ..core.result import Param, Violation
from ..data.finite_population import (
    SPHERE_MODES,
    VIEW_WEIGHTS,
    Population,
    parse_sizes,
    sphere_population,
    style_content_population,
)
from . import population as P
from .encoders import identity_encoder, random_features, train_barlow_twins, train_infonce

HARNESSES = ("sphere", "style_content")
INSTANCE_ENCODERS = ("identity", "random", "infonce")
PAPER = "003"
PAPER_TITLE = "Huang, Yi, Zhao, Jiang: The Generalization of Contrastive Self-Supervised Learning (ICLR 2023)"

# Content dimension of the style–content harness (the random map scales the style columns after it).
DC = 4


def instance_params(*, sizes="10,10", harness="sphere", mode="clustered", d=3, m=4, noise=0.15,
                    view_noise=0.05, bad_frac=0.1, strength=0.5, weights="uniform", encoder="identity",
                    seeds=1, steps=150) -> tuple[Param, ...]:
    """The instance parameters, with per-result defaults."""
    return (
        Param("sizes", str, sizes, "points per class, comma-separated (e.g. '10,10'); K = number of entries",
              "every entry ≥ 1"),
        Param("harness", str, harness, "sphere = unit points with the identity encoder (H1); style_content = "
              "x = [content, style] with template augmentation (H2)", "sphere | style_content", choices=HARNESSES),
        Param("mode", str, mode, "sphere harness generator: clustered, bad_aligned, hub (random); antipodal_bad "
              "(adversarial, digest §7.3); merged (two classes on one centre)", "one of the modes",
              choices=SPHERE_MODES),
        Param("d", int, d, "sphere: input = embedding dimension; style_content: embedding dimension", "d ≥ 2"),
        Param("m", int, m, "views per point, the clean point (view 0) included", "m ≥ 1 (≥ 2 without identity)"),
        Param("noise", float, noise, "within-class noise of the clean points", "≥ 0"),
        Param("view_noise", float, view_noise, "sphere harness: noise of a view around its point", "≥ 0"),
        Param("bad_frac", float, bad_frac, "sphere harness: fraction of badly aligned points", "[0, 1]"),
        Param("strength", float, strength, "style_content harness: augmentation strength s", "[0, 1]"),
        Param("weights", str, weights, "view weights: uniform, or random (Dirichlet-like, floored)",
              "uniform | dirichlet", choices=VIEW_WEIGHTS),
        Param("encoder", str, encoder, "identity (sphere only), random feature map, or an MLP trained with "
              "InfoNCE on the exact population loss", "identity | random | infonce", choices=INSTANCE_ENCODERS),
        Param("seeds", int, seeds, "trained encoder: independent MLPs trained as one batch", "≥ 1"),
        Param("steps", int, steps, "trained encoder: Adam steps", "≥ 1"),
        Param("identity_view", bool, True, "the clean point is one of its own views (x ∈ A(x))", "True"),
        Param("normalize", bool, True, "embeddings put on the sphere of radius r", "True where ‖f‖ ≡ r is assumed"),
        Param("r", float, 1.0, "radius of the embedding sphere", "r > 0"),
        Param("seed", int, 0, "seed of the population and the encoder", "any integer"),
    )


def instance_hypotheses(p: dict, *, needs_identity: bool = False, needs_sphere: bool = False) -> list[Violation]:
    out: list[Violation] = []
    try:
        sizes = parse_sizes(p["sizes"])
    except ValueError as err:
        return [Violation("sizes well formed", str(err), ("sizes",), bypassable=False)]
    if any(n < 0 for n in sizes):
        out.append(Violation("class sizes ≥ 0", "a class cannot have a negative number of points", ("sizes",),
                             bypassable=False))
    elif any(n == 0 for n in sizes):
        out.append(Violation("non-empty classes", "every class needs a point (p_k > 0): an empty class has no "
                             "centre μ_k and no σ = P[C_k⁰]/P[C_k]", ("sizes",), bypassable=False))
    if len(sizes) < 2:
        out.append(Violation("K ≥ 2 classes", "a downstream classification problem needs two classes", ("sizes",),
                             bypassable=False))
    if p["m"] < 1 or (p["m"] < 2 and not p["identity_view"]):
        out.append(Violation("m ≥ 1 views", "every point needs a view (two when the clean point is dropped)",
                             ("m", "identity_view"), bypassable=False))
    if p["d"] < 2:
        out.append(Violation("d ≥ 2", "the sphere harness and the encoders need two dimensions", ("d",),
                             bypassable=False))
    for name in ("noise", "view_noise"):
        if not (math.isfinite(p[name]) and p[name] >= 0):
            out.append(Violation(f"{name} ≥ 0", "a noise scale is a finite non-negative number", (name,),
                                 bypassable=False))
    for name in ("bad_frac", "strength"):
        if not (0.0 <= p[name] <= 1.0):
            out.append(Violation(f"{name} ∈ [0, 1]", "a fraction / strength lies in [0, 1]", (name,),
                                 bypassable=False))
    if p["encoder"] == "identity" and p["harness"] != "sphere":
        out.append(Violation("identity encoder only on the sphere harness", "style_content inputs are not unit "
                             "vectors; use encoder=random or infonce", ("encoder", "harness"), bypassable=False))
    if p["seeds"] < 1 or p["steps"] < 1:
        out.append(Violation("seeds ≥ 1, steps ≥ 1", "training needs a model and a step", ("seeds", "steps"),
                             bypassable=False))
    if not (math.isfinite(p["r"]) and p["r"] > 0):
        out.append(Violation("r > 0", "the embedding radius is positive", ("r",), bypassable=False))
    if needs_identity and not p["identity_view"]:
        out.append(Violation("identity view x ∈ A(x) (A2)", "G_f classifies the clean point f(x) while S_ε and "
                             "μ_k only see the views: the proof's first hop ‖f(x) − f(x*)‖ ≤ ε needs x ∈ A(x)",
                             ("identity_view",)))
    if needs_sphere and not p["normalize"]:
        out.append(Violation("‖f‖ ≡ r (features on the sphere)", "the result assumes every embedding has norm r; "
                             "normalize=False leaves raw features", ("normalize",)))
    return out


@dataclass
class Instance:
    pop: Population
    F: torch.Tensor  # (S, N, m, d)
    F0: torch.Tensor  # (S, N, d)
    r: float
    details: dict = field(default_factory=dict)


def build_population(p: dict, ctx) -> Population:
    sizes = parse_sizes(p["sizes"])
    if p["harness"] == "sphere":
        return sphere_population(ctx, sizes, p["d"], p["m"], p["mode"], noise=p["noise"],
                                 view_noise=p["view_noise"], bad_frac=p["bad_frac"], weights=p["weights"],
                                 identity_view=p["identity_view"], centre_cos=p.get("centre_cos", 0.0))
    return style_content_population(ctx, sizes, p["m"], p["strength"], Dc=DC, noise=p["noise"],
                                    weights=p["weights"], identity_view=p["identity_view"])


def build(p: dict, ctx) -> Instance:
    pop = build_population(p, ctx)
    r = p["r"]
    details: dict = {}
    if p["encoder"] == "identity":
        F, F0 = identity_encoder(pop, r)
        F, F0 = F[None], F0[None]
    elif p["encoder"] == "random":
        F, F0 = random_features(pop, ctx, d=p["d"], r=r, Dc=DC if p["harness"] == "style_content" else None)
        F, F0 = F[None], F0[None]
    else:
        F, F0, rec = train_infonce(pop, ctx, seeds=p["seeds"], d=p["d"], steps=p["steps"], r=r)
        details.update(rec.to_details("infonce"))
    if not p["normalize"]:
        # non-constant norms (the bad input 'features off the sphere'): every view rescaled by its own factor;
        # the clean point keeps the factor of view 0 when it is that view, so f stays a function
        scale = 0.5 + ctx.rand(pop.N, pop.m)
        scale0 = scale[:, 0] if pop.identity_view else 0.5 + ctx.rand(pop.N)
        F, F0 = F * scale[None, :, :, None], F0 * scale0[None, :, None]
    return Instance(pop, F, F0, r, details)


def train_bt(p: dict, ctx, pop: Population, lam: float):
    return train_barlow_twins(pop, ctx, seeds=p["seeds"], d=p["d"], lam=lam, steps=p["steps"])


# ------------------------------------------------------------------------------------------------------
# The (δ, ε) grid: everything Lemma 1 and Theorem 2 need, per setting
# ------------------------------------------------------------------------------------------------------
@dataclass
class Grid:
    deltas: torch.Tensor  # (Dn,)
    sigma: torch.Tensor  # (Dn,)
    main: torch.Tensor  # (Dn, N)
    eps: torch.Tensor  # (En,)
    R: torch.Tensor  # (En,)
    S: torch.Tensor  # (En, N) well-aligned set
    diam: torch.Tensor  # (N,)
    conc: P.Concentration


def grid(pop: Population, F: torch.Tensor, *, max_deltas: int = 12, max_eps: int = 16, eps_min: float = 0.0,
         conc: P.Concentration | None = None) -> Grid:
    conc = conc or P.concentration(pop, max_deltas=max_deltas)
    diam = P.diameters(F)
    eps = P.candidate_eps(diam, max_eps)
    eps = eps[eps >= eps_min]
    if eps.numel() == 0 or float(eps[0]) > eps_min:
        eps = torch.cat([eps.new_tensor([eps_min]), eps])
    S = diam[None, :] <= eps[:, None]
    R = (~S).to(F.dtype).mean(1)
    return Grid(conc.deltas, conc.sigma, conc.main, eps, R, S, diam, conc)
