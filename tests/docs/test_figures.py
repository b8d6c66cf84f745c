"""The results README.md and docs/*.md quote are benchmarks/RESULTS.md's, with the same value.

RESULTS.md is the record: the newest figure of each measurement.  A page that quotes a figure
``mean ± error`` (``+0.21 ± 0.03``, ``−13.8 ± 33.9``, ``69.3% ± 2.0``), a duration ``3 min 05 s``,
or (in the README's tables, which quote headline figures without their error) ``WPG +91``,
``ADP +0.12``, ``AAPD +18``, must find it in RESULTS.md at the page's precision: RESULTS'
``+0.211 ± 0.032`` is quoted as ``+0.21 ± 0.03``.  The minus sign may be ``−`` or ``-``; a figure
written without a sign ("loses 0.44 ± 0.11") matches either sign.

A few figures are quoted from the dated log alone (steps of an experiment, a variant, a pair of a
round robin: RESULTS keeps one row per measurement); they are listed below with the reason, and
must be in benchmarks/LOG.md.  A figure in neither file is listed with its reason too.
"""

from __future__ import annotations

import re

import pytest

from conftest import ROOT

RESULTS = ROOT / "benchmarks" / "RESULTS.md"
LOG = ROOT / "benchmarks" / "LOG.md"
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

NUMBER = r"[+-]?\d[\d,]*(?:\.\d+)?"
PLUS_MINUS = re.compile(rf"(?<![\w.])({NUMBER})%? ± ({NUMBER})%?")
DURATION = re.compile(r"\b\d+ min \d\d s\b")
LABELLED = re.compile(rf"\b(WPG|ADP|AAPD) ({NUMBER})(?![\d.,]| ±)")  # the README's tables

# quoted from LOG.md only: page -> (why, the figures as the page writes them)
FROM_THE_LOG = {
    "docs/dmc.md": (
        "the runs around tractor-pretrained (a second seed head to head, the network's own "
        "follows, the runs without the advice and their diagnosis); RESULTS keeps the player's "
        "rows", ["+0.08 ± 0.04", "-0.19 ± 0.03", "-0.37 ± 0.05", "-0.03 ± 0.03", "-0.13 ± 0.03",
                 "+0.16 ± 0.04", "-0.31 ± 0.03"]),
    "docs/bidding.md": (
        "bidding only the lowest bid, a variant of the 256-deal bidding runs; RESULTS keeps the "
        "tuned bidders", ["+0.28 ± 0.13"]),
    "docs/inference.md": (
        "PIMC with a network of PIMC games' worlds, and with the true world against rule players "
        "and with a value network: the experiment's steps; RESULTS keeps the two network rows",
        ["+3.2 ± 6.5", "+3.5 ± 0.5", "-5 ± 9"]),
    "docs/search.md": (
        "a pair of the Tractor round robin's table; RESULTS quotes its ε and leading pair",
        ["+0.59 ± 0.08"]),
}
# in no benchmark file: (page, figure) -> why
UNRECORDED = {
    ("docs/notebook.md", "+8 ± 20"): "the notebook's own CPU run, described on its page",
    ("docs/notebook.md", "-62 ± 31"): "the same run's 16 other deals",
}


def plain(text: str) -> str:
    return text.replace("\u2212", "-")


def decimals(number: str) -> int:
    return len(number.partition(".")[2])


def value(number: str) -> float:
    return float(number.replace(",", ""))


def same(quoted: str, recorded: str, signed: bool = True) -> bool:
    """``recorded`` rounded to ``quoted``'s decimals is ``quoted`` (the sign as well when
    ``quoted`` writes one)."""
    if decimals(recorded) < decimals(quoted):
        return False
    rounded, want = round(value(recorded), decimals(quoted)), value(quoted)
    if signed and quoted[0] in "+-" and want != 0:
        return rounded == want
    return abs(rounded) == abs(want)


def plus_minus(text: str) -> list[tuple[str, str, str]]:
    """``(as written, mean, error)`` of every ``mean ± error`` in ``text``."""
    return [(m.group(0), m.group(1), m.group(2)) for m in PLUS_MINUS.finditer(plain(text))]


def recorded(mean: str, error: str, record: str) -> bool:
    return any(same(mean, m) and same(error, e, signed=False) for _, m, e in plus_minus(record))


def quoted() -> list[tuple[str, str, str, str]]:
    """``(page, line, figure, mean ± error)`` of every figure the pages quote."""
    out = []
    for page in PAGES:
        name, text = str(page.relative_to(ROOT)), plain(page.read_text())
        for m in PLUS_MINUS.finditer(text):
            out.append((name, text[:m.start()].count("\n") + 1, m.group(0), "pm"))
        for m in DURATION.finditer(text):
            out.append((name, text[:m.start()].count("\n") + 1, m.group(0), "duration"))
        if page.name == "README.md":
            for m in LABELLED.finditer(text):
                out.append((name, text[:m.start()].count("\n") + 1, m.group(0), "labelled"))
    return out


def allowed(page: str, figure: str) -> bool:
    listed = FROM_THE_LOG.get(page, ("", []))[1]
    return plain(figure) in map(plain, listed) or (page, plain(figure)) in UNRECORDED


def test_the_pages_quote_figures():
    kinds = {kind for *_, kind in quoted()}
    assert kinds == {"pm", "duration", "labelled"} and len(quoted()) > 50


def test_every_quoted_figure_is_in_the_results():
    results = plain(RESULTS.read_text())
    labelled = [m.groups() for m in LABELLED.finditer(results)] + \
        [m.groups() for m in re.finditer(rf"\b(WPG|ADP|AAPD) ({NUMBER}) ±", results)]
    missing = []
    for page, line, figure, kind in quoted():
        if kind == "pm":
            _, mean, error = plus_minus(figure)[0]
            found = recorded(mean, error, results)
        elif kind == "duration":
            found = figure in results
        else:
            label, number = LABELLED.match(figure).groups()
            found = any(lab == label and same(number, n) for lab, n in labelled)
        if not found and not allowed(page, figure):
            missing.append(f"{page}:{line}: {figure}")
    assert not missing, "figures not in benchmarks/RESULTS.md (RESULTS is the record: fix the " \
                        "page, or list the figure here with the reason): " + "; ".join(missing)


@pytest.mark.parametrize("page", sorted(FROM_THE_LOG))
def test_the_figures_from_the_log_are_in_the_log_and_on_their_page(page):
    log, results = plain(LOG.read_text()), plain(RESULTS.read_text())
    text = plain((ROOT / page).read_text())
    for figure in FROM_THE_LOG[page][1]:
        _, mean, error = plus_minus(figure)[0]
        assert figure in text, f"{page} no longer quotes {figure}: drop it from this list"
        assert recorded(mean, error, log), f"{figure} ({page}) is not in benchmarks/LOG.md"
        assert not recorded(mean, error, results), f"{figure} is in RESULTS.md: unlist it"


def test_the_unrecorded_figures_are_still_quoted_and_unrecorded():
    record = plain(RESULTS.read_text() + LOG.read_text())
    for (page, figure), why in UNRECORDED.items():
        assert why and figure in plain((ROOT / page).read_text()), (page, figure)
        _, mean, error = plus_minus(figure)[0]
        assert not recorded(mean, error, record), f"{figure} is recorded now: unlist it"


@pytest.mark.parametrize("quote, record, match", [
    ("+0.21 ± 0.03", "**+0.211 ± 0.032 levels a hand**", True),
    ("−13.8 ± 33.9", "WPG −13.8 ± 33.9 on its own", True),
    ("0.44 ± 0.11", "−0.44 ± 0.11 levels a hand", True),  # written without its sign
    ("+0.44 ± 0.11", "−0.44 ± 0.11 levels a hand", False),
    ("+0.21 ± 0.03", "+0.2 ± 0.03", False),  # more precise than the record
    ("71.5% ± 2.0", "ISMCTS (4,000) 69.3% ± 2.0", False),
    ("+274 ± 17", "+274 ± 17 against Mr Random", True),
])
def test_a_figure_matches_at_the_pages_precision(quote, record, match):
    _, mean, error = plus_minus(quote)[0]
    assert recorded(mean, error, record) is match
