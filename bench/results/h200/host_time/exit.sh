# Where a batch command's time goes before its script starts and after its process ends, and how
# long the end of a process that made an NVIDIA OpenCL context takes.  Run from the repository
# root on the GPU machine: bash bench/results/h200/host_time/exit.sh
python3 -c "
import sys; sys.path.insert(0, 'tools')
from pathlib import Path
from gpu_speed import make_batch
make_batch(Path('/tmp/b60'), Path('datasets/walkingman/image.png'), 60)" 2>/dev/null
python3 -m inpaint /tmp/b60 -o /tmp/warm/ -q -y --device NVIDIA
for i in 1 2 3; do
  s=$(date +%s.%N)
  python3 bench/results/h200/host_time/batch_timeline.py /tmp/b60 -o /tmp/o$i/ -q -y --device NVIDIA 2>&1 \
    | grep -E "ABS|first fill" > /tmp/line.txt
  e=$(date +%s.%N)
  grep "first fill" /tmp/line.txt
  python3 - "$s" "$e" <<'P'
import re, sys
s, e = float(sys.argv[1]), float(sys.argv[2])
t = open("/tmp/line.txt").read()
t0, ended = map(float, re.search(r"ABS t0 ([\d.]+) end_process ([\d.]+)", t).groups())
x = float(re.search(r"ABS _exit ([\d.]+)", t).group(1))
print(f"whole {e - s:.3f} s: before the script {t0 - s:.3f} s, script to end_process {ended - t0:.3f} s, "
      f"end_process to _exit {x - ended:.3f} s, after _exit {e - x:.3f} s")
P
done
for i in 1 2 3; do
  s=$(date +%s.%N)
  python3 -c "
import os, sys, time
import pyopencl as cl
ctx = cl.Context([d for p in cl.get_platforms() if 'NVIDIA' in p.name for d in p.get_devices()])
q = cl.CommandQueue(ctx)
cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 1 << 20)
q.finish()
sys.stderr.write(f'ABS exit {time.time():.4f}\n'); sys.stderr.flush(); os._exit(0)" 2> /tmp/ctx.txt
  e=$(date +%s.%N)
  python3 -c "
import re; x = float(re.search(r'ABS exit ([\d.]+)', open('/tmp/ctx.txt').read()).group(1))
print('a bare context: after _exit', round($e - x, 3), 's')"
done
