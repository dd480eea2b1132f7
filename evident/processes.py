"""The CPU and the age of processes on this machine, read from /proc: the OpenSearch node's and the API's, for
``evident bench``'s rows. Written by hand: psutil would be a dependency for these few lines.

May import ``core``.
"""
from __future__ import annotations

import math
import os
from pathlib import Path
from urllib.parse import urlsplit

from core.settings import Settings

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")  # an OpenSearch URL on one of these is a node on this machine


def local_node_pid(client, settings: Settings) -> int | None:
    """The process id of the OpenSearch node the settings reach, when it runs on this machine (a loopback URL):
    its CPU is read from /proc, as the API's is; the node's own stats refresh once a second, too coarse for a row
    of a few seconds. None for a node elsewhere, or several."""
    if urlsplit(settings.opensearch.url).hostname not in LOOPBACK_HOSTS:
        return None
    nodes = list(client.nodes.info(metric="process")["nodes"].values())
    pid = nodes[0]["process"]["id"] if len(nodes) == 1 else None
    return pid if pid and Path(f"/proc/{pid}").exists() else None


def process_tree_cpu_seconds(root: int | None) -> float:
    """The CPU seconds process ``root`` and its descendants (gunicorn's workers) have used, read from /proc;
    NaN without a process."""
    if root is None:
        return math.nan
    parents: dict[int, int] = {}
    used: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields_after_name = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:  # ended meanwhile
                continue
            parents[int(entry.name)] = int(fields_after_name[1])
            used[int(entry.name)] = (int(fields_after_name[11]) + int(fields_after_name[12])) / tick
    tree, grown = {root}, True
    while grown:
        grown = False
        for pid, parent in parents.items():
            if parent in tree and pid not in tree:
                tree.add(pid)
                grown = True
    return sum(used.get(pid, 0.0) for pid in tree)


def process_minutes(pid: int | None) -> float:
    """How many minutes process ``pid`` has run, read from /proc; NaN without a process."""
    if pid is None:
        return math.nan
    try:
        started_ticks = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
        since_boot = float(Path("/proc/uptime").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return math.nan
    return (since_boot - started_ticks / os.sysconf("SC_CLK_TCK")) / 60
