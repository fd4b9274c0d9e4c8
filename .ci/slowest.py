#!/usr/bin/env python3
"""The slowest tests of a nextest run, from its JUnit report: `slowest.py JUNIT [N]`.

Prints the run's total, then the N slowest tests (20 by default) with their seconds, as a
Markdown table (docs/testing.md keeps one).
"""
import sys
import xml.etree.ElementTree as ET


def main():
    path = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    root = ET.parse(path).getroot()
    cases = []
    for suite in root.iter("testsuite"):
        for case in suite.iter("testcase"):
            failed = case.find("failure") is not None or case.find("error") is not None
            cases.append((float(case.get("time", 0)), suite.get("name"), case.get("name"), failed))
    cases.sort(reverse=True)
    total = sum(t for t, *_ in cases)
    print(f"{len(cases)} tests, {total:.0f} s of test time in all (run time {root.get('time')} s)")
    print("| test | binary | s |")
    print("|---|---|---|")
    for t, binary, name, failed in cases[:n]:
        print(f"| `{name}`{' (failed)' if failed else ''} | {binary} | {t:.1f} |")


if __name__ == "__main__":
    main()
