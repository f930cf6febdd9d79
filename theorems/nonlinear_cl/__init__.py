"""Paper 001: Tian, nonlinearity in contrastive learning -- locally maximal eigenvectors (LMEs), their stability
and convergence, and the 2-layer results. One module per result; importing this package registers them.

Machinery: ``covariance`` (A(w) closed forms, eq. (3) estimator, roughness D), ``lme`` (LME finder, kinks),
``theorems.optim.sphere_flow`` (batched projected flow and power iteration), ``theorems.data.latents``.
"""

from . import alpha_cl_gradient  # noqa: F401
from . import augmentation_b5  # noqa: F401
from . import batchnorm  # noqa: F401
from . import corollary_1  # noqa: F401
from . import corollary_2  # noqa: F401
from . import examples  # noqa: F401  (categorical_model, summation_model, linear_vs_relu)
from . import figure_1_right  # noqa: F401
from . import figure_11  # noqa: F401
from . import figure_12  # noqa: F401
from . import figure_4  # noqa: F401
from . import figure_8  # noqa: F401
from . import lemma_1  # noqa: F401
from . import lemma_2  # noqa: F401
from . import lemma_3  # noqa: F401
from . import lemma_4  # noqa: F401
from . import lemma_5  # noqa: F401
from . import lemma_7  # noqa: F401
from . import lemma_8  # noqa: F401
from . import lemma_10  # noqa: F401
from . import monomial_activation  # noqa: F401
from . import table_1  # noqa: F401
from . import theorem_1  # noqa: F401
from . import theorem_2  # noqa: F401
from . import theorem_3  # noqa: F401
from . import theorem_4  # noqa: F401
from . import theorem_5  # noqa: F401
from . import theorem_6  # noqa: F401
from . import theorem_6_remark  # noqa: F401
