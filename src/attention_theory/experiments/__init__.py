"""Runnable experiment definitions (one module per experiment, each with a ``main``).

Each module runs at ``ATTN_SCALE=smoke`` (CPU, minutes) or ``full`` (the paper's
settings) and writes its results with :mod:`attention_theory.results`.
:mod:`~attention_theory.experiments.plotting` holds the plots that several chapters share.
"""
