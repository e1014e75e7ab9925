"""Checks of the bridge from the trained sparse-majority models to Corollary 4.1.1
(Trauger & Tewari, Sec. 4 and Sec. 6; :mod:`attention_theory.trauger.sparse_majority.theory`).

* ``trauger-sec-6`` / ``authors-model-in-class``: the authors' model (biases, output projection,
  ReLU after the sum of heads, ``Dense`` block, two logits) computes exactly the function of the
  paper's single-layer multi-head class on augmented tokens ``(x, 1)``, with the parameters of
  :func:`~attention_theory.trauger.sparse_majority.theory.class_parameters`.  Without that
  identity the norms of the bound panel would describe another function.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
import torch

from attention_theory._validate import torch_generator
from attention_theory.trauger.sparse_majority import authors_model as am
from attention_theory.trauger.sparse_majority import theory as th
from attention_theory.verify import CheckRecord, check_identity, claim_check

__all__ = ["check_authors_model_in_class"]


@claim_check("trauger-sec-6", "authors-model-in-class")
def check_authors_model_in_class(*, embed: Callable[[torch.Tensor, am.ModelShape], dict[str, Any]] = th.class_parameters,
                                 Ts: Sequence[int] = (10, 20, 200), weight_scales: Sequence[float] = (0.0, 0.3, 3.0),
                                 n: int = 8, seed: int = 0) -> CheckRecord:
    """Logits of :class:`~.authors_model.TextbookModel` = :func:`~.theory.class_logits` of
    ``embed(flat)``, in float64, on Keras-initialized weights plus Gaussian noise of growing size
    (non-zero biases everywhere; large weights make the softmax nearly one-hot).

    ``embed`` replaces :func:`~.theory.class_parameters` (negative controls)."""
    shape = am.ModelShape()
    computed, reference, instances = [], [], []
    for i, ws in enumerate(weight_scales):
        for T in Ts:
            g = torch_generator(seed + 1000 * i + T)
            flat = am.init_authors_params(shape, generator=g, dtype=torch.float64)
            flat = flat + ws * torch.randn(flat.shape, generator=g, dtype=torch.float64)
            run = am.make_authors_run(T, seed=seed + i, n_train=n, n_val=1)
            X = am.embed_authors(run.train_bits, run.embeddings)
            with torch.no_grad():
                reference.append(am.TextbookModel(shape).load_flat(flat)(X).ravel().numpy())
            computed.append(th.class_logits(embed(flat, shape), X).ravel().numpy())
            instances.append((T, ws))
    ref = np.concatenate(reference)
    return check_identity(np.concatenate(computed), ref,
                          "the authors' model = the paper's single-layer multi-head class on tokens (x, 1)",
                          atol=1e-10, rtol=1e-10,
                          params={"Ts": list(Ts), "weight_scales": list(weight_scales), "n": n}, seed=seed)
