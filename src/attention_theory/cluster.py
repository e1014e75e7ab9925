"""Workers for long computations: this process, a local Dask cluster, a running Dask scheduler,
or a batch-queue cluster (Slurm or PBS, through dask-jobqueue).

The full-scale campaign (``python -m attention_theory check --all --scale full``) and the
experiments (``python -m attention_theory run ...``) take the same options
(:func:`add_cluster_options`)::

    --workers N|auto      N local worker processes, one thread each (default 1: everything in this
                          process, no Dask); auto = one per core
    --scheduler ADDRESS   a running Dask scheduler, e.g. tcp://10.0.0.5:8786
    --cluster slurm|pbs   a dask-jobqueue cluster built from Dask's configuration
    --jobs K              with --cluster: the number of batch jobs to ask for

A batch-queue cluster reads its queue, cores, memory and walltime from Dask's own configuration
(``~/.config/dask/jobqueue.yaml``, the file dask-jobqueue's users know); the README shows one.

Work is split in two levels.  The caller submits independent *tasks* (one check function, one
experiment shard) and is the only process that writes files.  A task that is itself a loop over
independent *pieces* (training sets of a Monte Carlo, sizes of a search) hands them to
:func:`map_pieces`, which runs them as Dask sub-tasks when it is called inside a Dask task and
as a plain loop otherwise.  Pieces get their arguments (seeds included) from the caller, never
from the worker that runs them, so the result is the same with any number of workers.
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import dataclasses
import os
import sys
import time
from typing import Any, Callable, Iterable, Iterator

__all__ = ["CLUSTER_KINDS", "ClusterSpec", "worker_count", "add_cluster_options", "cluster_spec",
           "open_client", "one_thread", "map_pieces", "inside_dask_task", "counting_piece_cpu"]

#: Batch-queue systems ``--cluster`` accepts (dask-jobqueue's classes of the same names).
CLUSTER_KINDS = ("slurm", "pbs")


@dataclasses.dataclass(frozen=True)
class ClusterSpec:
    """Where tasks run: ``workers`` local processes (1: in this process, without Dask), or the
    Dask scheduler at ``scheduler``, or a dask-jobqueue cluster of kind ``cluster`` with ``jobs``
    batch jobs."""

    workers: int = 1
    scheduler: str | None = None
    cluster: str | None = None
    jobs: int = 1

    def __post_init__(self) -> None:
        for name in ("workers", "jobs"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
        if self.cluster is not None and self.cluster not in CLUSTER_KINDS:
            raise ValueError(f"cluster must be one of {CLUSTER_KINDS}, got {self.cluster!r}")
        if self.scheduler is not None and (not isinstance(self.scheduler, str) or not self.scheduler.strip()):
            raise ValueError(f"scheduler must be a scheduler address such as tcp://host:8786, "
                             f"got {self.scheduler!r}")
        chosen = [n for n, on in (("--workers N > 1", self.workers > 1),
                                  ("--scheduler", self.scheduler is not None),
                                  ("--cluster", self.cluster is not None)) if on]
        if len(chosen) > 1:
            raise ValueError(f"choose one of {', '.join(chosen)}")
        if self.jobs > 1 and self.cluster is None:
            raise ValueError("jobs (--jobs) needs a batch-queue cluster (--cluster slurm|pbs)")

    @property
    def uses_dask(self) -> bool:
        """Whether tasks leave this process."""
        return self.workers > 1 or self.scheduler is not None or self.cluster is not None

    def describe(self) -> str:
        if self.scheduler is not None:
            return f"the Dask scheduler at {self.scheduler}"
        if self.cluster is not None:
            return f"a {self.cluster} cluster of {self.jobs} job(s) (dask-jobqueue)"
        if self.workers > 1:
            return f"a local Dask cluster of {self.workers} single-threaded worker processes"
        return "this process"


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def worker_count(text: str) -> int:
    """``--workers``: a positive integer, or ``auto`` (one worker per core this process may use)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    if text.strip().lower() == "auto":
        return _cores()
    return _at_least_one(text, "a positive integer or 'auto'")


#: Most worker processes (or batch jobs) one command starts: a larger count is a typing error.
MAX_WORKERS = 10_000


def _at_least_one(text: str, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if value < 1 or value > MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"expected {what} (at most {MAX_WORKERS}), got {text!r}")
    return value


def _job_count(text: str) -> int:
    return _at_least_one(text, "a positive integer")


def add_cluster_options(ap: argparse.ArgumentParser) -> None:
    """Add ``--workers``, ``--scheduler``, ``--cluster`` and ``--jobs`` to a command line."""
    if not isinstance(ap, argparse.ArgumentParser):
        raise TypeError(f"ap must be an argparse.ArgumentParser, got {type(ap).__name__}")
    g = ap.add_argument_group("workers (Dask)")
    g.add_argument("--workers", type=worker_count, default=1, metavar="N|auto",
                   help="local worker processes, one thread each (default 1: run in this process; "
                        "auto: one per core)")
    g.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="connect to a running Dask scheduler instead, e.g. tcp://10.0.0.5:8786")
    g.add_argument("--cluster", choices=CLUSTER_KINDS, default=None,
                   help="start a batch-queue cluster with dask-jobqueue, configured by "
                        "~/.config/dask/jobqueue.yaml (see the README)")
    g.add_argument("--jobs", type=_job_count, default=1, metavar="K",
                   help="with --cluster: the number of batch jobs (default 1)")


def cluster_spec(args: argparse.Namespace, ap: argparse.ArgumentParser | None = None) -> ClusterSpec:
    """The :class:`ClusterSpec` of parsed options; a contradiction exits with status 2 through
    ``ap.error`` when a parser is given (``ValueError`` otherwise)."""
    if not isinstance(args, argparse.Namespace):
        raise TypeError(f"args must be an argparse.Namespace, got {type(args).__name__}")
    try:
        return ClusterSpec(workers=getattr(args, "workers", 1), scheduler=getattr(args, "scheduler", None),
                           cluster=getattr(args, "cluster", None), jobs=getattr(args, "jobs", 1))
    except ValueError as exc:
        if ap is None:
            raise
        ap.error(str(exc))
        raise  # pragma: no cover - ap.error exits


#: Environment of local worker processes: one thread for every BLAS/OpenMP pool, so N workers
#: use N cores and a result does not depend on how many threads a reduction was split over.
WORKER_ENVIRON = {"OMP_NUM_THREADS": 1, "MKL_NUM_THREADS": 1, "OPENBLAS_NUM_THREADS": 1}


@contextlib.contextmanager
def open_client(spec: ClusterSpec, *, echo: Callable[[str], None] = print) -> Iterator[Any]:
    """Yield a ``distributed.Client`` for ``spec`` (closed, with its cluster, afterwards), or
    ``None`` when ``spec`` runs everything in this process.  ``echo`` receives one line saying
    where the work runs and the dashboard's address."""
    if not isinstance(spec, ClusterSpec):
        raise TypeError(f"spec must be a ClusterSpec, got {type(spec).__name__}")
    if not callable(echo):
        raise TypeError(f"echo must be callable, got {type(echo).__name__}")
    if not spec.uses_dask:
        yield None
        return
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:  # pragma: no cover - the [cluster] extra is part of [book]
        raise SystemExit("error: --workers/--scheduler/--cluster need Dask: "
                         "pip install -e '.[cluster]'") from None
    with contextlib.ExitStack() as stack:
        if spec.scheduler is not None:
            client = stack.enter_context(Client(spec.scheduler))
        elif spec.cluster is not None:
            try:
                import dask_jobqueue
            except ImportError:  # pragma: no cover
                raise SystemExit("error: --cluster needs dask-jobqueue: "
                                 "pip install -e '.[cluster]'") from None
            kind = {"slurm": dask_jobqueue.SLURMCluster, "pbs": dask_jobqueue.PBSCluster}[spec.cluster]
            try:
                cluster = stack.enter_context(kind())
            except ValueError as exc:  # no cores/memory configured: say where they go
                raise SystemExit(f"error: --cluster {spec.cluster}: {str(exc).splitlines()[0]} "
                                 f"Set them under jobqueue: {spec.cluster}: in "
                                 f"~/.config/dask/jobqueue.yaml (see the README).") from None
            cluster.scale(jobs=spec.jobs)
            client = stack.enter_context(Client(cluster))
        else:
            environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ", {}), **WORKER_ENVIRON)
            stack.enter_context(dask.config.set({"distributed.nanny.pre-spawn-environ": environ}))
            cluster = stack.enter_context(LocalCluster(n_workers=spec.workers, threads_per_worker=1,
                                                       processes=True, dashboard_address=":0"))
            client = stack.enter_context(Client(cluster))
        link = getattr(client, "dashboard_link", None)
        echo(f"workers: {spec.describe()}" + (f"; dashboard {link}" if link else ""))
        yield client


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """Run the block with one torch thread (restored afterwards), as every Dask worker runs:
    reductions split over another number of threads round differently, and a task's result
    must not depend on where it ran."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def inside_dask_task() -> bool:
    """Whether the caller runs inside a task on a Dask worker."""
    if "distributed" not in sys.modules:  # not imported: certainly not on a worker
        return False
    from distributed import get_worker

    try:
        get_worker()
    except ValueError:
        return False
    return True


#: CPU seconds that pieces spent on other workers, added up for the task that submitted them.
_piece_cpu: contextvars.ContextVar[list[float] | None] = contextvars.ContextVar(
    "attn_piece_cpu", default=None)


@contextlib.contextmanager
def counting_piece_cpu() -> Iterator[list[float]]:
    """Yield a list that collects the CPU seconds of each piece :func:`map_pieces` runs as a Dask
    sub-task inside the block (the task's own CPU time is the caller's to measure)."""
    box: list[float] = []
    token = _piece_cpu.set(box)
    try:
        yield box
    finally:
        _piece_cpu.reset(token)


def _run_piece(fn: Callable[[Any], Any], item: Any, scale: str, dtype: str) -> tuple[Any, float]:
    import torch

    from attention_theory.config import use_scale
    from attention_theory.foundations.tensors import default_dtype

    t0 = time.thread_time()  # this piece's thread only (the worker runs others beside it)
    with use_scale(scale), default_dtype(getattr(torch, dtype.split(".")[-1])), one_thread():
        out = fn(item)
    return out, time.thread_time() - t0


def _picklable(fn: Callable[[Any], Any]) -> bool:
    import cloudpickle

    try:
        cloudpickle.dumps(fn)
    except Exception:  # noqa: BLE001 - any failure means: run the pieces here
        return False
    return True


def map_pieces(fn: Callable[[Any], Any], items: Iterable[Any], *, desc: str | None = None) -> list[Any]:
    """``[fn(item) for item in items]``, computed as Dask sub-tasks when called inside a Dask
    task (the calling task leaves its worker's thread pool while it waits, so its slot runs
    pieces too), and as that plain loop otherwise.

    ``fn`` must be a pure function of ``item`` (seeds included: no generator shared between
    pieces), so the list is the same either way.  The scale and torch's default dtype of the
    caller are carried to every piece.  ``desc``: a progress bar with this label over the plain
    loop.  A ``fn`` that cannot be pickled (it holds an open file, a lock, ...) runs as the loop."""
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        raise TypeError(f"items must be an iterable, got {type(items).__name__}")
    if desc is not None and not isinstance(desc, str):
        raise TypeError(f"desc must be a string or None, got {type(desc).__name__}")
    items = list(items)
    if len(items) < 2 or not inside_dask_task() or not _picklable(fn):
        if desc is not None:
            from tqdm import tqdm  # plain bars: tqdm.auto warns in kernels without ipywidgets

            return [fn(x) for x in tqdm(items, leave=False, desc=desc)]
        return [fn(x) for x in items]
    import torch
    from distributed import worker_client

    from attention_theory.config import scale

    state = (scale(), str(torch.get_default_dtype()))
    with worker_client() as client:
        futures = client.map(_run_piece, [fn] * len(items), items, [state[0]] * len(items),
                             [state[1]] * len(items), pure=False, retries=1)
        done = client.gather(futures)
    box = _piece_cpu.get()
    if box is not None:
        box.extend(cpu for _, cpu in done)
    return [out for out, _ in done]

