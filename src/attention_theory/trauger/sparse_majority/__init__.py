"""The sparse-majority experiment of Trauger & Tewari, Sec. 6 (Figures 1-3).

:mod:`~.data` the task and its embeddings; :mod:`~.model` the one-layer multi-head classifier;
:mod:`~.training` batched training of every run at once (and the naive loop it is compared with);
:mod:`~.evaluation` re-evaluation and trend statistics; :mod:`~.experiment` the command
``python -m attention_theory run trauger sparse-majority``.
"""
