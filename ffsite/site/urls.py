"""Where each page lives and how one page links to another.

A page's path is relative to the site's top ("ratings.html", "models/m1.html"); a link
climbs from the linking page's folder back to the top first ("../traits/t.html"), so
the site works under any subpath and from file://.  Models, datasets and traits get a
page each, named by a slug of their name (trait: of its id).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from ffsite._names import safe_name
from ffsite.errors import FfsiteError

MODELS, DATASETS, TRAITS = "models", "datasets", "traits"  # folders of per-item pages


def page_path(name: str, slug: str | None = None) -> str:
    """A page's path from the site's top: page_path("ratings") is "ratings.html",
    page_path(MODELS, "m1") is "models/m1.html"."""
    return f"{name}.html" if slug is None else f"{name}/{slug}.html"


def root(page: str) -> str:
    """The way back to the site's top from `page` ("" or "../")."""
    return "../" * page.count("/")


def link(source: str, target: str) -> str:
    """The href on page `source` that leads to `target` (a page or file path)."""
    return root(source) + target


@dataclass(frozen=True)
class Slugs:
    """The page name of every model, dataset and trait (by trait id) that has a page."""

    models: dict[str, str]
    datasets: dict[str, str]
    traits: dict[str, str]

    @classmethod
    def create(cls, trait_ids: Iterable[str], models: Iterable[str],
               datasets: Iterable[str]) -> Slugs:
        return cls(traits=unique_slugs(trait_ids, "trait id"),
                   models=unique_slugs(models, "model"),
                   datasets=unique_slugs(datasets, "dataset"))

    def page(self, folder: str, name: str) -> str | None:
        """The path of `name`'s page in `folder` (MODELS, ...); None if it has none."""
        slug = getattr(self, folder).get(name)
        return None if slug is None else page_path(folder, slug)

    def pages(self, folder: str) -> dict[str, str]:
        """{name: path of its page} for every page in `folder`."""
        return {name: page_path(folder, slug) for name, slug in getattr(self, folder).items()}


def unique_slugs(names: Iterable[str], what: str) -> dict[str, str]:
    """{name: safe_name(name)}; stop if two names would share a page."""
    names = [str(name) for name in names]
    slugs = [safe_name(name) for name in names]
    folded = pd.Series([slug.lower() for slug in slugs])
    if folded.duplicated().any():
        clash = names[int(folded.duplicated().to_numpy().argmax())]
        raise FfsiteError(f"{what} '{clash}' gives the same page name as another {what} "
                          "(names differing only in case or punctuation); rename one")
    return dict(zip(names, slugs, strict=True))
