"""The whole-command benchmarks (start-up and scaling): their reports on tiny runs."""

import json

import pytest

from inpaint_bench import scaling, startup


@pytest.mark.slow  # a whole benchmark run: CI's second step
def test_startup_reports_each_command_beside_the_floor(tmp_path, capsys, monkeypatch):
    every = startup.commands
    monkeypatch.setattr(startup, "commands", lambda out: {k: v for k, v in every(out).items()
                                                         if k == "floor" or "criminisi" in k})
    js = tmp_path / "s.json"
    assert startup.main(["--repeat", "2", "--json", str(js)]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert [r.split("|")[1].strip() for r in rows] == ["floor", next(k for k in every(tmp_path) if "criminisi" in k)]
    data = json.loads(js.read_text())
    assert all(len(ts) == 2 and min(ts) > 0 for ts in data["times_s"].values())
    assert min(data["times_s"]["floor"]) <= data["floor_s"] <= max(data["times_s"]["floor"])
    above = rows[1].split("|")[4].strip()
    assert above.endswith(" s") and above[0] in "+-"


@pytest.mark.slow  # a whole benchmark run: CI's second step
def test_scaling_measures_time_and_peak_memory(tmp_path, capsys):
    js = tmp_path / "sc.json"
    assert scaling.main(["--megapixels", "0.03,0.06", "--json", str(js)]) == 0
    out = capsys.readouterr().out
    assert "| megapixels |" in out and out.count(" MiB |") >= 4
    rows = json.loads(js.read_text())["rows"]
    assert [round(r["megapixels"], 2) for r in rows] == [0.03, 0.06]
    for r in rows:
        assert r["wall_s"] > r["fill_s"] > 0 and r["peak_rss_bytes"] > 2 ** 20
        assert r["bytes_per_pixel"] == r["peak_rss_bytes"] / r["pixels"]
