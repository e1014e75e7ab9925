"""Deora et al., "On the optimization and generalization of multi-head attention": code of part
``book/deora/``.

* :mod:`~attention_theory.deora.model` -- the models of Eqs. (1)-(2), the batched forward, the risk and Lemma
  1's calculus;
* :mod:`~attention_theory.deora.bounds` -- the constants and head/step conditions of Prop. 1, Lemmas 5 and
  11, Thms. 1-2, Cors. 1-4, Prop. 7;
* :mod:`~attention_theory.deora.mixture_bounds` -- the margins ``gamma_lin``, ``gamma_star``, ``gamma_attn``
  of the tokenized mixture;
* :mod:`~attention_theory.deora.ntk` -- NTK features and the first gradient step from zero (Section 5.1);
* :mod:`~attention_theory.deora.max_margin` -- max-margin problems (cvxpy), the NTK max-margin and its dual
  among them;
* :mod:`~attention_theory.deora.dm1` -- the tokenized-mixture data model DM1 (App. G);
* :mod:`~attention_theory.deora.dm2` -- the planted single-head teacher DM2 (App. G);
* :mod:`~attention_theory.deora.lexicon_sentiment` -- the lexicon sentiment data of the offline SST-2
  substitute;
* :mod:`~attention_theory.deora.sentiment_encoder` -- the small encoder trained from scratch on that data;
* :mod:`~attention_theory.deora.heads_training` -- the trainer of App. G (three engines) and its DM1/DM2
  trials;
* :mod:`~attention_theory.deora.head_sweeps` -- the experiment ``head-sweeps``: Figures 2-5 (App. G);
* :mod:`~attention_theory.deora.sst2` -- the experiment ``sst2``: the SST-2 / RoBERTa pipeline of Figure 6;
* :mod:`~attention_theory.deora.sst2_substitute` -- the offline substitute of Figure 6;
* :mod:`~attention_theory.deora.figures` -- the figures and quoted numbers of the experiment chapters;
* :mod:`~attention_theory.deora.calculus` -- single-head instances, closed-form norms, adversarial search
  (Prop. 1);
* :mod:`~attention_theory.deora.landscape` -- the empirical risk and landscape probes (Lemma 6, Cor. 1, Prop.
  4);
* :mod:`~attention_theory.deora.landscape_search` -- the instances and searches of the landscape checks;
* :mod:`~attention_theory.deora.training` -- data, initializations and GD runs for Lemmas 7-10 and Theorem 1;
* :mod:`~attention_theory.deora.stability` -- leave-one-out runs and constants for the generalization bounds;
* :mod:`~attention_theory.deora.initialization` -- the constants of a good initialization (Def. 1, Prop. 7);
* :mod:`~attention_theory.deora.mixture` -- DM1 instances, regimes and first steps (Section 5.1);
* :mod:`~attention_theory.deora.margins` -- NTK-margin and attention-margin instances (Sections 5.2-5.3);
* :mod:`~attention_theory.deora.experiment_runs` -- the App. G runs as the experiment checks read them;
* :mod:`~attention_theory.deora.sst2_reports` -- the runs behind the SST-2 checks;
* :mod:`~attention_theory.deora.checks` -- the registered checks, one module per chapter (named after it).
"""
