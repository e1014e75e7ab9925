"""Registered checks, one module per part of the book.

Importing this package registers every check (see :func:`attention_theory.verify.registered_checks`).
"""

from . import foundations  # noqa: F401
from . import deora_calculus  # noqa: F401
from . import trauger_linear  # noqa: F401
from . import deora_experiments  # noqa: F401
from . import trauger_single_layer  # noqa: F401
from . import trauger_word_masking  # noqa: F401
from . import trauger_experiment  # noqa: F401
from . import trauger_model  # noqa: F401
from . import trauger_multilayer  # noqa: F401
from . import qin  # noqa: F401
from . import deora_stability  # noqa: F401
from . import deora_init  # noqa: F401
from . import deora_mixture  # noqa: F401
from . import deora_margins  # noqa: F401
from . import deora_landscape  # noqa: F401
from . import deora_training  # noqa: F401
from . import julistiono_bregman  # noqa: F401
from . import julistiono_attention  # noqa: F401
from . import deora_sst2  # noqa: F401
