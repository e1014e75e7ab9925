"""The check records a build reads: the chapters' own (``_build/registry``) and the committed
full-scale search campaign's (``results/registry-full``).

``builder-inited`` points ``ATTN_REGISTRY_DIR`` at ``_build/registry`` and empties it, so the
kernels that execute the chapters (they inherit the environment) write fresh records there and
nothing stale survives.  ``env-check-consistency`` warns (``-W`` makes it an error) about a
record whose claim ID has no statement, a statement label with no record, and a record that no
registered check wrote.  :class:`PageData` is what a generated page reads, once per page.
"""

from __future__ import annotations

import functools
import os
import shutil
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

from attention_theory.sphinx import blueprint as bp
from attention_theory.sphinx.statements import statement_labels, statements
from attention_theory.verify import load_registry, registered_checks, summarize_registry

__all__ = ["CAMPAIGN_REGISTRY", "registry_path", "records", "registry_summary", "PageData",
           "builder_inited", "env_check_consistency"]

logger = logging.getLogger(__name__)

#: The committed records of the full-scale search campaign
#: (``python -m attention_theory check --all --scale full --registry results/registry-full``),
#: relative to the repository root: they join the records the chapters write during the build.
CAMPAIGN_REGISTRY = Path("results") / "registry-full"


def registry_path(app: Sphinx) -> Path:
    """``_build/registry``: where the executed chapters write their records."""
    return Path(app.outdir).parent / "registry"


def _key(r: dict[str, Any]) -> tuple[str, str, str]:
    return r["claim_id"], r["check"], r.get("scale", "smoke")


def records(app: Sphinx) -> list[dict[str, Any]]:
    """The build's records (written by the executed chapters) and the committed full-scale
    campaign's; a chapter's record of the same (claim, check, scale) replaces the campaign's."""
    built = load_registry(registry_path(app))
    campaign_dir = Path(app.srcdir) / CAMPAIGN_REGISTRY
    if not campaign_dir.is_dir():
        return built
    seen = {_key(r) for r in built}
    extra = [r for r in load_registry(campaign_dir) if _key(r) not in seen]
    for r in extra:  # say where a full-scale record comes from on the claims page and in claims.json
        if not r.get("data"):
            r["data"] = {"files": [f"{CAMPAIGN_REGISTRY.as_posix()} (search campaign, commit "
                                   f"{str(r.get('commit', '?'))[:12]})"]}
    return built + extra


def registry_summary(app: Sphinx) -> dict[str, dict[str, Any]]:
    """The registry's per-claim summary, read once per build (after every chapter ran)."""
    cached = getattr(app, "_attn_summary", None)
    if cached is None:
        cached = summarize_registry(records(app))
        app._attn_summary = cached  # type: ignore[attr-defined]
    return cached


class PageData:
    """What the generated parts of one page read (records, their per-claim summary, the
    statements and their labels), each computed on first use and kept for the page."""

    def __init__(self, app: Sphinx, docname: str) -> None:
        self.app = app
        self.docname = docname

    @functools.cached_property
    def records(self) -> list[dict[str, Any]]:
        return records(self.app)

    @functools.cached_property
    def summary(self) -> dict[str, dict[str, Any]]:
        return summarize_registry(self.records)

    @functools.cached_property
    def status(self) -> dict[str, str]:
        """Each claim's registry status."""
        return {cid: row["status"] for cid, row in self.summary.items()}

    @functools.cached_property
    def labels(self) -> dict[str, dict[str, Any]]:
        return statement_labels(self.app.env)

    @property
    def statements(self) -> dict[str, bp.Statement]:
        return statements(self.app.env)

    def uri(self, docname: str) -> str:
        """The relative link from this page to ``docname``."""
        return self.app.builder.get_relative_uri(self.docname, docname)


def builder_inited(app: Sphinx) -> None:
    """Empty ``_build/registry`` and point the chapters' kernels at it."""
    reg = registry_path(app)
    if reg.exists():
        shutil.rmtree(reg)
    reg.mkdir(parents=True)
    os.environ["ATTN_REGISTRY_DIR"] = str(reg)


def env_check_consistency(app: Sphinx, env: Any) -> None:
    """Warn about records without statements and statements without records."""
    recs = records(app)
    labels = statement_labels(env)
    recorded = {r["claim_id"] for r in recs}
    pairs = set(registered_checks())
    for r in recs:
        if r["status"] != "not-checkable" and (r["claim_id"], r["check"]) not in pairs:
            logger.warning(f"record {r['claim_id']} / {r['check']} comes from no registered check")
    for cid in sorted(recorded - set(labels)):
        logger.warning(f"check records exist for claim {cid!r} but no statement carries that label")
    for cid in sorted(set(labels) - recorded):
        info = labels[cid]
        logger.warning(f"statement {cid!r} has no check and no recorded reason "
                       "(call a registered check or verify.not_checkable)",
                       location=(info["docname"], None))
