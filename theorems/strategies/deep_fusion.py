"""Strategies for paper 000: Deep fusion (paper 000)."""

from __future__ import annotations

__all__: list[str] = []
