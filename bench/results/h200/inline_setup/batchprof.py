"""The batch of 60 photos of 512x384 (as tools/gpu_speed.py makes it): whole-command rates, and a profile
of the command's main thread in-process."""

import cProfile
import io
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, "tools")
from gpu_speed import make_batch

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
tmp = Path(tempfile.mkdtemp())
batch = make_batch(tmp / "batch", Path("datasets/walkingman/image.png"), 60)
lines = []
for rep in range(2):
    for jobs in (1, 2, 4):
        dest = tmp / f"o{rep}{jobs}"
        t = time.perf_counter()
        p = subprocess.run(
            [
                sys.executable,
                "-m",
                "inpaint",
                str(batch),
                "-o",
                str(dest) + "/",
                "-q",
                "--device",
                "NVIDIA",
                "--jobs",
                str(jobs),
            ],
            capture_output=True,
            text=True,
        )
        took = time.perf_counter() - t
        lines.append(f"jobs {jobs}: {60 / took:.1f} images/s ({took:.2f} s) rc {p.returncode} {p.stderr[-200:]}")
        print(lines[-1], flush=True)
t = time.perf_counter()
p = subprocess.run([sys.executable, "-c", "import sys; sys.exit(0)"])
lines.append(f"bare python start {time.perf_counter() - t:.3f} s")
t = time.perf_counter()
p = subprocess.run([sys.executable, "-c", "import inpaint.cli"])
lines.append(f"import inpaint.cli {time.perf_counter() - t:.3f} s")
print("\n".join(lines[-2:]))
from inpaint.cli import main  # noqa: E402 - after the whole commands, which it must not warm

prof = cProfile.Profile()
dest = tmp / "prof"
t = time.perf_counter()
prof.enable()
try:
    main([str(batch), "-o", str(dest) + "/", "-q", "--device", "NVIDIA"])
except SystemExit:
    pass
prof.disable()
lines.append(f"in-process batch (profiled): {time.perf_counter() - t:.2f} s")
s = io.StringIO()
pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(35)
s2 = io.StringIO()
pstats.Stats(prof, stream=s2).sort_stats("cumtime").print_stats(40)
(out / "batch.txt").write_text("\n".join(lines) + "\n\n" + s.getvalue() + "\n\n" + s2.getvalue())
print(lines[-1])
print(s.getvalue()[:6000])
