"""Strategies for paper 001: Nonlinear contrastive learning (paper 001)."""

from __future__ import annotations

__all__: list[str] = []
