"""Each page's one-sentence description: the <meta name="description"> and the preview
(Open Graph, Twitter card) text that search engines and chat apps show for a link.

A builder may pass its own `description=` to `SiteOutput.page`; otherwise the page's
template (and, for per-item pages, the item's name) decides it here, so pages added
later get a sensible text without every builder repeating boilerplate.
"""

from __future__ import annotations

from typing import Any

# The description of a top-level page, by its path.
BY_PATH = {
    "ratings.html": "Elo ratings of every model on every trait, anchored on the reference "
                    "model, and index scores built from them, with 95% intervals.",
    "pressure.html": "How each model's judged personality shifts from baseline when the "
                     "user pushes back or hurries it, trait by trait, with 95% intervals.",
    "communication.html": "How each model writes: length, lists, formatting and other "
                          "communication traits measured by program on every response.",
    "eqbench.html": "EQ-Bench 3: emotional-intelligence criteria judged in pairs, with "
                    "Bradley-Terry Elo ratings and 95% intervals per model.",
    "datasets.html": "The datasets behind the leaderboard and what each dataset's "
                     "preference votes encourage, trait by trait.",
    "traits.html": "Every personality trait and text statistic the site measures, with "
                   "the models that show each most and least.",
    "compare.html": "Set two models side by side: the difference in strength on every "
                    "trait, with 95% intervals.",
    "agreement.html": "How often two traits' votes agree: which traits measure much the "
                      "same thing across the comparisons.",
    "methodology.html": "How the leaderboard is computed: trait votes, strength, "
                        "relevance, Cohen's kappa, Elo ratings and their 95% intervals.",
    "about.html": "Where the data come from, the judges who voted, licences and credits.",
    "downloads.html": "Every table on the site as CSV and JSON, and one archive of them all.",
    "explore.html": "Explore the trait votes: pick the reference, dataset, judge, metric and "
                    "split, and page through the comparisons behind each number.",
    "judges.html": "Who judged every number: each dataset's judges, how far they agree, how "
                   "lenient each is, and whether a judge rates itself higher.",
    "eigenbench.html": "EigenBench: models judge each other against a constitution; "
                       "trust-weighted ratings with 95% intervals.",
    "big-five.html": "The Big Five personality of each model from its own words (LMLPA), "
                     "rated by an AI rater, with intervals and reliability.",
    "404.html": "There is no page at this address; links to the leaderboard, traits and "
                "datasets.",
}
TRAIT_TEMPLATES = ("trait.html", "trait_scored.html", "trait_eqbench.html")


def page_description(path: str, template: str, context: dict[str, Any],
                     default: str) -> str:
    """The page's description: the builder's own, else one from its template and item,
    else `default` (the site's)."""
    given = context.get("description")
    if given:
        return str(given)
    if template == "model.html" and context.get("name"):
        return f"{context['name']}: its personality traits and text statistics in every " \
               "dataset it appears in, with 95% intervals and example answers."
    if template in TRAIT_TEMPLATES and context.get("trait") is not None:
        label = getattr(context["trait"], "label", None) or str(context["trait"])
        return f"Trait \u201c{label}\u201d: which models show it most and least, with " \
               "95% intervals, and what the datasets' votes say about it."
    if path.startswith("eigenbench/"):
        return "EigenBench ratings under one constitution: who trusts whom among the " \
               f"judging models, and each model's rating ({path.removeprefix('eigenbench/')})."
    if template == "dataset.html" and context.get("dataset"):
        return f"Dataset {context['dataset']}: its comparisons, annotators and the traits " \
               "its preference votes encourage."
    return BY_PATH.get(path, default)
