#!/usr/bin/env python3
"""Lists every ignored test of the workspace with its reason, one line each.

nextest skips an ignored test without saying why; libtest prints the reason of an ignored test
it was asked for by name without running it. So this asks `cargo nextest list` for the ignored
tests, then each test binary for their reasons. Prints `ignored: NAME: REASON` lines; with
--only-kernel-lacks, exits 1 when a test was ignored for anything but a kernel's lack (a package
provides everything else, so as root in CI nothing else may be ignored).
"""
import json
import subprocess
import sys

KERNEL = "kernel lacks"


def ignored_tests():
    out = subprocess.run(
        ["cargo", "nextest", "list", "--workspace", "--locked", "--run-ignored", "only",
         "--message-format", "json"],
        check=True, stdout=subprocess.PIPE, text=True).stdout
    for suite in json.loads(out)["rust-suites"].values():
        names = [n for n, case in suite["testcases"].items()
                 if case.get("ignored") and case["filter-match"]["status"] == "matches"]
        if names:
            yield suite["binary-path"], suite.get("cwd"), names


def reasons(binary, cwd, names):
    # Asked by name without --ignored, libtest reports "test NAME ... ignored, REASON" and runs
    # nothing.
    out = subprocess.run([binary, "--exact", "--test-threads", "1", *names], cwd=cwd,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    for line in out.splitlines():
        if line.startswith("test ") and " ... ignored" in line:
            name, _, rest = line[5:].partition(" ... ignored")
            yield name, rest.lstrip(", ") or "(no reason given)"


def main():
    only_kernel = "--only-kernel-lacks" in sys.argv[1:]
    unexpected = []
    for binary, cwd, names in ignored_tests():
        for name, why in reasons(binary, cwd, names):
            print(f"ignored: {name}: {why}")
            if not why.startswith(KERNEL):
                unexpected.append(name)
    if only_kernel and unexpected:
        print(f"{len(unexpected)} test(s) ignored for something other than a kernel's lack:",
              ", ".join(unexpected), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
