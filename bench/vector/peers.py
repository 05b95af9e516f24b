#!/usr/bin/env python3
"""Vector search peers on bench_vector's data: pylance (pinned 14.0.2 in
requirements.txt) and faiss-cpu 1.15.1 (not pinned: found on PYTHONPATH if
present, skipped loudly otherwise), beside quiver through its Python
package, on the very vectors and queries bench_vector wrote
(DIR/vectors.npy, DIR/queries.npy).

Prints, per method: build seconds, QPS (one query per call) and recall@k
against a numpy brute force, for flat search, IVF_FLAT, IVF_PQ and faiss's
HNSW, with the same partition counts and sub-vectors for every engine;
the quiver/pylance ratios; and writes a recall-vs-QPS chart per method
(DIR/recall_qps.png) when matplotlib is importable.  Flat results are
checked row for row against numpy (and quiver's against lance's).

  python bench/vector/peers.py DIR [--k 10] [--queries 200] [--partitions P]
                                   [--sub-vectors M] [--nprobes 5,10,20,40]
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import sys
import time

import numpy as np


def brute(v: np.ndarray, q: np.ndarray, k: int, keep: np.ndarray | None = None) -> np.ndarray:
    """Exact l2 top-k row ids per query (ties by row id), in blocks."""
    out = np.empty((len(q), k), dtype=np.int64)
    vn = (v.astype(np.float64) ** 2).sum(axis=1)
    ids = np.arange(len(v))
    if keep is not None:
        v, vn, ids = v[keep], vn[keep], ids[keep]
    for i in range(0, len(q), 64):
        qq = q[i : i + 64].astype(np.float64)
        d = vn[None, :] - 2 * qq @ v.T.astype(np.float64) + (qq**2).sum(axis=1)[:, None]
        for j in range(len(qq)):
            kk = min(k, len(ids))
            part = np.argpartition(d[j], kk - 1)[:kk] if kk < len(ids) else np.arange(len(ids))
            order = part[np.lexsort((ids[part], d[j][part]))]
            row = np.full(k, -1, dtype=np.int64)
            row[: len(order)] = ids[order][:k]
            out[i + j] = row
    return out


def recall(got: list[list[int]], truth: np.ndarray) -> float:
    hit = total = 0
    for g, t in zip(got, truth):
        ts = [x for x in t.tolist() if x >= 0]
        total += len(ts)
        hit += len(set(g) & set(ts))
    return hit / total if total else 1.0


def timed(fn, queries):
    t0 = time.perf_counter()
    res = [fn(q) for q in queries]
    return res, len(queries) / (time.perf_counter() - t0)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--flat-queries", type=int, default=20)
    ap.add_argument("--partitions", type=int, default=0)
    ap.add_argument("--sub-vectors", type=int, default=16)
    ap.add_argument("--nprobes", default="5,10,20,40")
    ap.add_argument("--refine", type=int, default=10)
    a = ap.parse_args()
    v = np.load(os.path.join(a.dir, "vectors.npy"))
    q = np.load(os.path.join(a.dir, "queries.npy"))[: a.queries]
    n, dim = v.shape
    k = a.k
    parts = a.partitions or int(math.sqrt(n) + 0.5)
    probes = [int(x) for x in a.nprobes.split(",")]
    bucket = np.arange(n) % 1000
    print(f"peers: n {n}, dim {dim}, {len(q)} queries, k {k}, {parts} partitions, {a.sub_vectors} sub-vectors")
    t0 = time.perf_counter()
    truth = brute(v, q, k)
    truth10 = brute(v, q, k, bucket < 100)
    print(f"numpy brute force: {time.perf_counter() - t0:.1f} s")
    points: dict[str, list[tuple[float, float]]] = {}
    results: dict[str, tuple[float, float]] = {}

    def report(name: str, rec: float, qps: float) -> None:
        print(f"  {name:<44} recall@{k} {rec:.4f}  {qps:9.1f} QPS")
        results[name] = (rec, qps)
        points.setdefault(name.split(" nprobes")[0], []).append((rec, qps))

    # ---- quiver (its Python package; the C program bench_vector has the C numbers)
    try:
        import polars as pl

        import quiver
    except ImportError as err:
        print(f"!!! quiver/polars not importable ({err}): quiver SKIPPED !!!")
        quiver = None
    qpath = os.path.join(a.dir, "qv")
    if quiver is not None:
        shutil.rmtree(qpath, ignore_errors=True)
        df = pl.DataFrame({"id": np.arange(n), "bucket": bucket, "vec": pl.Series(v, dtype=pl.Array(pl.Float32, dim))})
        quiver.write_dataset(df, qpath, page_rows=256)  # as bench_vector writes it
        del df

        def qsearch(qv, **kw):
            pre = kw.pop("prefilter", None)
            nn = {"column": "vec", "q": qv, "k": k, **kw}
            return quiver.scan(qpath, nearest=nn, prefilter=pre).select("id").collect()["id"].to_list()

        got, qps = timed(lambda x: qsearch(x, use_index=False), q[: a.flat_queries])
        report("quiver flat", recall(got, truth[: a.flat_queries]), qps)
        quiver_flat = got
        for kind in ("ivf_flat", "ivf_pq"):
            t0 = time.perf_counter()
            quiver.create_index(qpath, "vec", kind, name="vi", num_partitions=parts,
                                **({"num_sub_vectors": a.sub_vectors} if kind == "ivf_pq" else {}))
            print(f"  quiver {kind} build: {time.perf_counter() - t0:.2f} s")
            results[f"quiver {kind} build"] = (0, time.perf_counter() - t0)
            for p in probes:
                got, qps = timed(lambda x: qsearch(x, nprobes=p, refine_factor=a.refine), q)
                report(f"quiver {kind} nprobes {p}", recall(got, truth), qps)
            got, qps = timed(lambda x: qsearch(x, nprobes=20, refine_factor=a.refine, prefilter="bucket < 100"), q)
            report(f"quiver {kind} prefilter 10%", recall(got, truth10), qps)
            quiver.drop_index(qpath, "vi")

    # ---- pylance
    try:
        import lance
        import pyarrow as pa
    except ImportError as err:
        print(f"!!! pylance not importable ({err}): pylance SKIPPED !!!")
        lance = None
    if lance is not None:
        lpath = os.path.join(a.dir, "lance")
        shutil.rmtree(lpath, ignore_errors=True)
        t = pa.table({"id": np.arange(n), "bucket": bucket,
                      "vec": pa.FixedSizeListArray.from_arrays(pa.array(v.ravel()), dim)})
        ds = lance.write_dataset(t, lpath)
        del t

        def lsearch(qv, **kw):
            filt = kw.pop("filter", None)
            nn = {"column": "vec", "q": qv, "k": k, **kw}
            return ds.to_table(columns=["id"], nearest=nn, filter=filt, prefilter=filt is not None)["id"].to_pylist()

        got, qps = timed(lambda x: lsearch(x, use_index=False), q[: a.flat_queries])
        report("pylance flat", recall(got, truth[: a.flat_queries]), qps)
        if quiver is not None:
            same = sum(g == h for g, h in zip(got, quiver_flat))
            print(f"  flat rows: quiver == pylance for {same} of {len(got)} queries")
        for kind in ("IVF_FLAT", "IVF_PQ"):
            t0 = time.perf_counter()
            kw = {"num_sub_vectors": a.sub_vectors} if kind == "IVF_PQ" else {}
            ds.create_index("vec", index_type=kind, num_partitions=parts, replace=True, **kw)
            build = time.perf_counter() - t0
            print(f"  pylance {kind.lower()} build: {build:.2f} s")
            results[f"pylance {kind.lower()} build"] = (0, build)
            for p in probes:
                got, qps = timed(lambda x: lsearch(x, nprobes=p, refine_factor=a.refine), q)
                report(f"pylance {kind.lower()} nprobes {p}", recall(got, truth), qps)
            got, qps = timed(lambda x: lsearch(x, nprobes=20, refine_factor=a.refine, filter="bucket < 100"), q)
            report(f"pylance {kind.lower()} prefilter 10%", recall(got, truth10), qps)

    # ---- faiss
    try:
        import faiss
    except ImportError as err:
        print(f"!!! faiss not importable ({err}): faiss SKIPPED (pip download faiss-cpu==1.15.1; see docs) !!!")
        faiss = None
    if faiss is not None:
        def fsearch(index, qv):
            _, ids = index.search(qv[None, :], k)
            return ids[0].tolist()

        flat = faiss.IndexFlatL2(dim)
        flat.add(v)
        got, qps = timed(lambda x: fsearch(flat, x), q[: a.flat_queries])
        report("faiss IndexFlatL2", recall(got, truth[: a.flat_queries]), qps)
        for name, make in (("IndexIVFFlat", lambda: faiss.IndexIVFFlat(flat, dim, parts)),
                           ("IndexIVFPQ", lambda: faiss.IndexIVFPQ(flat, dim, parts, a.sub_vectors, 8))):
            t0 = time.perf_counter()
            idx = make()
            idx.train(v[np.random.default_rng(0).choice(n, min(n, 256 * parts), replace=False)])
            idx.add(v)
            print(f"  faiss {name} build: {time.perf_counter() - t0:.2f} s")
            for p in probes:
                idx.nprobe = p
                got, qps = timed(lambda x: fsearch(idx, x), q)
                report(f"faiss {name} nprobes {p}", recall(got, truth), qps)
        t0 = time.perf_counter()
        h = faiss.IndexHNSWFlat(dim, 32)
        h.add(v)
        print(f"  faiss IndexHNSWFlat build: {time.perf_counter() - t0:.2f} s")
        for ef in (16, 32, 64, 128):
            h.hnsw.efSearch = ef
            got, qps = timed(lambda x: fsearch(h, x), q)
            report(f"faiss IndexHNSWFlat nprobes {ef} (efSearch)", recall(got, truth), qps)

    # ---- ratios and the chart
    for key in list(results):
        if key.startswith("quiver ") and not key.endswith("build"):
            other = "pylance " + key[len("quiver ") :]
            if other in results and results[other][1] > 0:
                print(f"  ratio quiver/pylance {key[7:]:<28} QPS x{results[key][1] / results[other][1]:.2f}")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(9, 6))
        colors = {"quiver": "tab:blue", "pylance": "tab:orange", "faiss": "tab:green"}
        markers = {"flat": "s", "ivf_flat": "o", "ivf_pq": "^", "IndexFlatL2": "s", "IndexIVFFlat": "o",
                   "IndexIVFPQ": "^", "IndexHNSWFlat": "D"}
        for name, pts in sorted(points.items()):
            pts.sort()
            engine, kind = name.split()[0], name.split()[1]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=markers.get(kind, "x"),
                    color=colors.get(engine, "gray"), linestyle="--" if "prefilter" in name else "-", label=name)
        ax.set_xlabel(f"recall@{k}")
        ax.set_ylabel("QPS (one query per call)")
        ax.set_yscale("log")
        ax.legend(fontsize=7)
        out = os.path.join(a.dir, "recall_qps.png")
        fig.savefig(out, dpi=100)
        print(f"chart: {out}")
    except ImportError:
        print("(matplotlib not importable: no chart)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
