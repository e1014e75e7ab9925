"""attention_theory: numerical companion to papers on Transformer theory.

The package is arranged like the book, by paper:

* :mod:`~attention_theory.trauger`, :mod:`~attention_theory.deora`, :mod:`~attention_theory.qin`,
  :mod:`~attention_theory.julistiono`: one folder per paper with its models, bounds, data,
  training and experiment code, and a ``checks/`` folder of registered checks;
* :mod:`~attention_theory.foundations`: what several papers share (norms, softmax, losses,
  Rademacher complexity, covering numbers, Dudley's integral, Maurey's lemma, Hessians,
  mirror maps, first-order training loops) and the checks of the Foundations part.

Shared machinery, which never imports a paper:

* :mod:`~attention_theory.papers`      the one list of papers (claim IDs, discovery, experiments)
* :mod:`~attention_theory.verify`      the contract: outcomes, registered checks, records, registry
* :mod:`~attention_theory.search`      adversarial search (maximize a ratio over instances)
* :mod:`~attention_theory.experiment`  the experiment command ``python -m attention_theory run ...``
* :mod:`~attention_theory.results`, :mod:`~attention_theory.provenance`  result files with provenance
* :mod:`~attention_theory.config`      the scale of a run (``smoke`` / ``full``)
* :mod:`~attention_theory.sphinx`      the Sphinx extension (registry pages, dependency graphs)
"""

__version__ = "0.1.0"
