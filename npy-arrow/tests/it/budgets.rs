//! Issue 42 (hostile-input cases, round four, F1–F5 and F13): Arrow IPC and Parquet inputs
//! whose claims would size the conversion's memory, disk, time or stack. Each case's input is
//! the case script's (`/work/shared/cases/turn4/r0N_*.py`, the Parquet files built by
//! [`crate::pq`], a port of its `_pq.py`), with a variant of another type or size, so that the
//! test holds the kind and not the one file. Every refusal names the input, says which budget
//! (and how to raise it) or what is malformed, and leaves no output.

use npy_test_support::cpu::CpuTimer;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{
    ArrayRef, BinaryArray, FixedSizeBinaryArray, FixedSizeListArray, Int32Array, RecordBatch,
    StringArray, StructArray,
};
use arrow_buffer::Buffer;
use arrow_schema::{DataType, Field};
use npy_arrow::{convert, ConvertOptions, ErrorKind};

#[cfg(feature = "parquet")]
use crate::pq::{self, INT32, INT64, PLAIN, REQUIRED, RLE_DICT};

#[cfg_attr(not(feature = "parquet"), allow(dead_code))]
struct Case {
    _dir: tempfile::TempDir,
    input: PathBuf,
    out: PathBuf,
}

#[cfg_attr(not(feature = "parquet"), allow(dead_code))]
fn case(name: &str, bytes: &[u8]) -> Case {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join(name);
    std::fs::write(&input, bytes).unwrap();
    let out = dir.path().join("out.npy");
    Case {
        _dir: dir,
        input,
        out,
    }
}

/// Converts `c` with `options`, expecting a refusal that names the input and writes nothing.
#[cfg_attr(not(feature = "parquet"), allow(dead_code))]
fn refused(c: &Case, options: &ConvertOptions) -> npy_arrow::Error {
    let e = convert(&c.input, &c.out, options).unwrap_err();
    assert_eq!(e.path(), Some(c.input.as_path()), "{e}");
    assert!(!c.out.exists(), "{e}");
    e
}

#[cfg_attr(not(feature = "parquet"), allow(dead_code))]
fn npy_i64(path: &Path) -> Vec<i64> {
    npy_core::read::<i64>(path).unwrap().into_vec()
}

fn ipc(dir: &Path, name: &str, columns: Vec<(&str, ArrayRef)>) -> PathBuf {
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let path = dir.join(name);
    npy_arrow::write_ipc(&path, &batch.schema(), |push| push(&batch)).unwrap();
    path
}

// ---------------------------------------------------------------------------------------
// F3: nesting depth (r03).

#[cfg(feature = "parquet")]
fn nested(depth: usize, leaf_type: i64, rep: i64) -> Vec<u8> {
    let mut schema = vec![pq::group("schema", 1, None)];
    let mut path = Vec::new();
    for i in 0..depth {
        schema.push(pq::group(&format!("g{i}"), 1, Some(rep)));
        path.push(format!("g{i}"));
    }
    schema.push(pq::leaf("x", leaf_type));
    path.push("x".into());
    let payload: Vec<u8> = if leaf_type == INT64 {
        pq::i64s(&[1, 2, 3])
    } else {
        [1i32, 2, 3].iter().flat_map(|v| v.to_le_bytes()).collect()
    };
    // An optional group adds a definition level per row: all defined (RLE run of 3 × max).
    let page = if rep == REQUIRED {
        pq::data_page(&payload, 3, PLAIN)
    } else {
        let bits = usize::BITS - depth.leading_zeros();
        let levels = pq::rle_run(3, depth as u64, bits);
        let mut body = (levels.len() as u32).to_le_bytes().to_vec();
        body.extend_from_slice(&levels);
        body.extend_from_slice(&payload);
        pq::data_page(&body, 3, PLAIN)
    };
    let claims = pq::Claims {
        rows: 3,
        file_rows: 3,
        num_values: 3,
        codec: pq::UNCOMPRESSED,
    };
    pq::build(schema, &path, leaf_type, &page, &claims, false)
}

/// r03: 2,000 (and 50,000) nested required groups around one INT64 leaf overflowed the main
/// thread's stack inside the parquet crate (an abort). They are refused before the parquet
/// crate reads the footer, with the budget; this test runs on a test thread's 2 MiB stack, so
/// a check that came after the parquet crate's recursion would abort the test binary.
#[cfg(feature = "parquet")]
#[test]
fn parquet_nesting_past_the_budget_is_refused_before_parquet_reads_it() {
    let max = npy_arrow::MAX_NESTING_DEPTH;
    for (depth, leaf_type, rep) in [
        (2000, INT64, REQUIRED),
        (50_000, INT64, REQUIRED),
        // Held-back variant: optional groups around an INT32 leaf, one past the budget.
        (max + 1, INT32, 1),
    ] {
        let c = case("deep.parquet", &nested(depth, leaf_type, rep));
        let e = refused(&c, &ConvertOptions::new());
        match e.kind() {
            ErrorKind::Budget {
                needed,
                limit,
                option,
                ..
            } => {
                assert_eq!((*needed, *limit), (depth as u64, max as u64), "{e}");
                assert_eq!(*option, "ConvertOptions::max_nesting_depth");
            }
            _ => panic!("depth {depth}: {e}"),
        }
        // The public reader checks it too.
        let e = npy_arrow::read_parquet(&c.input, 1024, |_| Ok(()), |_| Ok(())).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Budget { .. }), "{e}");
        assert_eq!(e.classify(), npy_core::error::Category::Limit);
    }
    // Within the budget the file converts: 3 levels, the page's values (the format's rule:
    // three plain INT64s, required all the way down).
    let c = case("deep3.parquet", &nested(3, INT64, REQUIRED));
    let arrow_out = c.out.with_extension("arrow");
    convert(&c.input, &arrow_out, &ConvertOptions::new()).unwrap();
    let mut rows = 0;
    npy_arrow::read_parquet(
        &c.input,
        1024,
        |_| Ok(()),
        |b| {
            rows += b.num_rows();
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(rows, 3);
    // The caller's budget: 2 refuses 3 levels, naming 2.
    let e = refused(&c, &ConvertOptions::new().max_nesting_depth(2));
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Budget {
                needed: 3,
                limit: 2,
                ..
            }
        ),
        "{e}"
    );
}

/// The deepest schema the default budget admits is read on a spawned thread's default (2 MiB)
/// stack: the budget leaves room for the parquet crate's recursion in a debug build.
#[cfg(feature = "parquet")]
#[test]
fn parquet_nesting_at_the_budget_fits_a_default_thread_stack() {
    let max = npy_arrow::MAX_NESTING_DEPTH;
    let c = case("deep.parquet", &nested(max, INT64, REQUIRED));
    let input = c.input.clone();
    let rows = std::thread::spawn(move || {
        let mut rows = 0;
        npy_arrow::read_parquet(
            &input,
            1024,
            |_| Ok(()),
            |b| {
                rows += b.num_rows();
                Ok(())
            },
        )
        .map(|()| rows)
    })
    .join()
    .unwrap()
    .unwrap();
    assert_eq!(rows, 3);
}

/// The deepest schema the default budget admits converts to a `.npy` that reads back: each
/// record level nests the header two levels, and npy-core's header parser reads 128 (a
/// tester's held-back variant: with the old budget of 128, depths 64 to 128 converted into
/// files that `npy show` and, from 100, numpy refused). Expected values: the page's three
/// INT64s (the format's rule), each inside `MAX_NESTING_DEPTH` one-field records.
#[cfg(feature = "parquet")]
#[test]
fn parquet_nesting_at_the_budget_converts_to_a_npy_that_reads_back() {
    let max = npy_arrow::MAX_NESTING_DEPTH;
    let c = case("deep_npy.parquet", &nested(max, INT64, REQUIRED));
    convert(&c.input, &c.out, &ConvertOptions::new()).unwrap();
    let a = npy_core::read_dyn(&c.out).unwrap_or_else(|e| panic!("depth {max}: {e}"));
    assert_eq!(a.shape(), [3]);
    let mut dtype = a.dtype();
    let mut depth = 0;
    while let npy_core::DType::Record(r) = dtype {
        assert_eq!(r.fields().len(), 1);
        dtype = &r.fields()[0].dtype;
        depth += 1;
    }
    assert_eq!(depth, max);
    assert_eq!(dtype.to_string(), "<i8");
}

/// F3's held-back variant: a schema group claiming 2^31 - 1 children in a 136-byte file made
/// the parquet crate's schema builder allocate for them first (16 GiB, an abort). A group
/// cannot have more children than the schema elements after it: refused as malformed, as
/// pyarrow refuses it ("not enough elements"), before the parquet crate reads the schema.
#[cfg(feature = "parquet")]
#[test]
fn a_schema_group_claiming_more_children_than_follow_is_malformed() {
    for claimed in [2i64, 1_000_000, (1 << 31) - 1] {
        let schema = vec![
            pq::group("schema", 1, None),
            pq::group("g", claimed, Some(REQUIRED)),
            pq::leaf("x", INT64),
        ];
        let path = vec!["g".to_owned(), "x".to_owned()];
        let claims = pq::Claims {
            rows: 3,
            file_rows: 3,
            num_values: 3,
            codec: pq::UNCOMPRESSED,
        };
        let page = pq::data_page(&pq::i64s(&[1, 2, 3]), 3, PLAIN);
        let c = case(
            "kids.parquet",
            &pq::build(schema, &path, INT64, &page, &claims, false),
        );
        let e = refused(&c, &ConvertOptions::new());
        assert!(
            matches!(e.kind(), ErrorKind::Malformed(m) if m.contains(&format!("claims {claimed} children"))),
            "{claimed}: {e}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// F2: sizes claimed inside pages (r02).

#[cfg(feature = "parquet")]
fn x_schema(ptype: i64) -> Vec<Vec<(i16, pq::V)>> {
    vec![pq::group("schema", 1, None), pq::leaf("x", ptype)]
}

/// r02: a dictionary page claiming 2^31 - 1 INT64 values in 8 bytes (129 bytes in all) made
/// the parquet crate allocate 16 GiB before decoding. Variants: a `BYTE_ARRAY` and an `INT32`
/// dictionary page claiming more values than their bytes hold, and a Snappy page claiming an
/// uncompressed size Snappy cannot reach from its bytes (the crate reserves the claim).
#[cfg(feature = "parquet")]
#[test]
fn page_claims_past_their_bytes_are_malformed() {
    let rle = |n: u64| {
        let mut b = vec![1u8];
        b.extend(pq::rle_run(n, 0, 1));
        b
    };
    let int64 = {
        let mut chunk = pq::dict_page(&pq::i64s(&[7]), (1 << 31) - 1);
        chunk.extend(pq::data_page(&rle(5), 5, RLE_DICT));
        pq::build_plain(x_schema(INT64), 5, &["x"], INT64, &chunk, 5, true)
    };
    assert_eq!(int64.len(), 129, "the script's file");
    let bytes = {
        let mut chunk = pq::dict_page(b"\x01\0\0\0a", 1 << 20);
        chunk.extend(pq::data_page(&rle(5), 5, RLE_DICT));
        pq::build_plain(
            x_schema(pq::BYTE_ARRAY),
            5,
            &["x"],
            pq::BYTE_ARRAY,
            &chunk,
            5,
            true,
        )
    };
    let int32 = {
        // 8 bytes hold two INT32s, not three.
        let mut chunk = pq::dict_page(&pq::i64s(&[7]), 3);
        chunk.extend(pq::data_page(&rle(5), 5, RLE_DICT));
        pq::build_plain(x_schema(INT32), 5, &["x"], INT32, &chunk, 5, true)
    };
    let snappy = {
        let mut chunk = pq::dict_page_sized(&pq::i64s(&[7]), 1, (1 << 31) - 1);
        chunk.extend(pq::data_page(&rle(5), 5, RLE_DICT));
        let claims = pq::Claims {
            rows: 5,
            file_rows: 5,
            num_values: 5,
            codec: pq::SNAPPY,
        };
        pq::build(x_schema(INT64), &["x".into()], INT64, &chunk, &claims, true)
    };
    for (name, file, says) in [
        ("int64", int64, "claims 2147483647 values in 8 bytes"),
        ("bytes", bytes, "claims 1048576 values in 5 bytes"),
        ("int32", int32, "claims 3 values in 8 bytes"),
        ("snappy", snappy, "more than Snappy can expand them to"),
    ] {
        let c = case(&format!("{name}.parquet"), &file);
        let e = refused(&c, &ConvertOptions::new());
        assert!(
            matches!(e.kind(), ErrorKind::Malformed(why) if why.contains(says) && why.contains("\"x\"")),
            "{name}: {e}"
        );
    }
    // The same file with a dictionary of one value its bytes hold converts: the RLE run's
    // five rows of dictionary entry 0 (the format's rule).
    let mut chunk = pq::dict_page(&pq::i64s(&[7]), 1);
    chunk.extend(pq::data_page(&rle(5), 5, RLE_DICT));
    let c = case(
        "ok.parquet",
        &pq::build_plain(x_schema(INT64), 5, &["x"], INT64, &chunk, 5, true),
    );
    convert(&c.input, &c.out, &ConvertOptions::new()).unwrap();
    assert_eq!(npy_i64(&c.out), [7; 5]);
}

/// The same kind inside a page's data: the delta headers of `DELTA_LENGTH_BYTE_ARRAY` and
/// `DELTA_BYTE_ARRAY` pages state value counts the parquet crate allocates length vectors by
/// (`vec![0; count]`) before comparing them with anything: 2^40 is a 4 TiB allocation, an
/// abort. A count past the page's values is malformed; an honest page converts.
#[cfg(feature = "parquet")]
#[test]
fn delta_headers_stating_more_values_than_their_page_are_malformed() {
    // A DELTA_BINARY_PACKED stream: block 128, 4 miniblocks, `total` values, the first
    // `first` (zigzag), one block of min delta 0 and bit widths 0 (every value `first`).
    let stream = |total: u64, first: u8| {
        let mut o = vec![0x80, 0x01, 0x04];
        let mut t = total;
        loop {
            let c = (t & 0x7f) as u8;
            t >>= 7;
            if t == 0 {
                o.push(c);
                break;
            }
            o.push(c | 0x80);
        }
        o.extend_from_slice(&[first << 1, 0, 0, 0, 0, 0]);
        o
    };
    let file = |payload: &[u8], encoding: i64| {
        let chunk = pq::data_page(payload, 5, encoding);
        pq::build_plain(
            x_schema(pq::BYTE_ARRAY),
            5,
            &["x"],
            pq::BYTE_ARRAY,
            &chunk,
            5,
            false,
        )
    };
    let mut lengths = stream(1 << 40, 1);
    lengths.extend_from_slice(b"abcde");
    let mut prefixed = stream(5, 0);
    prefixed.extend(stream(1 << 40, 1));
    prefixed.extend_from_slice(b"abcde");
    for (name, bytes) in [
        ("length", file(&lengths, 6)),
        ("prefix", file(&prefixed, 7)),
    ] {
        let c = case(&format!("{name}.parquet"), &bytes);
        let e = refused(&c, &ConvertOptions::new());
        assert!(
            matches!(e.kind(), ErrorKind::Malformed(why) if why.contains("a delta header states 1099511627776 values in a page of 5")),
            "{name}: {e}"
        );
    }
    // Honest pages: five 1-byte strings, "a" to "e" (the encodings' rules), read as `S1`.
    let mut lengths = stream(5, 1);
    lengths.extend_from_slice(b"abcde");
    let mut prefixed = stream(5, 0);
    prefixed.extend(stream(5, 1));
    prefixed.extend_from_slice(b"abcde");
    for (name, bytes) in [
        ("length", file(&lengths, 6)),
        ("prefix", file(&prefixed, 7)),
    ] {
        let c = case(&format!("{name}.parquet"), &bytes);
        convert(&c.input, &c.out, &ConvertOptions::new()).unwrap();
        let a = npy_core::read_dyn(&c.out).unwrap();
        assert_eq!(a.dtype().to_string(), "|S1", "{name}");
        assert!(std::fs::read(&c.out).unwrap().ends_with(b"abcde"), "{name}");
    }
}

// ---------------------------------------------------------------------------------------
// F5: output amplification (r05).

#[cfg(feature = "parquet")]
fn rle_file(ptype: i64, rows_per_page: i64, pages: usize) -> Vec<u8> {
    let dict: Vec<u8> = if ptype == INT64 {
        pq::i64s(&[7])
    } else {
        7i32.to_le_bytes().to_vec()
    };
    let mut chunk = pq::dict_page(&dict, 1);
    let mut body = vec![1u8];
    body.extend(pq::rle_run(rows_per_page as u64, 0, 1));
    for _ in 0..pages {
        chunk.extend(pq::data_page(&body, rows_per_page, RLE_DICT));
    }
    let rows = rows_per_page * pages as i64;
    pq::build_plain(x_schema(ptype), rows, &["x"], ptype, &chunk, rows, true)
}

/// r05: RLE pages state 2^31 - 1 rows in ten bytes: a 145-byte file wrote 2 GiB, 1,915 bytes
/// described 1 TiB. The rows the footer claims (checked against the pages) times the row's
/// size are checked against the output budget before anything is decoded. Variants: INT32
/// rows, output to `.arrow`, a caller's budget lower and higher than the default.
#[cfg(feature = "parquet")]
#[test]
fn parquet_output_past_the_budget_is_refused_before_decoding() {
    let floor = npy_arrow::OUTPUT_BUDGET_FLOOR;
    let a = rle_file(INT64, 1 << 28, 1);
    assert_eq!(a.len(), 145, "the script's a.parquet");
    let b = rle_file(INT64, (1 << 31) - 1, 64);
    assert_eq!(b.len(), 1915, "the script's b.parquet");
    let int32 = rle_file(INT32, 1 << 29, 1);
    for (name, file, ext, needed) in [
        ("a", &a, "npy", 1u64 << 31),
        ("b", &b, "npy", ((1u64 << 31) - 1) * 64 * 8),
        ("int32", &int32, "npy", 1 << 31),
        ("a", &a, "arrow", 1 << 31),
    ] {
        let mut c = case(&format!("{name}.parquet"), file);
        c.out = c.out.with_extension(ext);
        let started = CpuTimer::start();
        let e = refused(&c, &ConvertOptions::new());
        assert!(
            matches!(
                e.kind(),
                ErrorKind::Budget { needed: n, limit, option: "ConvertOptions::max_output_bytes", .. }
                    if *n == needed && *limit == floor
            ),
            "{name} to .{ext}: {e}"
        );
        // Refused before the rows are decoded (decoding a.parquet took 2.7 s in release).
        assert!(
            started.elapsed().as_secs() < 2,
            "{name}: {:?}",
            started.elapsed()
        );
    }
    // A small RLE file converts, its rows the dictionary's value (the format's rule) ...
    let small = case("small.parquet", &rle_file(INT64, 1000, 2));
    convert(&small.input, &small.out, &ConvertOptions::new()).unwrap();
    assert_eq!(npy_i64(&small.out), vec![7; 2000]);
    std::fs::remove_file(&small.out).unwrap();
    // ... unless the caller's budget is lower: 16,000 bytes of rows past 15,999.
    let e = refused(&small, &ConvertOptions::new().max_output_bytes(15_999));
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Budget {
                needed: 16_000,
                limit: 15_999,
                ..
            }
        ),
        "{e}"
    );
    // The exact output (the header too) is checked before writing.
    let e = refused(&small, &ConvertOptions::new().max_output_bytes(16_000));
    assert!(
        matches!(e.kind(), ErrorKind::Budget { needed, limit: 16_000, .. } if *needed > 16_000),
        "{e}"
    );
    convert(
        &small.input,
        &small.out,
        &ConvertOptions::new().max_output_bytes(16_128),
    )
    .unwrap();
}

// ---------------------------------------------------------------------------------------
// F1: a string column's width is its longest value's (r01).

/// r01: 100,000 strings, one of 1 Mi characters: `U1048576` for every row, 400 GB of output,
/// and one 64 Ki-row batch of it was a 256 GiB allocation (an abort). Both formats are refused
/// after the first read, with the output budget, before anything is allocated for the output.
/// Variants: a `Binary` column (`S`) and a struct field wider than the string-width budget,
/// and a caller's wider budget.
#[test]
fn a_string_width_past_the_budgets_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut strings = vec![""; 100_000];
    let long = "a".repeat(1 << 20);
    strings[0] = &long;
    let column: ArrayRef = Arc::new(StringArray::from(strings));
    #[cfg_attr(not(feature = "parquet"), allow(unused_mut))]
    let mut inputs = vec![ipc(dir.path(), "wide.arrow", vec![("s", column.clone())])];
    #[cfg(feature = "parquet")]
    {
        let batch = RecordBatch::try_from_iter([("s", column.clone())]).unwrap();
        let path = dir.path().join("wide.parquet");
        npy_arrow::write_parquet(&path, &batch.schema(), |push| push(&batch)).unwrap();
        inputs.push(path);
    }
    for input in inputs {
        let out = dir.path().join("out.npy");
        let e = convert(&input, &out, &ConvertOptions::new()).unwrap_err();
        assert_eq!(e.path(), Some(input.as_path()), "{e}");
        assert!(!out.exists());
        assert!(
            matches!(
                e.kind(),
                ErrorKind::Budget { needed, option: "ConvertOptions::max_output_bytes", .. }
                    if *needed >= (100_000 * 4) << 20
            ),
            "{}: {e}",
            input.display()
        );
    }
    // Variants: one value past the width budget, in bytes (`S`), in a struct field.
    let wide = vec![0u8; (1 << 20) + 1];
    let bytes: ArrayRef = Arc::new(BinaryArray::from(vec![&b"x"[..], &wide]));
    let b = ipc(dir.path(), "bytes.arrow", vec![("b", bytes)]);
    let inner: ArrayRef = Arc::new(StringArray::from(vec!["abc", "abcd"]));
    let st: ArrayRef = Arc::new(StructArray::from(vec![(
        Arc::new(Field::new("t", DataType::Utf8, false)),
        inner,
    )]));
    let s = ipc(dir.path(), "struct.arrow", vec![("s", st)]);
    for (input, options, column, needed, limit) in [
        (
            &b,
            ConvertOptions::new(),
            "\"b\"",
            (1u64 << 20) + 1,
            1u64 << 20,
        ),
        (
            &s,
            ConvertOptions::new().max_string_width(3),
            "\"s.t\"",
            4,
            3,
        ),
    ] {
        let out = dir.path().join("out.npy");
        let e = convert(input, &out, &options).unwrap_err();
        assert_eq!(e.path(), Some(input.as_path()), "{e}");
        assert!(!out.exists());
        match e.kind() {
            ErrorKind::Budget {
                what,
                needed: n,
                limit: l,
                option,
            } => {
                assert!(what.contains(column), "{e}");
                assert_eq!((*n, *l), (needed, limit), "{e}");
                assert_eq!(*option, "FromArrowOptions::max_string_width");
            }
            _ => panic!("{e}"),
        }
    }
    // Within the budgets: numpy's rule, every row as wide as the longest value.
    let out = dir.path().join("s.npy");
    convert(&s, &out, &ConvertOptions::new()).unwrap();
    let a = npy_core::read_dyn(&out).unwrap();
    assert_eq!(a.dtype().to_string(), "[('t', '<U4')]");
}

/// Variant of r01 and r05 together: a dictionary of one 1 MiB byte string that an RLE page
/// repeats for 2^16 rows (1 MiB of file). The parquet crate materialises every row's value in
/// a batch (64 Ki rows: a 64 GiB batch); batches are now cut to about `BATCH_BYTES` of such
/// values, and the widths of the first batch already size the claimed rows past the output
/// budget: refused at once.
#[cfg(feature = "parquet")]
#[test]
fn a_wide_dictionary_value_repeated_by_rle_is_refused_at_its_first_batch() {
    let rows = 1i64 << 16;
    let mut value = ((1u32 << 20).to_le_bytes()).to_vec();
    value.extend(std::iter::repeat_n(b'a', 1 << 20));
    let mut chunk = pq::dict_page(&value, 1);
    let mut body = vec![1u8];
    body.extend(pq::rle_run(rows as u64, 0, 1));
    chunk.extend(pq::data_page(&body, rows, RLE_DICT));
    let file = pq::build_plain(
        x_schema(pq::BYTE_ARRAY),
        rows,
        &["x"],
        pq::BYTE_ARRAY,
        &chunk,
        rows,
        true,
    );
    let c = case("dict.parquet", &file);
    let started = CpuTimer::start();
    let e = refused(&c, &ConvertOptions::new());
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Budget { needed, option: "ConvertOptions::max_output_bytes", .. }
                if *needed == (1u64 << 16) << 20
        ),
        "{e}"
    );
    assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
    // The public reader hands out batches of about BATCH_BYTES of those values.
    let mut most = 0;
    let mut seen = 0;
    npy_arrow::read_parquet(
        &c.input,
        64 * 1024,
        |_| Ok(()),
        |b| {
            most = most.max(b.num_rows());
            seen += b.num_rows();
            if seen >= 64 {
                return Err(npy_arrow::Error::new(ErrorKind::Invalid("enough".into())));
            }
            Ok(())
        },
    )
    .unwrap_err();
    assert_eq!(most, npy_arrow::BATCH_BYTES >> 20);
}

// ---------------------------------------------------------------------------------------
// F4: rows that hold no bytes (r04).

/// `data` with the little-endian i64 `from` replaced by `to` everywhere (the script's patch of
/// the record batch's row count).
fn patched(data: &[u8], from: i64, to: i64) -> Vec<u8> {
    let (f, t) = (from.to_le_bytes(), to.to_le_bytes());
    let mut out = data.to_vec();
    let mut i = 0;
    let mut n = 0;
    while i + 8 <= out.len() {
        if out[i..i + 8] == f {
            out[i..i + 8].copy_from_slice(&t);
            n += 1;
            i += 8;
        } else {
            i += 1;
        }
    }
    assert!(n > 0);
    out
}

/// r04: an IPC file of one FixedSizeBinary(0) column whose record batch says 2^40 rows (434
/// bytes as pyarrow writes it) looped over every row for hours. Rows of no bytes past
/// `MAX_UNBACKED_ROWS` are refused after the first read (which counts them without touching
/// them). Variants: 123,456,789 rows unpatched, a `FixedSizeList` of 0 items, two zero-width
/// columns; a few such rows still convert.
#[test]
fn arrow_rows_without_bytes_past_the_budget_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let n = 123_456_789usize;
    let fsb = |len| -> ArrayRef {
        Arc::new(
            FixedSizeBinaryArray::try_new_with_len(0, Buffer::from(Vec::<u8>::new()), None, len)
                .unwrap(),
        )
    };
    let fsl = |len| -> ArrayRef {
        let item = Arc::new(Field::new("item", DataType::Int32, false));
        Arc::new(
            FixedSizeListArray::try_new_with_length(
                item,
                0,
                Arc::new(Int32Array::from(Vec::<i32>::new())),
                None,
                len,
            )
            .unwrap(),
        )
    };
    let one = ipc(dir.path(), "fsb0.arrow", vec![("v", fsb(n))]);
    let big = dir.path().join("fsb0_2p40.arrow");
    std::fs::write(
        &big,
        patched(&std::fs::read(&one).unwrap(), n as i64, 1 << 40),
    )
    .unwrap();
    let list = dir.path().join("fsl0.arrow");
    let l = ipc(dir.path(), "fsl0_small.arrow", vec![("t", fsl(n))]);
    std::fs::write(
        &list,
        patched(&std::fs::read(&l).unwrap(), n as i64, 1 << 40),
    )
    .unwrap();
    let two = ipc(dir.path(), "two.arrow", vec![("v", fsb(n)), ("t", fsl(n))]);
    for (input, rows) in [
        (&one, n as u64),
        (&big, 1 << 40),
        (&list, 1 << 40),
        (&two, n as u64),
    ] {
        let out = dir.path().join("out.npy");
        let started = CpuTimer::start();
        let e = convert(input, &out, &ConvertOptions::new()).unwrap_err();
        assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
        assert_eq!(e.path(), Some(input.as_path()), "{e}");
        assert!(!out.exists());
        assert!(
            matches!(e.kind(), ErrorKind::UnbackedRows { rows: r, limit } if *r == rows && *limit == npy_arrow::MAX_UNBACKED_ROWS),
            "{}: {e}",
            input.display()
        );
    }
    // Three such rows convert: numpy's `np.zeros(3, 'V0')` header, no data.
    let small = ipc(dir.path(), "small.arrow", vec![("v", fsb(3))]);
    let out = dir.path().join("small.npy");
    convert(&small, &out, &ConvertOptions::new()).unwrap();
    let a = npy_core::read_dyn(&out).unwrap();
    assert_eq!(
        (a.dtype().to_string().as_str(), a.shape()),
        ("|V0", &[3u64][..])
    );
    // A record of a byte and a list of 0 items: rows backed by the byte (no panic on the
    // empty blocks).
    let bytes: ArrayRef = Arc::new(arrow_array::Int8Array::from(vec![1i8, 2, 3]));
    let mixed = ipc(dir.path(), "mixed.arrow", vec![("a", bytes), ("t", fsl(3))]);
    let out = dir.path().join("mixed.npy");
    convert(&mixed, &out, &ConvertOptions::new()).unwrap();
    assert_eq!(npy_core::read_dyn(&out).unwrap().shape(), &[3u64][..]);
}

// ---------------------------------------------------------------------------------------
// F13: row counts against the pages (r13).

/// r13: a row group claiming 1 row whose page holds 3 values converted to 3 rows (pyarrow reads
/// 1); claims of -3 and 2^40 rows, and a file claiming 2^62, converted silently. Each is now
/// malformed. Variant: an INT32 column claiming 2 rows of 3; the honest file converts.
#[cfg(feature = "parquet")]
#[test]
fn row_counts_the_pages_do_not_hold_are_malformed() {
    let chunk = pq::data_page(&pq::i64s(&[1, 2, 3]), 3, PLAIN);
    let with = |rows: i64, file_rows: i64, ptype: i64, chunk: &[u8]| {
        let claims = pq::Claims {
            rows,
            file_rows,
            num_values: 3,
            codec: pq::UNCOMPRESSED,
        };
        pq::build(x_schema(ptype), &["x".into()], ptype, chunk, &claims, false)
    };
    let chunk32 = pq::data_page(
        &[1i32, 2, 3]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<_>>(),
        3,
        PLAIN,
    );
    for (file, says) in [
        (
            with(1, 1, INT64, &chunk),
            "row group 0 claims 1 rows and its column \"x\" holds 3",
        ),
        (with(-3, -3, INT64, &chunk), "row group 0 claims -3 rows"),
        (
            with(1 << 40, 1 << 40, INT64, &chunk),
            "claims 1099511627776 rows and its column",
        ),
        (
            with(3, 1 << 62, INT64, &chunk),
            "the file claims 4611686018427387904 rows and its row groups hold 3",
        ),
        (
            with(2, 2, INT32, &chunk32),
            "claims 2 rows and its column \"x\" holds 3",
        ),
    ] {
        let c = case("rg.parquet", &file);
        let e = refused(&c, &ConvertOptions::new());
        assert!(
            matches!(e.kind(), ErrorKind::Malformed(why) if why.contains(says)),
            "{e}"
        );
    }
    let c = case("ok.parquet", &with(3, 3, INT64, &chunk));
    convert(&c.input, &c.out, &ConvertOptions::new()).unwrap();
    assert_eq!(npy_i64(&c.out), [1, 2, 3]);
}

/// The fuzz target `parquet`'s timeout and `arrow`'s slow unit (issue 42's new seeds, 483
/// bytes each): a Thrift map whose keys and values are bools, stated to hold about 2^63
/// pairs. The footer check skipped each bool as a bool field (whose value is in its field
/// header: no byte), so no pair consumed a byte and the count alone set the time.
#[cfg(feature = "parquet")]
const THRIFT_BOOL_MAP_TIMEOUT: &[u8] = &[
    80, 65, 82, 49, 21, 4, 21, 64, 21, 64, 76, 21, 8, 21, 0, 18, 0, 0, 0, 0, 0, 0, 255, 0, 0, 0,
    255, 0, 255, 255, 255, 255, 255, 255, 21, 205, 133, 61, 254, 156, 151, 23, 0, 0, 177, 110, 107,
    177, 255, 255, 21, 0, 21, 20, 21, 20, 44, 21, 10, 21, 16, 21, 6, 21, 6, 28, 24, 8, 21, 205,
    133, 61, 254, 156, 151, 23, 24, 8, 0, 0, 177, 110, 107, 177, 255, 255, 22, 2, 40, 8, 21, 205,
    133, 61, 254, 156, 151, 23, 24, 8, 0, 0, 177, 110, 107, 177, 255, 255, 17, 17, 0, 0, 0, 2, 0,
    0, 0, 3, 29, 2, 3, 228, 0, 21, 4, 25, 28, 25, 28, 38, 0, 28, 21, 4, 25, 53, 0, 6, 16, 25, 24,
    1, 97, 47, 116, 109, 112, 47, 46, 116, 109, 112, 53, 52, 55, 104, 80, 57, 21, 0, 22, 10, 22,
    238, 1, 22, 238, 1, 38, 100, 38, 8, 28, 24, 8, 21, 205, 133, 61, 254, 156, 151, 23, 24, 8, 0,
    0, 177, 110, 107, 177, 255, 255, 22, 2, 40, 8, 21, 205, 133, 61, 254, 156, 151, 23, 24, 8, 0,
    0, 177, 110, 107, 177, 255, 255, 17, 17, 0, 25, 44, 21, 4, 21, 0, 21, 2, 0, 21, 0, 21, 16, 21,
    2, 0, 60, 41, 6, 25, 38, 2, 8, 0, 0, 0, 22, 238, 1, 22, 10, 38, 8, 22, 238, 1, 0, 25, 28, 24,
    12, 65, 82, 82, 79, 87, 58, 115, 99, 104, 101, 109, 97, 24, 160, 1, 47, 47, 47, 47, 47, 51, 65,
    65, 65, 65, 65, 81, 65, 65, 65, 65, 65, 65, 65, 75, 65, 65, 119, 65, 66, 103, 65, 70, 65, 65,
    103, 65, 67, 103, 65, 65, 65, 65, 65, 66, 66, 65, 65, 77, 65, 65, 65, 65, 67, 65, 65, 73, 255,
    255, 65, 65, 66, 65, 65, 73, 65, 65, 65, 65, 66, 65, 65, 65, 65, 65, 69, 65, 65, 65, 65, 85,
    65, 65, 65, 65, 69, 65, 65, 85, 65, 65, 103, 65, 66, 103, 65, 72, 65, 65, 119, 65, 65, 65, 65,
    81, 65, 66, 65, 65, 65, 65, 65, 65, 65, 65, 69, 75, 69, 65, 65, 65, 65, 66, 103, 65, 65, 65,
    65, 69, 65, 65, 65, 65, 65, 65, 65, 65, 65, 65, 69, 65, 65, 65, 66, 104, 65, 65, 89, 65, 67,
    65, 65, 71, 65, 65, 89, 65, 65, 65, 65, 65, 65, 65, 77, 65, 0, 24, 32, 112, 97, 114, 113, 117,
    101, 116, 45, 99, 112, 112, 45, 97, 114, 114, 111, 119, 32, 118, 101, 114, 115, 105, 111, 110,
    32, 50, 54, 46, 48, 46, 49, 25, 28, 28, 0, 0, 0, 115, 1, 0, 0, 80, 65, 82, 49,
];

/// A Thrift map of bools in a Parquet footer takes a byte per key and value (the compact
/// protocol's rule for collections), so its stated count is bounded by the footer's bytes:
/// the fuzzers' inputs and a hand-built footer (an unknown field 15, a map of 2^62 bool pairs
/// in 11 bytes) are refused as malformed at once.
#[cfg(feature = "parquet")]
#[test]
fn a_thrift_map_of_bools_claiming_2_to_the_62_pairs_is_refused_at_once() {
    // FileMetaData { 15: map<bool, bool> of 2^62 pairs }, no pair present.
    let mut footer = vec![0xfb];
    let mut n: u64 = 1 << 62;
    while n >= 0x80 {
        footer.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    footer.push(n as u8);
    footer.push(0x11);
    let mut built = b"PAR1".to_vec();
    built.extend_from_slice(&footer);
    built.extend_from_slice(&(footer.len() as u32).to_le_bytes());
    built.extend_from_slice(b"PAR1");
    // The fuzzer's slow unit is the timeout's file with one byte of a column chunk's metadata
    // (byte 163: 238 → 239) changed.
    let mut slow_unit = THRIFT_BOOL_MAP_TIMEOUT.to_vec();
    slow_unit[163] = 239;
    for (name, bytes) in [
        ("fuzz_timeout.parquet", THRIFT_BOOL_MAP_TIMEOUT),
        ("fuzz_slow_unit.parquet", slow_unit.as_slice()),
        ("bool_map.parquet", built.as_slice()),
    ] {
        let c = case(name, bytes);
        let started = CpuTimer::start();
        let err = convert(&c.input, &c.out, &ConvertOptions::new()).unwrap_err();
        assert!(
            started.elapsed().as_secs() < 2,
            "{name}: {:?}",
            started.elapsed()
        );
        assert!(
            matches!(err.kind(), ErrorKind::Malformed(_)),
            "{name}: {err}"
        );
        assert_eq!(err.path(), Some(c.input.as_path()), "{name}");
        assert!(!c.out.exists());
    }
}
