"""Arrow interop between quiver and pyarrow (the reference Arrow).

* pyarrow writes IPC files and streams with every type quiver has (plus
  nulls, several batches, a dictionary column, compressed bodies); quiver's
  ipc_tool reads each and writes it back; pyarrow reads that and compares.
* quiver's sample batch (tests/support/ipc_tool.c) is read by pyarrow and
  checked value by value.
* Through the C Data Interface, with libquiver loaded by ctypes: an
  ArrowArrayStream exported by quiver is imported by pyarrow; a pyarrow
  RecordBatch goes into quiver and back out; a pyarrow stream (dictionary
  column included) goes through quiver's import and export.
* Layouts other writers use for quiver's types (large_string/binary/list,
  string/binary views: what Polars writes and exports) are converted on read
  and on stream import.

The build directory comes from QV_BUILD_DIR (default /work/main/build).
"""

import ctypes
import datetime
import decimal
import os
import subprocess

import pytest

try:
    import pyarrow as pa
    import pyarrow.ipc as ipc
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip(
        "!!! pyarrow cannot be imported (%s): the Arrow interop tests are SKIPPED. "
        "Run scripts/pyenv.sh and use .venv/bin/python -m pytest. !!!" % exc,
        allow_module_level=True,
    )

BUILD = os.environ.get("QV_BUILD_DIR", "/work/main/build")


def _find(*names):
    for name in names:
        path = os.path.join(BUILD, name)
        if os.path.exists(path):
            return path
    return None


IPC_TOOL = _find("tests/ipc_tool", "ipc_tool")
LIBQUIVER = _find("libquiver.so")


def _need(path, what):
    if path is None:
        pytest.skip("!!! %s not found under %s (build it, or set QV_BUILD_DIR) !!!" % (what, BUILD))
    return path


def run_tool(*args):
    tool = _need(IPC_TOOL, "ipc_tool")
    proc = subprocess.run([tool, *map(str, args)], capture_output=True, text=True)
    assert proc.returncode == 0, "ipc_tool %s failed: %s" % (" ".join(map(str, args)), proc.stderr)
    return proc.stdout


# ---- data --------------------------------------------------------------------


def every_type_table(with_dictionary=True):
    """Every type quiver supports, with nulls, in more than one batch."""
    cols = {
        "b": pa.array([True, False, None, True, False, None, True], pa.bool_()),
        "i8": pa.array([1, -128, None, 127, 0, 5, -1], pa.int8()),
        "i16": pa.array([1, -32768, None, 32767, 0, 5, -1], pa.int16()),
        "i32": pa.array([1, -(2**31), None, 2**31 - 1, 0, 5, -1], pa.int32()),
        "i64": pa.array([1, -(2**63), None, 2**63 - 1, 0, 5, -1], pa.int64()),
        "u8": pa.array([1, 0, None, 255, 2, 3, 4], pa.uint8()),
        "u16": pa.array([1, 0, None, 65535, 2, 3, 4], pa.uint16()),
        "u32": pa.array([1, 0, None, 2**32 - 1, 2, 3, 4], pa.uint32()),
        "u64": pa.array([1, 0, None, 2**64 - 1, 2, 3, 4], pa.uint64()),
        "f32": pa.array([1.5, -0.0, None, float("inf"), 2.25, -3.0, 1e-30], pa.float32()),
        "f64": pa.array([1.5, -0.0, None, float("-inf"), 1e300, -3.0, 5e-324], pa.float64()),
        "dec": pa.array(
            [decimal.Decimal("1.23"), decimal.Decimal("-99999999.99"), None, decimal.Decimal("0.00"),
             decimal.Decimal("0.01"), decimal.Decimal("-0.01"), decimal.Decimal("12345678.90")],
            pa.decimal128(10, 2)),
        "dec38": pa.array([decimal.Decimal("1" * 38), None, decimal.Decimal("-" + "9" * 38), 0, 1, 2, 3],
                          pa.decimal128(38, 0)),
        "s": pa.array(["a", "", None, "ünïcødé", "longer string", "x", "y"], pa.string()),
        "bin": pa.array([b"a", b"", None, b"\x00\xff", b"bytes", b"x", b"y"], pa.binary()),
        "d32": pa.array([0, 1, None, -5, 19000, -719162, 2932896], pa.date32()),
        "ts_s": pa.array([0, 1, None, -5, 10, 20, 30], pa.timestamp("s")),
        "ts_ms_tz": pa.array([0, 1, None, -5, 10, 20, 30], pa.timestamp("ms", tz="Europe/Paris")),
        "ts_us_utc": pa.array([0, 1, None, -5, 10, 20, 30], pa.timestamp("us", tz="UTC")),
        "ts_ns": pa.array([0, 1, None, -5, 10, 20, 2**62], pa.timestamp("ns")),
        "t64_us": pa.array([0, 1, None, 86399999999, 10, 20, 30], pa.time64("us")),
        "t64_ns": pa.array([0, 1, None, 86399999999999, 10, 20, 30], pa.time64("ns")),
        "dur_s": pa.array([0, 1, None, -5, 10, 20, 30], pa.duration("s")),
        "dur_ms": pa.array([0, 1, None, -5, 10, 20, 30], pa.duration("ms")),
        "dur_us": pa.array([0, 1, None, -5, 10, 20, 30], pa.duration("us")),
        "dur_ns": pa.array([0, 1, None, -5, 10, 20, 30], pa.duration("ns")),
        "lst": pa.array([[1, None], [], None, [3], [4, 5, 6], None, [7]], pa.list_(pa.int64())),
        "st": pa.array(
            [{"x": 1, "y": "a"}, None, {"x": None, "y": None}, {"x": 4, "y": "d"}, {"x": 5, "y": ""},
             {"x": 6, "y": "f"}, None],
            pa.struct([pa.field("x", pa.int32()), pa.field("y", pa.string(), nullable=False)])),
        "fsl": pa.array([[1, 2], None, [None, 4], [5, 6], [7, 8], [9, 10], None], pa.list_(pa.float64(), 2)),
        "nested": pa.array(
            [[{"a": [1], "b": {"c": "x"}}], None, [], [{"a": None, "b": None}, None], [{"a": [], "b": {"c": None}}],
             None, [None]],
            pa.list_(pa.struct([("a", pa.list_(pa.int8())), ("b", pa.struct([("c", pa.string())]))]))),
        "nul": pa.array([None] * 7, pa.null()),
    }
    if with_dictionary:
        cols["dict"] = pa.array(["x", "y", None, "x", "zz", "y", None]).dictionary_encode()
    schema = pa.schema([pa.field(k, v.type, nullable=(k != "i32")) for k, v in cols.items()])
    return pa.Table.from_arrays(list(cols.values()), schema=schema)


def decoded(table):
    """What quiver gives back: dictionary columns decoded to their values."""
    for i, field in enumerate(table.schema):
        if pa.types.is_dictionary(field.type):
            table = table.set_column(
                i, pa.field(field.name, field.type.value_type, field.nullable), table.column(i).cast(field.type.value_type))
    return table


def assert_tables_equal(want, got):
    assert got.schema.equals(want.schema), "schema differs:\n%s\nvs\n%s" % (want.schema, got.schema)
    for name in want.column_names:
        a, b = want.column(name).combine_chunks(), got.column(name).combine_chunks()
        assert a.equals(b), "column %s differs:\n%s\nvs\n%s" % (name, a, b)
    assert want.equals(got)


def write_ipc(path, table, fmt, max_chunksize=3, **options):
    opts = ipc.IpcWriteOptions(**options)
    writer = ipc.new_file if fmt == "file" else ipc.new_stream
    with writer(str(path), table.schema, options=opts) as w:
        w.write_table(table, max_chunksize=max_chunksize)


def read_ipc(path):
    with open(path, "rb") as f:
        magic = f.read(6)
    if magic == b"ARROW1":
        return ipc.open_file(str(path)).read_all()
    return ipc.open_stream(str(path)).read_all()


# ---- IPC files and streams ------------------------------------------------------


@pytest.mark.parametrize("fmt_in", ["stream", "file"])
@pytest.mark.parametrize("fmt_out", ["stream", "file"])
def test_pyarrow_written_roundtrip(tmp_path, fmt_in, fmt_out):
    table = every_type_table()
    src, dst = tmp_path / "in.arrow", tmp_path / "out.arrow"
    write_ipc(src, table, fmt_in)
    run_tool("roundtrip", src, dst, fmt_out)
    with open(dst, "rb") as f:
        head = f.read(8)
    assert (head[:6] == b"ARROW1") == (fmt_out == "file")
    got = read_ipc(dst)
    got.validate(full=True)
    assert_tables_equal(decoded(table), got)
    assert [b.num_rows for b in got.to_batches()] == [3, 3, 1]


@pytest.mark.parametrize("codec", ["lz4", "zstd"])
@pytest.mark.parametrize("fmt_in", ["stream", "file"])
def test_compressed_input(tmp_path, codec, fmt_in):
    table = every_type_table()
    big = pa.table({"n": pa.array(range(200000)), "z": pa.array([0] * 200000), "s": pa.array(["abc"] * 200000)})
    for i, t in enumerate([table, big]):
        src, dst = tmp_path / ("in%d" % i), tmp_path / ("out%d" % i)
        write_ipc(src, t, fmt_in, max_chunksize=65536, compression=codec)
        run_tool("roundtrip", src, dst, "stream")
        assert_tables_equal(decoded(t), read_ipc(dst))


def test_delta_dictionaries(tmp_path):
    schema = pa.schema([pa.field("c", pa.dictionary(pa.int16(), pa.string()))])
    b1 = pa.record_batch([pa.DictionaryArray.from_arrays(pa.array([0, 1, None], pa.int16()), ["a", "b"])], schema=schema)
    b2 = pa.record_batch([pa.DictionaryArray.from_arrays(pa.array([2, 0], pa.int16()), ["a", "b", "c"])], schema=schema)
    src, dst = tmp_path / "in", tmp_path / "out"
    with ipc.new_stream(str(src), schema, options=ipc.IpcWriteOptions(emit_dictionary_deltas=True)) as w:
        w.write_batch(b1)
        w.write_batch(b2)
    run_tool("roundtrip", src, dst)
    assert read_ipc(dst).column("c").to_pylist() == ["a", "b", None, "c", "a"]


@pytest.mark.parametrize("offset,length", [(0, 7), (1, 5), (3, 4), (5, 2), (6, 1), (2, 0)])
def test_sliced_batches_written(tmp_path, offset, length):
    table = every_type_table().combine_chunks()
    src, dst = tmp_path / "in", tmp_path / "out"
    write_ipc(src, table, "stream", max_chunksize=100)
    run_tool("slice", src, dst, "file", offset, length)
    got = read_ipc(dst)
    got.validate(full=True)
    assert_tables_equal(decoded(table).slice(offset, length), got)


@pytest.mark.parametrize("fmt_in", ["stream", "file"])
@pytest.mark.parametrize("via", ["redirect", "pipe"])
def test_stdin(tmp_path, fmt_in, via):
    """Standard input: a stream is read a message at a time; the file
    format by positioned reads when stdin is the file itself, whole from a
    pipe.  The same rows either way."""
    table = every_type_table()
    src, dst = tmp_path / "in", tmp_path / "out"
    write_ipc(src, table, fmt_in)
    tool = _need(IPC_TOOL, "ipc_tool")
    args = [tool, "roundtrip", "-", str(dst), "file"]
    if via == "redirect":
        with open(src, "rb") as f:
            proc = subprocess.run(args, stdin=f, capture_output=True, text=True)
    else:
        proc = subprocess.run(args, input=src.read_bytes(), capture_output=True)
    assert proc.returncode == 0, proc.stderr
    assert_tables_equal(decoded(table), read_ipc(dst))


def test_corrupt_input_is_an_error(tmp_path):
    table = every_type_table()
    src = tmp_path / "in"
    write_ipc(src, table, "file")
    data = bytearray(src.read_bytes())
    data[-12:] = b"\xff" * 12
    bad = tmp_path / "bad"
    bad.write_bytes(bytes(data))
    proc = subprocess.run([_need(IPC_TOOL, "ipc_tool"), "cat", str(bad)], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "byte" in proc.stderr and str(bad) in proc.stderr


SAMPLE_TYPES = {
    "b": pa.bool_(), "i8": pa.int8(), "i16": pa.int16(), "i32": pa.int32(), "i64": pa.int64(),
    "u8": pa.uint8(), "u16": pa.uint16(), "u32": pa.uint32(), "u64": pa.uint64(),
    "f32": pa.float32(), "f64": pa.float64(), "dec": pa.decimal128(10, 2), "s": pa.string(),
    "bin": pa.binary(), "d32": pa.date32(), "ts": pa.timestamp("us", tz="UTC"), "tsn": pa.timestamp("ns"),
    "t64": pa.time64("us"), "t64n": pa.time64("ns"), "dur": pa.duration("ms"),
    "lst": pa.list_(pa.int32()), "st": pa.struct([("a", pa.int32()), ("b", pa.string())]),
    "fsl": pa.list_(pa.int16(), 2), "nul": pa.null(),
}

SAMPLE_VALUES = {
    "b": [True, False, None, True, False],
    "i8": [-128, 127, None, 0, -1],
    "i16": [-32768, 32767, None, 1, -2],
    "i32": [-(2**31), 2**31 - 1, None, 2, -3],
    "i64": [-(2**63), 2**63 - 1, None, 3, -4],
    "u8": [0, 255, None, 1, 2],
    "u16": [0, 65535, None, 1, 2],
    "u32": [0, 2**32 - 1, None, 1, 2],
    "u64": [0, 2**64 - 1, None, 1, 2],
    "f32": [1.5, -2.25, None, 0.0, 3.0],
    "f64": [1.5, -2.25, None, 1e300, -0.0],
    "dec": [decimal.Decimal("123.45"), decimal.Decimal("-0.01"), None, decimal.Decimal("0.00"),
            decimal.Decimal("99999999.99")],
    "s": ["hello", "", None, "ünïcødé", "x"],
    "bin": [b"\x00\x01", b"", None, b"abc", b"\xff"],
    "d32": [datetime.date(1970, 1, 1), datetime.date(2022, 1, 8), None, datetime.date(1969, 12, 31),
            datetime.date(1971, 1, 1)],
    "t64": [datetime.time(0), datetime.time(23, 59, 59, 999999), None, datetime.time(0, 0, 0, 1),
            datetime.time(0, 0, 0, 2)],
    "dur": [datetime.timedelta(0), datetime.timedelta(milliseconds=-5), None, datetime.timedelta(seconds=1),
            datetime.timedelta(milliseconds=7)],
    "lst": [[1, 2], [], None, [None, 3], [4]],
    "st": [{"a": 1, "b": "a"}, {"a": 2, "b": None}, None, {"a": None, "b": "d"}, {"a": 5, "b": "e"}],
    "fsl": [[1, 2], [3, None], None, [5, 6], [7, 8]],
    "nul": [None] * 5,
}

SAMPLE_INTS = {  # nanosecond and timestamp columns compared as raw integers
    "ts": [0, 1700000000000000, None, -1, 1],
    "tsn": [0, 1700000000000000123, None, -1, 1],
    "t64n": [0, 86399999999999, None, 1, 2],
}


@pytest.mark.parametrize("fmt", ["stream", "file"])
def test_quiver_sample_read_by_pyarrow(tmp_path, fmt):
    out = tmp_path / "sample"
    run_tool("sample", out, fmt)
    table = read_ipc(out)
    table.validate(full=True)
    assert table.num_rows == 5
    assert table.column_names == list(SAMPLE_TYPES)
    for name, typ in SAMPLE_TYPES.items():
        assert table.schema.field(name).type == typ, name
        assert table.schema.field(name).nullable
    for name, values in SAMPLE_VALUES.items():
        got = table.column(name).to_pylist()
        assert got == values, name
        if name == "f64":
            assert str(got[4]) == "-0.0"
    for name, values in SAMPLE_INTS.items():
        assert table.column(name).cast(pa.int64()).to_pylist() == values, name
    assert table.column("st").type.field("a").name == "a"


# ---- the C Data Interface through ctypes --------------------------------------------


class QvError(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("message", ctypes.c_char * 1024)]


class QvSchema(ctypes.Structure):
    _fields_ = [("n_fields", ctypes.c_int32), ("fields", ctypes.c_void_p)]


ARROW_STRUCT_BYTES = 128  # ArrowSchema is 72 bytes, ArrowArray 80, ArrowArrayStream 40


@pytest.fixture(scope="module")
def lib():
    path = _need(LIBQUIVER, "libquiver.so")
    q = ctypes.CDLL(path)
    vp, pp, ep = ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(QvError)
    sigs = {
        "qv_ipc_read_path": [ctypes.c_char_p, pp, ep],
        "qv_export_stream": [vp, vp, ep],
        "qv_import_stream": [vp, pp, ep],
        "qv_import_schema": [vp, ctypes.POINTER(QvSchema), ep],
        "qv_import_batch": [vp, ctypes.POINTER(QvSchema), pp, ep],
        "qv_export_schema": [ctypes.POINTER(QvSchema), vp, ep],
        "qv_export_batch": [vp, vp, ep],
    }
    for name, args in sigs.items():
        getattr(q, name).argtypes = args
        getattr(q, name).restype = ctypes.c_int
    q.qv_batch_release.argtypes = [vp]
    q.qv_batch_release.restype = None
    q.qv_schema_reset.argtypes = [ctypes.POINTER(QvSchema)]
    q.qv_schema_reset.restype = None
    q.qv_batch_reader_destroy.argtypes = [vp]
    q.qv_batch_reader_destroy.restype = None
    return q


def c_struct():
    buf = ctypes.create_string_buffer(ARROW_STRUCT_BYTES)
    return buf, ctypes.addressof(buf)


def check(status, err):
    assert status == 0, "quiver error %d: %s" % (status, err.message.decode())


@pytest.mark.parametrize("fmt", ["stream", "file"])
def test_quiver_stream_exported_to_pyarrow(tmp_path, lib, fmt):
    table = every_type_table()
    src = tmp_path / "in"
    write_ipc(src, table, fmt)
    err = QvError()
    reader = ctypes.c_void_p()
    check(lib.qv_ipc_read_path(str(src).encode(), ctypes.byref(reader), ctypes.byref(err)), err)
    stream, addr = c_struct()
    check(lib.qv_export_stream(reader, addr, ctypes.byref(err)), err)
    got = pa.RecordBatchReader._import_from_c(addr).read_all()
    got.validate(full=True)
    assert_tables_equal(decoded(table), got)


def test_pyarrow_batch_through_quiver_c_data(lib):
    table = every_type_table(with_dictionary=False)
    for batch in table.to_batches() + [table.combine_chunks().to_batches()[0].slice(2, 4)]:
        arr, arr_addr = c_struct()
        sch, sch_addr = c_struct()
        batch._export_to_c(arr_addr, sch_addr)
        err = QvError()
        qschema = QvSchema()
        qbatch = ctypes.c_void_p()
        check(lib.qv_import_schema(sch_addr, ctypes.byref(qschema), ctypes.byref(err)), err)
        check(lib.qv_import_batch(arr_addr, ctypes.byref(qschema), ctypes.byref(qbatch), ctypes.byref(err)), err)
        out_arr, out_arr_addr = c_struct()
        out_sch, out_sch_addr = c_struct()
        check(lib.qv_export_schema(ctypes.byref(qschema), out_sch_addr, ctypes.byref(err)), err)
        check(lib.qv_export_batch(qbatch, out_arr_addr, ctypes.byref(err)), err)
        lib.qv_batch_release(qbatch)  # the exported struct keeps its own reference
        lib.qv_schema_reset(ctypes.byref(qschema))
        back = pa.RecordBatch._import_from_c(out_arr_addr, out_sch_addr)
        back.validate(full=True)
        assert back.schema.equals(batch.schema)
        assert back.equals(batch)


def test_pyarrow_dictionary_batch_needs_a_stream(lib):
    batch = every_type_table().combine_chunks().to_batches()[0]
    arr, arr_addr = c_struct()
    sch, sch_addr = c_struct()
    batch._export_to_c(arr_addr, sch_addr)
    err = QvError()
    qschema = QvSchema()
    qbatch = ctypes.c_void_p()
    check(lib.qv_import_schema(sch_addr, ctypes.byref(qschema), ctypes.byref(err)), err)
    status = lib.qv_import_batch(arr_addr, ctypes.byref(qschema), ctypes.byref(qbatch), ctypes.byref(err))
    assert status == 8  # QV_ERR_UNSUPPORTED: the index width is only in the ArrowSchema
    assert b"dictionary" in err.message
    lib.qv_schema_reset(ctypes.byref(qschema))
    # The failed import left the array with us; hand it back to pyarrow to free.
    sch2, sch2_addr = c_struct()
    batch.schema._export_to_c(sch2_addr)
    pa.RecordBatch._import_from_c(arr_addr, sch2_addr)


def test_pyarrow_stream_through_quiver(lib):
    table = every_type_table()
    src = pa.RecordBatchReader.from_batches(table.schema, table.to_batches())
    inp, inp_addr = c_struct()
    src._export_to_c(inp_addr)
    err = QvError()
    qreader = ctypes.c_void_p()
    check(lib.qv_import_stream(inp_addr, ctypes.byref(qreader), ctypes.byref(err)), err)
    out, out_addr = c_struct()
    check(lib.qv_export_stream(qreader, out_addr, ctypes.byref(err)), err)
    got = pa.RecordBatchReader._import_from_c(out_addr).read_all()
    got.validate(full=True)
    assert_tables_equal(decoded(table), got)


LONG = "a string longer than twelve bytes"
PLAIN_OF_LARGE_VIEW = {"ls": pa.string(), "lb": pa.binary(), "sv": pa.string(), "bv": pa.binary(),
                       "ll": pa.list_(pa.int32()), "ll_sv": pa.list_(pa.string()), "cat": pa.string()}


def large_view_table(repeat=1):
    """Layouts Polars writes (large_*, *_view) that quiver reads as its own."""
    strings = ["short", None, LONG, "", LONG + "!", "x"] * repeat
    raw = [s.encode() if s is not None else None for s in strings]
    return pa.table({
        "ls": pa.array(strings, pa.large_string()),
        "lb": pa.array(raw, pa.large_binary()),
        "sv": pa.array(strings, pa.string_view()),
        "bv": pa.array(raw, pa.binary_view()),
        "ll": pa.array([[1, 2], None, [], [3], [None], [4, 5]] * repeat, pa.large_list(pa.int32())),
        "ll_sv": pa.array([["x", LONG], None, [], [None], ["y"], []] * repeat, pa.large_list(pa.string_view())),
        "cat": pa.array(strings, pa.large_string()).dictionary_encode(),
    })


@pytest.mark.parametrize("fmt", ["stream", "file"])
@pytest.mark.parametrize("codec", [None, "zstd"])
def test_large_and_view_layouts_read_from_ipc(tmp_path, fmt, codec):
    table = large_view_table(repeat=3)
    src, dst = tmp_path / "in", tmp_path / "out"
    write_ipc(src, table, fmt, max_chunksize=7, compression=codec)
    run_tool("roundtrip", src, dst)
    got = read_ipc(dst)
    got.validate(full=True)
    want = pa.table({k: table.column(k).cast(v) for k, v in PLAIN_OF_LARGE_VIEW.items()})
    assert_tables_equal(want, got)


def test_large_and_view_layouts_converted_by_stream_import(lib):
    """Polars exports large_string / string_view; quiver's stream import
    converts them (and large_list) to its int32-offset layout."""
    table = large_view_table()
    batches = [table.slice(0, 4).to_batches()[0], table.slice(3, 3).to_batches()[0]]  # non-zero offsets
    src = pa.RecordBatchReader.from_batches(table.schema, batches)
    inp, inp_addr = c_struct()
    src._export_to_c(inp_addr)
    err = QvError()
    qreader = ctypes.c_void_p()
    check(lib.qv_import_stream(inp_addr, ctypes.byref(qreader), ctypes.byref(err)), err)
    out, out_addr = c_struct()
    check(lib.qv_export_stream(qreader, out_addr, ctypes.byref(err)), err)
    got = pa.RecordBatchReader._import_from_c(out_addr).read_all()
    got.validate(full=True)
    for name, typ in PLAIN_OF_LARGE_VIEW.items():
        assert got.schema.field(name).type == typ, name
        want = pa.concat_arrays([b.column(name) for b in batches]).cast(typ)
        assert got.column(name).combine_chunks().equals(want), name

    # The schema-only import refuses these layouts instead of misreading them.
    sch, sch_addr = c_struct()
    table.schema._export_to_c(sch_addr)
    qschema = QvSchema()
    assert lib.qv_import_schema(sch_addr, ctypes.byref(qschema), ctypes.byref(err)) == 8
    assert b"qv_import_stream" in err.message
    pa.Schema._import_from_c(sch_addr)  # still ours after the failure: free it
