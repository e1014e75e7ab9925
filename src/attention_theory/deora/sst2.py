"""Deora et al., App. G, Figure 6: SST-2 fine-tuning of ``roberta-base`` with a varying number
of heads, and the offline substitute the book runs instead.

**The real pipeline** (kept runnable on a machine with the assets):

* :func:`load_sst2` reads SST-2 from a local folder of GLUE TSV files (``train.tsv``,
  ``dev.tsv``, header ``sentence<TAB>label``) or from the Hugging Face ``datasets`` cache
  (``glue``/``sst2``, offline);
* :func:`build_model` loads ``AutoModelForSequenceClassification`` with
  ``num_attention_heads=H`` (``H`` must divide the hidden size: the query/key/value/output
  weights have the same shapes for every ``H``, so the pretrained tensors load unchanged and only
  the head partition changes);
* :func:`finetune` is the training loop of the paper: AdamW, learning rate ``5e-6``, batch 32,
  5 epochs, per-step train loss, per-epoch validation loss and accuracy, seeded, tqdm bar;
* :func:`missing_assets` / :func:`assets_message` say exactly what is missing (``roberta-base``
  weights, ``glue/sst2`` data, the libraries) and how to fetch it on a connected machine.

``transformers``, ``tokenizers`` and ``datasets`` are imported inside functions only, so
``import attention_theory`` never needs them.

**The substitute** (:func:`train_substitute`, :func:`run_substitute`): the lexicon-sentiment task
of :mod:`attention_theory.deora.lexicon_sentiment` and the from-scratch encoder of
:mod:`attention_theory.deora.sentiment_encoder`, trained with AdamW (lr ``1e-3``, weight decay
0.01, batch 32) for ``H`` in ``{1, 2, 4, 8, 16}``. It is a different task and an untrained
model; it cannot confirm or refute the SST-2 claim.

Command line::

    python -m attention_theory run deora sst2 --parts substitute --scale full
    python -m attention_theory run deora sst2 --parts sst2 --scale full
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import math
import os
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np
import torch

from attention_theory._validate import (
    check_int,
    check_path,
    check_positive,
    check_seed,
    seed_torch_default,
    torch_generator,
)
from attention_theory.config import pick
from attention_theory.deora import lexicon_sentiment as ls
from attention_theory.deora.sentiment_encoder import build_encoder
from attention_theory.experiment import (
    DistinctSeeds,
    Experiment,
    Part,
    PartResult,
    RunContext,
    positive_int,
    seed_int,
)
from attention_theory.results import load_json_checkpoint, repo_results_dir, save_json_checkpoint

__all__ = ["PAPER", "DEFAULT_MODEL", "FETCH_MODEL", "FETCH_DATA", "load_sst2", "read_glue_tsv",
           "build_model", "load_tokenizer", "write_fixture", "quiet_transformers", "evaluate", "finetune", "missing_assets", "assets_message",
           "run_sst2", "substitute_config", "train_substitute", "run_substitute", "summarize_substitute",
           "results_dir", "EXPERIMENT"]

#: The paper's fine-tuning hyperparameters (App. G).
PAPER = {"lr": 5e-6, "batch_size": 32, "epochs": 5, "optimizer": "AdamW"}
DEFAULT_MODEL = "roberta-base"
#: Commands that fetch the assets on a connected machine (they fill the Hugging Face caches).
FETCH_MODEL = "huggingface-cli download roberta-base"
FETCH_DATA = "python -c \"import datasets; datasets.load_dataset('glue', 'sst2')\""
INSTALL_EXTRA = "pip install -e '.[sst2]'"


# ---------------------------------------------------------------------------
# Data.
# ---------------------------------------------------------------------------


def read_glue_tsv(path: str | os.PathLike) -> tuple[list[str], np.ndarray]:
    """Sentences and labels of one GLUE SST-2 TSV file (header ``sentence<TAB>label``)."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"GLUE TSV file {p} not found")
    with open(p, newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader, None)
        if header is None or "sentence" not in header or "label" not in header:
            raise ValueError(f"{p}: the header must name the columns 'sentence' and 'label', got {header}")
        i_s, i_l = header.index("sentence"), header.index("label")
        sents, labels = [], []
        for lineno, row in enumerate(reader, 2):
            if not row:
                continue
            if len(row) <= max(i_s, i_l):
                raise ValueError(f"{p} line {lineno}: expected {len(header)} tab-separated fields, got {row}")
            try:
                y = int(row[i_l])
            except ValueError:
                raise ValueError(f"{p} line {lineno}: label must be 0 or 1, got {row[i_l]!r}") from None
            if y not in (0, 1):
                raise ValueError(f"{p} line {lineno}: label must be 0 or 1, got {y}")
            sents.append(row[i_s])
            labels.append(y)
    if not sents:
        raise ValueError(f"{p} contains no sentences")
    return sents, np.asarray(labels, dtype=np.int64)


_OFFLINE_VARS = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE")


@contextlib.contextmanager
def _offline() -> Iterator[None]:
    """Hugging Face libraries offline for the duration of a load (a user's own setting wins);
    the process environment is restored afterwards."""
    saved = {k: os.environ.get(k) for k in _OFFLINE_VARS}
    for k in _OFFLINE_VARS:
        os.environ.setdefault(k, "1")
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def load_sst2(source: str | os.PathLike | None = None) -> dict[str, tuple[list[str], np.ndarray]]:
    """SST-2 as ``{"train": (sentences, labels), "validation": (sentences, labels)}``.

    ``source`` is a folder with GLUE's ``train.tsv`` and ``dev.tsv``, or ``"hf"`` (the default
    when ``None`` and ``$ATTN_SST2_DATA`` is unset) for the Hugging Face ``datasets`` cache of
    ``glue``/``sst2``, read offline. The validation split is GLUE's dev set (872 sentences);
    GLUE's test labels are hidden.
    """
    if source is None:
        source = os.environ.get("ATTN_SST2_DATA") or "hf"
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"source must be a folder path or 'hf', got {type(source).__name__}")
    if str(source) != "hf":
        root = Path(source)
        if not root.is_dir():
            raise FileNotFoundError(f"source {root} is not a folder with GLUE SST-2 train.tsv and dev.tsv")
        return {"train": read_glue_tsv(root / "train.tsv"), "validation": read_glue_tsv(root / "dev.tsv")}
    try:
        import datasets
    except ImportError:
        raise ModuleNotFoundError(f"loading glue/sst2 from the cache needs `datasets`: {INSTALL_EXTRA}") from None
    try:
        with _offline():
            ds = datasets.load_dataset("glue", "sst2")
    except Exception as exc:  # datasets raises several kinds when the cache is empty offline
        raise FileNotFoundError(f"glue/sst2 is not in the datasets cache ({type(exc).__name__}: {exc}); "
                                f"on a connected machine run: {FETCH_DATA}") from None
    out = {}
    for split in ("train", "validation"):
        part = ds[split]
        out[split] = (list(part["sentence"]), np.asarray(part["label"], dtype=np.int64))
    return out


# ---------------------------------------------------------------------------
# Model, tokenizer, training loop.
# ---------------------------------------------------------------------------


def build_model(name_or_path: str | os.PathLike, num_attention_heads: int, *, num_labels: int = 2,
                seed: int = 0, dtype: torch.dtype | None = None) -> Any:
    """``AutoModelForSequenceClassification.from_pretrained(name_or_path, num_attention_heads=H,
    num_labels=2, local_files_only=True)``; a classifier head absent from the checkpoint is
    initialized from ``seed``.

    Raises ``ValueError`` when ``H`` does not divide the hidden size.
    """
    num_attention_heads = check_int(num_attention_heads, "num_attention_heads")
    from transformers import AutoConfig, AutoModelForSequenceClassification

    with _offline():
        config = AutoConfig.from_pretrained(name_or_path, local_files_only=True)
    hidden = int(config.hidden_size)
    if hidden % num_attention_heads:
        raise ValueError(f"num_attention_heads={num_attention_heads} must divide the hidden size {hidden} "
                         f"of {name_or_path} (head size = hidden / H)")
    # the new classifier head is drawn from torch's global generator: seed it, and restore it after
    with _offline(), torch.random.fork_rng(devices=[]):
        seed_torch_default(seed)
        model = AutoModelForSequenceClassification.from_pretrained(
            name_or_path, num_attention_heads=num_attention_heads, num_labels=num_labels, local_files_only=True)
    if model.config.num_attention_heads != num_attention_heads:
        raise RuntimeError(f"the loaded model has {model.config.num_attention_heads} heads, "
                           f"not the requested {num_attention_heads}")
    if dtype is not None:
        model = model.to(dtype)
    return model


def load_tokenizer(name_or_path: str | os.PathLike) -> Any:
    """The model's tokenizer, from local files only."""
    from transformers import AutoTokenizer

    with _offline():
        return AutoTokenizer.from_pretrained(name_or_path, local_files_only=True)


def _batches(n: int, batch_size: int, gen: torch.Generator | None) -> list[np.ndarray]:
    order = torch.randperm(n, generator=gen).numpy() if gen is not None else np.arange(n)
    return [order[i:i + batch_size] for i in range(0, n, batch_size)]


def _encode(tokenizer: Any, sentences: Sequence[str], max_length: int, device: Any) -> dict[str, torch.Tensor]:
    enc = tokenizer(list(sentences), padding=True, truncation=True, max_length=max_length, return_tensors="pt")
    return {k: v.to(device) for k, v in enc.items()}


@torch.no_grad()
def evaluate(model: Any, tokenizer: Any, sentences: Sequence[str], labels: Any, *, batch_size: int = 64,
             max_length: int = 128, device: Any = "cpu") -> tuple[float, float]:
    """Mean cross-entropy loss and accuracy of a sequence classifier on labelled sentences."""
    labels = torch.as_tensor(np.asarray(labels), dtype=torch.long)
    if len(sentences) != len(labels) or len(labels) == 0:
        raise ValueError(f"sentences and labels must be non-empty and equally long, got {len(sentences)} "
                         f"and {len(labels)}")
    was_training = model.training
    model.eval()
    total, correct = 0.0, 0
    for idx in _batches(len(labels), batch_size, None):
        enc = _encode(tokenizer, [sentences[i] for i in idx], max_length, device)
        logits = model(**enc).logits
        y = labels[idx].to(logits.device)
        total += float(torch.nn.functional.cross_entropy(logits, y, reduction="sum"))
        correct += int((logits.argmax(-1) == y).sum())
    model.train(was_training)
    return total / len(labels), correct / len(labels)


def finetune(model: Any, tokenizer: Any, train: tuple[Sequence[str], Any],
             validation: tuple[Sequence[str], Any] | None = None, *, lr: float = PAPER["lr"],
             batch_size: int = PAPER["batch_size"], epochs: int = PAPER["epochs"], weight_decay: float = 0.01,
             max_length: int = 128, seed: int = 0, max_steps: int | None = None, device: Any = "cpu",
             progress: bool = True, desc: str = "fine-tune") -> dict[str, Any]:
    """The paper's loop: AdamW(lr, weight decay), shuffled mini-batches, ``epochs`` passes.

    Returns per-step train losses (``step_loss``) and per-epoch validation loss and accuracy
    (``val_loss``, ``val_acc``; empty without ``validation``). ``max_steps`` stops early (tests).
    ``weight_decay`` is not given in the paper; 0.01 is PyTorch's AdamW default.
    """
    lr = check_positive(lr, "lr")
    batch_size = check_int(batch_size, "batch_size")
    epochs = check_int(epochs, "epochs")
    weight_decay = check_positive(weight_decay, "weight_decay", allow_zero=True)
    if max_steps is not None:
        max_steps = check_int(max_steps, "max_steps")
    sents, labels = train
    labels = torch.as_tensor(np.asarray(labels), dtype=torch.long)
    if len(sents) != len(labels) or len(labels) == 0:
        raise ValueError(f"train sentences and labels must be non-empty and equally long, got {len(sents)} "
                         f"and {len(labels)}")
    # dropout draws from torch's global generator: seed it for this loop and restore it after
    with torch.random.fork_rng(devices=[]):
        seed_torch_default(seed)
        return _finetune_loop(model, tokenizer, sents, labels, validation, lr=lr, batch_size=batch_size,
                              epochs=epochs, weight_decay=weight_decay, max_length=max_length, seed=seed,
                              max_steps=max_steps, device=device, progress=progress, desc=desc)


def _finetune_loop(model: Any, tokenizer: Any, sents: Sequence[str], labels: torch.Tensor,
                   validation: tuple[Sequence[str], Any] | None, *, lr: float, batch_size: int, epochs: int,
                   weight_decay: float, max_length: int, seed: int, max_steps: int | None, device: Any,
                   progress: bool, desc: str) -> dict[str, Any]:
    from tqdm import tqdm  # plain bars: tqdm.auto warns in kernels without ipywidgets

    gen = torch_generator(seed)
    model.to(device).train()
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    step_loss: list[float] = []
    val_loss: list[float] = []
    val_acc: list[float] = []
    n_batches = math.ceil(len(labels) / batch_size)
    total = epochs * n_batches if max_steps is None else min(max_steps, epochs * n_batches)
    bar = tqdm(total=total, desc=desc, disable=not progress, leave=False)
    done = False
    for _ in range(epochs):
        for idx in _batches(len(labels), batch_size, gen):
            enc = _encode(tokenizer, [sents[i] for i in idx], max_length, device)
            logits = model(**enc).logits
            loss = torch.nn.functional.cross_entropy(logits, labels[idx].to(logits.device))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            step_loss.append(float(loss.detach()))
            bar.update(1)
            if max_steps is not None and len(step_loss) >= max_steps:
                done = True
                break
        if validation is not None:
            vl, va = evaluate(model, tokenizer, validation[0], validation[1], max_length=max_length, device=device)
            val_loss.append(vl)
            val_acc.append(va)
        if done:
            break
    bar.close()
    return {"step_loss": step_loss, "val_loss": val_loss, "val_acc": val_acc,
            "config": {"lr": lr, "batch_size": batch_size, "epochs": epochs, "weight_decay": weight_decay,
                       "max_length": max_length, "seed": seed, "max_steps": max_steps}}


# ---------------------------------------------------------------------------
# Fixture: the real code path on invented data and a tiny random RoBERTa.
# ---------------------------------------------------------------------------

#: Invented sentences in GLUE SST-2 format (not SST-2 text): (sentence, label).
FIXTURE_TRAIN = (
    ("a warm and lovely film", 1), ("a cold and dreary film", 0), ("the plot is bright and clever", 1),
    ("the plot is dull and grim", 0), ("lovely acting , clever script", 1), ("dreary acting , dull script", 0),
    ("a bright story told with care", 1), ("a grim story told without care", 0),
)
FIXTURE_DEV = (("a clever and warm story", 1), ("a dull and cold story", 0),
               ("bright acting", 1), ("grim acting", 0))
FIXTURE_SPECIALS = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")


def write_fixture(root: str | os.PathLike, *, hidden_size: int = 32, num_layers: int = 2, num_heads: int = 4,
                  intermediate_size: int = 64, initializer_range: float = 0.5, seed: int = 0) -> dict[str, Path]:
    """Write a GLUE-format fixture (``data/train.tsv``, ``data/dev.tsv``) and a tiny random
    RoBERTa sequence classifier with a word-level tokenizer built with ``tokenizers`` from the
    fixture sentences (``model/``, via ``save_pretrained``). Returns ``{"data": ..., "model": ...}``.

    ``initializer_range`` is larger than RoBERTa's 0.02 so that the random attention is far
    from uniform and the head partition visibly matters.
    """
    check_path(root, "root")
    for name, v in (("hidden_size", hidden_size), ("num_layers", num_layers), ("num_heads", num_heads),
                    ("intermediate_size", intermediate_size)):
        check_int(v, name)
    check_positive(initializer_range, "initializer_range")
    check_seed(seed, "seed")
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast, RobertaConfig, RobertaForSequenceClassification

    root = Path(root)
    data, model_dir = root / "data", root / "model"
    data.mkdir(parents=True, exist_ok=True)
    model_dir.mkdir(parents=True, exist_ok=True)
    for name, rows in (("train.tsv", FIXTURE_TRAIN), ("dev.tsv", FIXTURE_DEV)):
        text = "sentence\tlabel\n" + "".join(f"{s}\t{y}\n" for s, y in rows)
        (data / name).write_text(text, encoding="utf-8")
    words = sorted({w for s, _ in FIXTURE_TRAIN + FIXTURE_DEV for w in s.lower().split()})
    vocab = {t: i for i, t in enumerate(FIXTURE_SPECIALS + tuple(words))}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.post_processor = processors.TemplateProcessing(single="<s> $A </s>",
                                                       special_tokens=[("<s>", 0), ("</s>", 2)])
    PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="<pad>",
                            unk_token="<unk>", cls_token="<s>", sep_token="</s>",
                            mask_token="<mask>").save_pretrained(model_dir)
    config = RobertaConfig(vocab_size=len(vocab), hidden_size=hidden_size, num_hidden_layers=num_layers,
                           num_attention_heads=num_heads, intermediate_size=intermediate_size,
                           max_position_embeddings=40, pad_token_id=1, bos_token_id=0, eos_token_id=2,
                           hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, num_labels=2,
                           initializer_range=initializer_range)
    state, default = torch.random.get_rng_state(), torch.get_default_dtype()
    try:  # float32 like a real checkpoint, whatever the default dtype of this process
        torch.set_default_dtype(torch.float32)
        seed_torch_default(seed)
        RobertaForSequenceClassification(config).save_pretrained(model_dir)
    finally:
        torch.set_default_dtype(default)
        torch.random.set_rng_state(state)
    return {"data": data, "model": model_dir}


def quiet_transformers() -> None:
    """Silence the per-load progress bars and info messages of ``transformers`` (book cells), and
    tqdm's warning, raised when ``transformers`` imports ``tqdm.auto`` in a kernel without ipywidgets."""
    import warnings

    warnings.filterwarnings("ignore", message="IProgress not found")
    from transformers.utils import logging as tlog

    tlog.disable_progress_bar()
    tlog.set_verbosity_error()


# ---------------------------------------------------------------------------
# Assets.
# ---------------------------------------------------------------------------


def _model_present(name_or_path: str) -> bool:
    p = Path(name_or_path)
    if p.is_dir():
        return (p / "config.json").is_file() and any(
            (p / w).is_file() for w in ("model.safetensors", "pytorch_model.bin"))
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return False

    def found(filename: str) -> bool:
        try:
            return isinstance(try_to_load_from_cache(name_or_path, filename), str)
        except Exception:  # an invalid repo id (e.g. a path that does not exist) is simply absent
            return False

    return found("config.json") and (found("model.safetensors") or found("pytorch_model.bin"))


def _data_present(source: str | None) -> bool:
    source = source or os.environ.get("ATTN_SST2_DATA") or "hf"
    if source != "hf":
        return all((Path(source) / f).is_file() for f in ("train.tsv", "dev.tsv"))
    try:
        load_sst2("hf")
    except (ImportError, FileNotFoundError, OSError, ValueError):
        return False
    return True


def missing_assets(model: str = DEFAULT_MODEL, data: str | None = None) -> list[str]:
    """What the real SST-2 run lacks on this machine (empty when everything is present).

    ``model``: a Hugging Face model id (looked up in the local cache) or a folder;
    ``data``: a folder of GLUE TSV files, or ``None``/``"hf"`` for the ``datasets`` cache
    (``$ATTN_SST2_DATA`` is honoured).
    """
    check_path(model, "model")
    if data is not None and not isinstance(data, (str, os.PathLike)):
        raise TypeError(f"data must be a folder (str or os.PathLike) or None, got {type(data).__name__}")
    missing = []
    for mod in ("transformers", "tokenizers"):
        try:
            __import__(mod)
        except ImportError:
            missing.append(f"the Python package `{mod}` (pip install -e '.[book]')")
    if not any(m.startswith("the Python package `transformers`") for m in missing) and not _model_present(model):
        missing.append(f"`{model}` weights (not in the local Hugging Face cache or folder)")
    src = data or os.environ.get("ATTN_SST2_DATA") or "hf"
    if src == "hf":
        try:
            __import__("datasets")
        except ImportError:
            missing.append(f"the Python package `datasets` ({INSTALL_EXTRA})")
            missing.append("`glue/sst2` data (no datasets cache can be read without `datasets`)")
            return missing
    if not _data_present(src):
        where = "the datasets cache" if src == "hf" else f"folder {src} (train.tsv, dev.tsv)"
        missing.append(f"`glue/sst2` data (not in {where})")
    return missing


def assets_message(missing: Sequence[str] | None = None, model: str = DEFAULT_MODEL) -> str:
    """A message naming what is missing and the commands that fetch it on a connected machine."""
    if missing is not None and (isinstance(missing, (str, bytes)) or not hasattr(missing, "__iter__")):
        raise TypeError(f"missing must be a list of descriptions (or None), got {missing!r}")
    missing = missing_assets(model) if missing is None else list(missing)
    if not all(isinstance(m, str) for m in missing):
        raise TypeError(f"missing must be a list of strings, got {missing!r}")
    if not missing:
        return "All assets for the SST-2 run are present."
    lines = ["The SST-2 / RoBERTa run of Figure 6 is skipped on this machine. Missing:"]
    lines += [f"  - {m}" for m in missing]
    lines += ["On a machine with network access, fetch them with:",
              f"  {INSTALL_EXTRA}",
              f"  {FETCH_MODEL}",
              f"  {FETCH_DATA}",
              "or point ATTN_SST2_DATA at a folder with GLUE's SST-2 train.tsv and dev.tsv."]
    return "\n".join(lines)


def run_sst2(*, model: str = DEFAULT_MODEL, data: str | None = None, heads: Sequence[int] | None = None,
             n_train: int | None = None, n_val: int | None = None, epochs: int | None = None,
             seed: int = 0, device: Any = None, progress: bool = True) -> dict[str, Any]:
    """Figure 6 proper: fine-tune ``model`` on SST-2 for each ``H`` (raises if assets are missing).

    Full scale: all 67,349 training sentences, the 872 validation sentences, 5 epochs,
    ``H`` in {1, 2, 3, 4, 6, 12} (divisors of 768 up to roberta-base's 12; the paper does not list
    its values). Smoke: 64 / 64 sentences, 1 epoch, ``H`` in {6, 12}.
    """
    missing = missing_assets(model, data)
    if missing:
        raise FileNotFoundError(assets_message(missing, model))
    heads = list(heads or pick([6, 12], [1, 2, 3, 4, 6, 12]))
    n_train = n_train or pick(64, None)
    n_val = n_val or pick(64, None)
    epochs = epochs or pick(1, PAPER["epochs"])
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    sst = load_sst2(data)
    tr, va = sst["train"], sst["validation"]
    tr = (tr[0][:n_train], tr[1][:n_train]) if n_train else tr
    va = (va[0][:n_val], va[1][:n_val]) if n_val else va
    tok = load_tokenizer(model)
    runs = {}
    for H in heads:
        m = build_model(model, H, seed=seed)
        runs[H] = finetune(m, tok, tr, va, epochs=epochs, seed=seed, device=device, progress=progress,
                           desc=f"SST-2 H={H}")
        del m
    return {"heads": heads, "runs": runs, "n_train": len(tr[1]), "n_val": len(va[1]), "epochs": epochs,
            "model": model, "device": str(device)}


# ---------------------------------------------------------------------------
# The substitute: lexicon sentiment, from-scratch encoder.
# ---------------------------------------------------------------------------


def substitute_config(scale: str | None = None) -> dict[str, Any]:
    """Sizes of the substitute run at ``scale`` (default: ``ATTN_SCALE``)."""
    full = (scale == "full") if scale is not None else (pick(False, True))
    if scale not in (None, "smoke", "full"):
        raise ValueError(f"scale must be 'smoke' or 'full', got {scale!r}")
    base = {"d_model": 64, "n_layers": 2, "d_ff": 128, "lr": 1e-3, "weight_decay": 0.01, "batch_size": 32,
            "max_len": 24, "min_valence": 1.5, "n_polar": ls.DEFAULT_N_POLAR, "p_negate": 0.3, "dtype": "float32"}
    if full:
        base.update(n_train=20000, n_test=2000, epochs=5, heads=[1, 2, 4, 8, 16], seeds=[0, 1, 2],
                    evals_per_epoch=4)
    else:
        # 1k sentences for one epoch (32 steps) do not get a from-scratch model past chance;
        # 4k sentences for two epochs (250 steps) do (test accuracy about 0.7)
        base.update(n_train=4000, n_test=500, epochs=2, heads=[1, 4], seeds=[0], evals_per_epoch=2)
    return base


@torch.no_grad()
def _eval_encoder(model: torch.nn.Module, X: torch.Tensor, y: torch.Tensor, batch: int = 500) -> tuple[float, float]:
    model.eval()
    loss, correct = 0.0, 0
    for i in range(0, len(y), batch):
        logits = model(X[i:i + batch])
        loss += float(torch.nn.functional.cross_entropy(logits, y[i:i + batch], reduction="sum"))
        correct += int((logits.argmax(-1) == y[i:i + batch]).sum())
    model.train()
    return loss / len(y), correct / len(y)


def train_substitute(data: dict[str, Any], H: int, *, seed: int = 0, epochs: int = 1, batch_size: int = 32,
                     lr: float = 1e-3, weight_decay: float = 0.01, evals_per_epoch: int = 1,
                     d_model: int = 64, n_layers: int = 2, d_ff: int = 128, dtype: str = "float32",
                     progress: bool = True, **_: Any) -> dict[str, Any]:
    """Train the from-scratch encoder with ``H`` heads on a :func:`~attention_theory.deora.lexicon_sentiment.lexicon_dataset`.

    Returns ``step_loss`` (train loss of every mini-batch), and at ``evals_per_epoch`` points
    per epoch (and at step 0) the test loss and accuracy (``eval_step``, ``eval_epoch``,
    ``test_loss``, ``test_acc``).
    """
    H = check_int(H, "H")
    epochs = check_int(epochs, "epochs")
    batch_size = check_int(batch_size, "batch_size")
    evals_per_epoch = check_int(evals_per_epoch, "evals_per_epoch")
    lr = check_positive(lr, "lr")
    weight_decay = check_positive(weight_decay, "weight_decay", allow_zero=True)
    if dtype not in ("float32", "float64"):
        raise ValueError(f"dtype must be 'float32' or 'float64', got {dtype!r}")
    tdtype = getattr(torch, dtype)
    Xtr, ytr = torch.as_tensor(data["Xtr"]), torch.as_tensor(data["ytr"])
    Xte, yte = torch.as_tensor(data["Xte"]), torch.as_tensor(data["yte"])
    model = build_encoder(len(data["vocab"]), H, seed=seed, dtype=tdtype, d_model=d_model, n_layers=n_layers,
                          d_ff=d_ff, max_len=Xtr.shape[1])
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    gen = torch_generator(10_000 + seed)
    n = len(ytr)
    per_epoch = math.ceil(n / batch_size)
    eval_at = {round(per_epoch * e / evals_per_epoch) + k * per_epoch
               for k in range(epochs) for e in range(1, evals_per_epoch + 1)}
    from tqdm import tqdm  # plain bars: tqdm.auto warns in kernels without ipywidgets

    step_loss, eval_step, test_loss, test_acc = [], [0], [], []
    l0, a0 = _eval_encoder(model, Xte, yte)
    test_loss.append(l0)
    test_acc.append(a0)
    bar = tqdm(total=epochs * per_epoch, desc=f"substitute H={H} seed={seed}", disable=not progress, leave=False)
    step = 0
    for _ in range(epochs):
        order = torch.randperm(n, generator=gen)
        for i in range(0, n, batch_size):
            idx = order[i:i + batch_size]
            loss = torch.nn.functional.cross_entropy(model(Xtr[idx]), ytr[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            step += 1
            step_loss.append(float(loss.detach()))
            bar.update(1)
            if step in eval_at:
                tl, ta = _eval_encoder(model, Xte, yte)
                eval_step.append(step)
                test_loss.append(tl)
                test_acc.append(ta)
    bar.close()
    return {"H": H, "seed": seed, "steps_per_epoch": per_epoch, "step_loss": np.asarray(step_loss),
            "eval_step": np.asarray(eval_step), "eval_epoch": np.asarray(eval_step) / per_epoch,
            "test_loss": np.asarray(test_loss), "test_acc": np.asarray(test_acc)}


def run_substitute(config: dict[str, Any] | None = None, *, progress: bool = True,
                   checkpoint: str | os.PathLike | None = None) -> dict[str, Any]:
    """Every ``(H, seed)`` run of the substitute; ``runs[H]`` is the list over seeds.

    The data of seed ``s`` (train and test) is shared by all head counts, so the comparison
    across ``H`` is paired. With ``checkpoint``, finished runs are saved after each run (with a
    SHA-256 checksum, :func:`attention_theory.results.save_json_checkpoint`) and reused when the
    same configuration is started again (resume after an interruption); a damaged checkpoint
    raises :class:`attention_theory.results.CorruptCheckpoint` naming the file.
    """
    cfg = dict(config or substitute_config())
    done: dict[str, Any] = {}
    ck = load_json_checkpoint(checkpoint) if checkpoint is not None else None
    if ck is not None and _same_runs(ck.get("config", {}), _jsonable_cfg(cfg)):
        done = ck["runs"]
    runs: dict[int, list[dict[str, Any]]] = {H: [] for H in cfg["heads"]}
    for s in cfg["seeds"]:
        data = ls.lexicon_dataset(cfg["n_train"], cfg["n_test"], seed=s, max_len=cfg["max_len"],
                                  min_valence=cfg["min_valence"], n_polar=cfg["n_polar"],
                                  p_negate=cfg["p_negate"])
        for H in cfg["heads"]:
            key = f"{H}-{s}"
            if key in done:
                runs[H].append({k: (np.asarray(v) if isinstance(v, list) else v) for k, v in done[key].items()})
                continue
            r = train_substitute(data, H, seed=s, progress=progress, **cfg)
            runs[H].append(r)
            if checkpoint is not None:
                done[key] = r
                save_json_checkpoint(checkpoint, {"config": _jsonable_cfg(cfg), "runs": done})
    return {"config": cfg, "runs": runs}


def _same_runs(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two configurations whose (H, seed) runs are interchangeable (heads and seeds may differ)."""
    strip = lambda c: {k: v for k, v in c.items() if k not in ("heads", "seeds")}  # noqa: E731
    return strip(a) == strip(b)


def _jsonable_cfg(cfg: dict[str, Any]) -> dict[str, Any]:
    import json

    return json.loads(json.dumps(cfg))


def _smooth(x: np.ndarray, w: int) -> np.ndarray:
    w = max(1, min(w, len(x)))
    return np.convolve(x, np.ones(w) / w, mode="valid")


def summarize_substitute(result: dict[str, Any], *, loss_threshold: float = 0.3) -> dict[str, Any]:
    """Per ``H`` (mean over seeds): test accuracy after the first evaluation point and at the end,
    the step at which the smoothed train loss (window = 1/10 epoch) first falls below
    ``loss_threshold`` (``None`` if never), and the mean train loss over the first epoch."""
    if not isinstance(result, dict) or not isinstance(result.get("runs"), dict):
        raise TypeError(f"result must be the dict of run_substitute (with a 'runs' dict), got {type(result).__name__}")
    check_positive(loss_threshold, "loss_threshold")
    out = {}
    for H, rs in result["runs"].items():
        per = int(rs[0]["steps_per_epoch"])
        hit = []
        for r in rs:
            sm = _smooth(np.asarray(r["step_loss"], dtype=float), max(1, per // 10))
            below = np.flatnonzero(sm < loss_threshold)
            hit.append(int(below[0]) + max(1, per // 10) if below.size else None)
        out[int(H)] = {
            "first_eval_acc": float(np.mean([r["test_acc"][1] for r in rs])),
            "final_test_acc": float(np.mean([r["test_acc"][-1] for r in rs])),
            "final_test_loss": float(np.mean([r["test_loss"][-1] for r in rs])),
            "epoch1_train_loss": float(np.mean([np.mean(np.asarray(r["step_loss"])[:per]) for r in rs])),
            "steps_to_loss_threshold": (None if any(h is None for h in hit) else float(np.mean(hit))),
            "n_seeds": len(rs),
        }
    return out


def results_dir() -> Path:
    """``results/deora-experiments`` of the repository holding this package (or above the working directory)."""
    return repo_results_dir("deora-experiments")


# ---------------------------------------------------------------------------
# Command line.
# ---------------------------------------------------------------------------


def _options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--model", default=DEFAULT_MODEL, help="sst2: model id or folder")
    ap.add_argument("--data", default=None, help="sst2: folder with GLUE train.tsv/dev.tsv (default: datasets cache)")
    ap.add_argument("--heads", type=positive_int, nargs="+", default=None, help="head counts")
    ap.add_argument("--seeds", type=seed_int, nargs="+", action=DistinctSeeds, default=None, help="substitute: seeds")


def _sst2_preflight(ctx: RunContext) -> str | None:
    missing = missing_assets(ctx.options.model, ctx.options.data)
    return assets_message(missing, ctx.options.model) if missing else None


def _sst2_part(ctx: RunContext) -> PartResult:
    o = ctx.options
    res = run_sst2(model=o.model, data=o.data, heads=o.heads, progress=ctx.progress)
    cfg = {k: res[k] for k in ("heads", "n_train", "n_val", "epochs", "model")} | dict(PAPER)
    return PartResult(cfg, {"runs": res["runs"]}, device=res["device"])


def _substitute_part(ctx: RunContext) -> PartResult:
    o = ctx.options
    cfg = substitute_config(ctx.scale)
    if o.heads:
        cfg["heads"] = list(o.heads)
    if o.seeds:
        cfg["seeds"] = list(o.seeds)
    suffix = "" if ctx.scale == "full" else "_smoke"
    ck = ctx.out / f".fig6_substitute{suffix}.checkpoint.json"
    res = run_substitute(cfg, progress=ctx.progress, checkpoint=ck)
    data = {"runs": {str(H): rs for H, rs in res["runs"].items()},
            "summary": {str(H): v for H, v in summarize_substitute(res).items()}}
    ck.unlink(missing_ok=True)
    return PartResult(cfg, data)


def _fig6_file(stem: str) -> Callable[[str], str]:
    return lambda scale: f"fig6_{stem}.json" if scale == "full" else f"fig6_{stem}_smoke.json"


EXPERIMENT = Experiment(
    paper="deora", name="sst2",
    description="Deora et al., App. G, Figure 6: SST-2 with roberta-base, and the offline substitute.",
    results="deora-experiments",
    parts=(Part("sst2", _sst2_part, "the real run (needs roberta-base and glue/sst2)",
                filename=_fig6_file("sst2"), preflight=_sst2_preflight),
           Part("substitute", _substitute_part, "the offline lexicon task", filename=_fig6_file("substitute"))),
    default_parts=("substitute",),
    add_options=_options,
)
