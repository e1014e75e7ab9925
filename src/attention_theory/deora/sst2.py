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

**The substitute** (:mod:`attention_theory.deora.sst2_substitute`): a lexicon-sentiment task
and a from-scratch encoder, run instead (it cannot confirm or refute the SST-2 claim).

Both are parts of the experiment ``sst2`` (:data:`EXPERIMENT`), which declares their
configurations (:func:`sst2_config`, :func:`~attention_theory.deora.sst2_substitute.substitute_config`);
the chapter ``book/deora/sst2.md`` runs the same configurations live.  Results go to
``results/deora-sst2/``.

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
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np
import torch

from attention_theory.deora.sst2_substitute import run_substitute, substitute_config, summarize_substitute
from attention_theory.experiment import (
    DistinctSeeds,
    Experiment,
    Part,
    PartResult,
    RunContext,
    positive_int,
    seed_int,
)
from attention_theory.results import repo_results_dir
from attention_theory.validation import (
    check_int,
    check_path,
    check_positive,
    check_seed,
    seed_torch_default,
    torch_generator,
)

__all__ = ["PAPER", "DEFAULT_MODEL", "FETCH_MODEL", "FETCH_DATA", "load_sst2", "read_glue_tsv",
           "build_model", "load_tokenizer", "write_fixture", "quiet_transformers", "evaluate", "finetune",
           "missing_assets", "assets_message",
           "sst2_config", "run_sst2", "results_dir", "EXPERIMENT"]

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
        raise ModuleNotFoundError("loading glue/sst2 from the cache needs `datasets`: "
                                  f"{INSTALL_EXTRA}") from None
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
            name_or_path, num_attention_heads=num_attention_heads, num_labels=num_labels,
            local_files_only=True)
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


def _encode(tokenizer: Any, sentences: Sequence[str], max_length: int,
            device: Any) -> dict[str, torch.Tensor]:
    enc = tokenizer(list(sentences), padding=True, truncation=True, max_length=max_length,
                    return_tensors="pt")
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
            vl, va = evaluate(model, tokenizer, validation[0], validation[1], max_length=max_length,
                              device=device)
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
    ("the plot is dull and grim", 0), ("lovely acting , clever script", 1),
    ("dreary acting , dull script", 0),
    ("a bright story told with care", 1), ("a grim story told without care", 0),
)
FIXTURE_DEV = (("a clever and warm story", 1), ("a dull and cold story", 0),
               ("bright acting", 1), ("grim acting", 0))
FIXTURE_SPECIALS = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")


def write_fixture(root: str | os.PathLike, *, hidden_size: int = 32, num_layers: int = 2, num_heads: int = 4,
                  intermediate_size: int = 64, initializer_range: float = 0.5,
                  seed: int = 0) -> dict[str, Path]:
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
    if not any(m.startswith("the Python package `transformers`")
               for m in missing) and not _model_present(model):
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


def sst2_config(scale: str) -> dict[str, Any]:
    """The configuration of the real Figure 6 run (the part ``sst2``) at ``scale``: the model, the
    head counts, the numbers of training and validation sentences (``None``: all), the epochs, the
    seed and the paper's optimizer settings (:data:`PAPER`).

    Full scale: all 67,349 training sentences, the 872 validation sentences, 5 epochs, ``H`` in
    {1, 2, 3, 4, 6, 12} (divisors of 768 up to roberta-base's 12; the paper does not list its
    values).  Smoke: 64 / 64 sentences, 1 epoch, ``H`` in {6, 12}.  Used by ``book/deora/sst2.md``.
    """
    if scale not in ("smoke", "full"):
        raise ValueError(f"scale must be 'smoke' or 'full', got {scale!r}")
    full = scale == "full"
    return {"model": DEFAULT_MODEL, "heads": [1, 2, 3, 4, 6, 12] if full else [6, 12],
            "n_train": None if full else 64, "n_val": None if full else 64,
            "epochs": PAPER["epochs"] if full else 1, "seed": 0, "lr": PAPER["lr"],
            "batch_size": PAPER["batch_size"], "optimizer": PAPER["optimizer"]}


def run_sst2(config: Mapping[str, Any], *, data: str | None = None, device: Any = None,
             progress: bool = True) -> dict[str, Any]:
    """Figure 6 proper: fine-tune ``config["model"]`` on SST-2 for each ``H`` of ``config["heads"]``
    (``config``: :func:`sst2_config`; raises if assets are missing).  ``data``: a folder of GLUE TSV
    files (default: the datasets cache, :func:`load_sst2`).  Used by the part ``sst2`` and
    ``book/deora/sst2.md``."""
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping (from sst2_config), got {type(config).__name__}")
    missing_keys = [k for k in sst2_config("smoke") if k not in config]
    if missing_keys:
        raise ValueError(f"config lacks the keys {missing_keys} (see sst2_config)")
    model, seed, epochs = config["model"], config["seed"], config["epochs"]
    missing = missing_assets(model, data)
    if missing:
        raise FileNotFoundError(assets_message(missing, model))
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    sst = load_sst2(data)
    tr, va = sst["train"], sst["validation"]
    n_train, n_val = config["n_train"], config["n_val"]
    tr = (tr[0][:n_train], tr[1][:n_train]) if n_train else tr
    va = (va[0][:n_val], va[1][:n_val]) if n_val else va
    tok = load_tokenizer(model)
    runs = {}
    for H in config["heads"]:
        m = build_model(model, H, seed=seed)
        runs[H] = finetune(m, tok, tr, va, lr=config["lr"], batch_size=config["batch_size"], epochs=epochs,
                           seed=seed, device=device, progress=progress, desc=f"SST-2 H={H}")
        del m
    return {"heads": list(config["heads"]), "runs": runs, "n_train": len(tr[1]), "n_val": len(va[1]),
            "epochs": epochs, "model": model, "device": str(device)}


def results_dir() -> Path:
    """``results/deora-sst2`` of the repository holding this package (or above the working directory)."""
    return repo_results_dir("deora-sst2")


# ---------------------------------------------------------------------------
# Command line.
# ---------------------------------------------------------------------------


def _options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--model", default=DEFAULT_MODEL, help="sst2: model id or folder")
    ap.add_argument("--data", default=None,
                    help="sst2: folder with GLUE train.tsv/dev.tsv (default: datasets cache)")
    ap.add_argument("--heads", type=positive_int, nargs="+", default=None, help="head counts")
    ap.add_argument("--seeds", type=seed_int, nargs="+", action=DistinctSeeds, default=None,
                    help="substitute: seeds")


def _sst2_preflight(ctx: RunContext) -> str | None:
    missing = missing_assets(ctx.options.model, ctx.options.data)
    return assets_message(missing, ctx.options.model) if missing else None


def _sst2_part(ctx: RunContext) -> PartResult:
    o = ctx.options
    cfg = sst2_config(ctx.scale) | {"model": o.model}
    if o.heads:
        cfg["heads"] = list(o.heads)
    res = run_sst2(cfg, data=o.data, progress=ctx.progress)
    return PartResult(cfg, {"runs": res["runs"], "n_train": res["n_train"], "n_val": res["n_val"]},
                      device=res["device"])


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
    results="deora-sst2",
    parts=(Part("sst2", _sst2_part, "the real run (needs roberta-base and glue/sst2)",
                filename=_fig6_file("sst2"), preflight=_sst2_preflight, config=sst2_config),
           Part("substitute", _substitute_part, "the offline lexicon task", filename=_fig6_file("substitute"),
                config=substitute_config)),
    default_parts=("substitute",),
    add_options=_options,
)
