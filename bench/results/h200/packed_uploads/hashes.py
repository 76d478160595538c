"""Hashes of the default fill (image and source map) on every truth case, on one device.

Usage: ``python hashes.py DEVICE OUT.json [WANT.json]`` from the repository root.  With WANT.json
(the same made on another device, e.g. PoCL's, whose fills equal numpy's in the tests) it says how
many cases differ.
"""

import hashlib
import json
import sys
from pathlib import Path

from inpaint.api import inpaint

sys.path.insert(0, "tools")
from gpu_multiscale import truth_cases

device, out = sys.argv[1], Path(sys.argv[2])
got = {}
for name, image, mask in truth_cases():
    r = inpaint(image, mask, device=device, backend="opencl")
    got[name] = hashlib.sha256(r.image.tobytes() + r.source_map.tobytes()).hexdigest()[:16]
out.write_text(json.dumps(got, indent=0))
if len(sys.argv) > 3:
    want = json.loads(Path(sys.argv[3]).read_text())
    differ = [k for k in want if got.get(k) != want[k]]
    print(f"{len(differ)} of {len(want)} cases differ: {differ}")
print(len(got), "cases")
