"""What every page builder gets: the settings, the votes, the results, and the site's
names for things: each trait's label and each page's slug.

The numbers come from ffsite.metrics.results; here its tables get the trait labels
pages show (a `trait` column after `trait_id`).  Tables that several pages show are
computed once, when the context is created; the others when a page asks for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from ffsite.base.registry import load_texts
from ffsite.errors import FfsiteError
from ffsite.format.read import Annotations
from ffsite.metrics import results
from ffsite.metrics.results import DatasetDetails, ModelResults, TraitVotes
from ffsite.progress import Progress
from ffsite.site.config import CONFIG_FILE, SiteConfig
from ffsite.site.examples import Texts
from ffsite.site.output import SiteOutput
from ffsite.site.urls import Slugs
from ffsite.traits import AA30_NAMES, short_wording

_LAST_RATINGS: dict[tuple, pd.DataFrame] = {}


def trait_table(votes: TraitVotes) -> pd.DataFrame:
    """One row per trait: trait_id, label (what pages show), trait (full wording),
    trait_set, judge."""
    traits = votes.traits
    labels = [AA30_NAMES.get(tid) or short_wording(wording)
              for tid, wording in zip(traits["trait_id"], traits["trait"], strict=True)]
    return pd.DataFrame({
        "trait_id": traits["trait_id"].to_numpy(),
        "label": labels,
        "trait": traits["trait"].to_numpy(),
        "trait_set": traits["trait_set"].to_numpy(),
        "judge": traits["judge"].to_numpy(),
    })


def labelled(frame: pd.DataFrame, labels: pd.Series, id_column: str = "trait_id",
             label_column: str = "trait") -> pd.DataFrame:
    """`frame` with each trait's label (`labels`: by trait id) in `label_column`, right
    after `id_column`."""
    frame = frame.copy()
    frame.insert(frame.columns.get_loc(id_column) + 1, label_column,
                 frame[id_column].map(labels).to_numpy())
    return frame


@dataclass
class SiteContext:
    config: SiteConfig
    annotations: Annotations
    votes: TraitVotes
    traits: pd.DataFrame  # trait_table
    slugs: Slugs
    models: ModelResults  # its `traits` labelled
    datasets: pd.DataFrame  # results.dataset_summary
    dataset_traits: pd.DataFrame  # results.dataset_results, labelled
    output: SiteOutput
    progress: Progress
    base_dir: Path | None = None
    files: list[Path] = field(default_factory=list)  # every annotation file read
    notes: list[str] = field(default_factory=list)  # what the build left out, said once
    _texts: dict[str, Texts | None] = field(default_factory=dict)
    _preferences: dict[str, np.ndarray] = field(default_factory=dict)
    _judges: dict[str, str | None] = field(default_factory=dict)
    _computed: dict[str, pd.DataFrame] = field(default_factory=dict)

    @classmethod
    def create(cls, config: SiteConfig, annotations: Annotations, output: SiteOutput,
               progress: Progress, base_dir: Path | None, files: list[Path]) -> SiteContext:
        progress.step("computing tables")
        reference, models = config.reference_model, annotations.models
        if reference is not None and models and reference not in models:
            raise FfsiteError(f"{config.content_dir / CONFIG_FILE}: reference_model "
                              f"'{reference}' is not in the annotations; set it to one of: "
                              + ", ".join(models[:10]) + (" ..." if len(models) > 10 else ""))
        votes = results.trait_votes(annotations)
        traits = trait_table(votes)
        labels = traits.set_index("trait_id")["label"]
        by_model = results.model_results(annotations, votes, reference, config.min_valid_votes)
        datasets = results.dataset_summary(annotations)
        return cls(config=config, annotations=annotations, votes=votes, traits=traits,
                   slugs=Slugs.create(traits["trait_id"], by_model.models["model"],
                                      datasets["dataset"]),
                   models=replace(by_model, traits=labelled(by_model.traits, labels)),
                   datasets=datasets,
                   dataset_traits=labelled(results.dataset_results(
                       annotations, votes, config.min_valid_votes), labels),
                   output=output, progress=progress, base_dir=base_dir, files=files)

    @property
    def min_valid(self) -> int:
        return self.config.min_valid_votes

    @property
    def labels(self) -> pd.Series:
        """Each trait's label, by trait id."""
        return self.traits.set_index("trait_id")["label"]

    def dataset_details(self) -> dict[str, DatasetDetails]:
        """Per dataset: Result A by metadata and by annotator (labelled), win rates."""
        found = results.dataset_details(self.annotations, self.votes,
                                        self.config.reference_model, self.min_valid)
        labels = self.labels
        return {dataset: replace(
            details, splits={c: labelled(f, labels) for c, f in details.splits.items()},
            annotators=None if details.annotators is None else labelled(details.annotators,
                                                                        labels))
            for dataset, details in found.items()}

    def ratings(self) -> pd.DataFrame:
        """Per-trait Elo ratings anchored on the reference model (empty without one),
        with the trait's label; computed once, on first use."""
        if "ratings" not in self._computed:
            anchor = self.config.reference_model
            if anchor is None or anchor not in self.annotations.models:
                table = pd.DataFrame(columns=list(results.RATING_COLUMNS))
            else:
                table = self._rate(anchor)
            self._computed["ratings"] = labelled(table, self.labels).drop(
                columns="description")
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
            _LAST_RATINGS[key] = results.ratings_table(
                self.annotations, anchor=anchor, seed=0,
                n_bootstrap=self.config.rating_resamples)
        return _LAST_RATINGS[key].copy()

    def indices(self) -> pd.DataFrame:
        """Index scores (1-100) per model, from the ratings."""
        if "indices" not in self._computed:
            self._computed["indices"] = results.indices_table(self.ratings())
        return self._computed["indices"]

    def communication(self) -> pd.DataFrame:
        """Per model, the average of every measure in the response-metrics files (the
        communication traits): columns model, then one per measure."""
        if "communication" not in self._computed:
            self._computed["communication"] = results.communication_averages(self.files)
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
            self._judges[dataset] = results.default_preference_judge(self.annotations,
                                                                     dataset)
        judge = self._judges[dataset]
        if judge is None:
            return None
        if judge not in self._preferences:
            self._preferences[judge] = results.preference_codes(self.annotations, judge)
        code = int(self._preferences[judge][row])
        return (judge, code) if code else None
