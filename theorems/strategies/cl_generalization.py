"""Strategies for paper 003: Generalisation of contrastive SSL (paper 003)."""

from __future__ import annotations

__all__: list[str] = []
