"""Paper 003: Huang et al., generalisation of contrastive SSL -- augmentation concentration, the downstream error
bound, and what InfoNCE and Barlow Twins control. One module per result; importing this package registers them."""

from . import lemma_1  # noqa: F401
from . import theorem_2  # noqa: F401
from . import theorem_1  # noqa: F401
from . import infonce  # noqa: F401
from . import theorem_3  # noqa: F401
from . import barlow_twins  # noqa: F401
from . import augmentation_trend  # noqa: F401
from . import composition_ordering  # noqa: F401
from . import revised_infonce  # noqa: F401
from . import alignment_uniformity  # noqa: F401
from . import tables_1_2  # noqa: F401
