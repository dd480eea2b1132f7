"""The CPU and age of this machine's processes, read from /proc (``evident.processes``)."""
from __future__ import annotations

import math
import os
import subprocess
import sys
import time

from evident.processes import process_minutes, process_tree_cpu_seconds


def test_a_process_tree_counts_the_cpu_of_its_children():
    """A shell that spends no CPU itself, over a child that spends half a second: the shell's tree holds it."""
    busy = "import time\nend = time.process_time() + 0.5\nwhile time.process_time() < end: pass\ntime.sleep(30)"
    shell = subprocess.Popen(["sh", "-c", f'"{sys.executable}" -c "$0"; true', busy])
    try:
        time.sleep(2)  # the child has spent its half second and sleeps
        assert process_tree_cpu_seconds(shell.pid) >= 0.4
    finally:
        subprocess.run(["pkill", "-P", str(shell.pid)], check=False)  # the child first, while it is the shell's
        shell.kill()
        shell.wait()


def test_a_process_age_is_read_in_minutes():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        time.sleep(1.5)
        assert 1 / 60 <= process_minutes(child.pid) < 1
    finally:
        child.kill()
        child.wait()


def test_no_process_gives_no_figure():
    assert math.isnan(process_minutes(None)) and math.isnan(process_tree_cpu_seconds(None))
