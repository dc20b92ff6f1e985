//! `convert_file` against numpy: the fixture set holds each simple dtype written by numpy in
//! both byte orders and both memory orders with the same values, so converting one file into
//! another's layout must give numpy's bytes for that layout exactly.

use npy_convert::{convert_file, ConvertOptions};
use npy_core::{format::Version, ByteOrder, ErrorKind, MemoryOrder};
use npy_test_support::fixtures_dir;

/// Stems `X` for which numpy wrote `X_le_c_2x3x4`, `X_be_f_2x3x4` and the other two layouts.
fn two_order_dtypes() -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix("_be_f_2x3x4.npy").map(str::to_owned)
        })
        .collect();
    out.sort();
    out
}

fn options(byte_order: ByteOrder, order: MemoryOrder) -> ConvertOptions {
    ConvertOptions::new().byte_order(byte_order).order(order)
}

#[test]
fn every_layout_converts_to_numpys_bytes_for_the_other() {
    let dtypes = two_order_dtypes();
    assert!(
        dtypes.len() >= 20,
        "expected the fixture set's simple dtypes, found {dtypes:?}"
    );
    let dir = tempfile::tempdir().unwrap();
    let layouts = [
        ("le_c", ByteOrder::Little, MemoryOrder::C),
        ("le_f", ByteOrder::Little, MemoryOrder::Fortran),
        ("be_c", ByteOrder::Big, MemoryOrder::C),
        ("be_f", ByteOrder::Big, MemoryOrder::Fortran),
    ];
    let mut checked = 0;
    for stem in &dtypes {
        for (from, _, _) in layouts {
            for (to, bo, order) in layouts {
                let src = fixtures_dir().join(format!("{stem}_{from}_2x3x4.npy"));
                let want = fixtures_dir().join(format!("{stem}_{to}_2x3x4.npy"));
                let out = dir.path().join(format!("{stem}_{from}_to_{to}.npy"));
                convert_file(&src, &out, &options(bo, order)).unwrap();
                assert_eq!(
                    std::fs::read(&out).unwrap(),
                    std::fs::read(&want).unwrap(),
                    "{stem}: {from} -> {to} differs from numpy's {to} file"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, dtypes.len() * 16);
}

/// An input the caller holds open is read from that handle alone (issue 40: each input opened
/// once): the conversion succeeds after its path is removed, and writes numpy's file of the
/// other layout byte for byte.
#[test]
fn an_open_input_is_read_from_its_handle() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("in.npy");
    std::fs::copy(fixtures_dir().join("f4_le_c_2x3x4.npy"), &src).unwrap();
    let file = std::fs::File::open(&src).unwrap();
    std::fs::remove_file(&src).unwrap();
    let out = dir.path().join("out.npy");
    npy_convert::convert_open_file(
        file,
        &src,
        &out,
        &options(ByteOrder::Big, MemoryOrder::Fortran),
    )
    .unwrap();
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(fixtures_dir().join("f4_be_f_2x3x4.npy")).unwrap()
    );
}

#[test]
fn records_convert_byte_order_per_field_and_round_trip() {
    // rec_packed and rec_be hold the same values in numpy's fixture set? Not guaranteed, so
    // check the round trip instead: little -> big -> little gives numpy's file back, and the
    // big-endian file reads back with '>' on every multi-byte field.
    let dir = tempfile::tempdir().unwrap();
    for stem in [
        "rec_packed",
        "rec_nested",
        "rec_strings",
        "rec_mixed_bo",
        "rec_subsub",
        "rec_titles",
    ] {
        let src = fixtures_dir().join(format!("{stem}.npy"));
        let big = dir.path().join(format!("{stem}_big.npy"));
        let back = dir.path().join(format!("{stem}_back.npy"));
        convert_file(&src, &big, &options(ByteOrder::Big, MemoryOrder::C)).unwrap();
        let r = npy_core::NpyReader::open(&big).unwrap();
        let descr = r.dtype().to_string();
        assert!(!descr.contains("'<"), "{stem}: {descr}");
        let orig = npy_core::read_dyn(&src).unwrap();
        let swapped = npy_core::read_dyn(&big).unwrap();
        assert_eq!(
            format!("{:?}", orig.iter().collect::<Vec<_>>()),
            format!("{:?}", swapped.iter().collect::<Vec<_>>()),
            "{stem}"
        );
        if stem != "rec_mixed_bo" {
            convert_file(&big, &back, &options(ByteOrder::Little, MemoryOrder::C)).unwrap();
            assert_eq!(
                std::fs::read(&back).unwrap(),
                std::fs::read(&src).unwrap(),
                "{stem}"
            );
        }
    }
}

#[test]
fn version_change_and_in_place_conversion() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.npy");
    std::fs::copy(fixtures_dir().join("w_f32.npy"), &path).unwrap();
    let o = ConvertOptions::new().version(Version::V3_0);
    convert_file(&path, &path, &o).unwrap();
    let r = npy_core::NpyReader::open(&path).unwrap();
    assert_eq!(r.parsed_header().version, Version::V3_0);
    let a = npy_core::read::<f32>(&path).unwrap();
    let b = npy_core::read::<f32>(fixtures_dir().join("w_f32.npy")).unwrap();
    assert_eq!(a, b);
    // Nothing but the converted file is left in the directory.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn object_arrays_and_truncated_input_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.npy");
    let mut bytes = npy_core::Header::new("<f8".parse().unwrap(), vec![10])
        .to_bytes(None)
        .unwrap();
    bytes.extend_from_slice(&[0u8; 79]);
    let src = dir.path().join("short.npy");
    std::fs::write(&src, &bytes).unwrap();
    for order in [MemoryOrder::C, MemoryOrder::Fortran] {
        let err = convert_file(&src, &out, &options(ByteOrder::Big, order)).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Truncated { .. }), "{err}");
    }
    let obj = dir.path().join("obj.npy");
    let mut bytes = npy_core::Header::new(npy_core::DType::Object, vec![1])
        .to_bytes(None)
        .unwrap();
    bytes.extend_from_slice(b"\x80\x03N.");
    std::fs::write(&obj, &bytes).unwrap();
    let err = convert_file(&obj, &out, &ConvertOptions::new()).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::ObjectArray { .. }), "{err}");
    assert!(
        !out.exists(),
        "a failed conversion must not leave an output file"
    );
}

/// A dtype for the layout tests, with its scalars as (byte offset, bytes) within an element,
/// written out from the format's rules (each scalar's bytes reverse when the byte order
/// changes; one-byte and `S`/`V` data never do).
struct Case {
    descr: &'static str,
    big: &'static str,
    itemsize: usize,
    scalars: &'static [(usize, usize)],
}

const CASES: &[Case] = &[
    Case {
        descr: "|u1",
        big: "|u1",
        itemsize: 1,
        scalars: &[],
    },
    Case {
        descr: "<i2",
        big: ">i2",
        itemsize: 2,
        scalars: &[(0, 2)],
    },
    Case {
        descr: "<f4",
        big: ">f4",
        itemsize: 4,
        scalars: &[(0, 4)],
    },
    Case {
        descr: "<u8",
        big: ">u8",
        itemsize: 8,
        scalars: &[(0, 8)],
    },
    Case {
        descr: "<c16",
        big: ">c16",
        itemsize: 16,
        scalars: &[(0, 8), (8, 8)],
    },
    Case {
        descr: "|S3",
        big: "|S3",
        itemsize: 3,
        scalars: &[],
    },
    Case {
        descr: "<U3",
        big: ">U3",
        itemsize: 12,
        scalars: &[(0, 4), (4, 4), (8, 4)],
    },
    Case {
        descr: "|V5",
        big: "|V5",
        itemsize: 5,
        scalars: &[],
    },
    Case {
        descr: "[('a', '<u2'), ('b', '|u1'), ('c', '<f4')]",
        big: "[('a', '>u2'), ('b', '|u1'), ('c', '>f4')]",
        itemsize: 7,
        scalars: &[(0, 2), (3, 4)],
    },
    Case {
        descr: "[('a', '<i4', (2,)), ('b', '|S2')]",
        big: "[('a', '>i4', (2,)), ('b', '|S2')]",
        itemsize: 10,
        scalars: &[(0, 4), (4, 4)],
    },
];

/// The bytes of the element whose C-order flat index is `flat`: distinct for every element
/// and byte, so a misplaced or unswapped byte shows.
fn element(flat: usize, itemsize: usize) -> Vec<u8> {
    (0..itemsize)
        .map(|b| (flat.wrapping_mul(131) ^ (b * 29 + 7) ^ (flat >> 8)) as u8)
        .collect()
}

/// The data of `shape` laid out in `order`: element by element, the multi-index walked with
/// the last axis fastest (C) or the first (Fortran), each element's value from its C index.
fn layout(shape: &[usize], order: MemoryOrder, itemsize: usize, swap: Option<&Case>) -> Vec<u8> {
    let n = shape.len();
    let count: usize = shape.iter().product();
    let mut out = Vec::with_capacity(count * itemsize);
    let mut index = vec![0usize; n];
    for _ in 0..count {
        let flat = (0..n).fold(0, |acc, k| acc * shape[k] + index[k]);
        let mut e = element(flat, itemsize);
        if let Some(case) = swap {
            for &(at, len) in case.scalars {
                e[at..at + len].reverse();
            }
        }
        out.extend_from_slice(&e);
        for step in 0..n {
            let k = if order == MemoryOrder::C {
                n - 1 - step
            } else {
                step
            };
            index[k] += 1;
            if index[k] < shape[k] {
                break;
            }
            index[k] = 0;
        }
    }
    out
}

fn write_layout(
    path: &std::path::Path,
    descr: &str,
    shape: &[usize],
    order: MemoryOrder,
    data: &[u8],
) {
    let mut header = npy_core::Header::new(
        descr.parse().unwrap(),
        shape.iter().map(|&d| d as u64).collect(),
    );
    header.fortran_order = order == MemoryOrder::Fortran && shape.len() > 1;
    let mut bytes = header.to_bytes(None).unwrap();
    bytes.extend_from_slice(data);
    std::fs::write(path, bytes).unwrap();
}

/// Order changes (with and without a byte swap) of many shapes, dtypes and tile budgets,
/// against the layout computed from the format's index rules: tiny budgets force many tiles,
/// one-element tiles and edge tiles; the shapes include the pathological ones of issue 10
/// ((2, N), (N, 2), (2, N, M, 2)), axes of length 1, zero-size, 0-d and 1-d arrays.
#[test]
fn order_changes_match_the_index_rules_for_every_tile_budget() {
    let shapes: &[&[usize]] = &[
        &[],
        &[7],
        &[2, 3, 4],
        &[5, 7],
        &[1, 9],
        &[9, 1],
        &[3, 1, 4],
        &[2, 0, 3],
        &[2, 301],
        &[301, 2],
        &[2, 17, 13, 2],
        &[4, 1, 4, 4, 3],
        &[33, 65],
    ];
    let budgets = [Some(1), Some(100), None];
    check_order_changes(CASES, shapes, &budgets);
}

/// Tiles whose runs are 4 KiB or more, which the transposition pads in memory.
#[test]
fn order_changes_with_long_runs_in_several_tiles() {
    let cases = [&CASES[2], &CASES[4], &CASES[7]];
    // Under these budgets the tiles are 100 (or 4200) by 840 to 1050 elements: runs of
    // 4200 to 5880 bytes along the 4200-element axis, several tiles along it.
    let shapes: &[&[usize]] = &[&[100, 4200], &[4200, 100]];
    check_order_changes(cases, shapes, &[Some(600_000), Some(1 << 20)]);
}

/// Converts each shape of each case from each order to each, with and without a swap to big
/// endian, under each tile budget, and compares the data with [`layout`]'s.
fn check_order_changes<'a>(
    cases: impl IntoIterator<Item = &'a Case> + Clone,
    shapes: &[&[usize]],
    budgets: &[Option<usize>],
) {
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    let mut n_cases = 0;
    for case in cases {
        n_cases += 1;
        for shape in shapes {
            for from in [MemoryOrder::C, MemoryOrder::Fortran] {
                let src = dir.path().join("src.npy");
                let data = layout(shape, from, case.itemsize, None);
                write_layout(&src, case.descr, shape, from, &data);
                for to in [MemoryOrder::C, MemoryOrder::Fortran] {
                    for swap in [false, true] {
                        for &budget in budgets {
                            let mut o = ConvertOptions::new().order(to);
                            if swap {
                                o = o.byte_order(ByteOrder::Big);
                            }
                            if let Some(b) = budget {
                                o = o.buffer_bytes(b);
                            }
                            let dst = dir.path().join("dst.npy");
                            convert_file(&src, &dst, &o).unwrap();
                            let r = npy_core::NpyReader::open(&dst).unwrap();
                            let what = format!(
                                "{} {shape:?} {from:?} -> {to:?} swap {swap} budget {budget:?}",
                                case.descr
                            );
                            // numpy writes `True` only for data not also C-contiguous.
                            let fortran = to == MemoryOrder::Fortran
                                && !shape.contains(&0)
                                && shape.iter().filter(|&&d| d != 1).count() > 1;
                            assert_eq!(r.header().fortran_order, fortran, "{what}");
                            let descr = if swap { case.big } else { case.descr };
                            assert_eq!(r.dtype(), &descr.parse().unwrap(), "{what}");
                            let offset = r.parsed_header().data_offset() as usize;
                            let want = layout(shape, to, case.itemsize, swap.then_some(case));
                            let got = std::fs::read(&dst).unwrap();
                            assert!(got[offset..] == want[..], "{what}");
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(checked, n_cases * shapes.len() * 2 * 2 * 2 * budgets.len());
}

/// The progress hook sees `(0, total)` first, then growing counts, ending at `(total, total)`,
/// for both the tiled and the streamed path; a file with no data reports `(0, 0)` once.
#[test]
fn progress_is_monotone_and_reaches_the_total() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src.npy");
    let dst = dir.path().join("dst.npy");
    let shape = [40, 50];
    write_layout(
        &src,
        "<f8",
        &shape,
        MemoryOrder::C,
        &layout(&shape, MemoryOrder::C, 8, None),
    );
    for order in [MemoryOrder::Fortran, MemoryOrder::C] {
        let o = ConvertOptions::new()
            .order(order)
            .byte_order(ByteOrder::Big)
            .buffer_bytes(1000);
        let mut seen = Vec::new();
        npy_convert::convert_file_with_progress(&src, &dst, &o, |d, t| seen.push((d, t))).unwrap();
        assert_eq!(seen.first(), Some(&(0, 16_000)), "{order:?}");
        assert_eq!(seen.last(), Some(&(16_000, 16_000)), "{order:?}");
        assert!(seen.len() > 10, "{order:?}: one call per buffer, {seen:?}");
        assert!(
            seen.windows(2).all(|w| w[0].0 < w[1].0 && w[1].1 == 16_000),
            "{seen:?}"
        );
    }
    write_layout(&src, "<f8", &[3, 0], MemoryOrder::C, &[]);
    let mut seen = Vec::new();
    npy_convert::convert_file_with_progress(&src, &dst, &ConvertOptions::new(), |d, t| {
        seen.push((d, t));
    })
    .unwrap();
    assert_eq!(seen, [(0, 0)]);
}
