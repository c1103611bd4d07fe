#!/usr/bin/env python3
"""treepeak.py PEAKFILE TIMEFILE COMMAND...: runs COMMAND under /usr/bin/time, which writes to
TIMEFILE the wall, user and system seconds of COMMAND and of the children it waited for and the
largest single process's peak memory, and
samples every 100 ms the sum of the resident memory of COMMAND and all its descendants (read
from /proc), writing the largest sum seen, in kilobytes, to PEAKFILE. It exits as COMMAND does.
bench/fleet.sh measures each clusterplane command with it: the Pulumi CLIs and provider plugins
a command starts are part of what it costs.
"""
import os
import subprocess
import sys
import time


def children_map():
    kids = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # The command name, in parentheses, may hold spaces: the fields follow its last ')'.
        fields = stat[stat.rfind(b")") + 2:].split()
        kids.setdefault(int(fields[1]), []).append(int(name))
    return kids


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    except OSError:
        return 0


def tree_rss(root):
    kids = children_map()
    total, todo = 0, list(kids.get(root, []))  # the time process itself is not counted
    while todo:
        pid = todo.pop()
        total += rss_kb(pid)
        todo.extend(kids.get(pid, []))
    return total


def main():
    peak_file, time_file, command = sys.argv[1], sys.argv[2], sys.argv[3:]
    proc = subprocess.Popen(["/usr/bin/time", "-f", "%e %U %S %M", "-o", time_file] + command)
    peak, start = 0, time.monotonic()
    while proc.poll() is None:
        peak = max(peak, tree_rss(proc.pid))
        # Every 10 ms for the first second: a command that reads the backend only is done in less.
        time.sleep(0.01 if time.monotonic() - start < 1 else 0.1)
    # Never below the largest single process, which /usr/bin/time measured exactly (%M).
    try:
        with open(time_file) as f:
            peak = max(peak, int(f.read().split()[-1]))
    except (OSError, ValueError, IndexError):
        pass
    with open(peak_file, "w") as f:
        f.write(f"{peak}\n")
    sys.exit(proc.returncode)


if __name__ == "__main__":
    main()
