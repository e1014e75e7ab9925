"""Model definitions of the papers (torch, float64 for verification), one module per model:

* :mod:`~attention_theory.models.trauger`              Trauger & Tewari Sec. 2.6: attention head,
  multi-head layer, L-layer block, scalar read-out
* :mod:`~attention_theory.models.trauger_single_layer` Trauger & Tewari Sec. 4.1: the scalar
  single-layer model read at the [CLS] position (and its Monte-Carlo complexity estimators)
* :mod:`~attention_theory.models.sparse_majority`      the one-layer multi-head classifier of the
  Sec. 6 sparse-majority experiment (stackable parameters for batched training)
* :mod:`~attention_theory.models.deora`                Deora et al. Eqs. (1)-(2), risk, Lemma 1 calculus
* :mod:`~attention_theory.models.qin`                  Qin, Zhou & Zhu (reconstructed): attention + FFN
  with switchable residual connections
* :mod:`~attention_theory.models.julistiono`           Julistiono et al.: ``v^T X^T softmax(X W z)`` with
  numerically stable gradients at saturated softmax
* :mod:`~attention_theory.models.sentiment_encoder`    the small from-scratch Transformer encoder
  classifier of the SST-2 substitute (Deora et al. Fig. 6), ``H`` heads of size ``d_model / H``
"""
