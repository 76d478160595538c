"""The default WalkingMan fill (no stage timings) in one process per CPU core, pinned there, twice over."""

import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from ab2 import SCRIPT

wm = Path("datasets/walkingman").resolve()
env = dict(os.environ)
res = {}
for _rep in range(2):
    for core in range(os.cpu_count()):
        p = subprocess.run(
            [
                "taskset",
                "-c",
                str(core),
                sys.executable,
                "-c",
                SCRIPT,
                str(wm / "image.png"),
                str(wm / "mask.png"),
                "0",
            ],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        r = json.loads(p.stdout.strip().splitlines()[-1])
        res.setdefault(core, []).append(round(1e3 * r["median"], 2))
    # and unpinned
    p = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(wm / "image.png"), str(wm / "mask.png"), "0"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    res.setdefault("free", []).append(round(1e3 * json.loads(p.stdout.strip().splitlines()[-1])["median"], 2))
for k, v in res.items():
    print(k, v)
Path(sys.argv[1]).write_text(json.dumps(res))
