"""Strategies for paper 002: SSL learning dynamics (paper 002)."""

from __future__ import annotations

__all__: list[str] = []
