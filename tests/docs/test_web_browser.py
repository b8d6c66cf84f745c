"""The web table in a real browser: headless Chromium (Debian's ``chromium`` package, which
``.ci/run`` installs when it is missing) plays one whole Gongzhu game and one whole Dou Dizhu
game with bidding against the random player, clicking the highlighted cards as a person does,
with an illegal click each that the page refuses with the reason.  The screenshots stay in
``tests/output/web/`` (ignored by git)."""

from __future__ import annotations

import os
import pathlib
import shutil
import threading

import pytest

pytest.importorskip("flask")
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is needed")

from cardjax.web.serve import make_server  # noqa: E402
from cardjax.web.tables import Tables  # noqa: E402

CHROMIUM = next((p for p in ("/usr/bin/chromium", shutil.which("chromium"),
                             shutil.which("chromium-browser")) if p and os.path.exists(p)), None)
if CHROMIUM is None:
    pytest.skip("no Chromium found (apt-get install chromium)", allow_module_level=True)

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
OUTPUT = pathlib.Path(__file__).parents[1] / "output" / "web"


@pytest.fixture(scope="module")
def url():
    tables = Tables(idle_timeout=600)
    server = make_server("127.0.0.1", 0, tables=tables)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.port}/"
    server.shutdown()
    server.server_close()
    tables.stop()


@pytest.fixture(scope="module")
def page(url):
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 860})
        page.set_default_timeout(60_000)
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        yield page
        browser.close()


def screenshot(page, name: str) -> pathlib.Path:
    OUTPUT.mkdir(parents=True, exist_ok=True)
    path = OUTPUT / name
    page.screenshot(path=str(path))
    print(f"screenshot: {path}")
    return path


def sit_down(page, url, game: str, seed: int) -> None:
    """The lobby's form: the game, seat South, the random player everywhere, instant pace."""
    page.goto(url)
    page.click(f'.game-tile:has(input[value="{game}"])')
    page.select_option("#seat", "0")
    for seat in page.locator("#players input:not([disabled])").all():
        seat.fill("random")
    page.fill("#seed", str(seed))
    page.select_option("#pace", "0")
    page.click("#start")
    page.wait_for_selector("#table:not([hidden])")


def my_turn(page, before: str | None) -> str:
    """Wait for the person's turn (or the end) in a position after ``before`` (the page's count
    of moves when the person last moved); "you" or "over"."""
    page.wait_for_function(
        "([before]) => document.body.dataset.moves !== before &&"
        " ['you', 'over'].includes(document.body.dataset.turn)", arg=[before or ""])
    return page.evaluate("document.body.dataset.turn")


def moves(page) -> str:
    return page.evaluate("document.body.dataset.moves")


def click_card(page, selector: str) -> None:
    # cards overlap: a person clicks a card's visible corner
    page.locator(selector).first.click(position={"x": 9, "y": 30})


def select_card(page, selector: str) -> None:
    """Add a card to the selection of a several-card move, once the page has drawn it."""
    n = page.locator("#hand .card.selected").count()
    click_card(page, selector)
    page.wait_for_function(f"document.querySelectorAll('#hand .card.selected').length === {n + 1}")


def refused(page) -> str:
    page.wait_for_selector("#message.error")
    return page.inner_text("#message")


def test_a_whole_gongzhu_game_in_the_browser(page, url):
    sit_down(page, url, "gongzhu", seed=7)
    before, reason = None, None
    while my_turn(page, before) == "you":
        assert page.locator("#hand .card.playable").count() >= 1
        other = page.locator("#hand .card:not(.playable)")
        if reason is None and other.count():  # following: a card of another suit
            at = moves(page)
            click_card(page, "#hand .card:not(.playable)")
            reason = refused(page)
            assert moves(page) == at  # nothing was played
            screenshot(page, "gongzhu-refused.png")
        before = moves(page)
        click_card(page, "#hand .card.playable")
    assert reason is not None and " is not legal: you must follow " in reason
    assert page.inner_text("#result h2") == "Game over"
    assert "margin" in page.inner_text("#result")
    assert page.get_attribute("#download", "href").endswith("/record")
    path = screenshot(page, "gongzhu-over.png")
    data = path.read_bytes()
    assert len(data) > 1000 and data[:8] == b"\x89PNG\r\n\x1a\n"
    assert page.errors == []


def test_a_whole_doudizhu_game_with_bidding_in_the_browser(page, url):
    sit_down(page, url, "doudizhu", seed=11)
    assert page.is_checked('#options [data-option="bidding"]')
    before, reason, bid = None, None, False
    while my_turn(page, before) == "you":
        phase = page.evaluate("document.body.dataset.phase")
        before = moves(page)
        if phase == "bidding":
            screenshot(page, "doudizhu-bidding.png")
            page.locator("#actions button.choice:not([disabled])").last.click()  # the top bid
            bid = True
            continue
        if reason is None and page.locator("#hand .card:not(.playable)").count() \
                and page.locator("#hand .card.playable").count() \
                and page.inner_text("#prompt").startswith("Beat "):
            select_card(page, "#hand .card:not(.playable)")  # a card that beats nothing
            page.click("#submit")
            reason = refused(page)
            assert moves(page) == before
            screenshot(page, "doudizhu-refused.png")
            page.click("#actions button:text('Clear')")
        if not page.locator("#hand .card.playable").count():
            page.click('#actions button[data-move="pass"]')
            continue
        while not page.locator("#submit.ready").count():
            select_card(page, "#hand .card.playable")
        page.click("#submit")
    assert bid and reason is not None and " does not beat " in reason
    assert page.inner_text("#result h2") == "Game over"
    assert "win" in page.inner_text("#result")
    path = screenshot(page, "doudizhu-over.png")
    data = path.read_bytes()
    assert len(data) > 1000 and data[:8] == b"\x89PNG\r\n\x1a\n"
    assert page.errors == []
