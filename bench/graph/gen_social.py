#!/usr/bin/env python3
"""A deterministic generated social graph, as CSV files, and its loaders.

    gen_social.py --persons N [--seed S] --out DIR           # writes the CSVs
    gen_social.py --persons N --out DIR --load quiver,kuzu   # and builds both

The graph: N Person nodes (id, name, age, city) and about 24 KNOWS edges per
person (src, dst, since).  Degrees are power-law-ish in both directions:

- out-degrees are drawn from a Pareto (shape 2.1, so a few persons have
  hundreds of friends and most have a dozen), scaled to a mean of 24;
- destinations are drawn with probability proportional to a Zipf-like weight
  (rank^-0.7 over a random permutation of the persons), so in-degrees are
  skewed too, and hub persons are not simply the low ids;
- self loops and repeated (src, dst) pairs are dropped (a pair is one edge),
  so the edge count is a little under 24 N.  Both directions of a pair may
  occur, as two edges.

Everything comes from one numpy Generator (PCG64) seeded with --seed, and
numpy is pinned (requirements.txt), so the same arguments give the same
bytes.  Ids are 0..N-1 (dense: quiver's node index takes the dense form).

Files in DIR: persons.csv (id,name,age,city), knows.csv (src,dst,since).
Loaders (also used by tests/peers/test_kuzu_cypher.py and bench_cypher.py):

- load_quiver(dir, out, quiver_exe): `quiver import` both CSVs into
  datasets out/person, out/knows, and `quiver graph create out/graph
  --node Person=out/person:id --rel 'KNOWS=out/knows:src->dst:Person->Person'`;
- load_kuzu(dir, db_path): a Kuzu database with NODE TABLE Person(id INT64,
  name STRING, age INT64, city STRING, PRIMARY KEY (id)) and REL TABLE
  KNOWS(FROM Person TO Person, since INT64), filled with COPY.

The LDBC SF0.1 subset loaders for both engines are here too (load_ldbc_*):
they read ../shared/ldbc-sf01 in place.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

FIRST = ["Ada", "Ben", "Cleo", "Dan", "Eva", "Finn", "Gia", "Hugo", "Ines", "Jon", "Kai", "Lea", "Max", "Nia",
         "Omar", "Pia", "Quinn", "Rosa", "Sam", "Tara", "Uma", "Vic", "Wes", "Xena", "Yuri", "Zoe"]
LAST = ["Smith", "Jones", "Garcia", "Kim", "Nguyen", "Muller", "Rossi", "Silva", "Novak", "Sato", "Khan",
        "Dubois", "Ivanova", "Cohen", "Larsen", "Okafor"]
CITIES = ["Amsterdam", "Berlin", "Cairo", "Delhi", "Edinburgh", "Florence", "Geneva", "Helsinki", "Istanbul",
          "Jakarta", "Kyoto", "Lagos", "Madrid", "Nairobi", "Oslo", "Paris", "Quito", "Rome", "Seoul", "Tokyo",
          "Utrecht", "Vienna", "Warsaw", "Xiamen", "Yerevan", "Zurich"]

MEAN_DEGREE = 24


def generate(persons: int, seed: int = 42):
    """Returns (persons, knows) as polars DataFrames, sorted by id and by (src, dst)."""
    import numpy as np
    import polars as pl

    if persons < 2:
        raise ValueError("gen_social: --persons must be at least 2")
    rng = np.random.default_rng(seed)
    n = persons
    ids = np.arange(n, dtype=np.int64)
    first = rng.integers(0, len(FIRST), n)
    last = rng.integers(0, len(LAST), n)
    names = np.char.add(np.char.add(np.array(FIRST)[first], " "), np.array(LAST)[last])
    ages = rng.integers(16, 81, n).astype(np.int64)
    # Cities skewed too: a few big ones.
    cw = 1.0 / np.arange(1, len(CITIES) + 1) ** 0.8
    city = rng.choice(len(CITIES), n, p=cw / cw.sum())
    person_df = pl.DataFrame({"id": ids, "name": names.astype(str), "age": ages,
                              "city": np.array(CITIES)[city].astype(str)})

    raw = rng.pareto(2.1, n) + 1.0
    deg = np.maximum(1, np.round(raw * (MEAN_DEGREE / raw.mean()))).astype(np.int64)
    deg = np.minimum(deg, n - 1)
    src = np.repeat(ids, deg)
    rank = rng.permutation(n)
    w = 1.0 / (rank + 1.0) ** 0.7
    dst = rng.choice(n, src.size, p=w / w.sum()).astype(np.int64)
    keep = src != dst
    key = np.unique(src[keep] * n + dst[keep])
    src, dst = key // n, key % n
    since = rng.integers(2000, 2025, src.size).astype(np.int64)
    knows_df = pl.DataFrame({"src": src, "dst": dst, "since": since})
    return person_df, knows_df


def write_csv(persons: int, out: str, seed: int = 42):
    person_df, knows_df = generate(persons, seed)
    os.makedirs(out, exist_ok=True)
    person_df.write_csv(os.path.join(out, "persons.csv"))
    knows_df.write_csv(os.path.join(out, "knows.csv"))
    return person_df.height, knows_df.height


def _run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), proc.returncode, proc.stderr.strip()))
    return proc.stdout


def load_quiver(csv_dir: str, out: str, quiver_exe: str) -> str:
    """Imports persons.csv / knows.csv into datasets under out and declares out/graph; returns its path."""
    os.makedirs(out, exist_ok=True)
    _run([quiver_exe, "import", os.path.join(csv_dir, "persons.csv"), os.path.join(out, "person"), "--quiet"])
    _run([quiver_exe, "import", os.path.join(csv_dir, "knows.csv"), os.path.join(out, "knows"), "--quiet"])
    graph = os.path.join(out, "graph")
    _run([quiver_exe, "graph", "create", graph, "--node", "Person=%s:id" % os.path.join(out, "person"),
          "--rel", "KNOWS=%s:src->dst:Person->Person" % os.path.join(out, "knows")])
    return graph


def _kuzu_path(p: str) -> str:
    return os.path.abspath(p).replace("'", "\\'")


def load_kuzu(csv_dir: str, db_path: str):
    """Creates a Kuzu database at db_path from persons.csv / knows.csv; returns (kuzu.Database, kuzu.Connection)."""
    import kuzu

    db = kuzu.Database(db_path)
    conn = kuzu.Connection(db)
    conn.execute("CREATE NODE TABLE Person(id INT64, name STRING, age INT64, city STRING, PRIMARY KEY (id))")
    conn.execute("CREATE REL TABLE KNOWS(FROM Person TO Person, since INT64)")
    conn.execute("COPY Person FROM '%s' (HEADER=true)" % _kuzu_path(os.path.join(csv_dir, "persons.csv")))
    conn.execute("COPY KNOWS FROM '%s' (HEADER=true)" % _kuzu_path(os.path.join(csv_dir, "knows.csv")))
    return db, conn


# ---- LDBC SNB SF0.1, a subset (../shared/ldbc-sf01, read in place) --------------------------------------

def default_ldbc_dir() -> str:
    """$QV_LDBC_DIR, else shared/ldbc-sf01 beside the checkout (or beside the main checkout of a worktree)."""
    if os.environ.get("QV_LDBC_DIR"):
        return os.environ["QV_LDBC_DIR"]
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    candidates = [os.path.join(root, "..", "shared", "ldbc-sf01")]
    try:
        common = subprocess.run(["git", "-C", root, "rev-parse", "--path-format=absolute", "--git-common-dir"],
                                capture_output=True, text=True, timeout=10).stdout.strip()
        if common:
            candidates.append(os.path.join(os.path.dirname(common), "..", "shared", "ldbc-sf01"))
    except (OSError, subprocess.SubprocessError):
        pass
    for c in candidates:
        if os.path.isfile(os.path.join(c, "Person.csv")):
            return os.path.normpath(c)
    return os.path.normpath(candidates[0])


# (label, file, columns, kuzu column types); the first column is the id.  file None: the label's
# node file is missing from the copy (Comment.csv, Post.csv: see SOURCE.md), so its nodes are the
# distinct ids that LDBC_ID_SOURCES names, written to <out>/<label>_ids.csv, with no other property.
LDBC_NODES = [
    ("Person", "Person.csv", ["id", "firstName", "lastName", "gender", "birthday", "creationDate", "locationIP",
                              "browserUsed"],
     ["INT64", "STRING", "STRING", "STRING", "INT64", "INT64", "STRING", "STRING"]),
    ("Place", "Place.csv", ["id", "name", "url", "kind"], ["INT64", "STRING", "STRING", "STRING"]),
    ("Organisation", "Organisation.csv", ["id", "kind", "name", "url"], ["INT64", "STRING", "STRING", "STRING"]),
    ("Tag", "Tag.csv", ["id", "name", "url"], ["INT64", "STRING", "STRING"]),
    ("Forum", "Forum.csv", ["id", "title", "creationDate"], ["INT64", "STRING", "INT64"]),
    ("Comment", None, ["id"], ["INT64"]),
    ("Post", None, ["id"], ["INT64"]),
]
# label -> [(relationship file, field numbers that hold ids of that label)]: every file that names one.
LDBC_ID_SOURCES = {
    "Comment": [("Comment_hasCreator_Person.csv", [0]), ("Comment_hasCreator_Person_1.csv", [0]),
                ("Comment_isLocatedIn_Place.csv", [0]), ("Comment_isLocatedIn_Place_1.csv", [0]),
                ("Comment_replyOf_Comment.csv", [0, 1]), ("Comment_replyOf_Post.csv", [0])],
    "Post": [("Post_hasCreator_Person.csv", [0]), ("Forum_containerOf_Post.csv", [1]),
             ("Comment_replyOf_Post.csv", [1])],
}
# (type, files, src label, dst label, property columns, kuzu property types).  A type connects one pair
# of labels in quiver, so LDBC's hasCreator / isLocatedIn / replyOf are one type per pair, named as in
# Kuzu's schema.cypher.  Some second parts have no header line (SOURCE.md): _has_header() tells.
LDBC_RELS = [
    ("knows", ["Person_knows_Person.csv", "Person_knows_Person_1.csv"], "Person", "Person", ["creationDate"],
     ["INT64"]),
    ("Person_isLocatedIn", ["Person_isLocatedIn_Place.csv"], "Person", "Place", [], []),
    ("workAt", ["Person_workAt_Organisation.csv"], "Person", "Organisation", ["workFrom"], ["INT64"]),
    ("studyAt", ["Person_studyAt_Organisation.csv"], "Person", "Organisation", ["classYear"], ["INT64"]),
    ("hasInterest", ["Person_hasInterest_Tag.csv"], "Person", "Tag", [], []),
    ("isPartOf", ["Place_isPartOf_Place.csv"], "Place", "Place", [], []),
    ("Organisation_isLocatedIn", ["Organisation_isLocatedIn_Place.csv"], "Organisation", "Place", [], []),
    ("Comment_hasCreator", ["Comment_hasCreator_Person.csv", "Comment_hasCreator_Person_1.csv"], "Comment",
     "Person", [], []),
    ("Post_hasCreator", ["Post_hasCreator_Person.csv"], "Post", "Person", [], []),
    ("replyOf_Comment", ["Comment_replyOf_Comment.csv"], "Comment", "Comment", [], []),
    ("replyOf_Post", ["Comment_replyOf_Post.csv"], "Comment", "Post", [], []),
    ("containerOf", ["Forum_containerOf_Post.csv"], "Forum", "Post", [], []),
    ("hasModerator", ["Forum_hasModerator_Person.csv"], "Forum", "Person", [], []),
]


def _has_header(path: str) -> bool:
    """True when the first line is the typed header (`:START_ID(Comment)|...`), not data."""
    with open(path, "rb") as f:
        first = f.readline().split(b"|")[0].strip()
    return not first.lstrip(b"-").isdigit()


def _lines(path: str):
    """The data lines of a file, split on '|' (the header skipped; an unterminated last line included)."""
    with open(path, "r", encoding="utf-8") as f:
        if _has_header(path):
            next(f, None)
        for line in f:
            line = line.rstrip("\n")
            if line:
                yield line.split("|")


def write_ldbc_ids(ldbc_dir: str, out: str) -> dict:
    """Writes <out>/<label>_ids.csv (header `id`, sorted) per id-only label; returns {label: path}."""
    os.makedirs(out, exist_ok=True)
    paths = {}
    for label, sources in LDBC_ID_SOURCES.items():
        ids = set()
        for fname, fields in sources:
            for parts in _lines(os.path.join(ldbc_dir, fname)):
                for i in fields:
                    ids.add(int(parts[i]))
        paths[label] = os.path.join(out, "%s_ids.csv" % label.lower())
        with open(paths[label], "w") as f:
            f.write("id\n")
            f.writelines("%d\n" % i for i in sorted(ids))
    return paths


def load_ldbc_quiver(ldbc_dir: str, out: str, quiver_exe: str) -> str:
    """Imports the LDBC subset (LDBC_NODES, LDBC_RELS) into datasets under out, declares out/graph."""
    os.makedirs(out, exist_ok=True)
    ids = write_ldbc_ids(ldbc_dir, out)
    args = [quiver_exe, "graph", "create", os.path.join(out, "graph")]
    for label, fname, cols, _ in LDBC_NODES:
        ds = os.path.join(out, label.lower())
        if fname is None:
            _run([quiver_exe, "import", ids[label], ds, "--quiet", "--type", "id=int64"])
        else:
            _run([quiver_exe, "import", os.path.join(ldbc_dir, fname), ds, "--quiet", "--delimiter", "|",
                  "--columns", ",".join(cols)])
        args += ["--node", "%s=%s:id" % (label, ds)]
    for rtype, files, sl, dl, props, _ in LDBC_RELS:
        ds = os.path.join(out, "rel_" + rtype.lower())
        for i, fname in enumerate(files):
            path = os.path.join(ldbc_dir, fname)
            cmd = [quiver_exe, "import", path, ds, "--quiet", "--delimiter", "|",
                   "--columns", ",".join(["src", "dst"] + props), "--type", "src=int64", "--type", "dst=int64"]
            if not _has_header(path):
                cmd.append("--no-header")
            if i:
                cmd += ["--mode", "append"]
            _run(cmd)
        args += ["--rel", "%s=%s:src->dst:%s->%s" % (rtype, ds, sl, dl)]
    _run(args)
    return os.path.join(out, "graph")


def load_ldbc_kuzu(ldbc_dir: str, db_path: str):
    """The same LDBC subset in a Kuzu database; returns (kuzu.Database, kuzu.Connection).

    The id-only labels' files are written beside db_path (<db_path>.ids/)."""
    import kuzu

    ids = write_ldbc_ids(ldbc_dir, db_path.rstrip("/") + ".ids")
    db = kuzu.Database(db_path)
    conn = kuzu.Connection(db)
    for label, fname, cols, types in LDBC_NODES:
        conn.execute("CREATE NODE TABLE %s(%s, PRIMARY KEY (id))"
                     % (label, ", ".join("%s %s" % ct for ct in zip(cols, types))))
        if fname is None:
            conn.execute("COPY %s FROM '%s' (HEADER=true)" % (label, _kuzu_path(ids[label])))
            continue
        # Kuzu maps CSV columns to table columns by position; the typed header line is skipped.
        conn.execute("COPY %s FROM '%s' (HEADER=true, DELIM='|')" % (label, _kuzu_path(os.path.join(ldbc_dir, fname))))
    for rtype, files, sl, dl, props, types in LDBC_RELS:
        cols = "".join(", %s %s" % pt for pt in zip(props, types))
        conn.execute("CREATE REL TABLE %s(FROM %s TO %s%s)" % (rtype, sl, dl, cols))
        for fname in files:
            path = os.path.join(ldbc_dir, fname)
            conn.execute("COPY %s FROM '%s' (HEADER=%s, DELIM='|')"
                         % (rtype, _kuzu_path(path), "true" if _has_header(path) else "false"))
    return db, conn


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--persons", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--out", required=True, help="folder for the CSVs (and the loaded graphs)")
    ap.add_argument("--load", default="", help="comma list of quiver, kuzu: also build those from the CSVs")
    ap.add_argument("--quiver", default=os.environ.get("QUIVER", "build/quiver"), help="the quiver command")
    a = ap.parse_args(argv)
    t = time.perf_counter()
    np_, ne = write_csv(a.persons, a.out, a.seed)
    print("gen_social: %d persons, %d KNOWS edges (%.1f per person) in %.2f s -> %s"
          % (np_, ne, ne / np_, time.perf_counter() - t, a.out))
    for what in filter(None, a.load.split(",")):
        t = time.perf_counter()
        if what == "quiver":
            where = load_quiver(a.out, os.path.join(a.out, "quiver"), a.quiver)
        elif what == "kuzu":
            where = os.path.join(a.out, "kuzu.db")
            load_kuzu(a.out, where)
        else:
            sys.exit("gen_social: --load: unknown engine %r (quiver, kuzu)" % what)
        print("gen_social: loaded %s in %.2f s -> %s" % (what, time.perf_counter() - t, where))


if __name__ == "__main__":
    main()
