"""attention_theory: numerical companion to four papers on Transformer theory.

Modules (one home per concept):

* :mod:`~attention_theory.verify`     the check / registry / errata contract
* :mod:`~attention_theory.foundations.norms`      matrix norms of the papers (both naming conventions)
* :mod:`~attention_theory.foundations.softmax`    softmax, its Jacobian and second derivative
* :mod:`~attention_theory.foundations.losses`     logistic and cross-entropy losses and derivatives
* :mod:`~attention_theory.foundations.rademacher` empirical Rademacher complexity (exact / Monte Carlo)
* :mod:`~attention_theory.foundations.covering`   covering and packing numbers of finite classes
* :mod:`~attention_theory.foundations.dudley`     Dudley's entropy integral on step-function covers
* :mod:`~attention_theory.results`    experiment results with provenance, atomic writes, checkpoints
* :mod:`~attention_theory.experiments` runnable experiments (smoke and full scale)
* :mod:`~attention_theory.optim`      optimizers and (batched) training loops
* :mod:`~attention_theory.checks`     the registered checks the book runs
"""

__version__ = "0.1.0"
