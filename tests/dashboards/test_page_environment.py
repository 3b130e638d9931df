"""The pages' Jinja environment reads a dict's keys at once (dashboards/pages.py `_PageEnvironment`)
and gives the same values as Jinja's own: a dict's methods still win over a key of the same name,
a missing key is undefined; and the leaderboard's interval bars are placed and clamped as the
template placed them."""

from __future__ import annotations

import jinja2

from dashboards.pages import TEMPLATES, _interval_bar


def rendered(source: str, **context: object) -> str:
    return TEMPLATES.env.from_string(source).render(**context)


def test_a_dict_key_reads_as_jinja_reads_it() -> None:
    row = {"elo": 1500, "items": "a key named like a method"}
    assert rendered("{{ row.elo }}", row=row) == "1500"
    assert rendered("{% for k, v in row.items() %}{{ k }};{% endfor %}", row=row) == "elo;items;", "the method wins"
    assert rendered("[{{ row.missing }}]{{ row.missing is defined }}", row=row) == "[]False"
    plain = jinja2.Environment()
    for source in ("{{ row.elo }}", "{{ row.items is callable }}", "{{ row.missing is defined }}"):
        assert rendered(source, row=row) == plain.from_string(source).render(row=row), source


def test_an_interval_bar_is_clamped_to_the_scale() -> None:
    inside = _interval_bar({"elo": 1500.0, "low95": 1450.0, "high95": 1550.0}, 1400.0, 1600.0)
    assert inside == {"left": "25.0", "width": "50.0", "dot": "50.0"}
    unknown = _interval_bar({"elo": 1500.0, "low95": None, "high95": None}, 1400.0, 1600.0)
    assert unknown == {"left": "0.0", "width": "100.0", "dot": "50.0"}
    beyond = _interval_bar({"elo": 1590.0, "low95": 1300.0, "high95": 1700.0}, 1400.0, 1600.0)
    assert beyond == {"left": "0.0", "width": "100.0", "dot": "95.0"}
