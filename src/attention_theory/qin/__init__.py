"""Qin, Zhou & Zhu (2025), gradient descent on a single-layer Transformer with residual
connections (reconstructed: the source lost its formulas).

* :mod:`~.model` attention + feed-forward network with switchable residual connections,
  hand-written backward passes;
* :mod:`~.bounds` block-wise gradient Lipschitz bounds and the linear rate;
* :mod:`~.residual_gd` instances, Hessian tools and training runs the checks use;
* :mod:`~.experiments` the experiments (``python -m attention_theory run qin experiments``);
* :mod:`~.checks` the registered checks.
"""
