"""The bundled digits loader: shapes, class order, determinism, and typed errors on impossible sizes."""

import pytest
import torch

from theorems.core.context import Context
from theorems.core.errors import ParameterError
from theorems.data.digits import PIXELS, class_sizes, digits


def test_digits_columns_are_ordered_class_by_class_and_seeded():
    X, y = digits(Context.make(seed=3), K=3, n=5)
    assert X.shape == (PIXELS, 15) and y.tolist() == [0] * 5 + [1] * 5 + [2] * 5
    assert torch.allclose(X.mean(dim=1), torch.zeros(PIXELS, dtype=X.dtype), atol=1e-12)
    X2, _ = digits(Context.make(seed=3), K=3, n=5)
    X3, _ = digits(Context.make(seed=4), K=3, n=5)
    assert torch.equal(X, X2) and not torch.equal(X, X3)


def test_uncentred_pixels_lie_in_the_unit_interval():
    X, _ = digits(Context.make(seed=0), K=10, n=min(class_sizes()), center=False)
    assert float(X.min()) >= 0.0 and float(X.max()) <= 1.0 and float(X.max()) == 1.0


@pytest.mark.parametrize("K, n, name", [(1, 3, "K"), (11, 3, "K"), (2, 0, "n"), (2, 10_000, "n")])
def test_impossible_sizes_are_typed_errors_naming_the_parameter(K, n, name):
    with pytest.raises(ParameterError) as err:
        digits(Context.make(seed=0), K=K, n=n)
    assert err.value.name == name
