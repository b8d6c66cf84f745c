"""The web table in a real browser: headless Chromium (Debian's ``chromium`` package, which
``.ci/run`` installs when it is missing) plays one whole Gongzhu game and one whole Dou Dizhu
game with bidding against the random player, clicking the highlighted cards as a person does:
an illegal Gongzhu click refused with its reason, illegal Dou Dizhu selections whose reason (in
card words) shows before Play, which stays disabled, the Dou Dizhu hand at a phone's 420 px,
and a Tractor game played by the Hint up to the person's first lead.  The screenshots stay in
``tests/output/web/`` (ignored by git)."""

from __future__ import annotations

import os
import pathlib
import re
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


def screenshot(page, name: str, full_page: bool = False) -> pathlib.Path:
    OUTPUT.mkdir(parents=True, exist_ok=True)
    path = OUTPUT / name
    page.screenshot(path=str(path), full_page=full_page)
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


def my_turn(page, before: str | None, timeout: float = 60_000) -> str:
    """Wait for the person's turn (or the end) in a position after ``before`` (the page's count
    of moves when the person last moved); "you" or "over"."""
    page.wait_for_function(
        "([before]) => document.body.dataset.moves !== before &&"
        " ['you', 'over'].includes(document.body.dataset.turn)", arg=[before or ""],
        timeout=timeout)
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


def warned(page) -> str:
    """The reason a selection cannot be played, shown before Play (which is disabled)."""
    page.wait_for_selector("#message.warn")
    assert page.is_disabled("#submit")
    return page.inner_text("#message")


def clear(page) -> None:
    page.click("#actions button:text('Clear')")
    page.wait_for_function("!document.querySelector('#hand .card.selected')")


# notation a person does not read: joker codes, T for ten, quoted codes, the move table
NOTATION = re.compile(r"\b(XJ|DJ|[0-9TJQKA]+[BR]|[BR][0-9TJQKA]+)\b|\bT[♠♥♦♣]|'|move table")


def no_move(page) -> str:
    """Select two cards that make no move and no part of one (the top card and, from the
    bottom up, another): the page's reason."""
    cards = page.locator("#hand .card")
    n = cards.count()
    for other in range(n - 1, 0, -1):
        if cards.nth(other).get_attribute("data-id") == cards.nth(0).get_attribute("data-id"):
            break
        select_card(page, "#hand .card >> nth=0")
        select_card(page, f"#hand .card >> nth={other}")
        page.wait_for_selector("#message.warn, #message.info")
        if page.locator("#message.warn").count():
            return warned(page)
        clear(page)
    raise AssertionError("no two cards of this hand make no move")


def narrow_hand(page, name: str) -> None:
    """The hand at a phone's 420 px: every card inside the viewport, each showing its corner
    (at least 44% of its width), nothing wider than the page."""
    page.set_viewport_size({"width": 420, "height": 900})
    page.wait_for_function("document.documentElement.clientWidth === 420")
    page.evaluate("window.dispatchEvent(new Event('resize'))")
    boxes = page.evaluate("""[...document.querySelectorAll('#hand .hand-row')].map(row =>
        [...row.querySelectorAll('.card')].map(c => {
          const r = c.getBoundingClientRect(); return [r.left, r.right]; }))""")
    screenshot(page, name, full_page=True)
    assert sum(map(len, boxes)) >= 20 and len(boxes) >= 2
    for row in boxes:
        assert all(0 <= left and right <= 420 for left, right in row), row
        steps = [b[0] - a[0] for a, b in zip(row, row[1:])]
        width = row[0][1] - row[0][0]
        assert not steps or min(steps) >= 0.44 * width, (steps, width)
    assert page.evaluate("document.documentElement.scrollWidth") <= 420
    page.set_viewport_size({"width": 1400, "height": 860})
    page.evaluate("window.dispatchEvent(new Event('resize'))")


def test_a_whole_gongzhu_game_in_the_browser(page, url):
    sit_down(page, url, "gongzhu", seed=7)
    before, reason = None, None
    assert my_turn(page, before) == "you"
    page.click("#hint")  # one card a move: the Hint's card rises, a click plays it
    assert page.locator("#hand .card.hinted.playable").count() == 1
    before = moves(page)
    click_card(page, "#hand .card.hinted")
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
    before, reason, words, bid = None, None, None, False
    while my_turn(page, before) == "you":
        phase = page.evaluate("document.body.dataset.phase")
        before = moves(page)
        if phase == "bidding":
            page.click("#hint")  # a bid or no bid: its button glows
            assert page.locator("#actions button.choice.hinted").count() == 1
            screenshot(page, "doudizhu-bidding.png")
            page.locator("#actions button.choice:not([disabled])").last.click()  # the top bid
            bid = True
            continue
        assert page.inner_text("#phase") == "Plays"  # no tricks in Dou Dizhu
        if words is None:  # the landlord's first lead, 20 cards: a phone's width, a non-move
            narrow_hand(page, "doudizhu-420.png")
            words = no_move(page)
            screenshot(page, "doudizhu-no-move.png")
            clear(page)
        if reason is None and page.locator("#hand .card:not(.playable)").count() \
                and page.locator("#hand .card.playable").count() \
                and page.inner_text("#prompt").startswith("Beat "):
            select_card(page, "#hand .card:not(.playable)")  # a card that beats nothing
            reason = warned(page)  # said before Play, which cannot be pressed
            assert moves(page) == before
            screenshot(page, "doudizhu-refused.png")
            clear(page)
        if not page.locator("#hand .card.playable").count():
            page.click('#actions button[data-move="pass"]')
            continue
        while not page.locator("#submit.ready").count():
            select_card(page, "#hand .card.playable")
        page.click("#submit")
    assert bid and reason is not None and " does not beat " in reason
    assert re.search(r" (is|are) not a Dou Dizhu move: a move is a single", words), words
    assert not NOTATION.search(words) and not NOTATION.search(reason), (words, reason)
    assert page.inner_text("#result h2") == "Game over"
    assert "win" in page.inner_text("#result")
    path = screenshot(page, "doudizhu-over.png")
    data = path.read_bytes()
    assert len(data) > 1000 and data[:8] == b"\x89PNG\r\n\x1a\n"
    assert page.errors == []


def test_tractor_played_by_the_hint_up_to_a_lead_in_the_browser(page, url):
    """Every decision by the Hint (a declaration's button glows; cards are chosen and Play is
    ready) until the person leads: the hinted lead is played, not refused."""
    sit_down(page, url, "tractor", seed=5)
    before, led = None, False
    while not led:
        # the first table of Tractor compiles its env first: a minute or more
        assert my_turn(page, before, timeout=300_000) == "you"
        phase = page.evaluate("document.body.dataset.phase")
        before = moves(page)
        page.click("#hint")
        if phase in ("declare", "overturn"):
            page.click("#actions button.choice.hinted")
            continue
        page.wait_for_selector("#submit.ready:not([disabled])")
        led = page.inner_text("#prompt").startswith("Your lead")
        if led:
            assert page.locator("#hand .card.selected").count() >= 1
            screenshot(page, "tractor-hint-lead.png")
        page.click("#submit")
        page.wait_for_function("([b]) => document.body.dataset.moves !== b", arg=[before])
        assert page.locator("#message.error").count() == 0
    page.click("#leave")
    assert page.errors == []
