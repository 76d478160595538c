"""The acceptance rules of docs/QUALITY.md as ``tools/quality_steps.py --rules`` applies them,
checked on numbers made up so that each verdict is known by hand."""

from __future__ import annotations

from helpers import tool_module


def _tool():
    return tool_module("quality_steps")


def _numbers(rows: dict[str, dict[str, tuple[float, float]]]) -> dict:
    return {case: {m: {"coarse_ssim": cs, "swd": swd} for m, (cs, swd) in methods.items()}
            for case, methods in rows.items()}


def _line(lines: list[str], start: str) -> str:
    found = [ln for ln in lines if ln.strip().startswith(start)]
    assert len(found) == 1, (start, lines)
    return found[0]


def test_rules_and_the_per_case_oracle():
    qs = _tool()
    # two peers, each best on one case; the truth shifted by 8 px is a control, never a rival
    numbers = _numbers({
        "a": {"p": (0.90, 4.0), "q": (0.80, 8.0), "truth_shift8": (0.99, 1.0)},
        "b": {"p": (0.80, 8.0), "q": (0.90, 2.0), "truth_shift8": (0.99, 1.0)},
    })
    # p: coarse SSIM mean 0.85, SWD 6.0; q: 0.85, 5.0 -> the SWD rule asks 0.75 * 5.0 = 3.75
    ours = {"a": {"coarse_ssim": 0.88, "swd": 3.0}, "b": {"coarse_ssim": 0.86, "swd": 4.0}}
    details = [[0.9, 1.0], [1.1, 0.3]]  # two seeds; the medians 0.95 and 0.7 average to 0.825
    lines = qs.rules(ours, details, numbers, ["p", "q"], ["a", "b"], {"a": 0.1, "b": 0.2})

    # ours 0.87 against 0.85 + 0.025 = 0.875; the oracle takes 0.90 and 0.90
    assert "0.8700 against 0.8750" in _line(lines, "this fill: mean coarse SSIM")
    assert "NOT met" in _line(lines, "this fill: mean coarse SSIM").split("truth")[0]
    assert "0.9000 against 0.8750 (p + 0.025): met" in _line(lines, "oracle: mean coarse SSIM")
    # ours 3.5 against 3.75: met; the oracle takes 3.0 (ours) and 2.0 (q)
    assert "3.500 against 3.750 (0.75 x q): met" in _line(lines, "this fill: mean SWD")
    assert "2.500 against 3.750" in _line(lines, "oracle: mean SWD")
    # case a: 3.0 <= min(4, 8); case b: 4.0 > 2.0
    assert "on 1 of 2 cases (50%, rule 40%): met" in _line(lines, "this fill: SWD at or below")
    assert "lowest of all methods on 0 of 2" in _line(lines, "p:")
    assert "lowest of all methods on 1 of 2" in _line(lines, "q:")
    assert "0.82 (mean of the seeds' medians), band (0.85, 1.2): NOT met" in _line(lines, "this fill: median detail")
    # the larger hole is b, whose detail over the seeds is (1.0 + 0.3) / 2 = 0.65 >= 0.5
    large = _line(lines, "this fill: detail on the")
    assert large.index("b (20%) 0.65") < large.index("a (10%) 1.00") and large.endswith(": met")
