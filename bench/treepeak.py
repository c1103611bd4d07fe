#!/usr/bin/env python3
"""treepeak.py PEAKFILE TIMEFILE COMMAND...: runs COMMAND under /usr/bin/time, which writes to
TIMEFILE the wall, user and system seconds of COMMAND and of the children it waited for and the
largest single process's peak memory, and
samples every 100 ms the sum of the proportional set size (PSS) of COMMAND and all its
descendants (read from /proc), writing the largest sum seen, in kilobytes, to PEAKFILE. It exits
as COMMAND does. bench/fleet.sh measures each clusterplane command with it: the Pulumi CLIs and
provider plugins a command starts are part of what it costs.

PSS, not the resident size (RSS): processes started from one binary (four Pulumi CLIs, eight
provider plugins, clusterplane and the supervisors it re-executes from its own binary) share the
binary's pages, which RSS counts once for each of them while the machine holds them once. PSS
gives each process its share of a shared page, so the tree's sum is the memory it holds.
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


def pss_kb(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def tree(root):
    """The pids of root's descendants; root itself (the time process) is not counted."""
    kids, out = children_map(), []
    todo = list(kids.get(root, []))
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(kids.get(pid, []))
    return out


def main():
    peak_file, time_file, command = sys.argv[1], sys.argv[2], sys.argv[3:]
    proc = subprocess.Popen(["/usr/bin/time", "-f", "%e %U %S %M", "-o", time_file] + command)
    peak, most_rss, start = 0, 0, time.monotonic()
    while proc.poll() is None:
        pids = tree(proc.pid)
        # Reading PSS makes the kernel walk each process's pages, which would take a share of
        # the 2 cores from the command measured: it is read only when the tree's resident size
        # comes near the largest seen, where its peak is.
        rss = sum(rss_kb(pid) for pid in pids)
        if rss >= 0.9 * most_rss:
            peak = max(peak, sum(pss_kb(pid) for pid in pids))
        most_rss = max(most_rss, rss)
        # Every 10 ms for the first second: a command that reads the backend only is done in less.
        time.sleep(0.01 if time.monotonic() - start < 1 else 0.1)
    # Never below the largest single process's own peak, which /usr/bin/time measured exactly (%M,
    # its resident size): a command over before the first sample is still measured.
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
