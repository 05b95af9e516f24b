#!/usr/bin/env bash
# Loads the LDBC SNB SF0.1 Person and Person_knows_Person files (Kùzu's
# pipe-separated copy, read in place) into datasets and declares a graph
# over them:
#
#   bench/graph/load_ldbc.sh [LDBC_DIR] [OUT_DIR]
#
# LDBC_DIR defaults to ../shared/ldbc-sf01 (from the repository root), OUT_DIR
# to a new scratch folder under $TMPDIR.  QUIVER names the command (default:
# build/quiver).  The files' Neo4j-style typed headers (`id:ID(Person)`,
# `:START_ID(Person)|:END_ID(Person)|creationDate:LONG`) are replaced by plain
# names with --columns; the knows relationship is split over two files, both
# with a header, so the second is appended.
set -euo pipefail
ldbc=${1:-../shared/ldbc-sf01}
out=${2:-$(mktemp -d "${TMPDIR:-/tmp}/quiver-ldbc-XXXXXX")}
quiver=${QUIVER:-build/quiver}
mkdir -p "$out"

"$quiver" import "$ldbc/Person.csv" "$out/person" --quiet --delimiter '|' \
  --columns id,firstName,lastName,gender,birthday,creationDate,locationIP,browserUsed
"$quiver" import "$ldbc/Person_knows_Person.csv" "$out/knows" --quiet --delimiter '|' \
  --columns src,dst,creationDate
"$quiver" import "$ldbc/Person_knows_Person_1.csv" "$out/knows" --quiet --delimiter '|' --mode append \
  --columns src,dst,creationDate
"$quiver" graph create "$out/graph" --node "Person=$out/person:id" \
  --rel "knows=$out/knows:src->dst:Person->Person"
"$quiver" graph show "$out/graph"
echo "graph: $out/graph"
