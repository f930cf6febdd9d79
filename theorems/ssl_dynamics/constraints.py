"""Norm-ball projections shared by Propositions 2 and 3 of paper 002 (Frobenius and operator-norm constraints)."""

from __future__ import annotations

import torch

CONSTRAINTS = ("frobenius", "spectral")


def project_ball(W: torch.Tensor, c: float, constraint: str) -> torch.Tensor:
    """The nearest point of {‖W‖ ≤ c} (batched over leading dimensions): rescaling for the Frobenius ball,
    singular values clipped at c for the operator-norm ball."""
    if constraint == "frobenius":
        nrm = W.flatten(-2).norm(dim=-1)[..., None, None]
        return W * torch.clamp(c / nrm, max=1.0)
    if constraint != "spectral":
        raise ValueError(f"unknown constraint {constraint!r}; choose one of {CONSTRAINTS}")
    U, S, Vh = torch.linalg.svd(W, full_matrices=False)
    return U @ torch.diag_embed(S.clamp(max=c)) @ Vh
