"""quiver's scanner against Polars on many generated expressions, quickly.

The peer tests (test_peer_polars.py) run every engine on every expression;
this runs only the scans (Polars' df.filter against quiver, pushdown on and
off), so a long run (QV_PEERS_COUNT=10000, several seeds) takes minutes,
and prints every disagreement grouped by class (the message with numbers
and file names taken out), with one expression per class.

    QV_BUILD_DIR=build PYTHONPATH=build/python .venv/bin/python \\
        tests/peers/scan_differential.py --seeds 1 2 3 --count 10000 [--cli]

--cli scans with `quiver scan --where` (judged against eager Polars)
instead of the package (a lazy frame: judged against lazy Polars where
eager Polars raises, as test_peer_polars.py does).  Exit status 1 when any
scan disagrees.
"""

import argparse
import collections
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))


def _class(text):
    text = re.sub(r"data/[0-9a-f]+\.qvf", "FILE", text)
    text = re.sub(r"\[[^\]]*\]", "[..]", text)
    return re.sub(r"-?\d+(\.\d+)?(e[+-]?\d+)?", "N", text)[:160]


def run(seed, count, cli):
    os.environ["QV_PEERS_SEED"] = str(seed)
    os.environ["QV_PEERS_COUNT"] = str(count)
    if cli:
        os.environ["QV_PEERS_SCAN"] = "cli"
    import exprgen
    import known_gaps
    import peer_run
    import quiver_driver as qv

    world = peer_run.World(tempfile.mkdtemp(prefix="qv-scan-diff-"))
    cases = exprgen.generate()
    stats = collections.Counter()
    classes = collections.defaultdict(list)
    for case in cases:
        want = world.polars(case.text)
        if not want.ok and qv.scan_via() == "package":
            lazy = world.polars(case.text, lazy=True)
            if lazy.ok:
                want = lazy
        for pushdown in (True, False):
            got = world.scan(case.text, pushdown)
            if not got.ok:
                if peer_run.not_yet_evaluable(got) or known_gaps.known_gap(got.error):
                    stats["refused (not yet evaluable or a named gap)"] += 1
                elif not want.ok:
                    stats["both fail"] += 1
                else:
                    stats["DIFFER"] += 1
                    classes["quiver fails: " + _class(got.error)].append(case.text)
                continue
            if not want.ok:
                stats["DIFFER"] += 1
                classes["Polars raises, quiver keeps rows: " + _class(want.error)].append(case.text)
            elif got.rows != want.rows:
                stats["DIFFER"] += 1
                classes["different rows"].append(case.text)
            else:
                stats["same rows"] += 1
    return len(cases), stats, classes


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--cli", action="store_true")
    args = ap.parse_args()
    bad = 0
    for seed in args.seeds:
        t0 = time.time()
        n, stats, classes = run(seed, args.count, args.cli)
        scans = sum(stats.values())
        print("seed %d: %d expressions, %d scans in %.0f s: %s" % (seed, n, scans, time.time() - t0, dict(stats)))
        for cls, texts in sorted(classes.items(), key=lambda kv: -len(kv[1])):
            print("  %4d  %s\n        e.g. %s" % (len(texts), cls, texts[0]))
        bad += stats["DIFFER"]
        for mod in ("exprgen", "known_gaps", "peer_run", "quiver_driver"):
            sys.modules.pop(mod, None)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
