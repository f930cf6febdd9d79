"""The deep architectures of paper 004 in torch, batched over parameter vectors (Section 3, Appendix B).

Every model is a *flat* parameter vector θ ∈ R^P per instance, and every function takes a batch
θ ∈ R^{B×P} (B seeds / restarts), so that one batched L-BFGS run trains B networks at once.

Architectures (``ARCHS``), exactly as Defs. 3.1, 3.2, B.1, B.2; LN is LayerNorm with the
population std and **no affine parameters** (``optim.manifolds.ln``: √d·Pv/‖Pv‖, so ‖x‖ = √d, 1ᵀx = 0):

* ``rn1``  post-LN L-RN1: X_1 = LN(W_0X_0+b_0), X_{l+1} = LN(X_l + σ(W_lX_l+b_l)), l = 1..L−1, f = W_L X_L;
* ``rn2``  post-LN L-RN2: X_{l+1} = LN(X_l + W_{l,2}σ(W_{l,1}X_l+b_{l,1}) + b_{l,2});
* ``pre_rn1`` / ``pre_rn2``: X_{l+1} = X_l + σ(W_l LN(X_l)+b_l) (resp. the two-layer update), f = W_L LN(X_L);
* ``tx1``  post-LN L-T11 with one causal head: Embed(Z) = W_e Z + W_p, blocks B_l = MLP_l∘LN∘ATTN_l∘LN with
  ATTN(Z) = Z + W_VO Z softmax(M + ZᵀW_QK Z/√d) (softmax over the key index c' ≤ c of each column c),
  MLP(Z) = Z + σ(W_l Z + b_l), f = W_{L+1} LN(B_L∘…∘B_1∘Embed). L blocks (not L−1 as for ResNets).
* ``tx2``  post-LN L-T12: the same with a two-layer MLP, MLP(Z) = Z + W_{l,2}σ(W_{l,1}Z + b_{l,1}) + b_{l,2};
* ``t21`` / ``t22``: L-T21 / L-T22, the same blocks with Definition 3.2's factored attention (two linear layers in
  the attention sub-block): ATTN(Z) = Z + W_O W_V Z softmax(M + ZᵀW_KᵀW_Q Z/√d), four regularised d×d matrices
  per block (W_V, W_O, W_Q, W_K) instead of W_VO, W_QK; Theorem 4.3 covers L-T21 (an L-Tx1), Theorem 4.6 L-T22;
* ``pre_tx1`` / ``pre_tx2``: the pre-LN transformer of Def. B.2, f = lin∘LN_{L+1}∘B_L∘…∘B_1∘LN_0∘Embed with
  B_l = (id + MLP_l∘LN_{l,2})∘(id + ATTN_l∘LN_{l,1}), ATTN(Z) = W_VO Z A(Z), MLP(Z) = σ(W_lZ + b_l) (resp. the
  two-layer map): no residual inside the branches.
  ``readout`` says which positions are samples: ``"last"`` (the ViT reading of App. B.1: the prediction is read
  on the last position, see data.classification) or ``"all"`` (language modelling: every position of every
  sequence is a sample, column s·C + c for position c of sequence s, see data.sequences).

"Depth L" follows the paper: an L-RN has L−1 residual blocks, an L-Tx has L blocks.

No last-layer bias (f = W_L X_L, erratum A6) unless ``last_bias=True``, which exists only as a negative
control; ``ln_gain`` ≠ 1 multiplies every LN output by a fixed gain (an affine LN), also only a control.

Objective (7): L(f_θ(X), Y) + (λ/2)(Σ_inner ‖W‖² + ‖W_L‖²); objective (11) (two-layer blocks):
L + (λ_L/2)‖W_L‖² + (λ(L)/2)Σ_inner ‖W‖². ``objective(..., lam_last, lam_inner)`` covers both. The
*inner* weights are the block matrices (W_l; W_{l,1}, W_{l,2}; W_VO, W_QK, W_l); W_0, W_e, W_p and all
biases are unregularised, as θ̄ in (7).

Identity padding (the proof of Theorem 4.3's monotonicity argument; used for warm starts): a block with zero weights is an exact identity of
the network function. We pad with W = 0 and a *positive* bias β·1 in the ReLU (σ(0·X + β1) = β1, which
the following LN removes exactly: LN(X + β1) = LN(X)); with b = 0 instead the ReLU sits at its kink,
torch's σ'(0) = 0 makes the padded block a stationary point and training never uses it.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import torch

from ..optim.manifolds import ln
from .ufm import ufm_objective

ARCHS = ("rn1", "rn2", "pre_rn1", "pre_rn2", "tx1", "tx2", "pre_tx1", "pre_tx2", "t21", "t22")
TRANSFORMERS = ("tx1", "tx2", "pre_tx1", "pre_tx2", "t21", "t22")
TWO_LAYER = ("rn2", "pre_rn2", "tx2", "pre_tx2", "t22")  # two linear layers in the MLP sub-block
FACTORED = ("t21", "t22")  # two linear layers in the attention sub-block: W_O W_V and W_K^T W_Q (Definition 3.2)
PRE_LN = ("pre_rn1", "pre_rn2", "pre_tx1", "pre_tx2")
READOUTS = ("last", "all")

# Free: unregularised (W_0, embeddings, biases); inner: regularised block weights; last: W_L.
FREE, INNER, LAST = "free", "inner", "last"


@dataclass(frozen=True)
class ModelSpec:
    arch: str
    L: int  # depth as the paper counts it
    d: int  # inner width
    K: int  # classes
    d0: int = 0  # input dimension (ResNets)
    V: int = 0  # vocabulary (transformer)
    C: int = 0  # context length (transformer)
    last_bias: bool = False
    ln_gain: float = 1.0
    readout: str = "last"  # transformers: "last" position or "all" positions are the samples

    def __post_init__(self) -> None:
        if self.arch not in ARCHS:
            raise ValueError(f"unknown architecture {self.arch!r}: one of {ARCHS}")
        if self.readout not in READOUTS:
            raise ValueError(f"unknown readout {self.readout!r}: one of {READOUTS}")

    @property
    def transformer(self) -> bool:
        return self.arch in TRANSFORMERS

    @property
    def blocks(self) -> int:
        return self.L if self.transformer else self.L - 1

    def layout(self) -> list[tuple[str, tuple[int, ...], str]]:
        """(name, shape, group) of every parameter tensor, in flat order."""
        d, nb = self.d, self.blocks
        if self.transformer:
            attention = ("Wv", "Wo", "Wq", "Wk") if self.arch in FACTORED else ("Wvo", "Wqk")
            out = [("We", (d, self.V), FREE), ("Wp", (d, self.C), FREE),
                   *((name, (nb, d, d), INNER) for name in attention),
                   ("W1", (nb, d, d), INNER), ("b1", (nb, d, 1), FREE)]
        else:
            out = [("W0", (d, self.d0), FREE), ("b0", (d, 1), FREE),
                   ("W1", (nb, d, d), INNER), ("b1", (nb, d, 1), FREE)]
        if self.arch in TWO_LAYER:
            out += [("W2", (nb, d, d), INNER), ("b2", (nb, d, 1), FREE)]
        out.append(("WL", (self.K, d), LAST))
        if self.last_bias:
            out.append(("bL", (self.K, 1), FREE))
        return out

    @property
    def size(self) -> int:
        return sum(math.prod(s) for _, s, _ in self.layout())

    def with_depth(self, L: int) -> "ModelSpec":
        return dataclasses.replace(self, L=L)


def unpack(spec: ModelSpec, theta: torch.Tensor) -> dict[str, torch.Tensor]:
    """Views of the flat batch θ (B, P) as named tensors with a leading batch dimension."""
    out, at = {}, 0
    B = theta.shape[0]
    for name, shape, _ in spec.layout():
        size = math.prod(shape)
        out[name] = theta[:, at:at + size].reshape(B, *shape)
        at += size
    return out


def pack(spec: ModelSpec, parts: dict[str, torch.Tensor]) -> torch.Tensor:
    return torch.cat([parts[name].reshape(parts[name].shape[0], -1) for name, _, _ in spec.layout()], dim=1)


def init_params(spec: ModelSpec, ctx, batch: int, *, inner_scale: float = 0.1) -> torch.Tensor:
    """B random parameter vectors: first layer / embeddings N(0, 1/fan_in), block weights
    N(0, inner_scale²/d) (near-identity blocks), W_L N(0, 1/d), biases 0."""
    parts = {}
    for name, shape, group in spec.layout():
        if name.startswith("b"):
            parts[name] = torch.zeros(batch, *shape, dtype=ctx.dtype, device=ctx.device)
        elif group == INNER:
            parts[name] = inner_scale / math.sqrt(spec.d) * ctx.randn(batch, *shape)
        else:
            fan_in = shape[-1] if name not in ("We", "Wp") else 1
            parts[name] = ctx.randn(batch, *shape) / math.sqrt(fan_in)
    return pack(spec, parts)


def pad_with_identity_blocks(spec: ModelSpec, theta: torch.Tensor, L_new: int, *, beta: float = 0.1,
                             ctx=None, w1_scale: float = 1e-2) -> torch.Tensor:
    """θ of depth ``spec.L`` → θ of depth ``L_new`` ≥ L computing the same function: zero-weight blocks
    with ReLU bias β·1 appended after the existing blocks (see the module docstring).

    Two-layer blocks: W_{l,2} = 0 makes the block an exact identity whatever W_{l,1} is, but W_{l,1} =
    W_{l,2} = 0 is a saddle (each shields the other's gradient, and σ(β1) is the same for every sample, so
    W_{l,2} can only learn a common shift). Given ``ctx``, W_{l,1} is drawn at scale w1_scale/√d instead: the
    function is unchanged, the objective rises by (λ/2)‖W_{l,1}‖² ≈ λ w1_scale² d/2 per block (~1e-5 here),
    and training can use the new blocks. (We saw RN2 sweeps stuck at that saddle from L = 5 on without it.)
    Factored attention (L-T21/T22) has the same saddle twice: W_O = W_V = 0 and W_Q = W_K = 0; given ``ctx``, W_V and
    W_K are drawn at that scale too (W_O = W_Q = 0 keep the block an exact identity: no value, uniform scores)."""
    if L_new < spec.L:
        raise ValueError(f"cannot pad depth {spec.L} down to {L_new}")
    new = spec.with_depth(L_new)
    old = unpack(spec, theta)
    extra = new.blocks - spec.blocks
    parts = {}
    for name, shape, group in new.layout():
        if group == INNER or name in ("b1", "b2"):
            pad = torch.zeros(theta.shape[0], extra, *shape[1:], dtype=theta.dtype, device=theta.device)
            if name == "b1":
                pad += beta  # the first ReLU of each padded block is active: gradients reach the block
            if ctx is not None and ((name == "W1" and spec.arch in TWO_LAYER) or name in ("Wv", "Wk")):
                pad = w1_scale / math.sqrt(spec.d) * ctx.randn(*pad.shape)
            parts[name] = torch.cat([old[name], pad], dim=1)
        else:
            parts[name] = old[name]
    return pack(new, parts)


FROZEN = ("W0", "b0", "We", "Wp")  # the input layer, kept at its random initialisation when training


def trainable_mask(spec: ModelSpec, *, device=None) -> torch.Tensor:
    """(P,) bool: which coordinates of θ training moves (all but ``FROZEN``).

    W_0, b_0 (and W_e, W_p) are unregularised in (7) and LN makes the net invariant to their scale, so an
    optimiser can drive a sample's pre-LN vector towards the LN singularity P(W_0x + b_0) = 0, where the
    gradient explodes (we saw ‖∇_{W_0}‖ ~ 2e3 and L-BFGS stalling). The paper's own construction (proof of
    Thm 4.3) keeps them random, so its upper bound, hence the depth claim, holds with them frozen; the
    exact lower bound holds for every θ anyway.
    """
    parts = [torch.full((math.prod(shape),), name not in FROZEN, dtype=torch.bool, device=device)
             for name, shape, _ in spec.layout()]
    return torch.cat(parts)


def _norm(spec: ModelSpec, V: torch.Tensor) -> torch.Tensor:
    out = ln(V)
    return out if spec.ln_gain == 1.0 else spec.ln_gain * out


def features(spec: ModelSpec, theta: torch.Tensor, inputs: torch.Tensor) -> torch.Tensor:
    """The penultimate features h_θ(X) (B, d, N): X_L for post-LN ResNets, LN(X_L) for pre-LN ones,
    LN_{L+1}(…) on the samples' positions for transformers (``spec.readout``)."""
    p = unpack(spec, theta)
    if spec.transformer:
        return _transformer_features(spec, p, inputs)
    blocks = _per_block(spec, p)
    X = _norm(spec, p["W0"] @ inputs + p["b0"])  # (B, d, N)
    for block in blocks:
        H = _norm(spec, X) if spec.arch in PRE_LN else X
        U = _mlp_branch(spec, block, H)
        X = X + U if spec.arch in PRE_LN else _norm(spec, X + U)
    return _norm(spec, X) if spec.arch in PRE_LN else X


def _per_block(spec: ModelSpec, p: dict, expand: int = 0) -> list[dict[str, torch.Tensor]]:
    """The block tensors split once into per-block views (``unbind``: one backward node for all blocks). Indexing
    ``p[name][:, l]`` inside the loop instead gives every block a backward that writes a zero tensor of *all* the
    blocks' size, O(blocks²) per gradient at depth (issue 25: the deep end of the sweeps). ``expand`` singleton
    dims go after the batch one (the transformer's sequence dimension)."""
    names = [name for name, _, _ in spec.layout() if name not in ("W0", "b0", "We", "Wp", "WL", "bL")]
    split = {}
    for name in names:
        w = p[name]
        w = w.reshape(w.shape[0], w.shape[1], *([1] * expand), *w.shape[2:])
        split[name] = w.unbind(1)
    return [{name: split[name][l] for name in names} for l in range(spec.blocks)]


def _mlp_branch(spec: ModelSpec, block: dict, H: torch.Tensor) -> torch.Tensor:
    """σ(W_l H + b_l), or W_{l,2}σ(W_{l,1}H + b_{l,1}) + b_{l,2}."""
    U = torch.relu(block["W1"] @ H + block["b1"])
    if spec.arch in TWO_LAYER:
        U = block["W2"] @ U + block["b2"]
    return U


def _transformer_features(spec: ModelSpec, p: dict, tokens: torch.Tensor) -> torch.Tensor:
    d, C = spec.d, spec.C
    B = p["We"].shape[0]
    blocks = _per_block(spec, p, expand=1)  # (B, 1, d, d) per block: broadcast over the sequences
    # Z (B, N, d, C): column c of sequence i is token c's representation.
    Z = p["We"][:, :, tokens].permute(0, 2, 1, 3) + p["Wp"][:, None]
    causal = torch.full((C, C), -math.inf, dtype=Z.dtype, device=Z.device).tril(-1)  # −∞ for c' > c
    pre = spec.arch in PRE_LN
    factored = spec.arch in FACTORED

    def attention(block: dict, H: torch.Tensor) -> torch.Tensor:
        if factored:  # Definition 3.2, L-T2x: scores ZᵀW_KᵀW_Q Z, value W_O W_V Z
            scores = (block["Wk"] @ H).transpose(-1, -2) @ (block["Wq"] @ H) / math.sqrt(d) + causal
            A = torch.softmax(scores, dim=-2)
            return block["Wo"] @ (block["Wv"] @ H @ A)
        scores = H.transpose(-1, -2) @ block["Wqk"] @ H / math.sqrt(d) + causal  # [c', c] = h_{c'}ᵀ W h_c
        A = torch.softmax(scores, dim=-2)  # over keys c' ≤ c for each query column c
        return block["Wvo"] @ H @ A

    if pre:
        Z = _norm(spec, Z)  # LN_0
    for block in blocks:
        if pre:  # B_l = (id + MLP∘LN)∘(id + ATTN∘LN)
            Z = Z + attention(block, _norm(spec, Z))
            Z = Z + _mlp_branch(spec, block, _norm(spec, Z))
        else:  # B_l = MLP∘LN∘ATTN∘LN with the residuals inside ATTN and MLP
            Z = _norm(spec, Z)
            Z = Z + attention(block, Z)
            Z = _norm(spec, Z)
            Z = Z + _mlp_branch(spec, block, Z)
    Z = _norm(spec, Z)
    if spec.readout == "all":
        return Z.permute(0, 2, 1, 3).reshape(B, d, -1)  # column s·C + c
    return Z[..., -1].transpose(-1, -2).reshape(B, d, -1)


def inner_sq_norm(spec: ModelSpec, theta: torch.Tensor) -> torch.Tensor:
    """Σ over the regularised block weights of ‖W‖_F², per instance (B,)."""
    p = unpack(spec, theta)
    out = torch.zeros(theta.shape[0], dtype=theta.dtype, device=theta.device)
    for name, _, group in spec.layout():
        if group == INNER:
            out = out + p[name].pow(2).flatten(1).sum(1)
    return out


def data_loss(spec: ModelSpec, theta: torch.Tensor, X: torch.Tensor, labels: torch.Tensor, loss: str) -> torch.Tensor:
    """L(W_L X + b_L, Y) with the UFM's normalisation (mean CE, (1/2N)‖·‖²), per instance."""
    p = unpack(spec, theta)
    W = p["WL"]
    if spec.last_bias:  # W X + b = [W, b][X; 1]
        W = torch.cat([W, p["bL"]], dim=-1)
        X = torch.cat([X, torch.ones_like(X[:, :1])], dim=-2)
    return ufm_objective(W, X, labels, loss, 0.0)


@dataclass
class Evaluation:
    """Objective (7)/(11) at a batch of θ, with its parts."""

    objective: torch.Tensor  # (B,)
    fit: torch.Tensor  # (B,) data loss
    last_reg: torch.Tensor  # (B,) (λ_L/2)‖W_L‖²
    inner_reg: torch.Tensor  # (B,) (λ_inner/2) Σ ‖W_inner‖²
    X: torch.Tensor  # (B, d, N) penultimate features
    WL: torch.Tensor  # (B, K, d)
    extra: dict = field(default_factory=dict)


def objective(spec: ModelSpec, theta: torch.Tensor, inputs: torch.Tensor, labels: torch.Tensor, loss: str,
              lam_last: float, lam_inner: float) -> torch.Tensor:
    """Objective (7) (lam_last = lam_inner = λ) or (11) (lam_last = λ_L, lam_inner = λ(L)), batched."""
    X = features(spec, theta, inputs)
    WL = unpack(spec, theta)["WL"]
    return (data_loss(spec, theta, X, labels, loss) + 0.5 * lam_last * WL.pow(2).sum(dim=(-2, -1))
            + 0.5 * lam_inner * inner_sq_norm(spec, theta))


def evaluate(spec: ModelSpec, theta: torch.Tensor, inputs: torch.Tensor, labels: torch.Tensor, loss: str,
             lam_last: float, lam_inner: float) -> Evaluation:
    with torch.no_grad():
        X = features(spec, theta, inputs)
        WL = unpack(spec, theta)["WL"]
        fit = data_loss(spec, theta, X, labels, loss)
        last = 0.5 * lam_last * WL.pow(2).sum(dim=(-2, -1))
        inner = 0.5 * lam_inner * inner_sq_norm(spec, theta)
        return Evaluation(fit + last + inner, fit, last, inner, X, WL)
