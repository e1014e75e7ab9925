"""Data generators (each seeded, each validated): ``thresholds`` (Foundations), ``sparse_majority``
(Trauger & Tewari Sec. 6), ``dm1`` (Deora et al.'s tokenized mixture), ``dm2`` (Deora et al.'s
planted teacher), ``julistiono_real`` (loaders for the real-data experiments, tested on fixtures), ``lexicon_sentiment``
(the offline substitute for SST-2 in Deora et al.'s Figure 6, from the VADER lexicon)."""
