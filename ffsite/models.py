"""The model registry (`content/models.toml`): one id and one page per model, whatever
each dataset calls it.

AlpacaEval says `claude-3-5-sonnet-20240620`, Behavioral Profiling `Claude-3.5-Sonnet-v1`;
an entry lists both names as aliases of one id.  A name no entry claims stays its own
model (its id is the name itself), so a contributor's new model gets a page without an
entry.  Aliases are per dataset: the same spelling may mean different models in two
datasets.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ffsite._read import read_toml
from ffsite.errors import FfsiteError
from ffsite.format import Annotations, Scores

REGISTRY_FILE = "models.toml"
_KEYS = {"id", "name", "organisation", "open_weights", "released", "aliases", "note"}


@dataclass(frozen=True)
class Model:
    id: str
    name: str  # what pages show
    organisation: str | None = None
    open_weights: bool | None = None
    released: str | None = None  # YYYY-MM-DD, YYYY-MM or YYYY
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)  # dataset -> names
    note: str | None = None  # why an alias is what it is, when that is not obvious


@dataclass(frozen=True)
class Registry:
    models: tuple[Model, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_alias", {
            (dataset, name): model.id for model in self.models
            for dataset, names in model.aliases.items() for name in names})
        object.__setattr__(self, "_by_id", {model.id: model for model in self.models})

    def model_id(self, dataset: str, name: str) -> str:
        """ffsite's id of the model `dataset` calls `name` (the name itself if unknown)."""
        return self._by_alias.get((dataset, name), name)

    def ids(self, datasets: Iterable[str], names: Iterable[str | None]) -> np.ndarray:
        """Vectorised `model_id` over pairs; None stays None.  Worked out once per
        distinct (dataset, name), then spread."""
        frame = pd.DataFrame({"dataset": list(datasets), "name": list(names)})
        if frame.empty:
            return np.array([], dtype=object)
        codes, uniques = pd.factorize(pd.MultiIndex.from_frame(frame.fillna({"name": ""})))
        resolved = np.array([None if name == "" else self.model_id(dataset, name)
                             for dataset, name in uniques], dtype=object)
        return resolved[codes]

    def resolve(self, name: str) -> str:
        """The id of a model a user names by its id or by any dataset's spelling (when
        that spelling means one model); otherwise the name itself."""
        if name in self._by_id:
            return name
        owners = {owner for (_, alias), owner in self._by_alias.items() if alias == name}
        return owners.pop() if len(owners) == 1 else name

    def get(self, model_id: str) -> Model | None:
        return self._by_id.get(model_id)

    def display_name(self, model_id: str) -> str:
        model = self._by_id.get(model_id)
        return model.name if model else model_id

    def unmatched(self, seen: Iterable[tuple[str, str]]) -> list[str]:
        """Aliases (as 'dataset: name') that none of the seen (dataset, name) pairs use,
        for datasets that were seen at all: a typo, or a model the data no longer has."""
        seen = set(seen)
        datasets = {dataset for dataset, _ in seen}
        return sorted(f"{dataset}: {name}" for (dataset, name) in self._by_alias
                      if dataset in datasets and (dataset, name) not in seen)


def load_registry(content_dir: str | Path) -> Registry:
    """Read `<content_dir>/models.toml`; no file is an empty registry."""
    path = Path(content_dir) / REGISTRY_FILE
    if not path.is_file():
        return Registry()
    document = read_toml(path)
    entries = document.get("models", [])
    if set(document) - {"models"} or not isinstance(entries, list):
        raise FfsiteError(f"{path}: expected only [[models]] entries")
    models, ids, aliases = [], set(), {}
    for number, entry in enumerate(entries):
        model = _model(entry, f"{path}: [[models]] entry {number}")
        if model.id in ids:
            raise FfsiteError(f"{path}: [[models]] entry {number}: id '{model.id}' is used "
                              "by an earlier entry; one entry per model")
        ids.add(model.id)
        models.append(model)
        for dataset, names in model.aliases.items():
            for name in names:
                if (dataset, name) in aliases:
                    raise FfsiteError(f"{path}: [[models]] entry {number}: alias '{name}' "
                                      f"in {dataset} already belongs to "
                                      f"'{aliases[(dataset, name)]}'")
                aliases[(dataset, name)] = model.id
    return Registry(tuple(models))


def _model(entry: object, where: str) -> Model:
    if not isinstance(entry, dict):
        raise FfsiteError(f"{where}: expected a table")
    if isinstance(entry.get("id"), str) and entry["id"].strip():
        where += f" (id '{entry['id']}')"  # so a mistake names the model too
    unknown = set(entry) - _KEYS
    if unknown:
        raise FfsiteError(f"{where}: unknown key '{sorted(unknown)[0]}'; allowed: "
                          + ", ".join(sorted(_KEYS)))
    for key in ("id", "name"):
        if not isinstance(entry.get(key), str) or not entry[key].strip():
            raise FfsiteError(f"{where}: '{key}' must be a non-empty text")
    for key in ("organisation", "released", "note"):
        if key in entry and (not isinstance(entry[key], str) or not entry[key].strip()):
            raise FfsiteError(f"{where}: '{key}' must be a non-empty text (leave an unknown "
                              "fact out)")
    if "open_weights" in entry and not isinstance(entry["open_weights"], bool):
        raise FfsiteError(f"{where}: 'open_weights' must be true or false")
    released = entry.get("released")
    if released is not None and not _is_date(released):
        raise FfsiteError(f"{where}: 'released' must be YYYY-MM-DD, YYYY-MM or YYYY, not "
                          f"'{released}'")
    aliases = entry.get("aliases", {})
    if not isinstance(aliases, dict):
        raise FfsiteError(f"{where}: 'aliases' must map dataset names to names")
    clean = {}
    for dataset, names in aliases.items():
        names = [names] if isinstance(names, str) else names
        if not isinstance(names, list) or not names or not all(
                isinstance(n, str) and n for n in names):
            raise FfsiteError(f"{where}: aliases.{dataset} must be a name or a list of names")
        clean[dataset] = tuple(names)
    return Model(id=entry["id"], name=entry["name"], organisation=entry.get("organisation"),
                 open_weights=entry.get("open_weights"), released=released,
                 aliases=dict(sorted(clean.items())), note=entry.get("note"))


def _is_date(text: str) -> bool:
    for pattern in ("%Y-%m-%d", "%Y-%m", "%Y"):
        try:
            dt.datetime.strptime(text, pattern)
            return True
        except ValueError:
            continue
    return False


def apply_registry(annotations: Annotations, registry: Registry) -> Annotations:
    """The same votes with every model named by its registry id (per dataset)."""
    comparisons = annotations.comparisons
    if not registry.models or comparisons.empty:
        return annotations
    datasets = comparisons["dataset"].to_numpy(object)
    renamed = comparisons.copy()
    for side in ("model_a", "model_b"):
        ids = registry.ids(datasets, comparisons[side].astype(object).where(
            comparisons[side].notna(), None).to_numpy(object))
        renamed[side] = pd.Categorical(ids)
    return dataclasses.replace(annotations, comparisons=renamed)


def source_names(annotations: Annotations, registry: Registry) -> pd.DataFrame:
    """model (registry id) -> source_model: the datasets' own spellings, '; '-joined."""
    comparisons = annotations.comparisons
    sides = pd.DataFrame({
        "dataset": np.concatenate([comparisons["dataset"].to_numpy(object)] * 2),
        "source_model": np.concatenate([comparisons[side].astype(object).to_numpy()
                                        for side in ("model_a", "model_b")])})
    sides = sides.dropna().drop_duplicates()
    sides["model"] = registry.ids(sides["dataset"], sides["source_model"])
    joined = sides.groupby("model", sort=True)["source_model"].agg(
        lambda names: "; ".join(sorted(set(names))))
    return joined.reset_index()


def names_seen(annotations: Annotations, scores: Scores) -> set[tuple[str, str]]:
    """Every (dataset, model name) the votes and scores mention."""
    comparisons = annotations.comparisons
    seen = set()
    for side in ("model_a", "model_b"):
        pairs = pd.DataFrame({"dataset": comparisons["dataset"].astype(object),
                              "model": comparisons[side].astype(object)}).dropna()
        seen |= set(pairs.drop_duplicates().itertuples(index=False, name=None))
    responses = scores.responses[["dataset", "model"]].dropna().drop_duplicates()
    return seen | set(responses.itertuples(index=False, name=None))
