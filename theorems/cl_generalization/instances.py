"""The instance every paper-003 check is run on: a finite population, an encoder, and the (δ, ε) grid.

Shared by Lemma 1, Theorems 1–3 and the InfoNCE/Barlow Twins checks, so the parameters mean the same thing
everywhere and are declared once (:func:`instance_params`, with their domains, resource ceilings and the ranges
the suite draws from): ``harness`` (``sphere``: unit points with the identity encoder; ``style_content``:
x = [content, style] with template augmentation and a random feature map or a trained MLP), ``sizes`` (points
per class), ``m`` views per point (view 0 is the clean point unless ``identity_view=False``), and so on.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from ..core.context import Context
from ..core.result import Cost, Param, Violation, seed_param
from ..data.finite_population import binding_cosine  # noqa: F401  (re-exported)
from ..data.finite_population import (
    RANDOM_SPHERE_MODES,
    SPHERE_MODES,
    VIEW_WEIGHTS,
    Population,
    sphere_population,
    style_content_population,
)
from . import population as P
from .encoders import LossSpec, identity_encoder, random_features, train_barlow_twins, train_encoders

HARNESSES = ("sphere", "style_content")
# identity and random are fixed maps; the others are MLPs trained on the exact population loss of that name
# (InfoNCE with one negative at τ = 0.5, SimCLR and the slides' revised InfoNCE with n = 16 negatives).
INSTANCE_ENCODERS = ("identity", "random", "infonce", "simclr", "revised")
TRAINED = {"infonce": LossSpec("infonce", 0.5), "simclr": LossSpec("simclr", 0.5, negatives=16),
           "revised": LossSpec("revised", 0.5, lam=0.1, negatives=16)}

# Content and style dimensions of the style–content harness (the random map scales the style columns).
DC = 4
DS = 6
# Ceilings of one instance: a class of MAX_CLASS points keeps the exact maximum clique (Bron–Kerbosch in
# Python) within seconds, and MAX_VIEWS views keep the one-negative InfoNCE tensor (N²m³ per seed) in memory.
MAX_CLASS = 30
MAX_CLASSES = 6
MAX_VIEWS = 12


def instance_params(*, sizes=(10, 10), harness="sphere", mode="clustered", d=3, m=4, noise=0.15, view_noise=0.05,
                    bad_frac=0.1, strength=0.5, weights="uniform", encoder="identity", seeds=1,
                    steps=150) -> tuple[Param, ...]:
    """The instance parameters, with per-result defaults."""
    return (
        Param("sizes", list[int], sizes, "points per class; K = number of entries", low=1, high=MAX_CLASS,
              length=(2, MAX_CLASSES), sample=((5, 5), (4, 7), (8, 8), (3, 9), (4, 4, 4), (6, 6, 6), (2, 5, 8))),
        Param("harness", str, harness, "sphere = unit points with the identity encoder; style_content = "
              "x = [content, style] with template augmentation", choices=HARNESSES, sample=HARNESSES),
        Param("mode", str, mode, "sphere harness generator: clustered, bad_aligned, hub (random); partial_hub "
              "(a bad_frac fraction of each class lacks the shared view); antipodal_bad (adversarial: one bad "
              "point whose views are antipodal but one); merged (two classes on one centre)",
              choices=SPHERE_MODES, sample=RANDOM_SPHERE_MODES),
        Param("d", int, d, "sphere: input = embedding dimension; style_content: embedding dimension", low=2,
              high=64, sample=(2, 8)),
        Param("m", int, m, "views per point, the clean point (view 0) included", low=1, high=MAX_VIEWS,
              sample=(2, 5)),
        Param("noise", float, noise, "within-class noise of the clean points", low=0.0, high=10.0,
              sample=(0.0, 0.3)),
        Param("view_noise", float, view_noise, "sphere harness: noise of a view around its point", low=0.0,
              high=10.0, sample=(0.0, 0.1)),
        Param("bad_frac", float, bad_frac, "sphere harness: fraction of badly aligned points", low=0.0, high=1.0,
              sample=(0.0, 0.4)),
        Param("strength", float, strength, "style_content harness: augmentation strength s", low=0.0, high=1.0,
              sample=(0.0, 1.0)),
        Param("weights", str, weights, "view weights: uniform, or random (Dirichlet-like, floored)",
              choices=VIEW_WEIGHTS, sample=VIEW_WEIGHTS),
        Param("encoder", str, encoder, "identity (sphere only), a random feature map, or an MLP trained on the "
              "exact population loss infonce (one negative), simclr (16 negatives) or revised (the slides' "
              "revised InfoNCE)", choices=INSTANCE_ENCODERS, sample=("identity", "random")),
        Param("seeds", int, seeds, "trained encoder: independent MLPs trained as one batch", low=1, high=16),
        Param("steps", int, steps, "trained encoder: Adam steps", low=1, high=5000),
        Param("identity_view", bool, True, "the clean point is one of its own views (x ∈ A(x))"),
        Param("normalize", bool, True, "embeddings put on the sphere of radius r"),
        Param("r", float, 1.0, "radius of the embedding sphere", low=1e-3, high=1e3),
        seed_param("seed of the population and the encoder"),
    )


def input_dim(p: dict) -> int:
    return p["d"] if p["harness"] == "sphere" else DC + DS


def instance_cost(p: dict, *, infonce: bool = False, extra_elements: float = 0.0, extra_work: float = 0.0) -> Cost:
    """Peak elements and work of building the instance and the shared quantities: the pairwise distances of
    the support ((N(m+1))², also d_A and the Lipschitz constant), the one-negative InfoNCE tensor (N²m³ per
    model) where ``infonce`` or a trained InfoNCE encoder needs it, and the training."""
    N, m, d, S = sum(p["sizes"]), p["m"], p["d"], p["seeds"]
    support = (N * (m + 1)) ** 2
    trained = p["encoder"] in TRAINED
    nce = N * N * m ** 3 * (S if trained else 1) if (infonce or p["encoder"] == "infonce") else 0.0
    sims = S * (N * m) ** 2 if trained else 0.0
    steps = p["steps"] if trained else 0
    work = support * input_dim(p) * 3 + steps * 8 * (nce + sims) * d + 10 * nce + extra_work
    return Cost(elements=max(support, nce, sims) + extra_elements, work=work)


def instance_hypotheses(p: dict, *, needs_identity: bool = False, needs_sphere: bool = False) -> list[Violation]:
    """Combinations no instance can be built from (non-bypassable), then the theorem's own hypotheses."""
    out: list[Violation] = []
    if p["m"] < 2 and not p["identity_view"]:
        out.append(Violation("m ≥ 2 without the identity view", "dropping the clean point from its views needs a "
                             "second view", ("m", "identity_view"), bypassable=False))
    if p["encoder"] == "identity" and p["harness"] != "sphere":
        out.append(Violation("identity encoder only on the sphere harness", "style_content inputs are not unit "
                             "vectors; use encoder=random or a trained one", ("encoder", "harness"),
                             bypassable=False))
    if needs_identity and not p["identity_view"]:
        out.append(Violation("identity view x ∈ A(x)", "G_f classifies the clean point f(x) while S_ε and μ_k "
                             "only see the views: the proof's first hop ‖f(x) − f(x*)‖ ≤ ε needs x ∈ A(x)",
                             ("identity_view",)))
    if needs_sphere and not p["normalize"]:
        out.append(Violation("‖f‖ ≡ r (features on the sphere)", "the result assumes every embedding has norm r; "
                             "normalize=False leaves raw features", ("normalize",)))
    return out


def sub_context(ctx, stream: int) -> Context:
    """An independent stream of draws derived from the instance seed: the same ``stream`` gives the same draws
    (e.g. the same points under every augmentation of a sweep), whatever was drawn before."""
    return Context(ctx.device, (ctx.seed * 1_000_003 + 7919 * (stream + 1)) % 2**63, ctx.dtype)


@dataclass
class Instance:
    pop: Population
    F: torch.Tensor  # (S, N, m, d)
    F0: torch.Tensor  # (S, N, d)
    r: float
    details: dict = field(default_factory=dict)


def build_population(p: dict, ctx) -> Population:
    sizes = list(p["sizes"])
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
        trained = train_encoders(pop, ctx, [TRAINED[p["encoder"]]], seeds=p["seeds"], d=p["d"], steps=p["steps"],
                                 r=r)
        F, F0 = trained.F, trained.F0
        details.update(trained.record.to_details(p["encoder"]))
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


# The slides' five transformations (a) random crop, (b) blur, (c) colour dropping, (d) colour distortion, (e) flip, as
# nuisance blocks of the composition and tables analogues; ``destroy`` makes one replace the class content as well.
TRANSFORMS = ("a", "b", "c", "d", "e")


def destroy_param() -> Param:
    return Param("destroy", str, "none", "negative control: this transformation also replaces the class content",
                 choices=("none",) + TRANSFORMS[1:])


def destroy_hypotheses(p: dict, form: str) -> list[Violation]:
    """Positives share the latent class: a transformation that replaces the class content breaks it."""
    if p["destroy"] != "none":
        return [Violation("transformations preserve the class", f"destroy={p['destroy']} makes transformation "
                          f"({p['destroy']}) replace the class content too: positives no longer share the latent "
                          "class (a negative control)", ("destroy",))]
    return []
