"""hypothesis strategies that generate valid parameters and instances for the registered results.

One module per paper; everything is re-exported here, so ``from theorems.strategies import ufm_params``
works for any of them. Every range comes from the results' `Param` declarations (:func:`declared_params`,
:func:`param`); a strategy draws inside a result's hypotheses and re-validates what it drew with
:func:`valid_for`, so a strategy can never drift outside what the theorem assumes without a test noticing.
Needs the ``test`` extra (hypothesis).
"""

from ._common import declared_params, param, param_of, valid_for  # noqa: F401
from .cl_generalization import *  # noqa: F401,F403
from .deep_fusion import *  # noqa: F401,F403
from .neural_collapse import *  # noqa: F401,F403
from .nonlinear_cl import *  # noqa: F401,F403
from .nonlinear_cl_training import *  # noqa: F401,F403
from .ssl_dynamics import *  # noqa: F401,F403
