"""What every page builder gets: the settings, the votes and the shared tables.

Tables that several pages show (the model leaderboard, each dataset's Result A) are
computed once here; page-specific ones are computed by their page builder.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ffsite.base.registry import load_texts
from ffsite.format.read import Annotations
from ffsite.format.response_metrics import model_averages, read_response_metrics
from ffsite.metrics.indices import INDEX_COLUMNS, indices_table
from ffsite.metrics.ratings import RATING_COLUMNS, ratings_table
from ffsite.metrics.strength import TraitVotes, default_preference_judge, trait_votes
from ffsite.progress import Progress
from ffsite.site import tables
from ffsite.site.config import CONFIG_FILE, SiteConfig
from ffsite.site.examples import Texts
from ffsite.site.output import SiteWriter

_LAST_RATINGS: dict[tuple, pd.DataFrame] = {}


@dataclass
class SiteContext:
    config: SiteConfig
    annotations: Annotations
    votes: TraitVotes
    traits: pd.DataFrame  # tables.trait_table
    models: tables.ModelResults
    datasets: pd.DataFrame  # tables.dataset_summary
    dataset_traits: pd.DataFrame  # Result A per dataset, long
    writer: SiteWriter
    progress: Progress
    base_dir: Path | None = None
    files: list[Path] = field(default_factory=list)  # every annotation file read
    notes: list[str] = field(default_factory=list)  # what the build left out, said once
    _texts: dict[str, Texts | None] = field(default_factory=dict)
    _preferences: dict[str, np.ndarray] = field(default_factory=dict)
    _judges: dict[str, str | None] = field(default_factory=dict)
    _slugs: dict[str, dict[str, str]] = field(default_factory=dict)
    _computed: dict[str, pd.DataFrame] = field(default_factory=dict)

    @classmethod
    def create(cls, config: SiteConfig, annotations: Annotations, writer: SiteWriter,
               progress: Progress, base_dir: Path | None, files: list[Path]) -> SiteContext:
        progress.step("computing tables")
        votes = trait_votes(annotations)
        traits = tables.trait_table(votes)
        models = tables.model_results(annotations, votes, traits, config.reference_model,
                                      config.min_valid_votes,
                                      str(config.content_dir / CONFIG_FILE))
        return cls(config=config, annotations=annotations, votes=votes, traits=traits,
                   models=models, datasets=tables.dataset_summary(annotations),
                   dataset_traits=tables.dataset_results(annotations, votes, traits,
                                                         config.min_valid_votes),
                   writer=writer, progress=progress, base_dir=base_dir, files=files)

    @property
    def min_valid(self) -> int:
        return self.config.min_valid_votes

    def model_slug(self, model: str) -> str | None:
        """The page name of a model with a page (None for the reference, say)."""
        if "model" not in self._slugs:
            self._slugs["model"] = dict(zip(self.models.models["model"],
                                            self.models.models["slug"], strict=True))
        return self._slugs["model"].get(model)

    def ratings(self) -> pd.DataFrame:
        """Per-trait Elo ratings anchored on the reference model (empty without one),
        with the trait's label; computed once, on first use."""
        if "ratings" not in self._computed:
            anchor = self.config.reference_model
            if anchor is None or anchor not in self.annotations.models:
                table = pd.DataFrame(columns=list(RATING_COLUMNS))
            else:
                table = self._rate(anchor)
            labels = self.traits.set_index("trait_id")["label"]
            table.insert(1, "trait", table["trait_id"].map(labels).to_numpy())
            self._computed["ratings"] = table.drop(columns="description")
        return self._computed["ratings"]

    def _rate(self, anchor: str) -> pd.DataFrame:
        # The slowest step of a build; `ffsite serve` rebuilds in one process, so the
        # last result is kept for as long as the annotation files stay the same.
        key = (anchor, self.config.rating_resamples,
               tuple((str(f), f.stat().st_size, f.stat().st_mtime_ns) for f in self.files))
        if key not in _LAST_RATINGS:
            self.progress.step(f"rating models ({self.config.rating_resamples} bootstrap "
                               "resamples)")
            _LAST_RATINGS.clear()
            _LAST_RATINGS[key] = ratings_table(self.annotations, anchor=anchor, seed=0,
                                               n_bootstrap=self.config.rating_resamples)
        return _LAST_RATINGS[key].copy()

    def indices(self) -> pd.DataFrame:
        """Index scores (1-100) per model, from the ratings."""
        if "indices" not in self._computed:
            ratings = self.ratings()
            self._computed["indices"] = indices_table(ratings) if len(ratings) else (
                pd.DataFrame(columns=list(INDEX_COLUMNS)))
        return self._computed["indices"]

    def communication(self) -> pd.DataFrame:
        """Per model, the average of every measure in the response-metrics files (the
        communication traits): columns model, then one per measure."""
        if "communication" not in self._computed:
            self._computed["communication"] = model_averages(read_response_metrics(
                self.files))
        return self._computed["communication"]

    def texts(self, dataset: str) -> Texts | None:
        """Prompts and responses of a base dataset, or None (noted once) when missing."""
        if dataset not in self._texts:
            found = load_texts(self.base_dir, dataset) if self.config.examples else None
            if found is None and self.config.examples:
                self.notes.append(f"examples omitted: base dataset {dataset} not available; "
                                  "run ffsite fetch or pass --base-data DIR")
            self._texts[dataset] = found
        return self._texts[dataset]

    def preference_of(self, row: int) -> tuple[str, int] | None:
        """(judge, vote code) of a comparison's default preference annotator, if it voted."""
        dataset = self.annotations.comparisons["dataset"].iloc[row]
        if dataset not in self._judges:
            self._judges[dataset] = default_preference_judge(self.annotations, dataset)
        judge = self._judges[dataset]
        if judge is None:
            return None
        if judge not in self._preferences:
            self._preferences[judge] = tables.preference_codes(self.annotations, judge)
        code = int(self._preferences[judge][row])
        return (judge, code) if code else None
