"""A warm fill's time with PoCL's kernels specialized to each work-group size and with one kernel
for every size, the two taking turns in fresh processes (the setting is read when PoCL starts):
three rounds, in each the median of 5 fills a case; prints each case's median of the rounds and
whether the outputs are the same.  Usage: ``python bench/results/pocl_groups/steady.py`` from the
repository root."""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cases import CHILD, compare


def run(setting, fills):
    env = dict(os.environ, POCL_WORK_GROUP_SPECIALIZATION=setting)
    proc = subprocess.run([sys.executable, "-c", CHILD, str(fills), os.getcwd()], env=env, capture_output=True,
                          text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


compare(run, {"1": "specialized", "0": "one for every size"})
