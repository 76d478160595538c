"""The default fill's quality over several seeds, for measuring what one change buys.

Usage::

    python tools/quality_steps.py PEERS.json [--split tune] [--seeds 0,1,2]
                                  [--set MODULE.NAME=VALUE ...] [--option NAME=VALUE ...] [--rules]
                                  [--cases NAME,NAME] [--per-case]

``PEERS.json`` is the JSON of ``inpaint bench --quality --json`` (its peers' numbers are read,
so the peers are not run again).  The fill is whatever ``inpaint`` imports: run this with
``PYTHONPATH`` pointing at a checkout of another commit (``git worktree add``) to measure that
commit with the same cases and seeds.  ``--set inpaint.methods.multiscale.reference.FEATURE_WEIGHT=0`` changes
a module constant first, ``--option alpha=full`` passes an option to the fill.

It prints, over the split's cases: the mean SSIM, mean coarse SSIM, mean PSNR, mean SWD, median detail, the
cases with detail in [0.8, 1.25], and the cases whose SWD is at or below the best peer's, each
averaged over the seeds (with the per-seed values), and beside them the best single peer's
mean SSIM and the lowest mean SWD among the peers and the paper's Criminisi settings.  A single
seed's mean SWD moves by a few tenths between seeds: compare changes over several seeds.
``--cases`` keeps only the split's cases it names (an option that changes only some cases is then
measured on those), and ``--per-case`` also prints each case's numbers, averaged over the seeds.

``--rules`` also holds the fill to the acceptance rules of ``docs/QUALITY.md`` (each case's
numbers averaged over the seeds first), and computes the same numbers for an oracle that takes,
for each case, whichever method (a peer or this fill) scores best on that very case: what no
single method can beat.  A rule the oracle misses is beyond every method measured.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from inpaint_bench import quality  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("peers", help="JSON written by inpaint bench --quality --json")
    p.add_argument("--split", default="tune", help="tune, holdout or all (default tune)")
    p.add_argument("--seeds", default="0,1,2")
    quality.add_fill_overrides(p)
    p.add_argument("--backend", default="opencl")
    p.add_argument("--rules", action="store_true", help="also hold the fill to the acceptance rules")
    p.add_argument("--cases", default="", metavar="NAME,NAME", help="only these of the split's cases")
    p.add_argument("--per-case", action="store_true", help="also print each case's numbers (means over the seeds)")
    args = p.parse_args()
    options = quality.fill_overrides(args)
    from inpaint.api import inpaint

    report = json.loads(Path(args.peers).read_text(encoding="utf-8"))
    numbers = report["numbers"]
    peers = [m["name"] for m in report["methods"] if m["kind"] == "peer"]
    rivals = peers + [m["name"] for m in report["methods"]
                      if m["kind"] == "ours" and m.get("kwargs", {}).get("method") == "criminisi"]
    entries = [e for e in quality.case_index(quality.find_quality_root())
               if (args.split == "all" or e.split == args.split) and e.name in numbers]
    if args.cases:
        wanted = {n.strip() for n in args.cases.split(",") if n.strip()}
        unknown = wanted - {e.name for e in entries}
        if unknown:
            p.error(f"--cases: not among the {args.split} cases: {', '.join(sorted(unknown))}")
        entries = [e for e in entries if e.name in wanted]
    cases = [quality.load_entry(e) for e in entries]
    names = [c.name for c in cases]
    seeds = [int(s) for s in args.seeds.split(",")]
    runs = []
    for seed in seeds:
        rows = {}
        for c in cases:
            res = inpaint(np.array(c.image), np.array(c.mask), backend=args.backend, seed=seed, **options)
            rows[c.name] = quality.score(res.image, c.truth, c.mask)
        runs.append(rows)

    def summary(rows: dict) -> dict:
        return {"ssim": statistics.fmean(rows[n]["ssim"] for n in names),
                "coarse_ssim": statistics.fmean(rows[n]["coarse_ssim"] for n in names),
                "psnr_db": statistics.fmean(rows[n]["psnr_db"] for n in names),
                "swd": statistics.fmean(rows[n]["swd"] for n in names),
                "detail": statistics.median(rows[n]["detail"] for n in names),
                "in_band": sum(quality.in_band(rows[n]["detail"]) for n in names),
                "swd_wins": sum(rows[n]["swd"] <= min(numbers[n][q]["swd"] for q in peers) for n in names)}

    per_seed = [summary(r) for r in runs]
    mean = {k: statistics.fmean(s[k] for s in per_seed) for k in per_seed[0]}
    best_peer = max(peers, key=lambda q: statistics.fmean(numbers[n][q]["ssim"] for n in names))
    low = min(rivals, key=lambda q: statistics.fmean(numbers[n][q]["swd"] for n in names))
    print(f"{args.split}: {len(names)} cases, seeds {seeds}, set {args.set or '-'}, options {options or '-'}")
    print(f"mean SSIM {mean['ssim']:.4f} (best peer {best_peer} "
          f"{statistics.fmean(numbers[n][best_peer]['ssim'] for n in names):.4f}); "
          f"mean coarse SSIM {mean['coarse_ssim']:.4f}; mean PSNR {mean['psnr_db']:.2f} dB; "
          f"mean SWD {mean['swd']:.3f} (lowest other {low} "
          f"{statistics.fmean(numbers[n][low]['swd'] for n in names):.3f}); median detail {mean['detail']:.2f}; "
          f"detail in band {mean['in_band']:.1f}; SWD at or below the best peer's {mean['swd_wins']:.1f}")
    print("per seed: SSIM " + " ".join(f"{s['ssim']:.4f}" for s in per_seed)
          + "; SWD " + " ".join(f"{s['swd']:.3f}" for s in per_seed))
    print(json.dumps({"split": args.split, "seeds": seeds, "set": args.set, "options": options, "mean": mean,
                      "per_seed": per_seed}))
    if args.per_case:
        for n in names:
            print(f"  {n}: " + ", ".join(f"{k} {statistics.fmean(r[n][k] for r in runs):.4f}"
                                         for k in ("coarse_ssim", "swd", "psnr_db", "detail")))
    if args.rules:
        ours = {n: {k: statistics.fmean(r[n][k] for r in runs) for k in ("coarse_ssim", "swd")} for n in names}
        fractions = {c.name: float(np.asarray(c.mask, bool).mean()) for c in cases}
        details = [[r[n]["detail"] for n in names] for r in runs]
        for line in rules(ours, details, numbers, peers, names, fractions):
            print(line)
    return 0


#: The acceptance rules: coarse SSIM lead over the best peer, SWD factor of the best peer's, share
#: of cases won on SWD, the median detail's band, the least detail on a large hole and how many of
#: the largest holes that applies to.
CS_LEAD, SWD_FACTOR, WIN_SHARE, DETAIL_BAND, LARGE_DETAIL, LARGE_HOLES = 0.025, 0.75, 0.40, (0.85, 1.20), 0.5, 8


def rules(ours: dict, details: list, numbers: dict, peers: list, names: list, fractions: dict) -> list[str]:
    """Lines holding ``ours`` (case -> mean coarse SSIM and SWD over the seeds) and the per-case
    oracle of every method to the acceptance rules; ``details`` holds each seed's per-case detail."""
    def peer_mean(q: str, key: str) -> float:
        return statistics.fmean(numbers[n][q][key] for n in names)

    cs_peer = max(peers, key=lambda q: peer_mean(q, "coarse_ssim"))
    swd_peer = min(peers, key=lambda q: peer_mean(q, "swd"))
    cs_need = peer_mean(cs_peer, "coarse_ssim") + CS_LEAD
    shift8 = peer_mean("truth_shift8", "coarse_ssim")
    swd_need = SWD_FACTOR * peer_mean(swd_peer, "swd")
    oracle = {n: {"coarse_ssim": max([ours[n]["coarse_ssim"]] + [numbers[n][q]["coarse_ssim"] for q in peers]),
                  "swd": min([ours[n]["swd"]] + [numbers[n][q]["swd"] for q in peers])} for n in names}

    def verdict(ok: bool) -> str:
        return "met" if ok else "NOT met"

    lines = [f"rules over {len(names)} cases (this fill: each case's mean over the seeds; "
             "oracle: each case's best of this fill and the peers)"]
    for who, rows in (("this fill", ours), ("oracle", oracle)):
        cs = statistics.fmean(rows[n]["coarse_ssim"] for n in names)
        swd = statistics.fmean(rows[n]["swd"] for n in names)
        lines.append(f"  {who}: mean coarse SSIM {cs:.4f} against {cs_need:.4f} ({cs_peer} + {CS_LEAD}): "
                     f"{verdict(cs >= cs_need)}; against the truth shifted 8 px {shift8:.4f}: {verdict(cs >= shift8)}")
        lines.append(f"  {who}: mean SWD {swd:.3f} against {swd_need:.3f} ({SWD_FACTOR} x {swd_peer}): "
                     f"{verdict(swd <= swd_need)}")
    wins = sum(ours[n]["swd"] <= min(numbers[n][q]["swd"] for q in peers) for n in names)
    lines.append(f"  this fill: SWD at or below the best peer's on {wins} of {len(names)} cases "
                 f"({wins / len(names):.0%}, rule {WIN_SHARE:.0%}): {verdict(wins >= WIN_SHARE * len(names))}")
    for q in peers:
        best = sum(numbers[n][q]["swd"] <= min([ours[n]["swd"]] + [numbers[n][o]["swd"] for o in peers if o != q])
                   for n in names)
        lines.append(f"    {q}: SWD the lowest of all methods on {best} of {len(names)} cases")
    median = statistics.fmean(statistics.median(d) for d in details)
    lines.append(f"  this fill: median detail {median:.2f} (mean of the seeds' medians), band {DETAIL_BAND}: "
                 f"{verdict(DETAIL_BAND[0] <= median <= DETAIL_BAND[1])}")
    large = sorted(names, key=lambda n: -fractions[n])[:LARGE_HOLES]
    least = {n: statistics.fmean(d[names.index(n)] for d in details) for n in large}
    lines.append(f"  this fill: detail on the {len(large)} largest holes "
                 + ", ".join(f"{n} ({fractions[n]:.0%}) {least[n]:.2f}" for n in large)
                 + f": {verdict(min(least.values()) >= LARGE_DETAIL)}")
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
