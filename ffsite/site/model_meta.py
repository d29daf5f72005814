"""What the registry knows about a model (content/models.toml: organisation, open weights,
release date) as table columns and as the facts of its page.

An unknown fact is shown as unknown ("–" in a table, "unknown" on the page), never
guessed; a sort puts unknown values last.
"""

from __future__ import annotations

import pandas as pd

from ffsite.models import Model, Registry
from ffsite.site.views import Cell, Column

UNKNOWN = "–"
ORGANISATION = "organisation"  # the column key the home page's model search also reads


def meta_columns() -> list[Column]:
    """Organisation, open weights and release date, for a table with a row per model."""
    return [Column(ORGANISATION, "Organisation", numeric=False,
                   title="who made the model (– = not recorded)"),
            Column("open_weights", "Weights", numeric=False,
                   title="open: the weights are published; closed: not published "
                         "(– = not recorded)"),
            Column("released", "Released", numeric=False,
                   title="when the model was first released (– = not recorded)")]


def meta_cells(registry: Registry, model: str) -> list[Cell]:
    """The cells of `meta_columns` for `model` (its registry id)."""
    entry = registry.get(model)
    return [_cell(entry.organisation if entry else None),
            _cell(weights_text(entry)),
            _cell(entry.released if entry else None, css="date")]


def with_meta(frame: pd.DataFrame, registry: Registry) -> pd.DataFrame:
    """`frame` (a `model` column of registry ids) with organisation, open_weights and
    released added at the end; empty where unknown."""
    entries = [registry.get(model) for model in frame["model"]]
    return frame.assign(
        organisation=[e.organisation if e else None for e in entries],
        open_weights=pd.Series([e.open_weights if e else None for e in entries],
                               dtype=object, index=frame.index),
        released=[e.released if e else None for e in entries])


def weights_text(entry: Model | None) -> str | None:
    if entry is None or entry.open_weights is None:
        return None
    return "open" if entry.open_weights else "closed"


def meta_facts(entry: Model | None) -> list[tuple[str, str]]:
    """(label, value) facts of a model page's header, unknown ones said to be unknown."""
    weights = None if entry is None or entry.open_weights is None else (
        "open (published)" if entry.open_weights else "closed (not published)")
    return [("Organisation", (entry.organisation if entry else None) or "unknown"),
            ("Weights", weights or "unknown"),
            ("Released", (entry.released if entry else None) or "unknown")]


def _cell(text: str | None, css: str | None = None) -> Cell:
    # An empty data-v sorts last in either direction (site.js), as unknown should.
    return Cell(text, css=css) if text else Cell(UNKNOWN, "", css=css)
