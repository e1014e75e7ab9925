"""One command-line skeleton for every experiment of the book.

An experiment module declares ``EXPERIMENT = Experiment(...)``: its parts (each a function
``run(ctx) -> PartResult`` returning the configuration it actually ran and its data), the
folder its results go to, and any options of its own. :func:`run_cli` gives all experiments
the same options, checks, progress and provenance::

    python -m attention_theory run <paper> <experiment> [--scale smoke|full] [--parts P ...]
                                   [--out DIR] [--device cpu|cuda] [--no-progress] [--restart]
                                   [options]
    python -m attention_theory list

Each part writes one JSON file (``<name>.json`` at full scale, ``<name>-smoke.json`` at smoke
scale unless the part names its files itself) with :func:`attention_theory.results.write_result`;
the provenance records the configuration the part returned, the scale, device, thread count,
wall time, and the commit and tree state both at the start and at the end of the run.

Before any work the output folder is proved writable, temporary files that an interrupted
write left there are removed, and with ``--restart`` its checkpoints are moved aside
(:func:`move_checkpoints_aside`), so the run starts afresh instead of resuming.  A checkpoint
that is damaged or was written for another configuration stops the run with one line naming it.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as _dt
import importlib
import json
import math
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from attention_theory.cluster import add_cluster_options, cluster_spec, one_thread, open_client
from attention_theory.config import SCALES, use_scale
from attention_theory.config import scale as current_scale
from attention_theory.papers import PAPERS
from attention_theory.provenance import git_commit, json_data, jsonable
from attention_theory.results import (
    CheckpointError,
    clean_temporary_files,
    provenance,
    read_result,
    repo_results_dir,
    source_dirty,
    write_result,
)
from attention_theory.validation import SEED_LIMIT, check_path

__all__ = ["RunContext", "PartResult", "Shards", "Part", "Experiment", "shard_dir", "shard_output",
           "run_shards", "SHARDS_FOLDER", "experiments", "find_experiment",
           "run_cli", "ensure_writable", "move_checkpoints_aside", "CHECKPOINT_NAME",
           "positive_int", "nonnegative_int", "positive_float", "seed_int", "DistinctSeeds"]

#: Names of checkpoint files in an output folder (``checkpoint-*`` or hidden ``.*checkpoint*``),
#: not counting files already moved aside (``*.moved-<timestamp>``).
CHECKPOINT_NAME = re.compile(r"^(checkpoint-.*|\..*checkpoint.*)$")


#: Largest size or count an option takes (a larger one would only fail later, out of memory or
#: time): 2**31 - 1.
MAX_COUNT = 2**31 - 1


# argparse types: a bad value exits with status 2 and a one-line message naming the option
def _int_at_least(text: str, minimum: int, what: str, maximum: int | None = MAX_COUNT) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    if maximum is not None and value > maximum:
        raise argparse.ArgumentTypeError(f"expected {what} <= {maximum}, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """An integer >= 1 (for sizes and counts)."""
    return _int_at_least(text, 1, "a positive integer")


def nonnegative_int(text: str) -> int:
    """An integer >= 0 (for seeds)."""
    return _int_at_least(text, 0, "an integer >= 0")


def seed_int(text: str) -> int:
    """A seed: an integer in ``[0, 2**63)`` (what :func:`attention_theory.validation.check_seed` accepts)."""
    value = _int_at_least(text, 0, "a seed (an integer >= 0)", maximum=None)
    if value >= SEED_LIMIT:
        raise argparse.ArgumentTypeError(f"expected a seed < 2**63, got {text!r}")
    return value


class DistinctSeeds(argparse.Action):
    """``--seeds S [S ...]``: seeds as :func:`seed_int`, each at most once (two runs with one seed
    would share a label and differ in their numbers)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        repeated = sorted({v for v in values if list(values).count(v) > 1})
        if repeated:
            parser.error(f"{option_string}: each seed at most once, repeated: {repeated}")
        setattr(namespace, self.dest, list(values))


def positive_float(text: str) -> float:
    """A finite number > 0 (for time limits and step sizes)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a finite positive number, got {text!r}")
    return value


@dataclasses.dataclass(frozen=True)
class RunContext:
    """What a part is asked to do: ``scale``, ``device``, output folder ``out``, whether to show
    progress bars, and ``options`` (the parsed command line, including the experiment's own)."""

    scale: str
    device: str
    out: Path
    progress: bool
    options: argparse.Namespace


@dataclasses.dataclass
class PartResult:
    """What a part ran and produced: ``config`` (recorded in the provenance as run), ``data``
    (the result body), an optional ``device`` actually used, ``extra`` provenance fields and a
    one-line ``summary`` printed after the file is written."""

    config: dict[str, Any]
    data: dict[str, Any]
    device: str | None = None
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)
    summary: str = ""


@dataclasses.dataclass(frozen=True)
class Shards:
    """How a part splits into independent shards that run anywhere (one after another in this
    process, or as Dask tasks with ``--workers``/``--scheduler``/``--cluster``) and are merged here.

    ``plan(ctx)`` lists ``(label, spec)`` pairs; ``run(ctx, spec)`` computes one shard, keeping
    its own checkpoint under :func:`shard_dir` (so an interrupted part resumes shard by shard), and
    returns something small and picklable; ``merge(ctx, outputs)`` turns the outputs, in plan
    order, into the part's :class:`PartResult`.  The same shards are computed whatever the number
    of workers, so the result does not depend on it.  ``run`` must be a module-level function (a
    worker imports it by name)."""

    plan: Callable[[RunContext], list[tuple[str, Any]]]
    run: Callable[[RunContext, Any], Any]
    merge: Callable[[RunContext, list[Any]], PartResult]


@dataclasses.dataclass(frozen=True)
class Part:
    """One result file of an experiment. ``filename(scale)`` overrides the default
    ``<name>.json`` / ``<name>-smoke.json``; ``preflight(ctx)`` returns a message when the part
    cannot run here (missing data or weights), checked for every chosen part before any work.
    A part computes its result either with ``run(ctx)`` or, made of independent shards, with
    ``shards`` (:class:`Shards`). ``config(scale)``, when declared, is the configuration the
    part runs at ``"smoke"`` or ``"full"`` scale: the part's ``run`` uses it, and a chapter that
    runs the part live calls :meth:`config_for` so that the chapter and
    ``python -m attention_theory run ... --scale smoke`` compute the same thing."""

    name: str
    run: Callable[[RunContext], PartResult] | None
    help: str = ""
    filename: Callable[[str], str] | None = None
    preflight: Callable[[RunContext], str | None] | None = None
    shards: Shards | None = None
    config: Callable[[str], dict[str, Any]] | None = None

    def __post_init__(self) -> None:
        if (self.run is None) == (self.shards is None):
            raise ValueError(f"part {self.name!r}: give either run or shards")

    def config_for(self, scale: str) -> dict[str, Any]:
        """The declared configuration of this part at ``scale`` (``"smoke"`` or ``"full"``)."""
        if scale not in ("smoke", "full"):
            raise ValueError(f"scale: expected 'smoke' or 'full', got {scale!r}")
        if self.config is None:
            raise ValueError(f"part {self.name!r} declares no config(scale)")
        return self.config(scale)

    def file_for(self, scale: str) -> str:
        if self.filename is not None:
            return self.filename(scale)
        return f"{self.name}.json" if scale == "full" else f"{self.name}-smoke.json"


@dataclasses.dataclass(frozen=True)
class Experiment:
    """An experiment: ``paper`` key, ``name`` (as typed after ``run <paper>``), a one-line
    ``description``, the ``results`` folder name under ``results/``, its ``parts`` (run in the
    order given), the parts run by default, and ``add_options(parser)`` for its own options."""

    paper: str
    name: str
    description: str
    results: str
    parts: tuple[Part, ...]
    default_parts: tuple[str, ...] | Callable[[argparse.Namespace], tuple[str, ...]] | None = None
    add_options: Callable[[argparse.ArgumentParser], None] | None = None

    def defaults(self, options: argparse.Namespace | None = None) -> list[str]:
        """The parts run when ``--parts`` is not given (``default_parts`` may depend on the
        options, e.g. on the chosen protocol)."""
        chosen = self.default_parts
        if callable(chosen):
            chosen = chosen(options) if options is not None else None
        return list(chosen or [p.name for p in self.parts])

    def part(self, name: str) -> Part:
        for p in self.parts:
            if p.name == name:
                return p
        raise ValueError(f"unknown part {name!r} of {self.paper} {self.name}; "
                         f"expected one of {[p.name for p in self.parts]}")


def experiments() -> dict[tuple[str, str], Experiment]:
    """Every experiment declared in :data:`attention_theory.papers.PAPERS`, by ``(paper, name)``."""
    out = {}
    for paper in PAPERS:
        for modname in paper.experiments:
            exp = importlib.import_module(modname).EXPERIMENT
            if exp.paper != paper.key:
                raise ValueError(f"{modname}: EXPERIMENT.paper is {exp.paper!r}, expected {paper.key!r}")
            out[(exp.paper, exp.name)] = exp
    return out


def find_experiment(paper: str, name: str) -> Experiment:
    """The experiment ``name`` of ``paper``; ``ValueError`` listing the known ones otherwise."""
    known = experiments()
    if (paper, name) not in known:
        listing = ", ".join(f"{p} {n}" for p, n in sorted(known))
        raise ValueError(f"no experiment (paper={paper!r}, name={name!r}); known: {listing}")
    return known[(paper, name)]


def ensure_writable(folder: Path) -> Path:
    """Create ``folder`` and prove it writable now, before any work is done."""
    folder = Path(check_path(folder, "folder"))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".write-test-"):
            pass
    except OSError as exc:
        raise SystemExit(f"error: --out {folder} is not writable ({exc.strerror or exc})") from None
    return folder


def move_checkpoints_aside(folder: Path, *, now: _dt.datetime | None = None) -> list[tuple[Path, Path]]:
    """Rename every checkpoint file of ``folder`` (names matching :data:`CHECKPOINT_NAME`) to
    ``<name>.moved-<UTC timestamp>``, so the next run starts afresh and nothing is lost.

    Returns ``[(old path, new path), ...]``; files already moved aside are left alone.
    """
    folder = Path(check_path(folder, "folder"))
    if not folder.is_dir():
        return []
    stamp = (now or _dt.datetime.now(_dt.timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    moved = []
    for f in sorted(folder.iterdir()):
        if not f.is_file() or ".moved-" in f.name or not CHECKPOINT_NAME.match(f.name):
            continue
        dest, k = f.with_name(f"{f.name}.moved-{stamp}"), 1
        while dest.exists():
            k += 1
            dest = f.with_name(f"{f.name}.moved-{stamp}-{k}")
        f.rename(dest)
        moved.append((f, dest))
    return moved


def _out_folder(text: str) -> Path:
    """``--out``: a folder name (an empty one would silently mean the working directory)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected a folder, got {text!r}")
    return Path(text)


def _intact(target: Path) -> str | None:
    """Why the result file ``target`` cannot be trusted, or ``None`` when it reads back intact."""
    try:
        read_result(target)
    except (OSError, ValueError) as exc:
        return str(exc)
    return None


def _config_differences(old: Any, new: Any) -> list[str]:
    """Keys whose values differ between two configurations (after a JSON round trip)."""
    old, new = (json.loads(json.dumps(jsonable(c))) for c in (old, new))
    if not isinstance(old, dict) or not isinstance(new, dict):
        return [] if old == new else ["(the whole configuration)"]
    return [k for k in sorted(set(old) | set(new)) if old.get(k, "<absent>") != new.get(k, "<absent>")]


def _defaults_text(exp: Experiment) -> str:
    if callable(exp.default_parts):
        return f"depends on the options: {exp.default_parts.__doc__ or 'see the experiment'}"
    return " ".join(exp.defaults())


def _parser(exp: Experiment, prog: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=prog, description=exp.description)
    ap.add_argument("--scale", choices=SCALES, default=None,
                    help="smoke (small, seconds to minutes) or full (the paper's); "
                         "default: $ATTN_SCALE or smoke")
    ap.add_argument("--parts", nargs="+", choices=[p.name for p in exp.parts], default=None,
                    metavar="PART",
                    help=f"parts to run, in order (default: {_defaults_text(exp)}); "
                         + "; ".join(f"{p.name}: {p.help}" for p in exp.parts if p.help))
    ap.add_argument("--out", type=_out_folder, default=None,
                    help=f"output folder (default: results/{exp.results}/ of the repository)")
    ap.add_argument("--force", action="store_true",
                    help="write over a result file whose configuration differs from this run's (without it, "
                         "the new result goes beside it as <name>.differs.json and the command fails)")
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu", help="torch device (default: cpu)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bars")
    ap.add_argument("--skip-existing", action="store_true",
                    help="skip parts whose result file already exists in the output folder and reads back "
                         "intact (a damaged one is computed again)")
    ap.add_argument("--restart", action="store_true",
                    help="start afresh: move the output folder's checkpoints (checkpoint-*, .*checkpoint*) "
                         "aside to <name>.moved-<UTC timestamp> before running")
    if exp.add_options is not None:
        exp.add_options(ap)
    add_cluster_options(ap)
    return ap


def run_cli(exp: Experiment, argv: Sequence[str] | None = None, *,
            prog: str | None = None) -> dict[str, Path]:
    """Parse ``argv`` for ``exp``, run the chosen parts and write one result file per part.

    Returns ``{part name: path written}``. Invalid arguments exit with status 2 and a one-line
    message (argparse); an output folder that cannot be written stops the run before any work.
    Before any work, stale ``.tmp-*`` files of the output folder are removed and, with
    ``--restart``, its checkpoints are moved aside (each move is printed).  A damaged checkpoint
    or one written for another configuration exits with its one-line message.
    """
    ap = _parser(exp, prog or f"python -m attention_theory run {exp.paper} {exp.name}")
    args = ap.parse_args(list(argv) if argv is not None else None)
    spec = cluster_spec(args, ap)
    scale = args.scale or current_scale()
    if args.device == "cuda":
        import torch

        if not torch.cuda.is_available():
            ap.error("--device cuda: torch sees no CUDA device on this machine")
    out = args.out if args.out is not None else repo_results_dir(exp.results)
    parts = [exp.part(n) for n in (args.parts or exp.defaults(args))]
    ctx = RunContext(scale=scale, device=args.device, out=out, progress=not args.no_progress, options=args)
    for part in parts:
        problem = part.preflight(ctx) if part.preflight is not None else None
        if problem:
            print(problem, file=sys.stderr)
            raise SystemExit(2)
    ensure_writable(out)
    for tmp in (t for folder in (out, *_shard_folders(out)) for t in clean_temporary_files(folder)):
        print(f"removed {tmp} (left by an interrupted write)", flush=True)
    if args.restart:
        moved = [m for folder in (out, *_shard_folders(out)) for m in move_checkpoints_aside(folder)]
        for old, new in moved:
            print(f"--restart: moved {old} -> {new}", flush=True)
        if not moved:
            print(f"--restart: no checkpoint in {out}", flush=True)
    # the code that runs is the code at the start; provenance() reads the tree again at the end
    at_start = {"commit_at_start": git_commit(), "uncommitted_source_changes_at_start": source_dirty()}
    written: dict[str, Path] = {}
    with contextlib.ExitStack() as stack:
        client = None
        for part in parts:
            target = out / part.file_for(scale)
            if args.skip_existing and target.exists():
                problem = _intact(target)
                if problem is None:
                    print(f"{exp.paper} {exp.name} {part.name}: {target} exists, skipped", flush=True)
                    continue
                print(f"{exp.paper} {exp.name} {part.name}: {problem}: computing it again", flush=True)
            if part.shards is not None and client is None and spec.uses_dask:
                client = stack.enter_context(open_client(spec))
            elif part.shards is None and spec.uses_dask:
                print(f"{exp.paper} {exp.name} {part.name}: not made of shards, runs in this process",
                      flush=True)
            t0 = time.perf_counter()
            try:
                with use_scale(scale):
                    res = part.run(ctx) if part.shards is None else run_shards(part, ctx, client)
            except CheckpointError as exc:
                raise SystemExit(f"error: {exc}") from None
            written[part.name] = _write_part(exp, part, ctx, res, target, time.perf_counter() - t0, at_start)
    return written


def _write_part(exp: Experiment, part: Part, ctx: RunContext, res: PartResult, target: Path, wall: float,
                at_start: dict[str, Any]) -> Path:
    """Write one part's result file with its provenance and print the line that says so."""
    import torch

    extra = {"experiment": f"{exp.paper} {exp.name}", "part": part.name,
             "torch_threads": torch.get_num_threads(), **at_start, **res.extra}
    prov = provenance(res.config, wall_time_s=wall, device=res.device or ctx.device, scale=ctx.scale,
                      extra=extra)
    if target.exists() and not getattr(ctx.options, "force", False) and _intact(target) is None:
        differ = _config_differences(read_result(target)["provenance"].get("config"), prov["config"])
        if differ:
            aside = write_result(target.with_name(target.stem + ".differs.json"), res.data, prov)
            raise SystemExit(f"error: {target} holds a result of another configuration (differs in "
                             f"{', '.join(differ)}); not written over without --force. "
                             f"This run's result: {aside}")
    path = write_result(target, res.data, prov)
    line = f"{exp.paper} {exp.name} {part.name}: wrote {path} ({wall:.0f} s)"
    print(line + (f"; {res.summary}" if res.summary else ""), flush=True)
    return path


#: Sub-folder of an output folder that holds the shards' checkpoints, one folder per shard.
SHARDS_FOLDER = "shards"


def shard_dir(ctx: RunContext, part: str, label: str) -> Path:
    """Folder of one shard's checkpoints: ``<out>/shards/<part>-<scale>/<label>/`` (created)."""
    if not isinstance(ctx, RunContext):
        raise TypeError(f"ctx must be a RunContext, got {type(ctx).__name__}")
    for value, name in ((part, "part"), (label, "label")):
        if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", value):
            raise ValueError(f"{name} must be a simple name (letters, digits, '_', '.', '-'), got {value!r}")
    folder = Path(ctx.out) / SHARDS_FOLDER / f"{part}-{ctx.scale}" / label
    folder.mkdir(parents=True, exist_ok=True)
    return folder


#: File name of a shard's finished output inside its shard folder (a ``checkpoint-*`` name, so
#: ``--restart`` moves it aside like every other checkpoint).
SHARD_OUTPUT = "checkpoint-output.json"


def shard_output(ctx: RunContext, part: str, label: str, config: Mapping[str, Any],
                 compute: Callable[[], Any]) -> Any:
    """The output of one shard, computed at most once.

    ``compute()`` returns JSON data (numbers, strings, lists and string-keyed dicts; arrays become
    lists, non-finite floats the strings ``"nan"``/``"inf"``); it is kept with ``config`` and a
    SHA-256 in ``<shard folder>/checkpoint-output.json``.  A rerun with the same ``config`` returns
    the kept output without computing; a damaged file, or one written for another ``config``, is
    recomputed (and says so).  The output is returned in its JSON form whether computed now or
    read back, so a merge sees the same values either way."""
    from attention_theory.results import CheckpointError, load_json_checkpoint, save_json_checkpoint

    if not callable(compute):
        raise TypeError(f"compute must be callable, got {type(compute).__name__}")
    path = shard_dir(ctx, part, label) / SHARD_OUTPUT
    try:
        saved = load_json_checkpoint(path, config=config)
    except CheckpointError as exc:
        print(f"{part} shard {label}: {path} {exc.problem}; computing it again", file=sys.stderr)
        saved = None
    if saved is not None:
        return saved["output"]
    output = json_data(compute())
    save_json_checkpoint(path, {"output": output}, config=config)
    return output


def _shard_folders(out: Path) -> list[Path]:
    base = Path(out) / SHARDS_FOLDER
    return sorted(p for p in base.glob("*/*") if p.is_dir()) if base.is_dir() else []


def _run_one_shard(run: Callable[[RunContext, Any], Any], ctx: RunContext, spec: Any) -> Any:
    with use_scale(ctx.scale), one_thread():
        return run(ctx, spec)


def run_shards(part: Part, ctx: RunContext, client: Any = None) -> PartResult:
    """Compute a sharded part: every shard of ``part.shards.plan(ctx)``, one after another here
    (``client`` ``None``) or as Dask tasks (retried once if their worker dies), then merge them
    in plan order.  Every shard runs with one torch thread, here as on a worker, so the result is
    the same bit for bit with any number of workers.  A progress bar counts the shards."""
    if not isinstance(part, Part) or part.shards is None:
        raise TypeError("part must be a Part with shards")
    plan = part.shards.plan(ctx)
    labels = [label for label, _ in plan]
    if len(set(labels)) != len(labels):
        raise ValueError(f"part {part.name!r}: shard labels must be distinct, got {labels}")
    from tqdm import tqdm

    quiet = dataclasses.replace(ctx, progress=False)
    outputs: dict[str, Any] = {}
    with tqdm(total=len(plan), desc=f"{part.name} shards", unit="shard", disable=not ctx.progress) as bar:
        if client is None:
            for label, spec in plan:
                bar.set_postfix_str(label)
                outputs[label] = _run_one_shard(part.shards.run, ctx if len(plan) == 1 else quiet, spec)
                bar.update(1)
        else:
            from distributed import as_completed

            futures = {client.submit(_run_one_shard, part.shards.run, quiet, spec, pure=False, retries=1,
                                     key=f"shard-{part.name}-{ctx.scale}-{label}"): label
                       for label, spec in plan}
            for fut in as_completed(futures):
                outputs[futures[fut]] = fut.result()
                bar.update(1)
    return part.shards.merge(ctx, [outputs[label] for label in labels])


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m attention_theory run <paper> <experiment> ...`` and ``... list``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    usage = ("usage: python -m attention_theory run <paper> <experiment> [options] | list\n"
             "       python -m attention_theory run <paper> <experiment> --help\n"
             "       python -m attention_theory check <claim-id> [--scale smoke|full] | --list | --all\n"
             "       python -m attention_theory bench-workers [--workers 1 2] [--repeats 3] [--paper P]\n"
             "       python -m attention_theory tightness [--below 0.5] [--registry DIR ...]\n"
             "       python -m attention_theory new-paper <key> --title TITLE --cite BIBKEY [--dry-run]")
    if not argv or argv[0] in ("-h", "--help"):
        print(usage)
        return 0 if argv else 2
    if argv[0] == "check":
        from attention_theory.verify.rerun import main as check_main

        return check_main(argv[1:])
    if argv[0] == "tightness":
        from attention_theory.verify.tightness import main as tightness_main

        return tightness_main(argv[1:])
    if argv[0] == "new-paper":
        from attention_theory.scaffold import main as scaffold_main

        return scaffold_main(argv[1:])
    if argv[0] == "bench-workers":
        from attention_theory.workers_benchmark import main as bench_main

        return bench_main(argv[1:])
    if argv[0] == "list":
        for (paper, name), exp in sorted(experiments().items()):
            parts = " ".join(p.name for p in exp.parts)
            print(f"{paper} {name}: {exp.description} (parts: {parts}; results/{exp.results}/)")
        return 0
    if argv[0] != "run" or len(argv) < 3:
        print(usage, file=sys.stderr)
        return 2
    try:
        exp = find_experiment(argv[1], argv[2])
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    run_cli(exp, argv[3:])
    return 0
