"""The default WalkingMan fill (no stage timings) in one process per CPU core, pinned there, twice over."""

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from ab2 import fill_median

env = dict(os.environ)
res = {}
for _rep in range(2):
    for core in range(os.cpu_count()):
        res.setdefault(core, []).append(fill_median(["taskset", "-c", str(core)], env))
    res.setdefault("free", []).append(fill_median([], env))  # and unpinned
for k, v in res.items():
    print(k, v)
Path(sys.argv[1]).write_text(json.dumps(res))
