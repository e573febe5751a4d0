"""`/calculator/accuracy`: one row per published point with the prediction, and the summary."""

from __future__ import annotations

from html import unescape

from starlette.testclient import TestClient

from app.pages.calculator_accuracy import (
    accuracy_report,
    engine_table,
    engine_table_report,
    published_points,
)


def test_the_page_lists_every_point_with_measured_predicted_and_ratio(
    sqlite_client: TestClient,
) -> None:
    response = sqlite_client.get("/calculator/accuracy")
    assert response.status_code == 200
    html = unescape(response.text)
    points = published_points()
    assert html.count('<tr class="acc-') == len(points)
    for point in points[:5]:
        assert f'id="point-{point["id"]}"' in html and point["source"] in html
    report = accuracy_report()
    summary = report.summary()
    assert f"{summary.within} of {summary.points} points" in html
    calibration, held_out = report.summary("calibration"), report.summary("held_out")
    assert f"Calibration points: {calibration.within} of {calibration.points}" in html
    assert f"held-out points: {held_out.within} of {held_out.points}" in html
    assert "Median |ln ratio|" in html and " style=" not in html


def test_the_calculator_links_to_it(sqlite_client: TestClient) -> None:
    html = sqlite_client.get("/calculator").text
    assert 'href="/calculator/accuracy"' in html


def test_a_point_on_tensorrt_engines_says_so(sqlite_client: TestClient) -> None:
    html = unescape(sqlite_client.get("/calculator/accuracy").text)
    engine_built = [p for p in published_points() if p["settings"].get("backend") == "tensorrt"]
    assert engine_built
    assert html.count("TensorRT engines (C++ executor)") == len(engine_built)


def test_the_engine_table_is_shown_cell_by_cell(sqlite_client: TestClient) -> None:
    html = unescape(sqlite_client.get("/calculator/accuracy").text)
    table, source = engine_table_report(), engine_table()
    cells = sum(len(column.cells) for column in table.columns)
    assert cells == len(table.shapes) * len(table.columns) == 100
    assert html.count('class="acc-cell acc-') == cells
    summary = table.summary()
    assert f"{summary.within} of {summary.points} cells" in html
    assert f"{summary.far} {'is' if summary.far == 1 else 'are'} beyond 2×" in html
    assert source["source"] in html
    for column in table.columns:
        assert column.label in html


def test_the_prose_quotes_ratios_as_the_model_gives_them(sqlite_client: TestClient) -> None:
    html = unescape(sqlite_client.get("/calculator/accuracy").text)
    ratios = {r.id: r.ratio for r in accuracy_report().results}
    mtp = ratios["trtllm-blog-deepseek-r1-b200-tp8-ep2-fp4-mtp3-conc1"]
    assert mtp is not None and f"The B200 run then reads {mtp:.2f};" in html
