"""Julistiono, Tarzanagh & Azizan (2024), l_p mirror descent on attention (reconstructed: the
source lost its formulas).

* :mod:`~.model` the model ``v^T X^T softmax(X W z)`` and its gradients;
* :mod:`~.mirror_descent` l_p-AttGD and the joint (v, W) algorithm;
* :mod:`~.svm` the l_p attention SVM and the v-SVM (cvxpy);
* :mod:`~.bregman_lemmas` constants, formulas and trajectories of the Bregman-divergence lemmas;
* :mod:`~.attention` cone instances, trajectories and runs of the convergence lemmas;
* :mod:`~.cone_search` points of the Bregman cone and the objectives of the cone searches;
* :mod:`~.real_data` loaders for the real-data experiments (tested on fixtures);
* :mod:`~.mirror_descent_training` the experiment
  (``python -m attention_theory run julistiono mirror-descent-training``);
* :mod:`~.figures` the figures and tables of its chapter;
* :mod:`~.checks` the registered checks, one module per chapter.
"""
