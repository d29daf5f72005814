# long: every table and file fact a page builder reads, each computed once, in one place
"""What every page builder gets: the settings, the votes, the results, and the site's
names for things: each trait's label and each page's slug.

The numbers come from ffsite.metrics.results; here its tables get the trait labels
pages show (a `trait` column after `trait_id`).  Tables that several pages show are
computed when the context is created; the others are properties computed when a page
first asks for them, once.  Pages never read annotation files: what they need from the
files beyond `annotations` (votes per seed, run summaries) is read here, once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np
import pandas as pd

import ffsite._text
import ffsite.format
import ffsite.metrics
import ffsite.models
from ffsite._stored import remembered
from ffsite.datasets import PANELS, RUBRIC_FLOORS, SCORE_JUDGES, UNITS, find
from ffsite.datasets.folder import load_texts
from ffsite.errors import FfsiteError
from ffsite.format import Annotations, Scores, schema
from ffsite.format.read import compared_models, read_file_metadata, vote_rows
from ffsite.format.response_metrics import read_response_metrics
from ffsite.format.scores import empty_scores
from ffsite.metrics import eigenbench, results
from ffsite.metrics.big_five import big_five, split_lmlpa
from ffsite.metrics.judges import keep_apart, pool_panels
from ffsite.metrics.results import (
    DatasetDetails,
    ModelResults,
    PairwiseResults,
    ScoreResults,
    TraitVotes,
)
from ffsite.models import Registry
from ffsite.progress import Progress
from ffsite.site.ahead import Ahead, once
from ffsite.site.config import CONFIG_FILE, SiteConfig
from ffsite.site.examples import Texts, with_contributed_answers
from ffsite.site.output import SiteOutput
from ffsite.site.urls import Slugs
from ffsite.traits import trait_label

# Fewer votes and scores than this: the site is built in this process alone, as a forked
# child (tables ahead, builders side by side) costs more CPU than it saves (measured per
# dataset: docs/performance.md, "Small sites in one process").
FORK_FROM_ROWS = 60_000
# The code behind `results.score_results`: every metrics and format module, the registry.
SCORE_CODE = (ffsite.metrics, ffsite.format, ffsite.models, ffsite._text)
SEEDED_VOTE_COLUMNS = ["dataset", "comparison_id", "trait_id", "seed", "vote", "margin"]

T = TypeVar("T")


@dataclass
class Kept(Generic[T]):
    """One result of a build and the inputs it was computed from."""

    inputs: tuple | None = None
    value: T | None = None

    def get(self, inputs: tuple, compute: Callable[[], T]) -> T:
        """The kept value if it was computed from `inputs` (compared with ==), else
        `compute()`, kept in its place."""
        if self.inputs is None or self.inputs != inputs:
            self.value, self.inputs = compute(), inputs
        return self.value  # type: ignore[return-value]


@dataclass
class ResultsCache:
    """The slowest results of a build (bootstrap refits), kept for the next build made
    with the same cache while the annotation files (path, size, modification time), the
    model registry and the settings each depends on stay the same.  `ffsite serve` keeps
    one for all its rebuilds; a plain build starts from an empty one."""

    ratings: Kept[pd.DataFrame] = field(default_factory=Kept)
    score_results: Kept[ScoreResults] = field(default_factory=Kept)
    pairwise: Kept[dict[str, PairwiseResults]] = field(default_factory=Kept)
    # The last build's pages and what they were rendered with (ffsite.site.rerender).
    site: Any = None


def trait_table(votes: TraitVotes, scores: Scores | None = None) -> pd.DataFrame:
    """One row per trait: trait_id, label (what pages show), trait (full wording),
    trait_set, judge, and `scored`: whether judges scored it (not pairwise votes)."""
    traits = votes.traits.assign(scored=False)
    if scores is not None and len(scores):
        scored = scores.traits()[["trait_id", "trait", "trait_set", "judge"]]
        traits = pd.concat([traits, scored.assign(scored=True)], ignore_index=True)
    labels = [trait_label(tid, wording)
              for tid, wording in zip(traits["trait_id"], traits["trait"], strict=True)]
    return pd.DataFrame({
        "trait_id": traits["trait_id"].to_numpy(),
        "label": labels,
        "trait": traits["trait"].to_numpy(),
        "trait_set": traits["trait_set"].to_numpy(),
        "judge": traits["judge"].to_numpy(),
        "scored": traits["scored"].to_numpy(bool),
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
    # The constitutions with EigenBench judgments (`eigenbench.constitutions`: name,
    # criteria, models, judgments, datasets): their models get pages.
    constitutions: pd.DataFrame
    output: SiteOutput
    progress: Progress
    registry: Registry = field(default_factory=Registry)
    scores: Scores = field(default_factory=empty_scores)  # declared panels pooled
    judge_scores: Scores = field(default_factory=empty_scores)  # panel members' own
    lmlpa: Scores = field(default_factory=empty_scores)  # LMLPA's item ratings (Big Five page)
    base_dir: Path | None = None
    files: list[Path] = field(default_factory=list)  # every annotation file read
    notes: list[str] = field(default_factory=list)  # what the build left out, said once
    cache: ResultsCache = field(default_factory=ResultsCache)
    _texts: dict[str, Texts | None] = field(default_factory=dict)
    _preferences: dict[str, np.ndarray] = field(default_factory=dict)
    _judges: dict[str, str | None] = field(default_factory=dict)
    _seeded: dict[str, pd.DataFrame] = field(default_factory=dict)
    _prepared: dict[Callable[[SiteContext], Any], Any] = field(default_factory=dict)
    _labels: tuple[pd.DataFrame, pd.Series] | None = None
    _ahead: Ahead | None = None  # the child computing the slowest tables ahead

    @classmethod
    def create(cls, config: SiteConfig, annotations: Annotations, output: SiteOutput,
               progress: Progress, base_dir: Path | None, files: list[Path], *,
               registry: Registry | None = None, scores: Scores | None = None,
               cache: ResultsCache | None = None) -> SiteContext:
        """`annotations` name models by registry id (ffsite.models.apply_registry);
        `cache`: results kept from an earlier build (`ffsite serve`), else a fresh one."""
        progress.step("computing tables")
        reference, models = config.reference_model, annotations.models
        if reference is not None and models and reference not in models:
            raise FfsiteError(f"{config.content_dir / CONFIG_FILE}: reference_model "
                              f"'{reference}' is not in the annotations; set it to one of: "
                              + ", ".join(models[:10]) + (" ..." if len(models) > 10 else ""))
        registry = registry or Registry()
        every_score = scores if scores is not None else empty_scores()
        scores, lmlpa = split_lmlpa(every_score)  # questionnaire items are not traits
        # Other judges' scores on a dataset stand apart; then a panel's mean is its judge.
        scores, judge_scores = pool_panels(keep_apart(scores, SCORE_JUDGES), PANELS)
        votes = results.trait_votes(annotations)
        traits = trait_table(votes, scores)
        labels = traits.set_index("trait_id")["label"]
        by_model = results.model_results(annotations, votes, reference, config.min_valid_votes)
        datasets = results.dataset_summary(annotations)
        scored = every_score.responses[["dataset", "model"]].dropna().drop_duplicates()
        model_ids = set(by_model.models["model"]) | set(registry.ids(
            scored["dataset"], scored["model"])) | ({reference} & set(models))  # its own page
        constitutions = eigenbench.constitutions(annotations, registry)
        for dataset in [*pairwise_datasets(annotations, reference, judged_each_other(
                constitutions)), *judged_each_other(constitutions)]:
            own = annotations.comparisons[annotations.comparisons["dataset"] == dataset]
            model_ids |= set(own["model_a"].dropna()) | set(own["model_b"].dropna())
        return cls(config=config, annotations=annotations, votes=votes, traits=traits,
                   slugs=Slugs.create(dict(zip(traits["trait_id"], traits["label"],
                                               strict=True)),
                                      sorted(model_ids, key=str.lower),
                                      datasets["dataset"]),
                   models=replace(by_model, traits=labelled(by_model.traits, labels)),
                   datasets=datasets,
                   dataset_traits=labelled(results.dataset_results(
                       annotations, votes, config.min_valid_votes), labels),
                   constitutions=constitutions, output=output, progress=progress,
                   registry=registry, scores=scores, judge_scores=judge_scores,
                   lmlpa=lmlpa, base_dir=base_dir,
                   files=files, cache=cache or ResultsCache())

    @property
    def min_valid(self) -> int:
        return self.config.min_valid_votes

    @property
    def labels(self) -> pd.Series:
        """Each trait's label, by trait id."""
        # Pages ask ~900 times a build: made once per `traits` table, and handed out as
        # shallow copies (copy-on-write: a page changing its copy changes no other).
        if self._labels is None or self._labels[0] is not self.traits:
            self._labels = (self.traits, self.traits.set_index("trait_id")["label"])
        return self._labels[1].copy(deep=False)

    def prepared(self, prepare: Callable[[SiteContext], T]) -> T:
        """`prepare(self)`, computed on the first call and kept for the build: the work a
        page kind shares between its pages (each model page's section providers rank
        every model once, not once per page).  Kept by the function itself, so pass a
        module-level function (a new lambda would be a new key each time)."""
        if prepare not in self._prepared:
            if self._ahead is not None:
                self._ahead.wait_for(prepare)
            self._prepared[prepare] = prepare(self)
        return self._prepared[prepare]

    @property
    def forks_pay(self) -> bool:
        """Whether the site is large enough for a forked child to save time."""
        return (len(self.annotations.votes) + len(self.scores) + len(self.judge_scores)
                >= FORK_FROM_ROWS)

    def compute_ahead(self, tables: Sequence[str | Callable[[SiteContext], Any]]) -> None:
        """Compute `tables` (a table's name, or a `prepared` function) ahead, in a child
        process, while pages are built (ffsite.site.ahead), when forks pay;
        `finish_ahead` ends it."""
        def compute(table: str | Callable[[SiteContext], Any]) -> None:
            self.progress = Progress(quiet=True)  # (the child's copy: it says nothing)
            getattr(self, table) if isinstance(table, str) else self.prepared(table)
        self._ahead = Ahead.start(tables if self.forks_pay else [], compute)

    def wait_ahead(self) -> None:
        """Return once every table computed ahead is in (or its child has ended)."""
        if self._ahead is not None and self._ahead.tables:
            self._ahead.wait_for(self._ahead.tables[-1])

    def finish_ahead(self) -> None:
        """Stop computing ahead: every page is built."""
        if self._ahead is not None:
            self._ahead.finish()
            self._ahead = None

    # ------------------------------------------------------------------ the tables

    @once
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

    @once
    def ratings(self) -> pd.DataFrame:
        """Per-trait Elo ratings anchored on the reference model (empty without one),
        with the trait's label."""
        anchor = self.config.reference_model
        if anchor is None or anchor not in self.annotations.models:
            table = pd.DataFrame(columns=list(results.RATING_COLUMNS))
        else:
            table = self._kept(self.cache.ratings, "rating models",
                               lambda: results.ratings_table(
                                   self.annotations, anchor=anchor, seed=0,
                                   n_bootstrap=self.config.rating_resamples), anchor)
        return labelled(table, self.labels).drop(columns="description")

    @once
    def score_results(self) -> ScoreResults:
        """What the judge scores say (means, strengths, pressure, ratings), by registry
        id."""
        def compute() -> ScoreResults:
            return results.score_results(
                self.scores, self.registry, preferred_anchor=self.config.anchor_model,
                n_bootstrap=self.config.rating_resamples, members=self.judge_scores,
                floors=RUBRIC_FLOORS, units=UNITS)

        # Seeded, so the same scores always give the same tables: kept on disk for the
        # next build (ffsite._stored), under the scores, the registry, the settings and
        # the code of every module the results read.
        inputs = (self.scores, self.registry, self.config.anchor_model,
                  self.config.rating_resamples, self.judge_scores, RUBRIC_FLOORS, UNITS)
        return self._kept(self.cache.score_results, "scoring models",
                          lambda: remembered("score-results", SCORE_CODE, inputs, compute),
                          self.config.anchor_model)

    @once
    def pairwise(self) -> dict[str, PairwiseResults]:
        """Per dataset of judged pairs without the reference model (EQ-Bench 3): each
        model against the others, and ratings."""
        def compute() -> dict[str, PairwiseResults]:
            return {dataset: results.pairwise_results(
                        self.annotations, dataset, min_valid_votes=self.min_valid,
                        preferred_anchor=self.config.anchor_model,
                        n_bootstrap=self.config.rating_resamples)
                    for dataset in pairwise_datasets(
                        self.annotations, self.config.reference_model,
                        judged_each_other(self.constitutions))}
        return self._kept(self.cache.pairwise, "rating judged pairs", compute,
                          self.config.reference_model, self.min_valid,
                          self.config.anchor_model)

    def _kept(self, kept: Kept[T], what: str, compute: Callable[[], T],
              *settings: object) -> T:
        """`compute()`, or the cache's result from the same files, registry and
        `settings` (and bootstrap resamples)."""
        files = tuple((str(f), f.stat().st_size, f.stat().st_mtime_ns) for f in self.files)

        def announced() -> T:
            self.progress.step(f"{what} ({self.config.rating_resamples} bootstrap resamples)")
            return compute()
        return kept.get((files, self.registry, self.config.rating_resamples, *settings),
                        announced)

    @once
    def indices(self) -> pd.DataFrame:
        """Index scores (1-100) per model, from the ratings."""
        return results.indices_table(self.ratings)

    @once
    def communication(self) -> pd.DataFrame:
        """Per model and measure of the response-metrics files (the communication
        traits), its mean over the model's responses with their number and a 95%
        interval: ffsite.metrics.communication.ESTIMATE_COLUMNS.  Made from
        `response_metrics`, so the files are read once."""
        return results.communication_estimates(self.response_metrics)

    @once
    def response_metrics(self) -> pd.DataFrame:
        """Every response's measures from the response-metrics files (dataset,
        response_id, one column per measure)."""
        return read_response_metrics(self.files)

    @once
    def big_five(self) -> pd.DataFrame:
        """LMLPA's Big Five per model, rater and trait (`ffsite big-five`'s table, dropped
        items left out); empty without ratings."""
        return big_five(self.lmlpa, self.registry, n_bootstrap=self.config.rating_resamples)

    @once
    def eigenbench_results(self) -> dict[str, eigenbench.EigenBenchResult]:
        """Each constitution's fit: ratings with bootstrap intervals (`eigenbench_resamples`
        refits, seed 0: the same judgments always give the same pages)."""
        return {name: eigenbench.eigenbench(
            eigenbench.judgments_from_annotations(self.annotations, name, self.registry),
            n_bootstrap=self.config.eigenbench_resamples, seed=0)
            for name in self.constitutions["constitution"]}

    # ------------------------------------------------------- what the files say more

    def trait_vote_files(self, dataset: str) -> list[str]:
        """The votes files that may hold trait votes on `dataset`: those whose vote
        columns (their metadata) name a trait voted on in its comparisons."""
        voted = self._voted_traits(dataset)
        return [path for path in self.annotations.sources
                if any(str(column.get("trait_id")) in voted for column in
                       read_file_metadata(path).get("vote_columns") or [])]

    def seeded_votes(self, dataset: str) -> pd.DataFrame:
        """Every trait vote on `dataset` as its judge gave it, one row per seed (before
        the seeds, such as a pair's two orders, are combined): comparison_id, trait_id,
        seed, vote, margin; read from `trait_vote_files(dataset)` on the first call."""
        if dataset not in self._seeded:
            voted = self._voted_traits(dataset)
            frames = []
            for path in self.trait_vote_files(dataset):
                rows = vote_rows(path).select(SEEDED_VOTE_COLUMNS).to_pandas()
                frames.append(rows[((rows["dataset"] == dataset)
                                    & rows["trait_id"].isin(voted)).to_numpy()])
            self._seeded[dataset] = (
                pd.concat(frames, ignore_index=True) if frames
                else pd.DataFrame(columns=SEEDED_VOTE_COLUMNS)).drop(columns="dataset")
        return self._seeded[dataset]

    def _voted_traits(self, dataset: str) -> set[str]:
        """The trait ids with votes on `dataset`'s comparisons."""
        annotations = self.annotations
        on_dataset = (annotations.comparisons["dataset"] == dataset).to_numpy()[
            annotations.votes["comparison"].to_numpy()]
        voters = annotations.annotators.iloc[np.unique(
            annotations.votes["annotator"].to_numpy()[on_dataset])]
        return set(voters.loc[(voters["role"] == schema.ROLE_TRAIT).to_numpy(), "trait_id"])

    @once
    def model_runs(self) -> dict[str, list[tuple[str, dict[str, Any]]]]:
        """Per model, the run summaries (file metadata `extra`) of the files about it
        alone (it against the reference model): (file name, summary), by file path."""
        found: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        reference = self.models.reference_model
        for path, summary in sorted(self.annotations.run_summaries.items()):
            others = sorted(compared_models(path) - {reference})
            if len(others) == 1:  # a file about many models is not one model's run
                found.setdefault(others[0], []).append((Path(path).name, summary))
        return found

    def texts(self, dataset: str) -> Texts | None:
        """Prompts and responses of a base dataset, or None (noted once) when missing."""
        if dataset not in self._texts:
            found = load_texts(self.base_dir, dataset) if self.config.examples else None
            if found is None and self.config.examples:
                self.notes.append(f"examples omitted: base dataset {dataset} not available; "
                                  "run ffsite fetch or pass --base-data DIR")
            record = find(dataset)
            if found is not None and record is not None and record.answers:
                found = with_contributed_answers(found, self.files, record.hook("answers"))
            self._texts[dataset] = found
        return self._texts[dataset]

    def preference_of(self, row: int) -> tuple[str, int] | None:
        """(readable name, vote code) of a comparison's default preference annotator, if
        it voted."""
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
        return (judge_label(self.annotations, judge), code) if code else None


def judged_each_other(constitutions: pd.DataFrame) -> list[str]:
    """The datasets of models judging each other (EigenBench's judgments)."""
    return sorted({d for found in constitutions["datasets"] for d in found})


def judge_label(annotations: Annotations, judge: str) -> str:
    """A preference judge as readers should see it: its description up to the first
    comma ("AlpacaEval 2.0 judge (GPT-4 Turbo)"), else its id."""
    description = annotations.preference_descriptions.get(judge) or ""
    return description.split(", ")[0].strip() or judge


def pairwise_datasets(annotations: Annotations, reference_model: str | None,
                      exclude: Iterable[str] = ()) -> list[str]:
    """Datasets whose trait votes compare models with each other but never with the
    reference model: they get their own results (`SiteContext.pairwise`).  `exclude`:
    datasets of models judging each other (EigenBench), whose judges are the models
    themselves and which get EigenBench's results instead."""
    comparisons = annotations.comparisons
    found = []
    skipped = set(exclude)
    for dataset in [d for d in annotations.datasets if d not in skipped]:
        own = comparisons[(comparisons["dataset"] == dataset).to_numpy()]
        models = set(own["model_a"].dropna()) | set(own["model_b"].dropna())
        if len(models) >= 2 and reference_model not in models:
            found.append(dataset)
    return found
