#!/usr/bin/env bash
# Golden tests of the quiver command: each case's stdout+stderr and exit
# code are compared byte for byte with tests/cli/golden/<case>.out.
# UPDATE_GOLDEN=1 rewrites the golden files (review the diff before committing).
set -u
quiver=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
pass=0
fail=0

# run NAME CMD...: runs the command, masks the scratch path, compares.
run() {
  local name=$1
  shift
  local out
  out=$("$@" 2>&1; echo "[exit $?]")
  out=${out//$work/WORK}
  # Times and dates vary from run to run.
  out=$(printf '%s\n' "$out" | sed -E 's/\([0-9]+\.[0-9]+ s\)/(T s)/; s/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}  /YYYY-MM-DD HH:MM:SS  /; s/time: [0-9.]+ s/time: T s/; s/time=[0-9.]+ms/time=Tms/g; s/peak_rss_kib=[0-9-]+/peak_rss_kib=K/; s/_indices\/[0-9a-f]{32}\.qvi/_indices\/HEX.qvi/g; s/data\/[0-9a-f]{32}\.qvf/data\/HEX.qvf/g; s/kernels (avx512|avx2|portable)/kernels KERNELS/')
  local golden="$here/golden/$name.out"
  if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
    printf '%s\n' "$out" > "$golden"
  fi
  if [ -f "$golden" ] && [ "$out" = "$(cat "$golden")" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $name"
    if [ -f "$golden" ]; then diff <(printf '%s\n' "$out") "$golden" | head -20; else echo "(no golden file)"; printf '%s\n' "$out" | head -20; fi
  fi
}

q() { "$quiver" "$@"; }

run help q --help
run no-args q
run unknown-command q frobnicate
run scan-help q scan --help
run import-help q import --help
run import q import "$here/data/people.csv" ds --quiet
run import-again q import "$here/data/people.csv" ds --quiet
run schema q schema ds
run scan-table q scan ds
run scan-filter q scan ds --filter "age > 40 AND city IS NOT NULL" --select name,age,city
run scan-csv q scan ds --format csv --select id,name,score
run scan-json q scan ds --format json --filter "id <= 2"
run scan-limit q scan ds --limit 2 --offset 1 --select id
run scan-like q scan ds --filter "name LIKE '%o%'" --select id,name
run scan-unicode q scan ds --filter "lower(name) = 'zoë'" --select id,name
run scan-no-pushdown q scan ds --filter "score >= 88.25" --select id --no-pushdown
run scan-where q scan ds --where 'pl.col("age") > 40' --select name,age
run scan-where-chain q scan ds --where '(pl.col("score") >= 88.25) & pl.col("city").str.starts_with("New")' --select id,city
run scan-where-bad q scan ds --where 'pl.col("age") >'
# An unknown method parses (translators decline it) but the binder names it.
run scan-where-unknown-method q scan ds --where 'pl.col("age").sum() > 3'
run scan-where-and-filter q scan ds --where 'pl.col("age") > 1' --filter "age > 1"
run scan-where-pl-date q scan ds --where 'pl.col("joined") >= pl.date(2021, 3, 4)' --select id,joined
run scan-where-unclosed q scan ds --where 'pl.col("id" > 3'
run scan-where-precedence q scan ds --where 'pl.col("score") > 2 & pl.col("age")'
run scan-where-precedence-chain q scan ds --where 'pl.col("score") > 2 & pl.col("age") < 50'
# A bad regex fails when the scan opens: no header, no row count, on stdout or at all.
run scan-where-bad-regex q scan ds --where 'pl.col("name").str.contains("(")'
run scan-filter-bad-regex q scan ds --filter "regexp_match(name, '(')"
run scan-filter-bad-regex-stdout sh -c '"$0" scan ds --filter "regexp_match(name, '"'"'a['"'"')" 2>/dev/null' "$quiver"
run scan-where-lenient-regex q scan ds --where 'pl.col("name").str.contains("(", strict=False)' --select id
run explain q explain ds --filter "id > 3 AND lower(city) = 'paris'" --select name
run bad-filter q scan ds --filter "age >> 3"
run bad-column q scan ds --filter "height > 3"
run bad-select q scan ds --select id,height
run bad-type q scan ds --filter "name > 3"
run bad-format q scan ds --format xml
run missing-dataset q scan nowhere
run append q import "$here/data/people.csv" ds --mode append --quiet
run count-after-append q scan ds --format stats
run versions q versions ds
run explain-analyze q explain --analyze ds --filter "id > 3" --select name
run delete q delete ds --filter "id = 1"
run after-delete q scan ds --select id --filter "id < 3"
run old-version q scan ds --version 1 --select id --filter "id < 3"
run delete-needs-filter q delete ds
# A delete that matches nothing commits nothing and says so; the latest version stays.
run delete-nothing q delete ds --filter "id = 999"
run versions-after-delete-nothing bash -c "'$quiver' versions ds | tail -n 1 | cut -c1-12"
# Arrow output is an IPC stream: it starts with the continuation marker.
run arrow-magic bash -c "'$quiver' scan ds --format arrow | head -c 4 | od -An -tx1"
run import-arrow-stdin bash -c "'$quiver' scan ds --format arrow > rows.arrows && '$quiver' import - ds-arrow -q < rows.arrows && '$quiver' scan ds-arrow --select id,name --limit 3"
# An Arrow file (not stream) through a pipe: copied to $TMPDIR, then read.
arrow_file="$here/../data/polars_eval/table.arrow"
run import-arrow-file-pipe bash -c "cat '$arrow_file' | '$quiver' import - ds-arrow-pipe -q 2>/dev/null && '$quiver' scan ds-arrow-pipe --select s,i,f --format csv"
run import-arrow-file-pipe-no-tmpdir bash -c "cat '$arrow_file' | TMPDIR=WORK-missing '$quiver' import - ds-arrow-pipe2 -q"
run import-arrow-file-pipe-cut bash -c "head -c 2000 '$arrow_file' | '$quiver' import - ds-arrow-pipe3 -q; ls ds-arrow-pipe3 2>&1 | head -1"
printf 'a,b\n1,2\n3\n' > ragged.csv
run csv-ragged q import ragged.csv bad --quiet
printf 'a\n\xff\n' > badutf8.csv
run csv-bad-utf8 q import badutf8.csv bad2 --quiet
run no-half-commit q scan bad
# Duplicate column names are refused before anything is written (no
# dataset directory, no new version), from CSV and Arrow alike; an empty
# CSV header name becomes c<i> and can collide too.
printf 'id,a,b,a\n1,2,3,4\n' > dup.csv
run import-dup-names bash -c "'$quiver' import dup.csv dup-ds -q; rc=\$?; ls dup-ds 2>&1; exit \$rc"
printf '\xef\xbb\xbf"a",a\n1,2\n' > dup-bom.csv
run import-dup-names-quoted-bom q import dup-bom.csv dup-ds -q
printf 'c1,\n1,2\n' > dup-empty.csv
run import-dup-names-empty q import dup-empty.csv dup-ds -q
q import "$here/data/people.csv" dup-app -q > /dev/null 2>&1
printf 'id,name,id\n1,x,2\n' > dup-app.csv
run import-dup-names-append bash -c "'$quiver' import dup-app.csv dup-app --mode append -q; '$quiver' import dup-app.csv dup-app --mode overwrite -q; rc=\$?; ls dup-app/_versions; exit \$rc"
cp "$here/data/dup_names.arrow" dup.arrow
run import-dup-names-arrow bash -c "'$quiver' import dup.arrow dup-ds -q; rc=\$?; ls dup-ds 2>&1; exit \$rc"
run import-dup-names-arrow-stdin bash -c "cat '$here/data/dup_names.arrow' | '$quiver' import - dup-ds -q"
run import-dup-struct-fields bash -c "'$quiver' import - dup-ds -q < '$here/data/dup_struct.arrows'"
# Types are inferred from the first 1000 rows; a value on line 1007 that
# does not fit stops the import with the column, line, value, inferred type
# and the --type to declare; --type or --infer-rows reads the file.
{ echo "id,x,d"; seq 1 1005 | awk '{printf "%d,%d,2024-01-01\n", $1, $1 * 3}'; echo "1006,1.5,2024-01-02"; echo "1007,7,2024-01-03 10:30"; } > late.csv
run import-infer-late q import late.csv late -q
run import-infer-late-stdin bash -c "'$quiver' import - late -q < late.csv; rc=\$?; ls late 2>&1; exit \$rc"
run import-infer-late-declared q import late.csv late -q --type x=float64
run import-infer-late-declared-2 bash -c "'$quiver' import late.csv late2 -q --type x=float64 --type d=timestamp[us] && '$quiver' schema late2"
run import-infer-all bash -c "'$quiver' import late.csv late3 -q --infer-rows all && '$quiver' schema late3"
run import-infer-rows-bad q import late.csv late4 --infer-rows many

# lance-filter: Polars expression in, Lance SQL filter out (Python repr).
run lance-filter-issue q lance-filter 'pl.col("cat").str.starts_with("b") & pl.col("id").is_in([1, 2])'
run lance-filter-none q lance-filter 'pl.col("text").str.slice(0, 2) == "xy"'
run lance-filter-nested-schema q lance-filter --schema "tz:timestamp[us, UTC],st:struct<x: int32, y: string>" '(pl.col("st").struct.field("x") > 1) & (pl.col("tz") < pl.lit(datetime(2024, 1, 2), dtype=pl.Datetime("us", "UTC")))'
run lance-filter-partial q lance-filter '(pl.col("id") > 5) & (pl.col("text").str.slice(0, 2) == "xy")'
run lance-filter-explain q lance-filter --explain '(pl.col("id") > 5) & (pl.col("text").str.slice(0, 2) == "xy")'
run lance-filter-schema q lance-filter --schema "f:float64,a:int64" '(pl.col("f") == 0.0) | (pl.col("a") > 2.5)'
run lance-filter-quotes q lance-filter --schema "s:string" 'pl.col("s") == "say \"it'"'"'s\""'
run lance-filter-bad q lance-filter 'pl.col("a") >'
run lance-filter-bad-schema q lance-filter --schema "a" 'pl.col("a") > 1'
run lance-filter-help q lance-filter --help
# A method quiver does not know (an aggregation) declines: None, exit 0, as
# Python's quiver.to_lance_filter answers; a syntax error stays an error.
run lance-filter-unknown-method q lance-filter 'pl.col("x").sum() > 3'
run lance-filter-unknown-method-explain q lance-filter --explain 'pl.col("x").sum() > 3'
run lance-filter-unknown-in-and q lance-filter --explain '(pl.col("x") > 1) & (pl.col("x").str.reverse() == "a")'
run lance-filter-unknown-method-bad q lance-filter 'pl.col("x").sum(1 +) > 3'

# Scalar indices: create, list, versions, optimize after an append, drop.
q import "$here/data/people.csv" ix --quiet > /dev/null 2>&1
run index-help q index --help
run index-create-btree q index create ix --column age --type btree
run index-create-bitmap q index create ix --column city --type bitmap --name by_city
run index-create-ngram q index create ix --column name --type ngram
run index-create-exists q index create ix --column age --type btree
run index-bad-type q index create ix --column age --type hash
run index-bad-column-type q index create ix --column age --type ngram
run index-no-column q index create ix --column height --type btree
run index-list q index list ix
q import "$here/data/people.csv" ix --mode append --quiet > /dev/null 2>&1
run index-list-after-append q index list ix
run index-optimize q index optimize ix
run index-optimize-again q index optimize ix by_city
run index-list-optimized q index list ix
run index-drop q index drop ix by_city
run index-drop-missing q index drop ix by_city
run index-versions q versions ix
run index-old-version-scan q scan ix --version 1 --select id --filter "age > 40"
run index-explain-small q explain ix --filter "age > 40 AND contains(name, 'ace')" --select name
run index-explain-off q explain ix --filter "age > 40" --no-index
# 3000 rows: a point lookup keeps few enough rows for the index to pay.
{ echo "id,grp,word"; seq 1 3000 | awk '{printf "%d,%d,w%05d\n", $1, $1 % 40, ($1 * 7919) % 3000}'; } > big.csv
q import big.csv big --quiet > /dev/null 2>&1
q index create big --column id --type btree > /dev/null
q index create big --column grp --type bitmap > /dev/null
run index-explain-used q explain --analyze big --filter "id BETWEEN 100 AND 120 AND grp = 25" --select word
run index-scan-used q scan big --filter "id BETWEEN 100 AND 120 AND grp = 25" --select id,word
# One row kept: "1 row", not "1 rows".
run index-explain-one-row bash -c "'$quiver' explain --analyze big --filter 'id = 100' --select word | grep 'index:'"
run index-scan-or q scan big --filter "id = 7 OR id = 2999" --select id,word
# A float column with NaN of both signs, infinities and signed zeros: the
# BTREE answers Polars comparisons (NaN greatest, -0.0 = 0.0) exactly.
{ echo "id,val"; seq 1 50000 | awk '{v=sprintf("%.5f", (($1 * 7919) % 50000) / 50000); if ($1==1500) v="NaN"; if ($1==1501) v="-0.0"; if ($1==1502) v="inf"; if ($1==1503) v="-inf"; if ($1==1504) v=""; if ($1==1505) v="-NaN"; printf "%d,%s\n", $1, v}'; } > floats.csv
q import floats.csv fl --quiet > /dev/null 2>&1
q index create fl --column val --type btree > /dev/null
run index-float-explain q explain fl --where 'pl.col("val") > 0.999' --select id
run index-float-scan q scan fl --where 'pl.col("val") > 0.9999' --select id,val
run index-float-scan-off q scan fl --where 'pl.col("val") > 0.9999' --select id,val --no-index
run index-float-scan-zero q scan fl --where 'pl.col("val") == 0.0' --select id,val
run index-float-explain-nan q explain fl --where 'pl.col("val") < float("nan")' --select id
run index-float-explain-between q explain fl --where 'pl.col("val").is_between(0.5, 0.502)' --select id
# A damaged or missing index file is never fatal: the scan filters its
# fragment in full and warns; list names the file; optimize --rebuild repairs.
q import big.csv dmg --quiet > /dev/null 2>&1
q index create dmg --column id --type btree > /dev/null
dmgfile=$(ls dmg/_indices/*.qvi)
printf '\x55' | dd of="$dmgfile" bs=1 seek=20 conv=notrunc 2> /dev/null
run index-damaged-scan q scan dmg --filter "id BETWEEN 100 AND 102" --select id,word
run index-damaged-stats q scan dmg --filter "id BETWEEN 100 AND 102" --format stats
run index-damaged-explain q explain --analyze dmg --filter "id BETWEEN 100 AND 102" --select word
run index-damaged-list q index list dmg
rm "$dmgfile"
run index-missing-scan q scan dmg --filter "id = 7" --select id,word
run index-rebuild q index optimize dmg id_idx --rebuild
run index-rebuilt-list q index list dmg
run index-rebuilt-scan q scan dmg --filter "id = 7" --select id,word --format stats
# bigquery-filter: Polars expression in, BigQuery row_restriction out.
run bigquery-filter-help q bigquery-filter --help
run bigquery-filter-schema q bigquery-filter --schema "$here/data/bq_schema.json" '(pl.col("score") > 0.5) & pl.col("city").str.starts_with("New") & (pl.col("born") >= pl.lit(date(2000, 1, 1)))'
run bigquery-filter-partial q bigquery-filter --schema "$here/data/bq_schema.json" --explain '(pl.col("id") > 5) & (pl.col("city").str.slice(0, 2) == "xy")'
run bigquery-filter-none q bigquery-filter --schema "$here/data/bq_schema.json" 'pl.col("id") + 1 > 2'
run bigquery-filter-when q bigquery-filter --schema "id:int64,a:bool,b:bool" 'pl.when(pl.col("id") > 1).then(pl.col("a")).otherwise(pl.col("b"))'
run bigquery-filter-inline-tz q bigquery-filter --schema "t:timestamp[us, UTC],n:int64" 'pl.col("t") < pl.lit(datetime(2024, 1, 2), dtype=pl.Datetime("ms", "UTC"))'
run bigquery-filter-table q bigquery-filter --schema "$here/data/bq_table.json" '(pl.col("_PARTITIONDATE") >= pl.lit(date(2024, 1, 1))) & (pl.col("kind") == "it'"'"'s")'
run bigquery-filter-json q bigquery-filter --json --select id,city --schema "$here/data/bq_schema.json" '(pl.col("score") > 0.5) & pl.col("city").drop_nulls().str.contains("^N")'
run bigquery-filter-json-none q bigquery-filter --json --schema "$here/data/bq_schema.json" 'pl.col("id") * 2 > 1'
run bigquery-filter-bad-name q bigquery-filter 'pl.col("a.b") > 1'
run bigquery-filter-bad-schema-file q bigquery-filter --schema nowhere.json 'pl.col("a") > 1'
run bigquery-filter-bad-schema-json q bigquery-filter --schema '[{"name": "a", "type": "FLOAT32"}]' 'pl.col("a") > 1'
run bigquery-filter-bad-expr q bigquery-filter 'pl.col("a") >'
run bigquery-filter-polars-json q bigquery-filter --schema "a:int64,b:int64,flag:bool,ok:bool" --polars-json "$(cat "$here/../data/pushdown/bigquery_json/when_multi_predicate.json")"
run bigquery-filter-polars-json-bad q bigquery-filter --polars-json '{"Column": 3}'
run bigquery-filter-select-without-json q bigquery-filter --select a 'pl.col("a") > 1'
run bigquery-filter-unknown-method q bigquery-filter 'pl.col("x").sum() > 3'
run bigquery-filter-unknown-method-explain q bigquery-filter --explain 'pl.col("x").sum() > 3'

# A dataset whose data file has format version 2 (framed pages checksummed
# by 4096-byte block), as builds before format version 3 wrote it: still
# read whole, and by takes that read only some frames.
v2="$here/../data/datafile-v2"
run datafile-v2-all sh -c '"$0" scan "$1" --format csv | cksum' "$quiver" "$v2"
run datafile-v2-take q scan "$v2" --format csv --filter "id % 250 = 3"
run datafile-v2-stats q scan "$v2" --format stats --filter "id % 250 = 3"

# Format version 3 (session 10's builds: one checksum per frame, raw pages
# by 4096-byte block, no FSST), the same rows: still read whole and by
# takes (version 4 writes 1 KiB blocks and FSST strings).
v3="$here/../data/datafile-v3"
run datafile-v3-all sh -c '"$0" scan "$1" --format csv | cksum' "$quiver" "$v3"
run datafile-v3-take q scan "$v3" --format csv --filter "id % 250 = 3"
run datafile-v3-stats q scan "$v3" --format stats --filter "id % 250 = 3"

# Deleting by a Polars expression (--where), as `quiver scan --where` reads it.
q import "$here/data/people.csv" del-ds --quiet > /dev/null 2>&1
run delete-where q delete del-ds --where '(pl.col("id") == 2) | (pl.col("id") > 4)'
run after-delete-where q scan del-ds --select id --format csv
run delete-where-and-filter q delete del-ds --filter "id = 3" --where 'pl.col("id") == 3'
run delete-where-bad q delete del-ds --where 'pl.col("id") =='
run delete-help q delete --help

# A damaged latest manifest, of each kind the corruption tests make: the
# version list shows it damaged (exit 0); appends, overwrites, deletes,
# index changes and a scan of the latest refuse, naming it and the restore
# that leads back; the version before still reads; restoring the damaged
# one refuses; restoring the one before commits a copy above it; then
# appends, deletes and scans work again and the damaged file is untouched.
# damaged_cycle DS K LIST: K is DS's latest; LIST=all prints every version.
damaged_cycle() {
  local ds=$1 k=$2 prev=$(($2 - 1)) m="$1/_versions/$2.manifest"
  {
    if [ "${3:-}" = all ]; then q versions "$ds"; else q versions "$ds" | tail -n 2; fi
    echo "[versions: exit ${PIPESTATUS[0]}]"
    q import "$here/data/people.csv" "$ds" --mode append --quiet; echo "[append: exit $?]"
    q import "$here/data/people.csv" "$ds" --mode overwrite --quiet; echo "[overwrite: exit $?]"
    q delete "$ds" --filter "id = 2"; echo "[delete: exit $?]"
    q index create "$ds" --column city --type bitmap; echo "[index create: exit $?]"
    q scan "$ds" --select id --limit 1; echo "[scan: exit $?]"
    q scan "$ds" --version "$prev" --format stats | cut -d' ' -f1; echo "[scan --version $prev: exit ${PIPESTATUS[0]}]"
    q restore "$ds" --version "$k"; echo "[restore $k: exit $?]"
    q restore "$ds" --version "$prev"; echo "[restore $prev: exit $?]"
    q versions "$ds" | tail -n 2
    q import "$here/data/people.csv" "$ds" --mode append --quiet; echo "[append: exit $?]"
    q delete "$ds" --filter "id = 3"; echo "[delete: exit $?]"
    q scan "$ds" --format stats | cut -d' ' -f1; echo "[scan: exit ${PIPESTATUS[0]}]"
    q index list "$ds" | cut -c1-40
    if cmp -s "saved-$k" "$m" 2> /dev/null || diff -r "saved-$k" "$m" > /dev/null 2>&1; then echo "$m: untouched"; else echo "$m: CHANGED"; fi
  } 2>&1 | sed -E 's/stored [0-9a-f]{8}, computed [0-9a-f]{8}/stored X, computed Y/'
}
# damage DS K KIND: damages DS's version K's manifest (a copy kept as saved-K).
damage() {
  local m="$1/_versions/$2.manifest"
  case $3 in
    flip) printf '\x55' | dd of="$m" bs=1 seek=40 conv=notrunc 2> /dev/null ;;
    magic) printf 'QVMX' | dd of="$m" bs=1 seek=0 conv=notrunc 2> /dev/null ;;
    format) printf '\x07' | dd of="$m" bs=1 seek=4 conv=notrunc 2> /dev/null ;;
    truncate) truncate -s 100 "$m" ;;
    empty) : > "$m" ;;
    garbage) printf 'garbage' >> "$m" ;;
    directory) rm "$m" && mkdir "$m" ;;
  esac
  cp -r "$m" "saved-$2"
}
q import "$here/data/people.csv" dmgm --quiet > /dev/null 2>&1
q index create dmgm --column age --type btree > /dev/null
q delete dmgm --filter "id = 1" > /dev/null
q import "$here/data/people.csv" dmgm --mode append --quiet > /dev/null 2>&1
run restore-help q restore --help
run versions-help q versions --help
run restore-needs-version q restore dmgm
run restore-missing q restore dmgm --version 9
damage dmgm 4 flip
run manifest-checksum damaged_cycle dmgm 4 all
damage dmgm 7 magic
run manifest-bad-magic damaged_cycle dmgm 7
damage dmgm 10 format
run manifest-format-version damaged_cycle dmgm 10
damage dmgm 13 truncate
run manifest-truncated damaged_cycle dmgm 13
damage dmgm 16 empty
run manifest-empty damaged_cycle dmgm 16
damage dmgm 19 garbage
run manifest-garbage damaged_cycle dmgm 19
damage dmgm 22 directory
run manifest-unreadable damaged_cycle dmgm 22 all
# Errors and output.  Nothing reaches stdout before the first batch is read
# whole: a damaged data file (its first page of `id`, as the Python tests
# damage it) or a cast that fails on the first rows prints no header, no
# Arrow schema and no row count, in every format; the file is named once.
q import "$here/data/people.csv" dmgdata --quiet > /dev/null 2>&1
printf '\x55' | dd of="$(ls dmgdata/data/*.qvf)" bs=1 seek=40 conv=notrunc 2> /dev/null
for fmt in table csv json arrow stats; do
  run "scan-damaged-$fmt" q scan dmgdata --format "$fmt"
  run "scan-cast-fails-$fmt" q scan ds --where 'pl.col("name").cast(pl.Int64) > 3' --format "$fmt"
done
# An error later in the scan (the third of three fragments: a cast that fails
# on its row 2500, or a damaged data file) leaves the rows already written:
# stderr says how many, the exit status is 1, and no "(N rows)" follows.
{ echo "id,code"; seq 1 3000 | awk '{ printf "%d,%s\n", $1, ($1 == 2500 ? "x" : $1) }'; } > late.csv
q import late.csv late --type code=string --max-rows-per-file 1000 --quiet > /dev/null 2>&1
# shows the exit status, stdout's line count and its first and last lines
partial() { "$@" > partial.out; echo "[scan exit $?] $(wc -l < partial.out) lines on stdout"; head -n 2 partial.out; tail -n 1 partial.out; }
# (The table and Arrow output wait for whole batches of --batch-size rows:
# at the default 8192 the error comes in the first batch and nothing is
# written.  The table prints its first 1000 rows together.)
for fmt in table csv json; do
  run "scan-cast-fails-late-$fmt" partial q scan late --where 'pl.col("code").cast(pl.Int64) > 3' --format "$fmt" --batch-size 500
done
run scan-cast-fails-late-table-one-batch partial q scan late --where 'pl.col("code").cast(pl.Int64) > 3'
# The Arrow stream ends without its end-of-stream marker; a reader that
# takes that as the end (quiver's does) gets the rows written, so the exit
# status and stderr are what say the output is incomplete.
run scan-cast-fails-late-arrow bash -c "'$quiver' scan late --where 'pl.col(\"code\").cast(pl.Int64) > 3' --format arrow --batch-size 500 > late.arrows; echo \"[scan exit \$?]\"; '$quiver' import - late-arrow -q < late.arrows"
{ echo "id,code"; seq 1 2000 | awk '{ printf "%d,%d\n", $1, $1 }'; } > first.csv
{ echo "id,code"; seq 2001 3000 | awk '{ printf "%d,%d\n", $1, $1 }'; } > second.csv
q import first.csv dmglate --type code=string --quiet > /dev/null 2>&1
ls dmglate/data > before.txt
q import second.csv dmglate --type code=string --mode append --quiet > /dev/null 2>&1
printf '\x55' | dd of="dmglate/data/$(ls dmglate/data | grep -vxFf before.txt)" bs=1 seek=40 conv=notrunc 2> /dev/null
for fmt in table csv json; do
  run "scan-damaged-late-$fmt" partial q scan dmglate --format "$fmt" --batch-size 500
done
# `optimize --rebuild` on an index with both a damaged file and a fragment
# appended since: one summary of the one version committed.
q import big.csv rb --quiet > /dev/null 2>&1
q index create rb --column id --type btree > /dev/null
printf '\x55' | dd of="$(ls rb/_indices/*.qvi)" bs=1 seek=20 conv=notrunc 2> /dev/null
q import big.csv rb --mode append --quiet > /dev/null 2>&1
run index-rebuild-and-optimize q index optimize rb --rebuild
run index-rebuild-nothing q index optimize rb --rebuild
run index-rebuild-list q index list rb
# A bitmap index's damaged chunk of null rows: named by chunk and role.
q import "$here/data/people.csv" bmdmg --quiet > /dev/null 2>&1
q index create bmdmg --column city --type bitmap > /dev/null
printf '\x55' | dd of="$(ls bmdmg/_indices/*.qvi)" bs=1 seek=20 conv=notrunc 2> /dev/null
run index-damaged-bitmap-list q index list bmdmg
# Singular counts: "1 row", "1 fragment", "1 page range".
printf 'a\n1\n' > one.csv
run import-one-row q import one.csv one
q index create one --column a --type btree > /dev/null
run explain-one-row-estimate bash -c "'$quiver' explain one --filter 'a = 1' | grep 'index'"
q import big.csv bigfr --max-rows-per-file 1500 --quiet > /dev/null 2>&1
q index create bigfr --column id --type btree > /dev/null
run explain-one-fragment-skipped bash -c "'$quiver' explain --analyze bigfr --filter 'id = 7' --select word | grep 'index'"
# JSON: NaN and infinities are null, as Polars' write_ndjson writes them
# (-0.0 stays -0.0, a null stays null).
run scan-json-nan q scan fl --where 'pl.col("id").is_between(1500, 1505)' --format json
# Table cells padded and cut by display width: CJK and emoji take two
# columns, a combining accent none; a cut never splits a character.
q import "$here/data/wide.csv" wide --quiet > /dev/null 2>&1
run scan-wide-table q scan wide
run scan-wide-table-narrow q scan wide --select name --filter "id >= 5"
# Graphs: a four-person graph declared over two datasets (issue 16), shown,
# refused once a dataset moved on, refreshed; the declaration's errors.
printf 'id,name,age\n1,Ann,31\n2,Bob,42\n3,Cid,27\n4,Dee,38\n' > persons.csv
printf 'src,dst,since\n1,2,2019\n1,3,2021\n2,3,2022\n3,4,2018\n' > knows.csv
printf 'src,dst,since\n4,1,2024\n' > knows2.csv
printf 'id,name\n1,a\n2,b\n1,c\n' > dup.csv
printf 'src,dst\n1,2\n1,9\n8,2\n' > dangling.csv
q import persons.csv g-persons --quiet > /dev/null 2>&1
q import knows.csv g-knows --quiet > /dev/null 2>&1
q import dup.csv g-dup --quiet > /dev/null 2>&1
q import dangling.csv g-dangling --quiet > /dev/null 2>&1
run graph-help q graph --help
run graph-create q graph create g --node Person=g-persons:id --rel 'KNOWS=g-knows:src->dst:Person->Person'
run graph-show q graph show g
run graph-create-again q graph create g --node Person=g-persons:id
run graph-refresh-current q graph refresh g
q import knows2.csv g-knows --mode append --quiet > /dev/null 2>&1
run graph-show-stale q graph show g
run graph-refresh q graph refresh g
run graph-show-refreshed q graph show g
run graph-duplicate-ids q graph create g2 --node P=g-dup:id
run graph-dangling q graph create g2 --node Person=g-persons:id --rel 'R=g-dangling:src->dst:Person->Person'
run graph-not-integer q graph create g2 --node Person=g-persons:name
run graph-no-column q graph create g2 --node Person=g-persons:ident
run graph-no-dataset q graph create g2 --node Person=nowhere:id
run graph-label-twice q graph create g2 --node P=g-persons:id --node P=g-dup:id
run graph-undeclared-label q graph create g2 --node P=g-persons:id --rel 'R=g-knows:src->dst:P->City'
run graph-bad-spec q graph create g2 --node P=g-persons
run graph-bad-rel q graph create g2 --node P=g-persons:id --rel 'R=g-knows:src:P->P'
run graph-show-none q graph show nowhere
# quiver cypher over that graph: the command's own errors (the queries'
# rows and plans are the cypher-query-* cases below).
run cypher-help q cypher --help
run cypher-no-query q cypher g
run cypher-extra-arg q cypher g MATCH '(n)' RETURN n
run cypher-bad-param q cypher g 'RETURN $x' --param x
run cypher-param-twice q cypher g 'RETURN $x' --param x=1 --param x=2
run cypher-bad-format q cypher g 'RETURN 1' --format stats
run cypher-explain-format q cypher g 'RETURN 1' --explain --format csv
run cypher-no-graph q cypher nowhere 'RETURN 1'
run cypher-table q cypher g 'MATCH (a:Person)-[:KNOWS]->(b) WHERE a.age > $age RETURN a.name AS a, b.name AS b ORDER BY a, b' --param age=30
run cypher-csv-no-csr q cypher g 'MATCH (a:Person)-[k:KNOWS]->(b) RETURN a.name AS a, k.since AS since, b.name AS b ORDER BY since' --format csv --no-csr
run cypher-json q cypher g 'MATCH (a:Person {name: $name})-[:KNOWS*1..2]->(b) RETURN DISTINCT b ORDER BY b.name' --param name=Ann --format json
# --param values: literals as they are, a bare word as a string
run cypher-param-literals q cypher g 'RETURN $i AS i, $f AS f, $s AS s, $w AS w, $l AS l, $m AS m, $n AS n, $h AS h' -p i=42 -p f=-1.5e3 -p "s='it\\'s'" -p w='Ann Lee' -p 'l=[1, 2.5]' -p 'm={k: true}' -p n=null -p h=0x1F --format csv
run cypher-explain q cypher g 'MATCH (a:Person)-[:KNOWS]->(b) RETURN count(*) AS n' --explain
run cypher-syntax-error q cypher g 'MATCH (a RETURN a'
run cypher-unknown-label q cypher g 'MATCH (a:Persn) RETURN a'
run cypher-read-only q cypher g 'CREATE (:Person {id: 9})'
run cypher-runtime-error q cypher g 'MATCH (a:Person) RETURN a.name - 1 AS x'
# EXPLAIN on the four-person graph (Person(id, name, age), KNOWS(src, dst,
# since), four edges): each plan with the CSR and with --no-csr (every hop a
# hash join), and the rows, which must be the same both ways.
printf 'id,name,age\n1,Ann,31\n2,Bob,42\n3,Cid,27\n4,Dee,38\n' > fp-persons.csv
printf 'src,dst,since\n1,2,2019\n1,3,2021\n2,3,2022\n3,4,2018\n' > fp-knows.csv
q import fp-persons.csv fp-persons --quiet > /dev/null 2>&1
q import fp-knows.csv fp-knows --quiet > /dev/null 2>&1
q graph create fp --node Person=fp-persons:id --rel 'KNOWS=fp-knows:src->dst:Person->Person' > /dev/null 2>&1
explain_case() {
  local name=$1 query=$2
  run "explain-$name" q cypher fp "$query" --explain
  run "explain-$name-no-csr" q cypher fp "$query" --explain --no-csr
  run "explain-$name-rows" q cypher fp "$query" --format csv
  run "explain-$name-rows-no-csr" q cypher fp "$query" --format csv --no-csr
}
explain_case two-hop "MATCH (a:Person {name: 'Ann'})-[:KNOWS]->(b)-[:KNOWS]->(c) RETURN b.name AS b, c.name AS c ORDER BY b, c"
explain_case filters 'MATCH (a:Person)-[k:KNOWS]->(b:Person) WHERE b.age > 35 AND k.since > 2018 RETURN a.name AS a, b.name AS b, k.since AS since'
explain_case var-length "MATCH (a:Person {name: 'Ann'})-[:KNOWS*1..3]->(b) RETURN DISTINCT b.name AS b ORDER BY b"
explain_case optional 'MATCH (a:Person) OPTIONAL MATCH (a)-[:KNOWS]->(b) RETURN a.name AS a, b.name AS b ORDER BY a, b'
explain_case aggregation 'MATCH (a:Person)-[:KNOWS]->(b) WITH a, count(*) AS n WHERE n > 1 RETURN a.name AS a, n'
explain_case not-exists 'MATCH (a:Person) WHERE NOT (a)-[:KNOWS]->() RETURN a.name AS a'
run explain-cypher-analyze q cypher fp 'MATCH (a:Person)-[:KNOWS]->(b:Person) WHERE b.age > 30 RETURN count(*) AS n' --analyze
# Pipe-separated files with typed headers (the LDBC layout): --delimiter and
# --columns, with and without a header line.
printf 'id:ID(Person)|firstName:STRING|birthday:LONG\n933|Mahinda|19891203\n1129|Carmen|19840218\n' > typed.csv
printf '933|1129|20100422123057947\n' > headerless.csv
run import-columns q import typed.csv typed --quiet --delimiter '|' --columns id,firstName,birthday
run import-columns-schema q schema typed
run import-columns-no-header q import headerless.csv headerless --quiet --delimiter '|' --no-header --columns src,dst,creationDate
run import-columns-scan q scan headerless --format csv
run import-columns-wrong-count q import typed.csv typed2 --quiet --delimiter '|' --columns id,firstName

# Counts without columns (issue 22): --count prints the number of rows the
# scan returns; only the filter's columns are read, and without a filter the
# manifest answers (fragments=0 in the summary: no data file opened).
run scan-count q scan ds --count
run scan-count-filter q scan ds --count --filter "age > 40 AND city IS NOT NULL"
run scan-count-where q scan ds --count --where 'pl.col("age") > 40'
run scan-count-where-null q scan ds --count --where 'pl.col("city").is_null()'
run scan-count-limit-offset q scan ds --count --filter "age > 20" --limit 2 --offset 1
run scan-count-offset-past q scan ds --count --offset 1000
run scan-count-stats q scan ds --count --format stats
run scan-count-stats-filter q scan ds --count --where 'pl.col("score") >= 88.25' --format stats
run scan-count-deleted q scan del-ds --count --format stats
run scan-count-deleted-filter q scan del-ds --count --filter "id < 4"
run scan-count-index q scan big --count --filter "id BETWEEN 100 AND 120 AND grp = 25" --format stats
run scan-count-index-off q scan big --count --filter "id BETWEEN 100 AND 120 AND grp = 25" --no-index
run scan-count-old-version q scan ix --version 1 --count
run scan-count-select q scan ds --count --select id
run scan-count-format q scan ds --count --format csv
run explain-count q explain ds --count

# Vector search (docs/vector.md): 12 vectors of dimension 4.
run vec-import q import "$here/data/vectors.arrows" vec --quiet
run vec-nearest q scan vec --nearest 'vec:[1, 1, 0, 0]' --k 3
run vec-nearest-cosine q scan vec --nearest 'vec:[1, 1, 0, 0]' --k 3 --metric cosine --select id
run vec-nearest-dot q scan vec --nearest 'vec:[1, 1, 0, 0]' --k 3 --metric dot --select id
run vec-prefilter q scan vec --nearest 'vec:[1, 1, 0, 0]' --k 3 --filter "tag = 'b'" --select id,tag
run vec-postfilter q scan vec --nearest 'vec:[1, 1, 0, 0]' --k 3 --postfilter "tag = 'b'" --select id,tag
run vec-file q scan vec --nearest-file "vec:$here/data/vector_queries.npy" --k 2 --select id --format csv
run vec-explain q explain vec --nearest 'vec:[1, 1, 0, 0]' --k 3 --filter "id < 9" --postfilter "_distance < 2"
run vec-index q index create vec --column vec --type ivf_flat --num-partitions 2
run vec-index-explain q explain vec --analyze --nearest 'vec:[1, 1, 0, 0]' --k 3 --nprobes 2 --select id
run vec-index-scan q scan vec --nearest 'vec:[1, 1, 0, 0]' --k 3 --nprobes 2 --select id
run vec-bad-dim q scan vec --nearest 'vec:[1, 1]' --k 3
run vec-bad-column q scan vec --nearest 'tag:[1, 1, 0, 0]' --k 3
run vec-bad-k q scan vec --nearest 'vec:[1, 1, 0, 0]' --k 13
run vec-bad-text q scan vec --nearest 'vec:1, 1'
run vec-k-alone q scan vec --k 3
# quiver merge: the source is a dataset of the same schema (id 3 changed, id
# 9 new: people_upd.csv) or an Arrow IPC file (ids 3 and 4 as they are).
q import "$here/data/people.csv" mg --quiet > /dev/null 2>&1
q import "$here/data/people_upd.csv" mg-upd --quiet > /dev/null 2>&1
q scan mg --filter "id = 3 OR id = 4" --format arrow > mg-src.arrow
run merge-help q merge --help
run merge-needs-on q merge mg mg-src.arrow
run merge-bad-when q merge mg mg-src.arrow --on id --when-matched sometimes
run merge-same-rows q merge mg mg-src.arrow --on id --when-matched nothing --no-insert
run merge-update-columns q merge mg mg-upd --on id --update-columns name,city --no-insert
run merge-after-update-columns q scan mg --select id,name,age,city --format csv
run merge-upsert q merge mg mg-upd --on id
run merge-after-upsert q scan mg --select id,name,age,city --format csv
run merge-delete q merge mg mg-src.arrow --on id --when-matched delete
run merge-after-delete q scan mg --select id --format csv
run merge-reinsert q merge mg mg-src.arrow --on id,name
run merge-after-reinsert q scan mg --select id --format csv
run merge-bad-key q merge mg mg-src.arrow --on nope
run merge-dataset-source q merge mg mg --on id --delete-not-matched
run merge-versions q versions mg

# quiver optimize / tag / cleanup on the merged dataset (5 versions, small
# fragments with deletions).
q index create mg --column age --type btree > /dev/null
for m in create append append; do q import "$here/data/people.csv" opt --mode $m --quiet > /dev/null 2>&1; done
q delete opt --filter "id = 2" > /dev/null
q index create opt --column age --type btree > /dev/null
run optimize-help q optimize --help
run optimize-before q scan opt --select id,name --filter "age > 30" --format csv
run optimize q optimize opt --target-rows 100
run optimize-again q optimize opt --target-rows 100
run optimize-after q scan opt --select id,name --filter "age > 30" --format csv
run optimize-explain q explain opt --filter "age > 30"
run optimize-versions q versions opt
run tag-help q tag --help
run tag-none q tag mg
run tag-create q tag mg keep-me --version 2
run tag-latest q tag mg newest
run tag-exists q tag mg keep-me
run tag-bad-name q tag mg 'no/slash'
run tag-list q tag mg
run cleanup-help q cleanup --help
run cleanup-bad-age q cleanup mg --older-than soon
run cleanup-dry-run q cleanup mg --older-than 0 --dry-run
run cleanup q cleanup mg --older-than 0
run cleanup-versions q versions mg
run cleanup-after q scan mg --select id,name --filter "age > 30" --format csv
run cleanup-old-tagged q scan mg --version 2 --select id --format csv
run tag-delete q tag mg keep-me --delete
run cleanup-untagged q cleanup mg --older-than 0
run cleanup-versions-untagged q versions mg

# import --max-bytes-per-file: a file ends after the page that reaches the limit
run import-max-bytes q import "$here/data/people.csv" mb --max-bytes-per-file 1 --page-rows 2 --quiet
run import-max-bytes-versions q versions mb
run import-max-bytes-bad q import "$here/data/people.csv" mb2 --max-bytes-per-file 0

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
