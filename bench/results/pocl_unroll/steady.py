"""A warm fill's time on PoCL with two trees (the local-memory sweeps unrolled on a CPU, before;
as loops, now), taking turns in fresh processes: three rounds, in each the median of 5 fills a case
(the twelve cases of ``bench/results/pocl_groups``); prints each case's median of the rounds and
whether the outputs are the same.  Usage, from the repository root:
``python bench/results/pocl_unroll/steady.py BASE_TREE`` (``BASE_TREE``: ``git archive`` of the
version before, with ``inpaint kernels profiles``)."""

import json
import os
import subprocess
import sys

HERE = os.getcwd()
sys.path.insert(0, os.path.join(HERE, "bench/results/pocl_groups"))
from cases import CHILD, compare  # noqa: E402

TREES = {"before": os.path.abspath(sys.argv[1]), "now": HERE}


def run(tree, fills):
    env = dict(os.environ, PYTHONPATH=TREES[tree])
    proc = subprocess.run([sys.executable, "-c", CHILD, str(fills), HERE], env=env, capture_output=True, text=True,
                          check=True, cwd=HERE)
    return json.loads(proc.stdout.strip().splitlines()[-1])


compare(run, {"before": "before", "now": "now"})
