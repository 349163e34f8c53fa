"""`metrics-etl report` and `metrics-etl export` as a user runs them, on a hand-built serving database;
the page is rendered by headless Chromium to prove the charts are really there."""

import html
import json
import os
import re
import shutil
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import duckdb
import pytest

from pipelines.publish.aggregate import publish_aggregate
from tests.integration.bi._warehouse import DAYS, LAST_DAY, NAMES, build_warehouse

ROOT = Path(__file__).resolve().parents[2]

_CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)


@pytest.fixture(scope="module")
def serving(tmp_path_factory):
    path = tmp_path_factory.mktemp("bi-e2e") / "serving.duckdb"
    build_warehouse(path)
    return path


@pytest.fixture(scope="module")
def tiered(tmp_path_factory):
    """The same warehouse with its aggregate tier published beside it (k = 2: most rows shown)."""
    path = tmp_path_factory.mktemp("bi-e2e-tiered") / "serving.duckdb"
    build_warehouse(path)
    with duckdb.connect(str(path)) as conn:
        publish_aggregate(conn, serving=path, k=2)
    return path


def _cli(*args: str, serving: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "METRICS_HOME": str(cwd),
        "SERVING_PATH": str(serving),
        "WAREHOUSE_PATH": str(cwd / "absent.duckdb"),
    }
    return subprocess.run(
        [sys.executable, "-m", "pipelines.cli", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120
    )


def _dump_dom(page: Path, profile: Path, *, window: str | None = None) -> str:
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--dump-dom",
        *([f"--window-size={window}"] if window else []),
    ]
    done = subprocess.run([_CHROMIUM, *flags, page.as_uri()], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_report_writes_a_self_contained_page_to_the_default_path_in_the_home(serving, tmp_path):
    done = _cli("report", serving=serving, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "report.html").read_text()
    assert "<script" not in html
    # No fetches: the only URL is the SVG namespace.
    assert set(re.findall(r"https?://[^\"' )]+", html)) == {"http://www.w3.org/2000/svg"}
    assert not re.search(r"\b(src|href)=", html)


@pytest.mark.skipif(_CHROMIUM is None, reason="chromium is not installed (apt-get install chromium; .ci/run does)")
def test_chromium_renders_adoption_charts_period_table_coverage_and_top_level_activity(serving, tmp_path):
    out = tmp_path / "page.html"
    assert _cli("report", "--out", str(out), serving=serving, cwd=tmp_path).returncode == 0
    dom = _dump_dom(out, tmp_path / "chromium-profile")

    assert dom.count("<svg") >= 6  # two adoption charts, coverage, three activity charts
    adoption = re.search(r"Agent adoption over time(.*?)</section>", dom, re.S).group(1)
    for name in NAMES.values():  # latest labels, never the old "Alpha (beta)"
        assert re.search(rf"<li><span[^>]*></span>{re.escape(name)}</li>", adoption), name  # the legend
        assert f'data-series="{name}"' in adoption
    assert "Alpha (beta)" not in dom
    assert re.search(r'class="gap"', adoption)  # the days without agent array are shaded
    # The newest 3 days are provisional: shaded amber on every daily chart, named in the legend.
    assert len(re.findall(r'<rect class="provisional"', adoption)) == 2 * 3
    assert "provisional: still filling in, not a drop" in adoption
    activity = re.search(r"Assistant activity \(top level\)(.*?)</section>", dom, re.S).group(1)
    assert len(re.findall(r'<rect class="provisional"', activity)) == 3 * 3
    # The headline says whose figures they are, and compares per final day with agent data.
    assert "Headline figures of <strong>organization acme</strong>" in dom
    assert "over 22 final days with agent data and the previous 28 days' 25" in dom

    periods = re.search(r"Period over period(.*?)</section>", dom, re.S).group(1)
    last_28_days = periods.split("</table>")[0]
    # Day counts of the period: 28 reported, 25 with agent data, 3 provisional, 22 compared.
    for count in (
        "25 with agent data",
        "3 provisional",
        "compared on 22 final days",
        "previous period: 25 final days with agent data",
    ):
        assert count in last_28_days, count
    rows = re.findall(r'<tr class="period-row" data-agent-id="([^"]+)">(.*?)</tr>', last_28_days, re.S)
    assert sorted(agent for agent, _ in rows) == sorted(NAMES)
    badges = {agent: re.search(r'class="badge [^"]+"[^>]*>([^<]+)<', cells).group(1) for agent, cells in rows}
    assert badges == {"a-1": "▲ grown", "c-3": "new", "d-4": "▼ shrunk", "b-2": "gone"}

    coverage = re.search(r"Report coverage(.*?)</section>", dom, re.S).group(1)
    states = re.findall(r'data-state="([^"]+)"', coverage)
    assert states.count("no array") >= 7 and states.count("agents") > 40
    # The 3 provisional days have an amber edge in both rows (aggregate and user level).
    assert re.findall(r'data-provisional="([a-z]+)"', coverage).count("true") == 2 * 3

    assert "Acceptance rate" in activity and "Daily active users" in activity

    # Teams (extension): each team's last 28 days, user 101 in both teams.
    teams = re.search(r"<h2>Teams of organization acme</h2>(.*?)</section>", dom, re.S).group(1)
    team_rows = dict(
        re.findall(r'<tr class="team-row" data-team-id="\d+"><td[^>]*>([^<]+)</td><td[^>]*>(\d+)</td>', teams)
    )
    assert team_rows == {"platform": "3", "web": "4"}
    assert "Alpha" in teams

    # Agent surfaces: the example query's answer, the known agents among them, in one measure.
    surfaces = re.search(r"<h2>Agent surfaces</h2>(.*?)</section>", dom, re.S).group(1)
    shown = [
        (scope, surface)
        for surface, scope in re.findall(
            r'<tr class="surface-row"><td[^>]*>([^<]+)</td><td[^>]*>([^<]+)</td>', surfaces
        )
    ]
    with duckdb.connect(str(serving), read_only=True) as conn:
        expected = conn.execute((ROOT / "sql/queries/select_agent_surfaces_in_use.sql").read_text()).fetchall()
    assert shown == [(f"{scope} {name}", surface) for scope, name, surface, *_ in expected] and shown

    # Repositories: named as the snapshot names them (by id), the unsnapshotted one by the report.
    repositories = re.search(r"<h2>Repositories</h2>(.*?)</section>", dom, re.S).group(1)
    repos = re.findall(
        r'<tr class="repository-row"><td[^>]*>([^<]+)</td><td[^>]*>([^<]+)</td>'
        r"<td[^>]*>(\d+)</td>",
        repositories,
    )
    assert repos == [("acme/atlas", "public", "10"), ("acme/beacon", "private", "4")]


@pytest.mark.skipif(_CHROMIUM is None, reason="chromium is not installed (apt-get install chromium; .ci/run does)")
def test_chromium_renders_a_window_over_60_days_as_weekly_charts(tmp_path):
    serving = tmp_path / "serving.duckdb"
    build_warehouse(serving)
    first = LAST_DAY - timedelta(days=DAYS - 1)
    with duckdb.connect(str(serving)) as conn:  # 35 more days before the 56: a 91-day window
        for table in ("core.daily_totals", "core.user_daily_totals", "core.agent_activity"):
            conn.execute(
                f"INSERT INTO {table} SELECT * REPLACE (day - 35 AS day) FROM {table} WHERE day < ?",
                [first + timedelta(days=35)],
            )
    out = tmp_path / "page.html"
    assert _cli("report", "--out", str(out), serving=serving, cwd=tmp_path).returncode == 0
    dom = _dump_dom(out, tmp_path / "chromium-profile")

    adoption = re.search(r"Agent adoption over time(.*?)</section>", dom, re.S).group(1)
    assert "Agent job starts per day (weekly mean per day with data)" in adoption
    weeks = {(first - timedelta(days=35) + timedelta(days=n)).isocalendar()[:2] for n in range(DAYS + 35)}
    alpha_points = re.findall(r"<circle[^>]*><title>Alpha, ", adoption.split("</figure>")[0])
    assert len(alpha_points) == len(weeks)  # one point a week, not 91 a chart
    # The weeks holding the 3 provisional days are shaded, in both charts.
    provisional_weeks = {(LAST_DAY - timedelta(days=n)).isocalendar()[:2] for n in range(3)}
    assert len(re.findall(r'<rect class="provisional"', adoption)) == 2 * len(provisional_weeks)
    activity = re.search(r"Assistant activity \(top level\)(.*?)</section>", dom, re.S).group(1)
    assert activity.count("(weekly mean per day with data)") == 2 * 3  # title and label of each chart


# Runs in the page's own frame once it has laid out: the viewport's overflow, every element a card
# (or tile) holds that pokes out of it, and every visible text smaller than 11 CSS px as drawn (a
# chart's text is scaled with its svg, so its font size is multiplied by the svg's scale).
# A figure or table may scroll sideways inside its card (overflow-x auto): it must lie within the
# card, what it holds is clipped to it, and whether it scrolls at all is reported.
_LAYOUT_PROBE = """
const doc = document.getElementById('page').contentDocument, win = doc.defaultView;
const scroller = (el) => ['auto', 'scroll'].includes(win.getComputedStyle(el).overflowX);
const out = {viewport: doc.documentElement.clientWidth, page: doc.documentElement.scrollWidth,
             outside: [], scrolling: [], small: []};
for (const box of doc.querySelectorAll('.card, .tile, .headline-scope')) {
  const edge = box.getBoundingClientRect();
  for (const el of box.querySelectorAll('*')) {
    const holder = el.parentElement.closest('figure, table');
    if (holder && box.contains(holder) && scroller(holder)) continue;
    const r = el.getBoundingClientRect();
    if (r.width && (r.left < edge.left - 0.5 || r.right > edge.right + 0.5))
      out.outside.push(`${el.tagName} "${el.textContent.trim().slice(0, 40)}" ${r.left}..${r.right} ` +
                       `outside ${edge.left}..${edge.right}`);
    if (scroller(el) && el.scrollWidth > el.clientWidth) out.scrolling.push(el.tagName);
  }
}
const texts = doc.createTreeWalker(doc.body, win.NodeFilter.SHOW_TEXT);
for (let node = texts.nextNode(); node; node = texts.nextNode()) {
  const el = node.parentElement;
  if (!node.data.trim() || el.closest('title') || !el.getClientRects().length) continue;
  const ctm = el.closest('svg') ? el.getScreenCTM() : null;
  const px = parseFloat(win.getComputedStyle(el).fontSize) * (ctm ? Math.hypot(ctm.a, ctm.b) : 1);
  if (px < 11 - 0.01) out.small.push(`${px.toFixed(1)} px: ${node.data.trim().slice(0, 40)}`);
}
// Nothing is cut: no element wider inside than its box (scrollWidth over clientWidth), none
// outside the viewport sideways, no chart text outside its drawing; each line chart's newest dot
// in view and its newest date named.
out.clipped = []; out.offscreen = []; out.cut_text = []; out.newest = []; out.team_row = 0;
const show = (el) => `${el.tagName} "${(el.textContent || '').trim().slice(0, 40)}"`;
for (const el of doc.body.querySelectorAll('*')) {
  if (!el.getClientRects().length) continue;
  const r = el.getBoundingClientRect();
  if (r.width && (r.left < -0.5 || r.right > out.viewport + 0.5))
    out.offscreen.push(`${show(el)} ${r.left}..${r.right}`);
  if (!(el instanceof win.SVGElement) && el.clientWidth && el.scrollWidth > el.clientWidth + 1)
    out.clipped.push(`${show(el)} ${el.scrollWidth} > ${el.clientWidth}`);
  if (el.tagName === 'text' && el.ownerSVGElement) {
    let svg = el.ownerSVGElement; while (svg.ownerSVGElement) svg = svg.ownerSVGElement;
    const box = svg.getBoundingClientRect();
    if (r.left < box.left - 0.5 || r.right > box.right + 0.5) out.cut_text.push(show(el));
  }
}
for (const fig of doc.querySelectorAll('figure.line-chart')) {
  const dots = fig.querySelectorAll('circle'), ticks = [...fig.querySelectorAll('svg.chart text')]
    .filter((t) => t.getClientRects().length).map((t) => t.textContent);
  const last = dots[dots.length - 1].getBoundingClientRect();
  out.newest.push({in_view: last.left >= 0 && last.right <= out.viewport, ticks});
}
// A team row's tallest cell: a column squeezed narrow wraps its words into a tall, mostly blank row.
for (const cell of doc.querySelectorAll('tr.team-row td'))
  out.team_row = Math.max(out.team_row, cell.getBoundingClientRect().height);
document.body.dataset.layout = JSON.stringify(out);
"""


def _layout_at(page: Path, width: int, profile: Path) -> dict[str, object]:
    """The probe's findings for `page` in a frame `width` CSS px wide (headless Chromium's window
    cannot be narrower than 500 px; a frame can), and a screenshot of its first 900 px beside it."""
    host = page.with_name(f"host-{width}.html")
    host.write_text(
        f'<!DOCTYPE html><html><body style="margin:0"><iframe id="page" style="width:{width}px;height:900px;border:0" '
        f'srcdoc="{html.escape(page.read_text())}" onload="{html.escape(_LAYOUT_PROBE)}"></iframe></body></html>'
    )
    shot = page.with_name(f"page-{width}.png")
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        f"--user-data-dir={profile}-shot",
        f"--screenshot={shot}",
        f"--window-size={max(width, 500)},900",
    ]
    done = subprocess.run([_CHROMIUM, *flags, host.as_uri()], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and shot.stat().st_size > 10_000, done.stderr[-2000:]
    dom = _dump_dom(host, profile, window="1500,1000")
    found = re.search(r'data-layout="([^"]*)"', dom)
    assert found, "the probe did not run"
    return json.loads(html.unescape(found.group(1)))


@pytest.mark.skipif(_CHROMIUM is None, reason="chromium is not installed (apt-get install chromium; .ci/run does)")
@pytest.mark.parametrize("tier", ["full", "aggregate"])
@pytest.mark.parametrize("width", [375, 800, 1400])
def test_the_page_fits_a_phone_a_tablet_and_a_desktop_nothing_cut_newest_day_in_view_no_text_under_11_px(
    tiered, tmp_path, width, tier
):
    out = tmp_path / "page.html"
    done = _cli("report", "--tier", tier, "--out", str(out), serving=tiered, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    layout = _layout_at(out, width, tmp_path / "chromium-profile")

    assert width - 20 <= layout["viewport"] <= width  # less a scrollbar at most
    assert layout["page"] <= layout["viewport"], "the page scrolls sideways"
    assert layout["outside"] == []
    assert layout["small"] == []
    # Nothing scrolls sideways inside the page, nothing is wider than its box or outside the view.
    assert layout["scrolling"] == []
    assert layout["clipped"] == []
    assert layout["offscreen"] == []
    assert layout["cut_text"] == []
    # Every line chart shows its newest day, and names its date (the fixture's last day: Mar 31).
    assert len(layout["newest"]) == (5 if tier == "full" else 3)
    for chart in layout["newest"]:
        assert chart["in_view"] and chart["ticks"][-1] == f"{LAST_DAY:%b %d}", chart
    # No cell of a team row is a tall column of wrapped words (at most three lines of text).
    assert 0 < layout["team_row"] <= 70, layout["team_row"]


def test_export_writes_a_view_as_csv_and_as_parquet(serving, tmp_path):
    with duckdb.connect(str(serving), read_only=True) as conn:
        expected = conn.execute("SELECT count(*) FROM bi.agent_usage_daily").fetchone()[0]
    for fmt in ("csv", "parquet"):
        out = tmp_path / f"usage.{fmt}"
        done = _cli(
            "export", "--view", "agent_usage_daily", "--format", fmt, "--out", str(out), serving=serving, cwd=tmp_path
        )
        assert done.returncode == 0, done.stderr
        assert f"exported {expected:,} rows" in done.stdout
        reader = "read_csv" if fmt == "csv" else "read_parquet"
        with duckdb.connect() as conn:
            count, agents = conn.execute(
                f"SELECT count(*), count(DISTINCT agent_id) FROM {reader}(?)", [str(out)]
            ).fetchone()
        assert (count, agents) == (expected, len(NAMES))


def test_export_of_an_unknown_view_lists_the_known_ones_in_one_line(serving, tmp_path):
    done = _cli(
        "export",
        "--view",
        "agent_usage",
        "--format",
        "csv",
        "--out",
        str(tmp_path / "x.csv"),
        serving=serving,
        cwd=tmp_path,
    )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "unknown view 'agent_usage'" in lines[0] and "agent_usage_daily, agent_usage_periods" in lines[0]
    assert not (tmp_path / "x.csv").exists()


def test_report_without_any_warehouse_says_what_to_run(tmp_path):
    done = _cli("report", serving=tmp_path / "none.duckdb", cwd=tmp_path)
    assert done.returncode == 1
    assert len(done.stderr.strip().splitlines()) == 1 and "metrics-etl demo" in done.stderr


def test_an_aggregate_tier_page_without_the_tier_says_what_to_run_in_one_line(serving, tmp_path):
    done = _cli("report", "--tier", "aggregate", "--out", str(tmp_path / "wide.html"), serving=serving, cwd=tmp_path)
    assert done.returncode == 1
    assert len(done.stderr.strip().splitlines()) == 1
    assert "no aggregate tier yet" in done.stderr and "metrics-etl run" in done.stderr
    assert not (tmp_path / "wide.html").exists()


def test_rewriting_pages_removes_one_it_cannot_write_again_and_finds_the_homes_page_without_a_record(serving, tmp_path):
    from pipelines.bi import BiSources
    from pipelines.page import PAGES_RECORD, rewrite_pages, write_page

    sources = BiSources(serving_path=serving, warehouse_path=tmp_path / "absent.duckdb")
    home = tmp_path / "home"
    page = write_page(sources=sources, out=home / "report.html", home=home)
    wide = tmp_path / "www" / "wide.html"
    wide.parent.mkdir()
    wide.write_text("<p>an older page naming dev-103</p>")
    (home / PAGES_RECORD).write_text(json.dumps({str(wide): "aggregate"}))  # no aggregate tier here
    page.write_text("<p>an older page naming dev-103</p>")

    written, failed = rewrite_pages(sources=sources, home=home, tier="full")

    assert written == [page.absolute()] and "Assistant agent adoption" in page.read_text()
    assert [(path, what.split(":")[0]) for path, what in failed] == [
        (wide, "removed, as it could not be written again")
    ]
    assert not wide.exists()
    (home / PAGES_RECORD).write_text("{not json")  # a damaged record still rewrites the home's page
    page.write_text("<p>an older page naming dev-103</p>")
    assert rewrite_pages(sources=sources, home=home, tier="full") == ([page.absolute()], [])
