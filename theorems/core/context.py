"""Device, dtype and seeding for one evaluation.

All random draws are made on the CPU from a generator seeded by the user's seed and then moved to the
device, so a seeded instance starts from the same numbers on every device; only floating-point
reduction order can differ between CPU and CUDA.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch

from .errors import DeviceUnavailable

DTYPE = torch.float64
ENV_DEVICE = "THEOREMS_DEVICE"


def resolve_device(name: str | torch.device | None = None) -> torch.device:
    """``name``, else ``$THEOREMS_DEVICE``, else ``cpu``; a clear error if CUDA is asked for but absent."""
    name = name if name is not None else os.environ.get(ENV_DEVICE, "cpu")
    try:
        device = torch.device(name)
    except RuntimeError as err:
        raise DeviceUnavailable(f"unknown device {name!r}: use 'cpu' or 'cuda' ({err})") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise DeviceUnavailable(
            f"device {str(name)!r} was asked for but torch.cuda.is_available() is False "
            f"(torch {torch.__version__}; the default install is the CPU build, see README 'Installing for a GPU')"
        )
    if device.type not in ("cpu", "cuda"):
        raise DeviceUnavailable(f"device {name!r} is not supported: use 'cpu' or 'cuda'")
    return device


@dataclass
class Context:
    """What an evaluation needs besides its parameters: where to compute and how to draw."""

    device: torch.device
    seed: int
    dtype: torch.dtype = DTYPE

    def __post_init__(self) -> None:
        self.generator = torch.Generator(device="cpu").manual_seed(self.seed)

    @classmethod
    def make(cls, device: str | torch.device | None = None, seed: int = 0) -> "Context":
        return cls(device=resolve_device(device), seed=int(seed))

    # Draws are made on the CPU generator (device="cpu" named, so that a default device set by the caller,
    # e.g. `with torch.device("meta")`, does not capture them) and then moved to the context's device.
    def randn(self, *shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=self.generator, dtype=self.dtype, device="cpu").to(self.device)

    def rand(self, *shape: int) -> torch.Tensor:
        return torch.rand(*shape, generator=self.generator, dtype=self.dtype, device="cpu").to(self.device)

    def tensor(self, data) -> torch.Tensor:
        return torch.as_tensor(data, dtype=self.dtype, device=self.device)
