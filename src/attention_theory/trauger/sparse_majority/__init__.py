"""The sparse-majority experiment of Trauger & Tewari, Sec. 6 (Figures 1-3).

:mod:`~.protocol` the training protocol as data (the authors' code, the first edition's
``book-v1``, and the table of every setting and departure); :mod:`~.authors_model` the authors'
data, embeddings, initialization and a ``torch.nn`` reference model; :mod:`~.structured` the
structured trainer of every run at once, with its forward (:mod:`~.structured_forward`) and its
hand-written step (:mod:`~.structured_step`); :mod:`~.benchmark` its speed against the naive
loop and the first edition's trainer.  The first edition's protocol: :mod:`~.data` the task and
its embeddings; :mod:`~.model` the one-layer multi-head classifier; :mod:`~.training` batched
training of every run at once (and the naive loop it is compared with).  :mod:`~.evaluation`
re-evaluation and trend statistics; :mod:`~.theory` the bridge to Corollary 4.1.1;
:mod:`~.collect` merging checkpoints and seed batches; :mod:`~.figures` the chapter's figures and
tables; :mod:`~.experiment` the command ``python -m attention_theory run trauger sparse-majority``.
"""
