"""The module `theorems.ssl_dynamics.instances` that several results of paper 002 share: its unit checks. (Instance
builders and parameter declarations shared by the results of paper 002: the matrix C of an instance, its spectrum,
and the parameters several results take (declared here once, with their domains).)"""

from __future__ import annotations

import random


def test_random_spectra_start_where_declared():
    """instances.SPECTRUM_START: the smallest eigenvalue of a drawn spectrum lies in [−3, −0.3] (literals: the
    worst-case searches and report spectra stay where the cost models and horizons were measured)."""
    from theorems.ssl_dynamics.instances import gapped_spectrum_values

    rng = random.Random(0)
    firsts = [gapped_spectrum_values(rng, 3)[0] for _ in range(200)]
    assert -3.0 <= min(firsts) < -2.5 and -0.8 < max(firsts) <= -0.3
