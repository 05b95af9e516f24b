"""A child process that runs quiver Cypher queries for test_kuzu_cypher.py.

Reads one JSON request per line on stdin ({"graph", "text", "params",
"use_csr"}) and writes one JSON line per request: {"columns": [[name,
is_string, values], ...]} or {"error": message, "status": status,
"not_landed": bool}.  A crash of the engine then ends this process, and the
test that sent the query fails naming it, instead of taking pytest down
with every later comparison.
"""

import json
import sys


def main():
    try:
        import quiver
    except ImportError as exc:
        sys.stdout.write(json.dumps({"fatal": "the quiver package cannot be imported (%s)" % exc}) + "\n")
        sys.stdout.flush()
        return
    graphs = {}
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if not hasattr(quiver, "Graph"):
                out = {"error": "quiver.Graph is not in the package yet", "status": None, "not_landed": True}
            else:
                g = graphs.get(req["graph"])
                if g is None:
                    g = graphs[req["graph"]] = quiver.Graph(req["graph"])
                df = g.cypher(req["text"], params=req["params"], use_csr=req["use_csr"])
                import polars as pl

                out = {"columns": [[c, df.schema[c] == pl.String, df.get_column(c).to_list()] for c in df.columns]}
        except quiver.QuiverError as exc:
            status = getattr(exc, "status", None)
            out = {"error": str(exc), "status": status,
                   "not_landed": status == "unsupported" and "not implemented yet" in str(exc)}
        sys.stdout.write(json.dumps(out, default=repr) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
