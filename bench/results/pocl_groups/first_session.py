"""Twelve cases filled one after another in one process, each fill's seconds: from an empty
kernel cache, this is a first session's wait.  Usage (from the repository root, PoCL installed):
``XDG_CACHE_HOME=$(mktemp -d) python bench/results/pocl_groups/first_session.py``; the release
before this change is the same with ``POCL_WORK_GROUP_SPECIALIZATION=1`` set."""

import time

from cases import CASES, load

from inpaint import api

total = 0.0
for name in CASES:
    image, mask = load(name)
    t0 = time.perf_counter()
    api.inpaint(image, mask, device="portable")
    took = time.perf_counter() - t0
    total += took
    print(f"{name:22s} {took:6.2f} s", flush=True)
print(f"total {total:.1f} s")
