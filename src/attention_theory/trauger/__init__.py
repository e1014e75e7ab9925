"""Trauger & Tewari (2024), sequence-length-independent norm-based generalization bounds.

* :mod:`~.model` the attention head, multi-head layer, L-layer block and read-out (Sec. 2.6);
* :mod:`~.linear_covering` instances for the linear covering lemmas (Sec. 3, Apps. A-B), and
  :mod:`~.linear_covering_search` the objectives of their checks' adversarial searches;
* :mod:`~.single_layer_model`, :mod:`~.single_layer_bounds`, :mod:`~.single_layer` the scalar
  single-layer model, its bounds (Sec. 4.1, App. C-D) and the instances the checks use, and
  :mod:`~.single_layer_search` the objectives of the adversarial searches;
* :mod:`~.multi_layer_bounds`, :mod:`~.multi_layer`, :mod:`~.multi_layer_cover` the multi-layer
  bounds (Sec. 4.2-4.3, App. E-F), their instances and Theorem 4.2's composite cover, and
  :mod:`~.multi_layer_search` the objectives of the adversarial searches;
* :mod:`~.word_masking` the word-masking pre-training loss (Sec. 5);
* :mod:`~.sparse_majority` the Sec. 6 experiment: data, model, batched training, evaluation,
  and the experiment command;
* :mod:`~.checks` the registered checks, one module per chapter.
"""
