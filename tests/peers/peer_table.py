"""The one table every peer test filters: a row per combination-ish of the
values where engines disagree (nulls, NaN of both signs, -0.0 and +0.0,
infinities, integer extremes, empty / non-ASCII / Unicode-whitespace strings,
dates and timestamps around the epoch, lists, structs).

Each column cycles through its own value list, and the list lengths differ,
so rows mix the edge values of different columns.  `id` is the row number:
unique and never null, so a failing comparison can name rows.
"""

import datetime as dt
import math
import struct

import pyarrow as pa

N_ROWS = 64
TZ = "Europe/Berlin"

NEG_NAN = struct.unpack("<d", struct.pack("<Q", 0xFFF8000000000000))[0]
INF = math.inf
NAN = math.nan

I8 = [0, 1, -1, None, -128, 127, 5, -5, 2]
I16 = [0, -32768, 32767, None, 7, -7, 300]
I32 = [0, -2147483648, 2147483647, 1, None, -3, 3, 100000, 2]
I64 = [0, -9223372036854775808, 9223372036854775807, None, 1, -1, 5, -3, 10, 2, 3]
U8 = [0, 255, 1, None, 128, 3]
U32 = [0, 4294967295, 1, 7, None]
U64 = [0, 18446744073709551615, 1, None, 9223372036854775808, 5, 3]
F = [0.0, -0.0, NAN, INF, -INF, None, 0.5, -0.5, 2.5, -2.5, 1.0, 1e300, -1e-300, 3.0, 1.5, 0.999, -1.0, 2.0, 5e-324]
G = [1.0, NAN, -0.0, None, 0.0, NEG_NAN, -1.5, 2.5, INF, 4.0, 0.5, -2.0, 1e20]
F32 = [0.0, -0.0, NAN, None, 1.5, -1.5, INF, 0.1, 3.0, -INF, 16777217.0]
S = ["", "a", "abc", "é", "ÉCOLE", "straße", "\u00a0x\u2003", " x ", "x", "it's", "a.b", "aaa", "b", None,
     "日本語", "ǅemal", "1-2", "\tx\n", "Ab", "bb", "x y", "AB", "xy", "ab"]
T = ["", "b", None, "2", "y", "é", " ", "x"]
B = [True, False, None, True, False]
C = [False, True, True, None]
D = [dt.date(2024, 1, 1), dt.date(1970, 1, 1), dt.date(1969, 12, 31), None, dt.date(2024, 2, 29),
     dt.date(2000, 12, 31), dt.date(1900, 3, 1), dt.date(2023, 6, 15), dt.date(2024, 12, 30)]
TS = [dt.datetime(2024, 1, 1, 12, 30, 15, 250000), dt.datetime(1970, 1, 1), None,
      dt.datetime(1969, 12, 31, 23, 59, 59, 999999), dt.datetime(2024, 2, 29, 23, 0),
      dt.datetime(2000, 1, 2, 3, 4, 5), dt.datetime(2023, 6, 15, 0, 0, 1), dt.datetime(1900, 1, 1, 6)]
TZS = [dt.datetime(2024, 1, 1, 23, 30, tzinfo=dt.timezone.utc), None,
       dt.datetime(2024, 3, 31, 0, 59, 59, tzinfo=dt.timezone.utc),
       dt.datetime(2024, 3, 31, 1, 0, 0, tzinfo=dt.timezone.utc),
       dt.datetime(1969, 12, 31, 23, 0, tzinfo=dt.timezone.utc),
       dt.datetime(2023, 6, 15, 22, 15, tzinfo=dt.timezone.utc)]
L = [[1, 2, 3], [], None, [None], [5], [0, -1], [3, None, 2], [-9223372036854775808]]
ST = [{"x": 1}, None, {"x": None}, {"x": -5}, {"x": 9223372036854775807}, {"x": 0}]

COLUMNS = [
    ("i8", pa.int8(), I8), ("i16", pa.int16(), I16), ("i32", pa.int32(), I32), ("i64", pa.int64(), I64),
    ("u8", pa.uint8(), U8), ("u32", pa.uint32(), U32), ("u64", pa.uint64(), U64),
    ("f", pa.float64(), F), ("g", pa.float64(), G), ("f32", pa.float32(), F32),
    ("s", pa.string(), S), ("t", pa.string(), T), ("b", pa.bool_(), B), ("c", pa.bool_(), C),
    ("d", pa.date32(), D), ("ts", pa.timestamp("us"), TS), ("tz", pa.timestamp("us", TZ), TZS),
    ("l", pa.list_(pa.int64()), L), ("st", pa.struct([("x", pa.int64())]), ST),
]

# The schema as `quiver lance-filter --schema` spells it (the command splits
# the list on the commas outside brackets, so the zoned timestamp's
# "timestamp[us, Europe/Berlin]" is one item).
SCHEMA_TEXT = ",".join(
    "%s:%s" % (name, text)
    for name, text in [
        ("id", "int64"), ("i8", "int8"), ("i16", "int16"), ("i32", "int32"), ("i64", "int64"),
        ("u8", "uint8"), ("u32", "uint32"), ("u64", "uint64"), ("f", "float64"), ("g", "float64"),
        ("f32", "float32"), ("s", "string"), ("t", "string"), ("b", "bool"), ("c", "bool"),
        ("d", "date32"), ("ts", "timestamp[us]"), ("tz", "timestamp[us, %s]" % TZ), ("l", "list<int64>"), ("st", "struct<x:int64>"),
    ]
)


def build_table():
    """The peer table as a pyarrow Table (deterministic)."""
    arrays = {"id": pa.array(range(N_ROWS), pa.int64())}
    for k, (name, typ, values) in enumerate(COLUMNS):
        # A per-column stride coprime with the list length shuffles the
        # pairing of edge values across columns.
        n = len(values)
        stride = next(s for s in (1, 3, 5, 7, 11, 13) if math.gcd(s, n) == 1 and s != (k % 3) * 2)
        arrays[name] = pa.array([values[(i * stride + k) % n] for i in range(N_ROWS)], typ)
    return pa.table(arrays)
