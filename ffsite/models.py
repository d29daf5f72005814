"""The model registry (`content/models.toml`): one id and one page per model, whatever
each dataset calls it.

AlpacaEval says `claude-3-5-sonnet-20240620`, Behavioral Profiling `Claude-3.5-Sonnet-v1`;
an entry lists both names as aliases of one id.  A name no entry claims stays its own
model (its id is the name itself), so a contributor's new model gets a page without an
entry.  Aliases are per dataset: the same spelling may mean different models in two
datasets.

The registry is input like any other: every field passes the one text check
(ffsite._text), and one name means one model.  An id, alias or name that is another
entry's id, alias (in the same dataset) or name, or that names the site's reference
model, is refused; so is an entry that would merge a model it does not list with the
ones it does (`Registry.check_merges`, given the names the data uses).

Lineage: an entry may name its `family` (the maker's line of releases, "Claude Sonnet")
and its `predecessor` (the id of the release it replaced).  A predecessor must be another
entry, released no later than it, and predecessors never loop.

Variants: `variant_of` names the entry whose weights this one runs in another setting
(extended thinking switched on, AlpacaEval's runs prompted to be concise or verbose).  It
must be another entry's id that is not itself a variant.  Pages mark a variant of a
dataset's judge where the judge rated it: the same model judged its own weights' answers.
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
from ffsite._stored import NOT_AN_INPUT
from ffsite._text import text_problem
from ffsite.errors import FfsiteError
from ffsite.format import Annotations, Scores

REGISTRY_FILE = "models.toml"
_KEYS = {"id", "name", "organisation", "open_weights", "released", "family", "predecessor",
         "variant_of", "aliases", "note"}
_TEXT_KEYS = ("id", "name", "organisation", "released", "family", "predecessor", "variant_of",
              "note")


@dataclass(frozen=True)
class Model:
    id: str
    name: str  # what pages show
    organisation: str | None = None
    open_weights: bool | None = None
    released: str | None = None  # YYYY-MM-DD, YYYY-MM or YYYY
    family: str | None = None  # the line of releases it belongs to ("Claude Sonnet")
    predecessor: str | None = None  # the id of the release it replaced
    variant_of: str | None = None  # the id of the model it runs in another setting
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)  # dataset -> names
    note: str | None = None  # why an alias is what it is, when that is not obvious


@dataclass(frozen=True)
class Registry:
    models: tuple[Model, ...] = ()
    # The file it was read from, for messages: not what results are computed from.
    path: Path | None = field(default=None, compare=False, metadata={NOT_AN_INPUT: True})

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_alias", {
            (dataset, name): model.id for model in self.models
            for dataset, names in model.aliases.items() for name in names})
        object.__setattr__(self, "_by_id", {model.id: model for model in self.models})

    def model_id(self, dataset: str, name: str) -> str:
        """ffsite's id of the model `dataset` calls `name` (the name itself if unknown)."""
        return self._by_alias.get((dataset, name), name)

    def ids(self, datasets: Iterable[str], names: Iterable[str | None]) -> np.ndarray:
        """Vectorised `model_id` over pairs; None (and "") stays None.  Worked out once per
        distinct (dataset, name), then spread: each column is coded on its own (Arrow's
        hashing, no Python object per row) and the pairs of codes made unique."""
        dataset_codes, dataset_values = pd.factorize(_column(datasets))
        name_codes, name_values = pd.factorize(_column(names))
        if len(dataset_codes) != len(name_codes):
            raise ValueError("datasets and names differ in length")
        if not len(name_codes):
            return np.array([], dtype=object)
        width = len(name_values) + 1  # code -1 (a missing name) becomes 0
        pairs, spread = np.unique((dataset_codes + 1) * width + (name_codes + 1),
                                  return_inverse=True)
        resolved = np.empty(len(pairs), dtype=object)
        for number, pair in enumerate(pairs.tolist()):
            dataset_code, name_code = divmod(pair, width)
            name = name_values[name_code - 1] if name_code else None
            dataset = dataset_values[dataset_code - 1] if dataset_code else None
            resolved[number] = None if name is None or name == "" else self.model_id(
                dataset, name)
        return resolved[spread.reshape(-1)]

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

    def successors(self, model_id: str) -> list[str]:
        """The ids of the entries whose predecessor is `model_id`, in file order."""
        return [m.id for m in self.models if m.predecessor == model_id]

    def families(self) -> dict[str, list[Model]]:
        """Each family and its entries, in file order."""
        found: dict[str, list[Model]] = {}
        for model in self.models:
            if model.family is not None:
                found.setdefault(model.family, []).append(model)
        return found

    def check_merges(self, seen: Iterable[tuple[str, str]]) -> None:
        """Refuse a registry that would make two of the models the data names (as
        (dataset, name) pairs) one, unless its entry lists them all as aliases of that
        dataset: a name no entry claims is its own model, and an entry whose id is that
        name would silently take in its comparisons."""
        names: dict[tuple[str, str], set[str]] = {}
        for dataset, name in seen:
            names.setdefault((dataset, self.model_id(dataset, name)), set()).add(name)
        for (dataset, model_id), spellings in sorted(names.items()):
            unlisted = sorted(n for n in spellings if (dataset, n) not in self._by_alias)
            if len(spellings) > 1 and unlisted:
                listed = sorted(spellings - set(unlisted))
                raise FfsiteError(
                    f"{self.path}: in dataset '{dataset}', '{unlisted[0]}' (no entry's alias, "
                    f"so its own model) and '{listed[0]}' (an alias of '{model_id}') would be "
                    f"one model '{model_id}', their comparisons merged; give the entry "
                    f"another id, or list '{unlisted[0]}' in its aliases.{dataset} if they "
                    "are one model")

    def unmatched(self, seen: Iterable[tuple[str, str]]) -> list[str]:
        """Aliases (as 'dataset: name') that none of the seen (dataset, name) pairs use,
        for datasets that were seen at all: a typo, or a model the data no longer has."""
        seen = set(seen)
        datasets = {dataset for dataset, _ in seen}
        return sorted(f"{dataset}: {name}" for (dataset, name) in self._by_alias
                      if dataset in datasets and (dataset, name) not in seen)


def _column(values: Iterable) -> pd.Series:
    """`values` as a Series pd.factorize can code (a generator read once)."""
    if isinstance(values, pd.Series):
        return values.reset_index(drop=True)
    if not hasattr(values, "__len__"):
        values = list(values)
    return pd.Series(values, dtype=None if hasattr(values, "dtype") else object)


def load_registry(content_dir: str | Path, *, reference: str | None = None) -> Registry:
    """Read `<content_dir>/models.toml`; no file is an empty registry.  `reference` is
    the site's reference_model (content/site.toml), a model no other may be named as."""
    path = Path(content_dir) / REGISTRY_FILE
    if not path.is_file():
        return Registry()
    document = read_toml(path)
    entries = document.get("models", [])
    if set(document) - {"models"} or not isinstance(entries, list):
        raise FfsiteError(f"{path}: expected only [[models]] entries")
    models = [_model(entry, f"{path}: [[models]] entry {number}")
              for number, entry in enumerate(entries)]
    _one_name_one_model(models, path, reference)
    _lineage_checked(models, path)
    _variants_checked(models, path)
    return Registry(tuple(models), path)


def _one_name_one_model(models: list[Model], path: Path, reference: str | None) -> None:
    """Refuse an id, alias or name that an earlier entry (or the reference) already has
    as another kind of name: ids and names are the site's, aliases the data's, and
    `model_id` and `resolve` would otherwise give one name two meanings.  Two entries
    may share a display name, and an alias in two datasets.  An alias may be another
    entry's id: it is one dataset's spelling, listed on purpose, so it cannot merge
    anything silently (llm-dreams spells its own run `gemini-3-pro-preview`, the id of
    Behavioral Profiling's run); `resolve` takes an id first.  A data name no entry lists
    is `check_merges`'s to catch."""
    taken: dict[str, list[tuple[str, str]]] = {}  # a name -> [(its kind, whose)]
    if reference is not None and reference not in {m.id for m in models}:
        taken[reference] = [("id", "the site's reference_model (content/site.toml)")]
    aliases: dict[tuple[str, str], str] = {}  # (dataset, alias) -> the entry's id
    for number, model in enumerate(models):
        where = f"{path}: [[models]] entry {number}"
        if any(kind == "id" for kind, _ in taken.get(model.id, [])):
            raise FfsiteError(f"{where}: id '{model.id}' is used by an earlier entry; one "
                              "entry per model")
        mine = [("id", model.id, ("name",)), ("name", model.name, ("id", "alias"))]
        for dataset, names in model.aliases.items():
            for name in names:
                if (dataset, name) in aliases:
                    raise FfsiteError(f"{where}: alias '{name}' in {dataset} already "
                                      f"belongs to '{aliases[(dataset, name)]}'")
                aliases[(dataset, name)] = model.id
                # Not another entry's id (see above), but never the reference's.
                mine.append((f"alias in {dataset}", name,
                             ("name", "id") if name == reference else ("name",)))
        for kind, name, clashing in mine:
            for other_kind, owner in taken.get(name, []):
                if other_kind.split()[0] in clashing:
                    whose = owner if owner.startswith("the ") else f"entry '{owner}'"
                    raise FfsiteError(
                        f"{where} (id '{model.id}'): its {kind} '{name}' is already the "
                        f"{other_kind} of {whose}; one name means one model: rename one, "
                        "or make them one entry")
        for kind, name, _ in mine:
            taken.setdefault(name, []).append((kind, model.id))


def _lineage_checked(models: list[Model], path: Path) -> None:
    """Refuse a predecessor that is no entry's id, the entry itself, released after the
    entry (compared to the day both dates give), or part of a loop of predecessors."""
    by_id = {model.id: model for model in models}
    for number, model in enumerate(models):
        where = f"{path}: [[models]] entry {number} (id '{model.id}')"
        before = model.predecessor
        if before is None:
            continue
        if before not in by_id:
            raise FfsiteError(f"{where}: 'predecessor' '{before}' is no entry's id")
        if before == model.id:
            raise FfsiteError(f"{where}: 'predecessor' is the entry itself")
        earlier = by_id[before].released
        if earlier and model.released:
            shared = min(len(earlier), len(model.released))
            if earlier[:shared] > model.released[:shared]:
                raise FfsiteError(f"{where}: its predecessor '{before}' was released "
                                  f"{earlier}, after it ({model.released})")
        seen, current = {model.id}, before
        while current is not None:
            if current in seen:
                raise FfsiteError(f"{where}: its predecessors loop back to '{current}'")
            seen.add(current)
            current = by_id[current].predecessor


def _variants_checked(models: list[Model], path: Path) -> None:
    """Refuse a `variant_of` that is no entry's id, the entry itself, or a variant."""
    by_id = {model.id: model for model in models}
    for number, model in enumerate(models):
        base = model.variant_of
        if base is None:
            continue
        where = f"{path}: [[models]] entry {number} (id '{model.id}')"
        if base not in by_id:
            raise FfsiteError(f"{where}: 'variant_of' '{base}' is no entry's id")
        if base == model.id:
            raise FfsiteError(f"{where}: 'variant_of' is the entry itself")
        if by_id[base].variant_of is not None:
            raise FfsiteError(f"{where}: 'variant_of' '{base}' is itself a variant (of "
                              f"'{by_id[base].variant_of}'); name that entry instead")


def _model(entry: object, where: str) -> Model:
    if not isinstance(entry, dict):
        raise FfsiteError(f"{where}: expected a table")
    model_id = entry.get("id")
    if isinstance(model_id, str) and model_id.strip() and len(model_id) <= 100 and \
            not text_problem(model_id, one_line=True):
        where += f" (id '{model_id}')"  # so a mistake names the model too
    unknown = set(entry) - _KEYS
    if unknown:
        raise FfsiteError(f"{where}: unknown key '{sorted(unknown)[0]}'; allowed: "
                          + ", ".join(sorted(_KEYS)))
    for key in ("id", "name"):
        if not isinstance(entry.get(key), str) or not entry[key].strip():
            raise FfsiteError(f"{where}: '{key}' must be a non-empty text")
    for key in _TEXT_KEYS[2:]:
        if key in entry and (not isinstance(entry[key], str) or not entry[key].strip()):
            raise FfsiteError(f"{where}: '{key}' must be a non-empty text (leave an unknown "
                              "fact out)")
    for key in _TEXT_KEYS:
        problem = text_problem(entry.get(key), one_line=key != "note")
        if problem:
            raise FfsiteError(f"{where}: '{key}': {problem}")
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
        for name in (dataset, *names):
            problem = text_problem(name)
            if problem:
                raise FfsiteError(f"{where}: aliases.{dataset[:100]}: {problem}")
        clean[dataset] = tuple(names)
    return Model(id=entry["id"], name=entry["name"], organisation=entry.get("organisation"),
                 open_weights=entry.get("open_weights"), released=released,
                 family=entry.get("family"), predecessor=entry.get("predecessor"),
                 variant_of=entry.get("variant_of"),
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


def names_seen(annotations: Annotations, scores: Scores | None = None
               ) -> set[tuple[str, str]]:
    """Every (dataset, model name) the votes (and scores) mention."""
    comparisons = annotations.comparisons
    seen = set()
    for side in ("model_a", "model_b"):
        pairs = pd.DataFrame({"dataset": comparisons["dataset"].astype(object),
                              "model": comparisons[side].astype(object)}).dropna()
        seen |= set(pairs.drop_duplicates().itertuples(index=False, name=None))
    if scores is None:
        return seen
    responses = scores.responses[["dataset", "model"]].dropna().drop_duplicates()
    return seen | set(responses.itertuples(index=False, name=None))
