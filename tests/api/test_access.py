"""The search page, the admin console and the embeddable widget on a phone (390 px wide) in a real headless
Chromium: nothing wider than the screen, the widget's results floating over the host page, and axe-core
(``tests/browser``, installed by ``scripts/bootstrap.sh``) finding no serious or critical violation."""
from __future__ import annotations

import json
from urllib.parse import urlencode

from core.settings import PROJECT_ROOT
from tests.api.test_pages import served  # noqa: F401 - the app on loopback, signed in as an admin
from tests.api.test_widget import intranet, searched_on, widget_api  # noqa: F401 - a host page with the widget
from tests.test_samples import facts_table

AXE = PROJECT_ROOT / "tests" / "browser" / "node_modules" / "axe-core" / "axe.min.js"
PHONE = (390, 844)  # CSS pixels: a common phone held upright
SERIOUS = ("serious", "critical")  # axe's impacts that fail a page; moderate and minor ones are left to judgement
# How far the page reaches sideways beyond the screen, in CSS pixels (0 when nothing overflows).
OVERFLOW = "document.documentElement.scrollWidth - document.documentElement.clientWidth"


def phone(page):
    """The tab the size of a phone's screen."""
    width, height = PHONE
    page.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=True)
    return page


def violations(page, context: str = "document") -> list[dict]:
    """axe-core's serious and critical violations on the page as shown (``context``: what to check of it)."""
    assert AXE.exists(), "axe-core is installed by scripts/bootstrap.sh (npm ci in tests/browser)"
    page.evaluate(AXE.read_text())
    found = page.evaluate(f"axe.run({context}, {{resultTypes: ['violations']}}).then(r => r.violations.map(v => "
                          "({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(' '))})))")
    return [v for v in found if v["impact"] in SERIOUS]


def test_the_search_page_on_a_phone_fits_and_passes_axe(page, served, sample_corpus):
    fact = next(f for f in facts_table() if f["Kind"] == "rare error code")
    phone(page)
    page.open(f"{served}/?{urlencode({'q': fact['Query']})}")
    page.wait_for("document.querySelectorAll('#results .hit').length > 0", "the results")
    page.screenshot("phone-search.png", whole_page=True)
    assert page.evaluate(OVERFLOW) <= 0
    assert violations(page) == []


def test_the_titles_under_the_box_on_a_phone_fit_and_pass_axe(page, served, sample_corpus):
    phone(page)
    page.open(f"{served}/")
    page.wait_for("!!document.getElementById('q')", "the search page")
    page.click("#q")
    page.type("tidesense")
    page.wait_for("document.querySelectorAll('#titles li').length >= 2", "the titles under the box")
    page.press("ArrowDown")
    page.screenshot("phone-titles.png")
    assert page.evaluate(OVERFLOW) <= 0
    assert violations(page) == []


def test_the_console_on_a_phone_fits_and_passes_axe(page, served, sample_corpus, settings):
    phone(page)
    page.open(f"{served}/admin")
    page.wait_for("document.getElementById('console').checkVisibility() && !!document.querySelector('#jobs td')",
                  "the console")
    page.screenshot("phone-console.png", whole_page=True)
    assert page.evaluate(OVERFLOW) <= 0
    shown_alias = page.evaluate("document.getElementById('alias').textContent")
    assert shown_alias == f"· index {settings.opensearch.index_alias}"  # the alias this console serves
    assert violations(page) == []


def test_the_widget_on_a_phone_floats_its_results_over_the_page_and_passes_axe(page, widget_api, intranet):
    _, allowed, _ = intranet
    phone(page)
    page.open(allowed + "/")
    box = "document.querySelector('.evident-widget')"
    page.wait_for(f"!!{box}", "the widget")
    shown = searched_on(page, "TideSense")
    page.screenshot("phone-widget.png")
    assert shown["listed"] and shown["options"]
    position, top, bottom = page.evaluate(f"(l => [getComputedStyle(l).position, l.getBoundingClientRect().top, "
                                          f"l.getBoundingClientRect().bottom])({box}.querySelector('.evident-results'))")
    # Out of the page's flow: the box ends where the list begins, so what follows the box stays where it was.
    assert position == "absolute" and abs(page.evaluate(f"{box}.getBoundingClientRect().bottom") - top) <= 1
    assert bottom > top
    assert page.evaluate(OVERFLOW) <= 0
    assert violations(page, json.dumps(".evident-widget")) == []


def test_the_widget_without_a_good_match_passes_axe(page, widget_api, intranet):
    """The state with a line over the closest pages: the line is for the eye, the status line says it aloud."""
    _, allowed, _ = intranet
    phone(page)
    page.open(allowed + "/")
    shown = searched_on(page, "Who approves my expense report?")  # no page on expenses: the closest pages
    assert shown["status"].startswith("No good match") and shown["options"]
    assert page.evaluate("document.querySelector('.evident-widget .evident-separator').textContent") == "Closest pages"
    assert page.evaluate(OVERFLOW) <= 0
    assert violations(page, json.dumps(".evident-widget")) == []
