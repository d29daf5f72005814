"""Hostile text in every field that reaches a page is shown as text, never run."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from helpers import write_test_votes
from site_fixture import REPO, write_content

from ffsite.base.texts import write_texts
from ffsite.site.build import build_site
from ffsite.traits import PREFIX, trait_id

LONG = "W" * 50_000
MODELS = ['<script>alert("model")</script>', '" onmouseover="alert(1)', "javascript:alert(1)",
          "m" + "<b>long</b>" * 300]
DATASET = "<img src=x onerror=alert('dataset')>"
WORDING = PREFIX + 'is <b onclick="alert(1)">evil</b> & "quoted"'
TRAITS = [
    {"role": "trait", "trait_id": trait_id(WORDING), "trait": WORDING, "trait_set": "x<y"},
    {"role": "trait", "trait_id": "<svg onload=alert(1)>", "trait": PREFIX + "plain",
     "trait_set": "javascript:alert(1)"},
]
JUDGE = "<script>alert('judge')</script>"
# Every response carries every attack, so whichever pair a page shows has them all.
RESPONSE = "\n\n".join([
    '<img src="https://evil.example/x.png" onerror="alert(1)"> <script>alert(1)</script>',
    "[click](javascript:alert(1)) and ![pic](https://evil.example/y.png)",
    '<a href="https://evil.example" onclick="alert(1)">x</a> <style>body{display:none}</style>',
    "<iframe src='https://evil.example'></iframe>",
    "[relative](../../index.html) <svg onload=alert(1)>",
    "<div><table><tr><td>unbalanced <b>bold <i>and",
    LONG])
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


def write_hostile(root):
    """One annotation file per model (with an annotate-run summary), and the texts."""
    responses = {}
    for i, model in enumerate(MODELS):
        comparisons, votes = [], []
        for j in range(3):
            cid = f"c{i}-{j}"
            a, b = (model, "R") if j % 2 else ("R", model)
            comparisons.append({"dataset": DATASET, "comparison_id": cid,
                                "prompt_id": f"p{i}", "model_a": a, "model_b": b,
                                "response_a_id": f"ra{cid}", "response_b_id": f"rb{cid}",
                                "meta.<i onmouseover=alert(1)>": ["</table><script>x</script>",
                                                                  "javascript:alert(2)"][j % 2]})
            responses[f"ra{cid}"] = responses[f"rb{cid}"] = RESPONSE
            for k, columns in enumerate(TRAITS):
                votes.append({"comparison_id": cid, **columns, "judge": JUDGE,
                              "vote": "AB"[(i + j + k) % 2]})
            votes.append({"comparison_id": cid, "role": "preference", "judge": JUDGE,
                          "vote": "AB"[j % 2]})
        write_test_votes(root / "annotations" / f"hostile-{i}.parquet", comparisons, votes,
                         annotators={JUDGE: "<script>alert('description')</script>"},
                         extra={"model": model, "cost": "<img src=x onerror=alert(1)>",
                                "calls": 3})
    prompts = {f"p{i}": "<script>alert('prompt')</script>\n" + LONG for i in range(len(MODELS))}
    write_texts(root / "base", DATASET, prompts, responses)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    write_hostile(root)
    build_site(root / "annotations", root / "site", base_data=root / "base",
               content=write_content(root / "content", min_valid_votes=1),
               templates=REPO / "templates")
    return root / "site"


class Inspector(HTMLParser):
    """Records everything in a page that could run or load something."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.stack: list[str] = []
        self.in_script = False

    def handle_starttag(self, tag, attrs):
        names = dict(attrs)
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"event handler {name} on <{tag}>")
            if name in ("href", "src", "action") and value and value.strip().lower(
                    ).startswith(("javascript:", "data:", "vbscript:")):
                self.problems.append(f"<{tag} {name}={value!r}>")
        if tag in ("img", "iframe", "style", "object", "embed", "svg", "form") and not (
                tag == "form" and names.get("id") == "compare-form"):
            self.problems.append(f"unexpected <{tag}>")
        if tag == "script":
            ours = names.get("type") == "application/json" or (
                names.get("src", "").startswith(("assets/", "../assets/"))
                and "//" not in names.get("src", ""))
            if not ours:
                self.problems.append(f"script {names}")
            self.in_script = True
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag == "script":
            self.in_script = False
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes <{self.stack[-1] if self.stack else ''}>")
            return
        self.stack.pop()

    def handle_data(self, data):
        if self.in_script and "<" in data:
            self.problems.append("markup inside a script element")


def test_hostile_text_is_inert_on_every_page(site):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 14
    for page in pages:
        inspector = Inspector()
        inspector.feed(page.read_text("utf-8"))
        inspector.close()
        assert inspector.problems == [], page
        assert inspector.stack == [], page  # every element closed: the layout holds


def test_hostile_text_is_shown_as_text(site):
    home = (site / "index.html").read_text("utf-8")
    assert "&lt;script&gt;alert(&#34;model&#34;)&lt;/script&gt;" in home
    model_pages = sorted((site / "models").glob("*.html"))
    assert len(model_pages) == len(MODELS)
    assert all(p.name.endswith(".html") and "<" not in p.name for p in model_pages)
    texts = "".join(p.read_text("utf-8") for p in model_pages)
    assert "&lt;script&gt;alert(&#39;prompt&#39;)" in texts  # the prompt, as text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in texts  # a response's raw HTML
    assert "evil.example/x.png" in texts  # shown as text, never loaded
    assert 'href="javascript' not in texts and "../../index.html" not in texts
    assert "cost" in texts and "&lt;img src=x onerror=alert(1)&gt;" in texts  # run summary


def test_dataset_and_metadata_names_are_escaped(site):
    (page,) = (site / "datasets").glob("*.html")
    html = page.read_text("utf-8")
    assert "&lt;img src=x onerror=alert(&#39;dataset&#39;)&gt;" in html
    assert "&lt;i onmouseover=alert(1)&gt;" in html
    assert "&lt;/table&gt;&lt;script&gt;x&lt;/script&gt;" in html


def test_no_script_from_data_runs_in_a_browser(site):
    from playwright.sync_api import sync_playwright

    from ffsite.site.serve import make_server, serve_in_background, url_of

    server = make_server(site, 0, "/ffsite/")
    serve_in_background(server)
    root = url_of(server, "/ffsite/")
    dialogs, foreign = [], []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                                 args=["--no-sandbox"], headless=True)
            page = browser.new_page()
            page.on("dialog", lambda dialog: (dialogs.append(dialog.message),
                                              dialog.dismiss()))
            page.on("request", lambda request: None if request.url.startswith(root)
                    else foreign.append(request.url))
            for html in sorted(site.rglob("*.html")):
                page.goto(root + html.relative_to(site).as_posix())
                page.mouse.move(200, 300)
                page.wait_for_timeout(100)
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    assert dialogs == [] and foreign == []
