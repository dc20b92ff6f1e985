//! Malformed inputs: each must fail with the right [`Error`] variant, quickly and without
//! allocating what a hostile length field claims.
//!
//! Files are written by hand (`file()` computes only the length field), so every expectation
//! follows from the format's rules (NEP 1 / numpy's `_format_impl.py`), not from our writer.

use std::io::Read;
use std::time::{Duration, Instant};

use npy_core::literal::{LiteralError, LiteralErrorKind};
use npy_core::DType;
use npy_core::{
    error::NotNpy, header::ParsedHeader, Error, ErrorKind, Header, ReadOptions, TensorInfo,
};
use npy_test_support::raw_npy_v2 as npy2;

/// `\x93NUMPY`, the version bytes, the little-endian length of `text` (u16 for major version 1
/// and for unknown versions, u32 for 2 and 3), then `text` itself.
fn file(major: u8, minor: u8, text: &[u8]) -> Vec<u8> {
    let mut out = b"\x93NUMPY".to_vec();
    out.extend_from_slice(&[major, minor]);
    if major == 2 || major == 3 {
        out.extend_from_slice(&u32::try_from(text.len()).unwrap().to_le_bytes());
    } else {
        out.extend_from_slice(&u16::try_from(text.len()).unwrap().to_le_bytes());
    }
    out.extend_from_slice(text);
    out
}

fn v1(text: &str) -> Vec<u8> {
    file(1, 0, text.as_bytes())
}

/// A 1.0 header dict with these three values.
fn dict(descr: &str, fortran: &str, shape: &str) -> Vec<u8> {
    v1(&format!(
        "{{'descr': {descr}, 'fortran_order': {fortran}, 'shape': {shape}, }}\n"
    ))
}

fn read(bytes: &[u8]) -> Result<ParsedHeader, Error> {
    Header::read(&mut &bytes[..])
}

fn syntax(e: &Error) -> Option<&LiteralErrorKind> {
    match e.kind() {
        ErrorKind::HeaderSyntax(LiteralError { kind, .. }) => Some(kind),
        _ => None,
    }
}

type Check = fn(&Error) -> bool;

fn cases() -> Vec<(&'static str, Vec<u8>, Check)> {
    let good_text = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }\n";
    let mut zip = b"PK\x03\x04\x14\x00\x00\x00\x00\x00".to_vec();
    zip.extend_from_slice(&[0; 40]);
    vec![
        // --- Not .npy at all.
        ("empty file", vec![], |e| {
            matches!(e.kind(), ErrorKind::NotNpy(NotNpy::Empty))
        }),
        (
            "zeroed magic",
            vec![0; 64],
            |e| matches!(e.kind(), ErrorKind::NotNpy(NotNpy::Magic(m)) if m == &[0; 6]),
        ),
        (
            "wrong magic letter",
            b"\x93NUMPX\x01\x00\x00\x00".to_vec(),
            |e| matches!(e.kind(), ErrorKind::NotNpy(NotNpy::Magic(m)) if m == b"\x93NUMPX"),
        ),
        (
            "text file",
            b"descr,shape\n".to_vec(),
            |e| matches!(e.kind(), ErrorKind::NotNpy(NotNpy::Magic(m)) if m == b"descr,"),
        ),
        (
            "one byte",
            b"x".to_vec(),
            |e| matches!(e.kind(), ErrorKind::NotNpy(NotNpy::Magic(m)) if m == b"x"),
        ),
        ("zip (npz)", zip, |e| {
            matches!(e.kind(), ErrorKind::NotNpy(NotNpy::Npz))
        }),
        ("empty zip", b"PK\x05\x06".to_vec(), |e| {
            matches!(e.kind(), ErrorKind::NotNpy(NotNpy::Npz))
        }),
        (
            "pickle",
            b"\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00]\x94.".to_vec(),
            |e| matches!(e.kind(), ErrorKind::NotNpy(NotNpy::Pickle)),
        ),
        // --- Truncated prefix.
        ("half a magic", b"\x93NUM".to_vec(), |e| {
            matches!(
                e.kind(),
                ErrorKind::Truncated {
                    what: "magic string",
                    found: 4,
                    ..
                }
            )
        }),
        ("magic only", b"\x93NUMPY".to_vec(), |e| {
            matches!(
                e.kind(),
                ErrorKind::Truncated {
                    found: 6,
                    needed: 8,
                    ..
                }
            )
        }),
        ("magic and major version", b"\x93NUMPY\x01".to_vec(), |e| {
            matches!(
                e.kind(),
                ErrorKind::Truncated {
                    found: 7,
                    needed: 8,
                    ..
                }
            )
        }),
        (
            "1.0 with one length byte",
            b"\x93NUMPY\x01\x00\x05".to_vec(),
            |e| {
                matches!(
                    e.kind(),
                    ErrorKind::Truncated {
                        what: "header length",
                        needed: 2,
                        found: 1
                    }
                )
            },
        ),
        (
            "2.0 with three length bytes",
            b"\x93NUMPY\x02\x00\x05\x00\x00".to_vec(),
            |e| {
                matches!(
                    e.kind(),
                    ErrorKind::Truncated {
                        what: "header length",
                        needed: 4,
                        found: 3
                    }
                )
            },
        ),
        // --- Versions.
        ("version 1.1", file(1, 1, good_text.as_bytes()), |e| {
            matches!(
                e.kind(),
                ErrorKind::UnsupportedVersion { major: 1, minor: 1 }
            )
        }),
        ("version 0.0", file(0, 0, good_text.as_bytes()), |e| {
            matches!(
                e.kind(),
                ErrorKind::UnsupportedVersion { major: 0, minor: 0 }
            )
        }),
        (
            "version 255.255",
            file(255, 255, good_text.as_bytes()),
            |e| {
                matches!(
                    e.kind(),
                    ErrorKind::UnsupportedVersion {
                        major: 255,
                        minor: 255
                    }
                )
            },
        ),
        ("version 4.0", file(4, 0, good_text.as_bytes()), |e| {
            matches!(
                e.kind(),
                ErrorKind::UnsupportedVersion { major: 4, minor: 0 }
            )
        }),
        // --- Length fields promising more than there is. 0xfff8 = 65,528 bytes.
        (
            "1.0 claims 65528 bytes, has none",
            b"\x93NUMPY\x01\x00\xf8\xff".to_vec(),
            |e| {
                matches!(
                    e.kind(),
                    ErrorKind::Truncated {
                        what: "header",
                        needed: 65528,
                        found: 0
                    }
                )
            },
        ),
        (
            "header cut short",
            {
                let mut f = v1(good_text);
                f.truncate(f.len() - 10);
                f
            },
            |e| {
                matches!(
                    e.kind(),
                    ErrorKind::Truncated {
                        what: "header",
                        needed: 60,
                        found: 50
                    }
                )
            },
        ),
        (
            "2.0 claims 4 GiB (default limit)",
            b"\x93NUMPY\x02\x00\xf0\xff\xff\xff".to_vec(),
            |e| {
                matches!(
                    e.kind(),
                    ErrorKind::HeaderTooLong {
                        len: 0xffff_fff0,
                        limit: 16_777_216
                    }
                )
            },
        ),
        // --- Header dict.
        ("non-dict header: list", v1("[1, 2]\n"), |e| {
            matches!(e.kind(), ErrorKind::HeaderNotDict { found: "list" })
        }),
        ("non-dict header: None", v1("None\n"), |e| {
            matches!(e.kind(), ErrorKind::HeaderNotDict { found: "NoneType" })
        }),
        (
            "non-dict header: tuple",
            v1("('<f8', False, (2,))\n"),
            |e| matches!(e.kind(), ErrorKind::HeaderNotDict { found: "tuple" }),
        ),
        ("empty header text", v1(""), |e| {
            matches!(syntax(e), Some(LiteralErrorKind::UnexpectedEnd { .. }))
        }),
        ("only padding", v1("          \n"), |e| {
            matches!(syntax(e), Some(LiteralErrorKind::UnexpectedEnd { .. }))
        }),
        (
            "extra key",
            v1("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'extra': 1, }\n"),
            |e| matches!(e.kind(), ErrorKind::HeaderKeys { found } if found.iter().any(|k| k == "'extra'")),
        ),
        (
            "missing key",
            v1("{'descr': '<f8', 'fortran_order': False, }\n"),
            |e| matches!(e.kind(), ErrorKind::HeaderKeys { found } if found.len() == 2),
        ),
        (
            "empty dict",
            v1("{}\n"),
            |e| matches!(e.kind(), ErrorKind::HeaderKeys { found } if found.is_empty()),
        ),
        (
            "misspelt key",
            v1("{'descr': '<f8', 'fortran-order': False, 'shape': (2,), }\n"),
            |e| matches!(e.kind(), ErrorKind::HeaderKeys { .. }),
        ),
        (
            "bytes keys",
            v1("{b'descr': '<f8', b'fortran_order': False, b'shape': (2,), }\n"),
            |e| matches!(e.kind(), ErrorKind::HeaderKeys { .. }),
        ),
        (
            "fortran_order 0",
            dict("'<f8'", "0", "(2,)"),
            |e| matches!(e.kind(), ErrorKind::InvalidFortranOrder { found } if found == "0"),
        ),
        (
            "fortran_order 'False'",
            dict("'<f8'", "'False'", "(2,)"),
            |e| matches!(e.kind(), ErrorKind::InvalidFortranOrder { found } if found == "'False'"),
        ),
        ("fortran_order None", dict("'<f8'", "None", "(2,)"), |e| {
            matches!(e.kind(), ErrorKind::InvalidFortranOrder { .. })
        }),
        (
            "lowercase false",
            dict("'<f8'", "false", "(2,)"),
            |e| matches!(syntax(e), Some(LiteralErrorKind::UnknownName(n)) if n == "false"),
        ),
        (
            "shape list [6]",
            dict("'<f8'", "False", "[6]"),
            |e| matches!(e.kind(), ErrorKind::InvalidShape { found, .. } if found == "[6]"),
        ),
        (
            "shape int 6",
            dict("'<f8'", "False", "6"),
            |e| matches!(e.kind(), ErrorKind::InvalidShape { found, .. } if found == "6"),
        ),
        (
            "shape (True, 6)",
            dict("'<f8'", "False", "(True, 6)"),
            |e| matches!(e.kind(), ErrorKind::InvalidShape { found, .. } if found == "(True, 6)"),
        ),
        (
            "shape (-1,)",
            dict("'<f8'", "False", "(-1,)"),
            |e| matches!(e.kind(), ErrorKind::InvalidShape { found, .. } if found == "(-1,)"),
        ),
        ("shape (6.0,)", dict("'<f8'", "False", "(6.0,)"), |e| {
            matches!(e.kind(), ErrorKind::InvalidShape { .. })
        }),
        ("shape ('6',)", dict("'<f8'", "False", "('6',)"), |e| {
            matches!(e.kind(), ErrorKind::InvalidShape { .. })
        }),
        ("shape (None,)", dict("'<f8'", "False", "(None,)"), |e| {
            matches!(e.kind(), ErrorKind::InvalidShape { .. })
        }),
        ("shape ((2,),)", dict("'<f8'", "False", "((2,),)"), |e| {
            matches!(e.kind(), ErrorKind::InvalidShape { .. })
        }),
        ("shape None", dict("'<f8'", "False", "None"), |e| {
            matches!(e.kind(), ErrorKind::InvalidShape { .. })
        }),
        (
            "dimension 2**64",
            dict("'<f8'", "False", "(18446744073709551616,)"),
            |e| matches!(e.kind(), ErrorKind::InvalidShape { .. }),
        ),
        (
            "5,000-digit dimension",
            dict("'<f8'", "False", &format!("({},)", "9".repeat(5000))),
            |e| matches!(syntax(e), Some(LiteralErrorKind::IntegerOutOfRange)),
        ),
        (
            "NUL bytes as padding",
            {
                let mut t = b"{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }".to_vec();
                t.extend_from_slice(&[0; 10]);
                t.push(b'\n');
                file(1, 0, &t)
            },
            |e| {
                // numpy: ast.literal_eval refuses NUL bytes.
                matches!(syntax(e), Some(LiteralErrorKind::TrailingCharacters))
            },
        ),
        (
            "NUL inside the dict",
            v1("{'descr': '<f8',\0 'fortran_order': False, 'shape': (2,), }\n"),
            |e| syntax(e).is_some(),
        ),
        (
            "Python 2 longs in a 3.0 header",
            file(
                3,
                0,
                b"{'descr': '<f8', 'fortran_order': False, 'shape': (2L, 3L), }\n",
            ),
            |e| matches!(syntax(e), Some(LiteralErrorKind::LongSuffix)),
        ),
        (
            // numpy's _filter_header drops only a capital 'L' after a number.
            "lowercase Python 2 long in a 1.0 header",
            dict("'<f8'", "False", "(2l, 3)"),
            |e| matches!(syntax(e), Some(LiteralErrorKind::InvalidNumber)),
        ),
        (
            "trailing text after the dict",
            v1("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), } x\n"),
            |e| matches!(syntax(e), Some(LiteralErrorKind::TrailingCharacters)),
        ),
        (
            "unterminated dict",
            v1("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), \n"),
            |e| matches!(syntax(e), Some(LiteralErrorKind::UnexpectedEnd { .. })),
        ),
        (
            "unterminated string",
            v1("{'descr': '<f8, 'fortran_order': False, 'shape': (2,), }\n"),
            |e| syntax(e).is_some(),
        ),
        (
            "set instead of dict",
            v1("{'descr', 'fortran_order', 'shape'}\n"),
            |e| syntax(e).is_some(),
        ),
        (
            "expression in the shape",
            dict("'<f8'", "False", "(2 * 3,)"),
            |e| syntax(e).is_some(),
        ),
        (
            "3.0 header not UTF-8",
            file(
                3,
                0,
                b"{'descr': [('\xff', '<f8')], 'fortran_order': False, 'shape': (2,), }\n",
            ),
            |e| matches!(e.kind(), ErrorKind::HeaderNotUtf8 { offset: 13 }),
        ),
        (
            "3.0 header with a latin-1 byte after valid text",
            file(
                3,
                0,
                b"{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }  \xe9\n",
            ),
            |e| matches!(e.kind(), ErrorKind::HeaderNotUtf8 { offset: 59 }),
        ),
        // --- Sizes.
        (
            "shape (2**32, 2**32, 16) of <f8",
            dict("'<f8'", "False", "(4294967296, 4294967296, 16)"),
            |e| matches!(e.kind(), ErrorKind::SizeOverflow { shape, itemsize: 8 } if shape == &[1 << 32, 1 << 32, 16]),
        ),
        (
            "2**64 elements of |u1",
            dict("'|u1'", "False", "(4294967296, 4294967296)"),
            |e| matches!(e.kind(), ErrorKind::SizeOverflow { itemsize: 1, .. }),
        ),
        (
            "2**61 elements of <f8",
            dict("'<f8'", "False", "(2305843009213693952,)"),
            |e| matches!(e.kind(), ErrorKind::SizeOverflow { itemsize: 8, .. }),
        ),
        (
            "record whose bytes overflow",
            dict(
                "[('a', '<f8', (1152921504606846976,)), ('b', '<f8', (1152921504606846976,))]",
                "False",
                "(1,)",
            ),
            |e| {
                matches!(
                    e.kind(),
                    ErrorKind::InvalidDescr { .. } | ErrorKind::SizeOverflow { .. }
                )
            },
        ),
        // numpy ("array is too big"): zero dimensions do not excuse the others from fitting,
        // whichever side of the zero they are on.
        (
            "zero dim before overflowing dims",
            dict(
                "'<f8'",
                "False",
                "(0, 4611686018427387904, 4611686018427387904)",
            ),
            |e| matches!(e.kind(), ErrorKind::SizeOverflow { .. }),
        ),
        (
            "zero dim after overflowing dims",
            dict(
                "'<f8'",
                "False",
                "(4611686018427387904, 4611686018427387904, 0)",
            ),
            |e| matches!(e.kind(), ErrorKind::SizeOverflow { .. }),
        ),
        (
            "zero dim, the rest overflows with the itemsize",
            dict("'<f8'", "False", "(0, 2305843009213693952)"),
            |e| matches!(e.kind(), ErrorKind::SizeOverflow { .. }),
        ),
    ]
}

/// descr values numpy's `descr_to_dtype` refuses (each checked with numpy 2.4.6: `np.dtype(s)`
/// or `descr_to_dtype(v)` raises).
const BAD_DESCRS: &[&str] = &[
    "'<f3'",
    "'x'",
    "''",
    "'<'",
    "'!f8'",
    "'f8 '",
    "' f8'",
    "'i3'",
    "'u16'",
    "'c4'",
    "'b2'",
    "'O2'",
    "'M4'",
    "'<M8[xs]'",
    "'<M8[ns'",
    "'<M8[1 s]'",
    "'<M8[s ]'",
    // A unit needs the size: 'M' alone is generic, 'M[ns]' is not understood.
    "'<M[ns]'",
    "'m[10ms]'",
    // numpy holds a datetime multiplier in a C int.
    "'<M8[2147483648s]'",
    "'<m8[3000000000ms]'",
    // numpy holds a flexible itemsize in a C int.
    "'|S2147483648'",
    "'|V2147483648'",
    "'<U536870912'",
    "'|S99999999999999999999'",
    "'<f4'.encode()",
    "b'<f4'",
    "None",
    "5",
    "{'a': '<f4'}",
    "('<f4',)",
    "('<f4', (2,), 1)",
    "('<f4', (-1,))",
    "('<f4', 'x')",
    "[('a',)]",
    "[('a', '<f4', (2,), 1)]",
    "[('a', '<f4'), ('a', '<i4')]",
    "[(('t', 'a'), '<f4'), ('t', '<i4')]",
    "[(1, '<f4')]",
    "[(('t', 1), '<f4')]",
    "[('a', 'i3')]",
    "[('a', '<f4', (-2,))]",
    "[('a', '<f4', 2.0)]",
    "['a']",
    "[5]",
];

#[test]
fn malformed_inputs_fail_with_the_right_variant() {
    let mut failures = Vec::new();
    for (name, bytes, check) in cases() {
        let start = Instant::now();
        match read(&bytes) {
            Ok(p) => failures.push(format!("{name}: accepted as {:?}", p.header)),
            Err(e) if check(&e) => {}
            Err(e) => failures.push(format!("{name}: wrong error {e:?}")),
        }
        if start.elapsed() > Duration::from_secs(2) {
            failures.push(format!("{name}: took {:?}", start.elapsed()));
        }
    }
    for descr in BAD_DESCRS {
        let bytes = dict(descr, "False", "(2,)");
        match read(&bytes).as_ref().map_err(Error::kind) {
            Ok(p) => failures.push(format!("descr {descr}: accepted as {:?}", p.header.dtype)),
            Err(ErrorKind::InvalidDescr { .. }) => {}
            // Not a literal at all (e.g. a method call): a syntax error is right too.
            Err(ErrorKind::HeaderSyntax(_)) if descr.contains(".encode") => {}
            Err(e) => failures.push(format!("descr {descr}: wrong error {e:?}")),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn four_gib_claim_without_a_limit_is_truncated_quickly() {
    let bytes = b"\x93NUMPY\x02\x00\xf0\xff\xff\xff";
    let opts = ReadOptions::default().max_header_len(u64::MAX);
    let start = Instant::now();
    let err = Header::read_with(&mut &bytes[..], &opts).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::Truncated {
                what: "header",
                needed: 0xffff_fff0,
                found: 0
            }
        ),
        "{err:?}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(1),
        "{:?}",
        start.elapsed()
    );

    // Same with a few bytes present.
    let mut bytes = bytes.to_vec();
    bytes.extend_from_slice(b"{'descr': '<f8', ");
    let err = Header::read_with(&mut &bytes[..], &opts).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::Truncated { found: 17, .. }),
        "{err:?}"
    );
}

/// A reader that yields `len` bytes of `'('` then ends, counting what was asked for; a 4 GiB
/// claim must not make `Header::read` buffer more than what arrives.
struct Parens {
    left: u64,
}

impl Read for Parens {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = (buf.len() as u64).min(self.left) as usize;
        buf[..n].fill(b'(');
        self.left -= n as u64;
        Ok(n)
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    // 100,000 '(' in a 2.0 header (too long for 1.0's u16 field).
    let text = "(".repeat(100_000);
    let bytes = file(2, 0, text.as_bytes());
    let start = Instant::now();
    let err = read(&bytes).unwrap_err();
    assert!(
        matches!(syntax(&err), Some(LiteralErrorKind::TooDeep { .. })),
        "{err:?}"
    );
    // Inside the dict, too.
    let text = format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': {}2{}, }}\n",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    let err = read(&file(2, 0, text.as_bytes())).unwrap_err();
    assert!(
        matches!(syntax(&err), Some(LiteralErrorKind::TooDeep { .. })),
        "{err:?}"
    );
    // And nested lists in the descr.
    let text = format!(
        "{{'descr': {}'<f8'{}, 'fortran_order': False, 'shape': (2,), }}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let err = read(&file(2, 0, text.as_bytes())).unwrap_err();
    assert!(
        matches!(syntax(&err), Some(LiteralErrorKind::TooDeep { .. })),
        "{err:?}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );

    // A streamed header of 1 MiB of '(' under a 4 GiB claim: reads what arrives, then fails.
    let mut r = b"\x93NUMPY\x02\x00\x00\x00\x10\x00".chain(Parens { left: 1 << 20 });
    let opts = ReadOptions::default();
    let err = Header::read_with(&mut r, &opts).unwrap_err();
    assert!(
        matches!(syntax(&err), Some(LiteralErrorKind::TooDeep { .. })),
        "{err:?}"
    );
}

#[test]
fn errors_from_tensor_info_match() {
    let bytes = dict("'<f8'", "0", "(2,)");
    assert!(matches!(
        TensorInfo::from_reader("x", &mut &bytes[..]).map_err(Error::into_kind),
        Err(ErrorKind::InvalidFortranOrder { .. })
    ));
    assert!(matches!(
        TensorInfo::from_path(concat!(env!("CARGO_MANIFEST_DIR"), "/no/such/file.npy"))
            .map_err(Error::into_kind),
        Err(ErrorKind::Io(_))
    ));
}

#[test]
fn io_errors_are_reported_as_io() {
    struct Failing;
    impl Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk on fire"))
        }
    }
    let err = Header::read(&mut Failing).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Io(_)), "{err:?}");
    assert!(err.to_string().contains("disk on fire"));
}

#[test]
fn messages_name_what_was_found() {
    let msg = |bytes: Vec<u8>| read(&bytes).unwrap_err().to_string();

    let m = msg(v1(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'extra': 1, }\n",
    ));
    assert!(m.contains("'extra'") && m.contains("'shape'"), "{m}");

    let m = msg(dict("'<f8'", "0", "(2,)"));
    assert!(m.contains("fortran_order") && m.contains('0'), "{m}");

    let m = msg(dict("'<f8'", "False", "[6]"));
    assert!(m.contains("shape") && m.contains("[6]"), "{m}");

    let m = msg(dict("'<f8'", "False", "(-1,)"));
    assert!(m.contains("(-1,)") && m.contains("negative"), "{m}");

    let m = msg(dict("'<f3'", "False", "(2,)"));
    assert!(m.contains("<f3"), "{m}");

    let m = msg(dict("'<f8'", "false", "(2,)"));
    assert!(m.contains("false"), "{m}");

    let m = msg(file(1, 1, b"{}"));
    assert!(m.contains("1.1"), "{m}");

    let m = msg(b"\x93NUMPY\x01\x00\xf8\xff".to_vec());
    assert!(m.contains("65528") && m.contains('0'), "{m}");

    let m = msg(b"\x93NUMPY\x02\x00\xf0\xff\xff\xff".to_vec());
    assert!(
        m.contains("4294967280") && m.contains("max_header_len"),
        "{m}"
    );

    let m = msg(vec![0; 16]);
    assert!(m.contains("\\x00") && m.contains("NUMPY"), "{m}");

    let m = msg(b"PK\x03\x04rest".to_vec());
    assert!(m.contains("npz"), "{m}");

    let m = msg(dict("'<f8'", "False", "(4294967296, 4294967296, 16)"));
    assert!(m.contains("4294967296") && m.contains('8'), "{m}");

    let m = msg(file(3, 0, b"{'descr': '\xff'}"));
    assert!(m.contains("UTF-8") && m.contains("11"), "{m}");
}

#[test]
fn every_bracket_kind_nested_100000_deep_is_an_error() {
    // Each kind alone and mixed, as the whole header and inside the descr; closed or not.
    let kinds: [(&str, &str); 5] = [
        ("(", ")"),
        ("[", "]"),
        ("{1: ", "}"),
        ("([{0: ", "}])"),
        ("{'descr': [(", ")]}"),
    ];
    let start = Instant::now();
    for (open, close) in kinds {
        let deep =
            |inner: &str| format!("{}{inner}{}", open.repeat(100_000), close.repeat(100_000));
        let texts = [
            deep("1"),
            open.repeat(100_000),
            format!(
                "{{'descr': {}, 'fortran_order': False, 'shape': (2,), }}\n",
                deep("'<f8'")
            ),
            format!(
                "{{'descr': [('a', {})], 'fortran_order': False, 'shape': (2,), }}\n",
                deep("'<f8'")
            ),
        ];
        for text in texts {
            let err = read(&file(2, 0, text.as_bytes())).unwrap_err();
            assert!(
                matches!(syntax(&err), Some(LiteralErrorKind::TooDeep { limit: 128 })),
                "{open}: {err:?}"
            );
        }
    }
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn headers_at_the_length_limit_fail_quickly() {
    // 16 MiB (the default limit) of each: nesting, an unterminated string, padding before
    // garbage, a dict that never closes. One byte more is refused before reading.
    let limit = npy_core::header::DEFAULT_MAX_HEADER_LEN as usize;
    let start = Instant::now();
    let texts: [Vec<u8>; 4] = [
        vec![b'['; limit],
        {
            let mut t = b"{'descr': '".to_vec();
            t.resize(limit, b'a');
            t
        },
        {
            let mut t = vec![b' '; limit - 1];
            t.push(b'x');
            t
        },
        {
            let mut t = b"{".to_vec();
            while t.len() + 8 < limit {
                t.extend_from_slice(b"'k': 1, ");
            }
            t.resize(limit, b' ');
            t
        },
    ];
    for text in &texts {
        assert_eq!(text.len(), limit);
        let err = read(&file(2, 0, text)).unwrap_err();
        assert!(syntax(&err).is_some(), "{err:?}");
    }
    let mut over = texts[2].clone();
    over.push(b' ');
    assert!(matches!(
        read(&file(2, 0, &over)).map_err(Error::into_kind),
        Err(ErrorKind::HeaderTooLong { .. })
    ));
    // Debug builds parse about 20 MB/s; release builds far faster.
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
}

// Regressions: faults found by fuzzing and review, each with its failing input.

#[test]
fn descr_list_of_non_fields_fails_without_sizing_fields_by_it() {
    // A descr list of 100,000 ints reserved 100,000 `Field`s (about 96 bytes each) before
    // finding the first one invalid.
    let ones = vec!["1"; 100_000].join(",");
    let bytes = npy2(&format!("[{ones}]"), "(1,)", &[]);
    let err = npy_core::Header::read(&mut &bytes[..]).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::InvalidDescr { .. }),
        "{err:?}"
    );
}

/// numpy refuses subarrays of zero-width strings ("invalid itemsize in generic type tuple"),
/// which let `[Vec<u8>; 64]` elements of `('|S0', (64,))` abort the process.
#[test]
fn zero_width_string_subarrays_are_refused_as_numpy_does() {
    for descr in [
        "('|S0', (64,))",
        "[('name', '<U0'), ('tags', '<U0', (8,))]",
        "[('v', '|V0', (2,))]",
    ] {
        let err = npy_core::Error::from(descr.parse::<DType>().unwrap_err());
        assert!(
            matches!(err.kind(), ErrorKind::InvalidDescr { .. }),
            "{descr}: {err}"
        );
    }
}
