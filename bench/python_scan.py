"""Times quiver.scan (the Python package) on a dataset, e.g. the demo one:

    build/quiver demo --create-only --path /tmp/qvdemo
    .venv/bin/python bench/python_scan.py /tmp/qvdemo

Best of a few runs each: the demo filter with pushdown on and off, the same
filter by Polars over the rows already in memory, a full collect, head(10).
"""

import sys
import time

import polars as pl

import quiver


def run(label, fn, n=3):
    best = float("inf")
    for _ in range(n):
        t = time.perf_counter()
        df = fn()
        best = min(best, time.perf_counter() - t)
    print(f"{label:48s} {best * 1000:8.1f} ms  rows={df.height}")


def main(path):
    pred = pl.col("val") > 0.999

    def query(pushdown):
        return quiver.scan(path, predicate_pushdown=pushdown).filter(pred).select("id", "payload")

    run("quiver.scan filter+select, pushdown on", lambda: query(True).collect())
    run("quiver.scan filter+select, pushdown off", lambda: query(False).collect())
    full = quiver.scan(path).collect()
    run("Polars filter over rows already in memory", lambda: full.filter(pred).select("id", "payload"))
    run("quiver.scan full collect (every column)", lambda: quiver.scan(path).collect(), n=2)
    run("quiver.scan head(10)", lambda: quiver.scan(path).head(10).collect())


if __name__ == "__main__":
    main(sys.argv[1])
