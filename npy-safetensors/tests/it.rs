//! npy-safetensors against the reference (`safetensors.numpy` 0.8.0 with numpy 2.4.6 and
//! ml_dtypes 0.7.0, through the project's pinned Python) and against hand-written hostile
//! headers (the format's rules: 8-byte LE length, JSON, offsets tiling the data).

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::Command;

use npy_safetensors::{
    from_safetensors, to_safetensors, ErrorKind, SafetensorsFile, SafetensorsHeader, TensorWriter,
    ToOptions, MAX_HEADER_LEN,
};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("npy-st-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run_python(python: &Path, script: &str, args: &[&Path]) -> String {
    let o = Command::new(python)
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// numpy writes archives of every dtype safetensors has (big-endian, Fortran order, 0-d,
/// empty, bfloat16 and float8 as '<V2'/'<V1'/'<f1', stored and deflated); ours must equal
/// `save_file` of the same arrays as C-order little-endian values, byte for byte; and the
/// way back gives numpy's arrays again.
#[test]
fn npz_to_safetensors_is_save_file_byte_for_byte() {
    let Some(python) = npy_test_support::python::python_for("npz -> safetensors vs save_file")
    else {
        return;
    };
    let dir = scratch("diff");
    let script = r#"
import sys, os, numpy as np, ml_dtypes as m
from safetensors.numpy import save_file, load_file
d = sys.argv[1]
rng = np.random.default_rng(26)
arrs = {
    "w.f32": rng.standard_normal((3, 4)).astype("<f4"),
    "big_endian": np.arange(10, dtype=">i4"),
    "fortran": np.asfortranarray(rng.standard_normal((5, 3))),
    "fortran_be": np.asfortranarray(np.arange(24, dtype=">u2").reshape(2, 3, 4)),
    "scalar": np.array(2.5, dtype="<f8"),
    "empty": np.zeros((0, 3), dtype="<f4"),
    "bools": rng.integers(0, 2, 7).astype(bool),
    "u8": np.arange(5, dtype="u1"), "i8": np.arange(-3, 3, dtype="i1"),
    "i16": np.arange(6, dtype="<i2"), "u16": np.arange(6, dtype="<u2"),
    "f16": np.linspace(0, 1, 5).astype("<f2"), "u32": np.arange(3, dtype="<u4"),
    "i64": np.arange(4, dtype="<i8"), "u64": np.arange(4, dtype="<u8"),
    "c64": (np.arange(3) + 1j).astype("<c8"),
    "b": np.arange(2, dtype="<f4"), "a": np.arange(2, dtype="<f4"),
    "名前": np.arange(2, dtype="<f4"), 'quote"d': np.arange(1, dtype="<f4"),
}
ml = {"bf16": rng.standard_normal((2, 3)).astype(m.bfloat16)}
np.savez(os.path.join(d, "in.npz"), **arrs)
np.savez_compressed(os.path.join(d, "in_deflated.npz"), **arrs)
np.savez(os.path.join(d, "bf16.npz"), **ml)
np.savez(os.path.join(d, "e5m2.npz"), x=np.arange(4, dtype=np.float32).astype(m.float8_e5m2))
save_file({k: v.astype(v.dtype.newbyteorder("<"), order="C") for k, v in arrs.items()},
          os.path.join(d, "want.safetensors"))
save_file(ml, os.path.join(d, "want_bf16.safetensors"))
save_file({"x": np.arange(4, dtype=np.float32).astype(m.float8_e5m2)}, os.path.join(d, "want_e5m2.safetensors"))
np.save(os.path.join(d, "one.npy"), np.asfortranarray(np.arange(6, dtype=">f8").reshape(2, 3)))
save_file({"one": np.arange(6, dtype="<f8").reshape(2, 3)}, os.path.join(d, "want_one.safetensors"))
"#;
    run_python(&python, script, &[&dir]);
    let cases = [
        ("in.npz", "want.safetensors", None),
        ("in_deflated.npz", "want.safetensors", None),
        (
            "bf16.npz",
            "want_bf16.safetensors",
            Some(npy_core::dtype::MlType::BFloat16),
        ),
        ("e5m2.npz", "want_e5m2.safetensors", None),
        ("one.npy", "want_one.safetensors", None),
    ];
    // Members copied one after the other, or several at once each into its own range.
    for (src, want, hint) in cases {
        for threads in [1, 2, 5] {
            let out = dir.join(format!("{src}.safetensors"));
            let options = ToOptions::default()
                .hint(hint)
                .with_threads(NonZeroUsize::new(threads).unwrap());
            to_safetensors(dir.join(src), &out, &options).unwrap_or_else(|e| panic!("{src}: {e}"));
            let got = std::fs::read(&out).unwrap();
            let want_bytes = std::fs::read(dir.join(want)).unwrap();
            assert!(
                got == want_bytes,
                "{src} on {threads} threads: differs from save_file\nours:   {:?}\nnumpy's: {:?}",
                String::from_utf8_lossy(&got[..got.len().min(400)]),
                String::from_utf8_lossy(&want_bytes[..want_bytes.len().min(400)])
            );
        }
    }
    // bfloat16 without a hint is refused, naming the member.
    let err = to_safetensors(
        dir.join("bf16.npz"),
        dir.join("x.safetensors"),
        &ToOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::Unsupported { member, .. } if member == "bf16"),
        "{err}"
    );
    // The refusal names the way to give the type, as the CLI flag and as the API call.
    let message = err.to_string();
    assert!(
        message.contains("--hint") && message.contains("ToOptions::default().hint("),
        "{message}"
    );
    // With a hint of another size (float8_e4m3fn is 1 byte, '|V2' 2), the refusal says so,
    // not that a hint is missing (a review's find).
    let err = to_safetensors(
        dir.join("bf16.npz"),
        dir.join("x.safetensors"),
        &ToOptions::default().hint(Some(npy_core::dtype::MlType::Float8E4M3Fn)),
    )
    .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::Unsupported { member, .. } if member == "bf16"),
        "{err}"
    );
    let message = err.to_string();
    assert!(
        message.contains("'|V2'") && message.contains("another size than the hint's type"),
        "{message}"
    );
    assert!(!message.contains("--hint TYPE"), "{message}");
    assert!(!dir.join("x.safetensors").exists());
    // And back: safetensors -> npz, loaded by numpy, equals the original values.
    from_safetensors(dir.join("want.safetensors"), dir.join("back.npz")).unwrap();
    from_safetensors(dir.join("want_one.safetensors"), dir.join("back_one.npy")).unwrap();
    let check = r#"
import sys, os, numpy as np
from safetensors.numpy import load_file
d = sys.argv[1]
want = load_file(os.path.join(d, "want.safetensors"))
got = np.load(os.path.join(d, "back.npz"))
assert sorted(got.files) == sorted(want), (got.files, list(want))
for k, v in want.items():
    g = got[k]
    assert g.dtype == v.dtype and g.shape == v.shape and np.array_equal(g, v), k
one = np.load(os.path.join(d, "back_one.npy"))
assert np.array_equal(one, np.arange(6, dtype="<f8").reshape(2, 3))
print("ok", len(want))
"#;
    let said = run_python(&python, check, &[&dir]);
    assert!(said.starts_with("ok 20"), "{said}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A member whose bytes do not match its CRC-32 (stored) or whose deflate stream is broken,
/// among members copied on several threads at once: the conversion fails naming that member,
/// on every thread count, and leaves no output (the zip's rule: the CRC of every member read
/// to its end is checked, as Python's zipfile checks it).
#[test]
fn a_broken_member_among_parallel_copies_fails_by_name() {
    let Some(python) = npy_test_support::python::python_for("broken npz member") else {
        return;
    };
    let dir = scratch("broken");
    // Five members of 3 MiB (several copy buffers each); member "c" holds a marker run that
    // the script flips one byte of, in the stored archive's data and in the deflated
    // archive's compressed bytes (a run of one value deflates to a repeated pattern too).
    let script = r#"
import sys, os, numpy as np
d = sys.argv[1]
a = {k: np.full(3 << 18, i, dtype="<f4") for i, k in enumerate("abcde")}
a["c"][1000:1010] = np.frombuffer(b"MARKERMARKERMARKERMARKERMARKERMARKERMARKERMA", dtype="<f4")[:10]
np.savez(os.path.join(d, "stored.npz"), **a)
raw = bytearray(open(os.path.join(d, "stored.npz"), "rb").read())
at = raw.index(b"MARKERMARKER")
raw[at] ^= 1
open(os.path.join(d, "stored_bad.npz"), "wb").write(raw)
rng = np.random.default_rng(26)
z = {k: rng.standard_normal(3 << 18).astype("<f4") for k in "abcde"}
np.savez_compressed(os.path.join(d, "deflated.npz"), **z)
import zipfile
with zipfile.ZipFile(os.path.join(d, "deflated.npz")) as f:
    info = f.getinfo("c.npy")
raw = bytearray(open(os.path.join(d, "deflated.npz"), "rb").read())
start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
raw[start + info.compress_size // 2] ^= 0x55
open(os.path.join(d, "deflated_bad.npz"), "wb").write(raw)
"#;
    run_python(&python, script, &[&dir]);
    for src in ["stored_bad.npz", "deflated_bad.npz"] {
        for threads in [1, 2, 4] {
            let out = dir.join(format!("{src}-{threads}.safetensors"));
            let options = ToOptions::default().with_threads(NonZeroUsize::new(threads).unwrap());
            let err = to_safetensors(dir.join(src), &out, &options).unwrap_err();
            let msg = err.to_string();
            assert!(msg.contains("\"c\""), "{src} on {threads}: {msg}");
            assert_eq!(err.member(), Some("c"), "{src} on {threads}: {msg}");
            assert_eq!(
                err.path(),
                Some(dir.join(src).as_path()),
                "{src} on {threads}"
            );
            assert!(
                msg.contains("CRC") || msg.contains("deflate") || msg.contains("data bytes"),
                "{src} on {threads}: {msg}"
            );
            assert!(!out.exists(), "{src} on {threads}: an output was left");
        }
    }
    // The intact archives convert on any thread count to the same bytes.
    for src in ["stored.npz", "deflated.npz"] {
        let outs: Vec<Vec<u8>> = [1, 3]
            .iter()
            .map(|&t| {
                let out = dir.join(format!("{src}-{t}.safetensors"));
                let options = ToOptions::default().with_threads(NonZeroUsize::new(t).unwrap());
                to_safetensors(dir.join(src), &out, &options).unwrap();
                std::fs::read(&out).unwrap()
            })
            .collect();
        assert!(outs[0] == outs[1], "{src}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Records, strings and object arrays are refused with the member's name (numpy's bytes,
/// written here by npy-core's own writer: the refusal is the rule under test).
#[test]
fn records_strings_objects_are_refused_by_name() {
    let dir = scratch("refuse");
    let npz = dir.join("mixed.npz");
    let mut w = npy_npz::NpzWriter::create(&npz).unwrap();
    w.add("fine", &[1.0f32], &[1]).unwrap();
    w.add("names", &["ab".to_owned()], &[1]).unwrap();
    w.finish().unwrap();
    let err = to_safetensors(&npz, dir.join("o.safetensors"), &ToOptions::default()).unwrap_err();
    match err.kind() {
        ErrorKind::Unsupported { member, dtype, .. } => {
            assert_eq!(member, "names");
            assert!(dtype.contains("U2"), "{dtype}");
        }
        other => panic!("{other:?}"),
    }
    assert!(!dir.join("o.safetensors").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

fn file_with(json: &[u8], data: &[u8]) -> Vec<u8> {
    let mut v = (json.len() as u64).to_le_bytes().to_vec();
    v.extend_from_slice(json);
    v.extend_from_slice(data);
    v
}

fn read(bytes: &[u8]) -> Result<SafetensorsHeader, npy_safetensors::Error> {
    SafetensorsHeader::read(&mut &bytes[..], bytes.len() as u64)
}

/// One hostile header per error kind, each from hand-written bytes.
#[test]
fn hostile_headers_get_typed_errors() {
    let ok = br#"{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#;
    assert!(read(&file_with(ok, &[0; 8])).is_ok());
    // Shorter than the length field: npy-core's Truncated, sizes by the format's rule (an
    // 8-byte little-endian length first).
    assert!(matches!(
        read(&[1, 2, 3]).unwrap_err().kind(),
        ErrorKind::Npy(e) if matches!(
            e.kind(),
            npy_core::ErrorKind::Truncated { what: "header length", needed: 8, found: 3 }
        )
    ));
    assert_eq!(
        read(&[1, 2, 3]).unwrap_err().to_string(),
        "file ends inside the header length: 8 bytes needed, 3 present"
    );
    assert_eq!(
        read(&[1, 2, 3]).unwrap_err().classify(),
        npy_core::error::Category::Format
    );
    // Header length past the file's end: refused before allocating.
    let mut lying = u64::MAX.to_le_bytes().to_vec();
    lying.extend_from_slice(b"{}");
    assert!(matches!(
        read(&lying).unwrap_err().kind(),
        ErrorKind::HeaderTooLong { .. }
    ));
    assert_eq!(
        read(&lying).unwrap_err().classify(),
        npy_core::error::Category::Limit
    );
    let mut past = (MAX_HEADER_LEN - 1).to_le_bytes().to_vec();
    past.extend_from_slice(b"{}");
    assert!(matches!(
        read(&past).unwrap_err().kind(),
        ErrorKind::Npy(e) if matches!(
            e.kind(),
            npy_core::ErrorKind::Truncated { what: "header", needed, found: 10 }
                if *needed == MAX_HEADER_LEN + 7
        )
    ));
    // Not UTF-8.
    let e = read(&file_with(b"{\"\xff\":1}", &[])).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::HeaderNotUtf8 { valid_up_to: 2 }),
        "{e}"
    );
    // Not JSON / not an object.
    assert!(matches!(
        read(&file_with(b"[1]", &[])).unwrap_err().kind(),
        ErrorKind::HeaderJson(_)
    ));
    assert!(matches!(
        read(&file_with(b"{", &[])).unwrap_err().kind(),
        ErrorKind::HeaderJson(_)
    ));
    // Repeated name.
    let dup = br#"{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}"#;
    assert!(matches!(
        read(&file_with(dup, &[0; 2])).unwrap_err().kind(),
        ErrorKind::HeaderJson(_)
    ));
    let tensor_err =
        |json: &[u8], data: &[u8]| match read(&file_with(json, data)).unwrap_err().kind() {
            ErrorKind::InvalidTensor { name, reason } => (name.clone(), reason.clone()),
            other => panic!("{other:?} for {}", String::from_utf8_lossy(json)),
        };
    // Unknown dtype.
    let (n, r) = tensor_err(
        br#"{"a":{"dtype":"F128","shape":[1],"data_offsets":[0,16]}}"#,
        &[0; 16],
    );
    assert_eq!(n, "a");
    assert!(r.contains("F128"), "{r}");
    // Lying offsets: the size does not match the shape.
    let (_, r) = tensor_err(
        br#"{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}"#,
        &[0; 8],
    );
    assert!(r.contains("12 bytes"), "{r}");
    // Overlapping tensors.
    let (n, r) = tensor_err(
        br#"{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}"#,
        &[0; 8],
    );
    assert_eq!(n, "b");
    assert!(r.contains("overlapping"), "{r}");
    // A gap.
    let (_, r) = tensor_err(
        br#"{"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}"#,
        &[0; 2],
    );
    assert!(r.contains("gap"), "{r}");
    // Huge shapes: the size overflows.
    let (_, r) = tensor_err(
        br#"{"a":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,8]}}"#,
        &[0; 8],
    );
    assert!(r.contains("overflows"), "{r}");
    // End before begin.
    let (_, r) = tensor_err(
        br#"{"a":{"dtype":"U8","shape":[0],"data_offsets":[0,18446744073709551615]}}"#,
        &[],
    );
    assert!(r.contains("data_offsets"), "{r}");
    // The data section shorter than the tensors.
    let e = read(&file_with(ok, &[0; 4])).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::DataLength {
                expected: 8,
                found: 4
            }
        ),
        "{e}"
    );
    // Metadata must map strings to strings.
    let bad_meta = br#"{"__metadata__":{"k":1}}"#;
    assert!(matches!(
        read(&file_with(bad_meta, &[])).unwrap_err().kind(),
        ErrorKind::HeaderJson(_)
    ));
}

/// A safetensors file's tensors read through npy-core, and an open error names the path.
#[test]
fn tensors_read_as_npy() {
    let dir = scratch("read");
    let json = br#"{"__metadata__":{"format":"np"},"w":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]},"v":{"dtype":"I16","shape":[],"data_offsets":[4,6]}}"#;
    // bfloat16 1.0 and -2.0 (0x3f80, 0xc000), then i16 -3.
    let path = dir.join("t.safetensors");
    std::fs::write(
        &path,
        file_with(json, &[0x80, 0x3f, 0x00, 0xc0, 0xfd, 0xff]),
    )
    .unwrap();
    let mut f = SafetensorsFile::open(&path).unwrap();
    assert_eq!(f.header().metadata().unwrap()["format"], "np");
    let w: Vec<half::bf16> = f.npy_reader("w").unwrap().read_vec().unwrap();
    assert_eq!(w, [half::bf16::from_f32(1.0), half::bf16::from_f32(-2.0)]);
    let v: Vec<i16> = f.npy_reader("v").unwrap().read_vec().unwrap();
    assert_eq!(v, [-3]);
    assert!(matches!(
        f.npy_reader("nope").unwrap_err().kind(),
        ErrorKind::NoSuchTensor(_)
    ));
    assert_eq!(
        f.npy_reader("nope").unwrap_err().classify(),
        npy_core::error::Category::Mismatch
    );
    let err = SafetensorsFile::open(dir.join("missing.safetensors")).unwrap_err();
    assert!(
        err.path()
            .is_some_and(|p| p.ends_with("missing.safetensors")),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Mutations of a valid file (deterministic: a fixed xorshift seed) never panic, and the
/// valid file itself parses (so the mutations start from a real header).
#[test]
fn mutated_headers_never_panic() {
    let json = br#"{"__metadata__":{"a":"b"},"x":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},"y":{"dtype":"BF16","shape":[3],"data_offsets":[16,22]}}"#;
    let base = file_with(json, &[0; 22]);
    assert!(npy_safetensors::exercise(&base) >= 1);
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut accepted = 0;
    for _ in 0..20_000 {
        let mut b = base.clone();
        for _ in 0..=(next() % 4) {
            if b.is_empty() {
                break;
            }
            let at = (next() % b.len() as u64) as usize;
            match next() % 3 {
                0 => b[at] = next() as u8,
                1 => b.truncate(at),
                _ => b.insert(at, b"{}[]\",:0123456789e-"[(next() % 16) as usize]),
            }
        }
        accepted += usize::from(npy_safetensors::exercise(&b) > 0);
    }
    assert!(accepted > 0);
}

/// An `.npy` file of `descr`, `shape` and memory order, its data bytes a fixed pattern (0/1
/// for bools): npy-core's header bytes, then the data as the header says it lies.
fn npy_file(path: &Path, descr: &str, fortran: bool, shape: &[u64]) {
    let header = npy_core::Header {
        fortran_order: fortran,
        ..npy_core::Header::new(descr.parse().unwrap(), shape.to_vec())
    };
    let mut bytes = header.to_bytes(None).unwrap();
    let n = header.nbytes().unwrap();
    bytes.extend((0..n).map(|i| {
        if descr == "|b1" {
            u8::from(i % 3 == 0)
        } else {
            ((i * 37 + 11) % 251) as u8
        }
    }));
    std::fs::write(path, bytes).unwrap();
}

/// `TensorWriter` fed an `.npy` file's header and data bytes (in odd-sized pieces) writes the
/// bytes `to_safetensors` writes for that file (itself checked against `save_file` above), for
/// every kind of layout: little- and big-endian, C and Fortran order (both the direct and the
/// staged path), 0-d, empty, bools, complex, and '|V2'/'|V1' through a hint. Where numpy
/// loads the array, `save_file` of its C-order little-endian bytes is the same file too.
#[test]
fn tensor_writer_writes_what_to_safetensors_writes() {
    use npy_core::dtype::MlType;
    use std::io::{Read as _, Seek as _, Write as _};
    let dir = scratch("tensor-writer");
    // (tensor name, descr, Fortran order, shape, hint)
    type Case = (
        &'static str,
        &'static str,
        bool,
        &'static [u64],
        Option<MlType>,
    );
    let cases: &[Case] = &[
        ("f32", "<f4", false, &[3, 4], None),
        ("be_i32", ">i4", false, &[10], None),
        ("fortran_f64", "<f8", true, &[5, 3], None),
        ("fortran_be_u16", ">u2", true, &[2, 3, 4], None),
        ("scalar", "<f8", false, &[], None),
        ("empty", "<f4", false, &[0, 3], None),
        ("bools", "|b1", false, &[7], None),
        ("fortran_u8", "|u1", true, &[3, 2], None),
        ("fortran_be_c64", ">c8", true, &[2, 2], None),
        ("be_f16", ">f2", false, &[5], None),
        ("i64", "<i8", false, &[4], None),
        ("big", "<u4", false, &[300_000], None),
        ("bf16", "|V2", false, &[2, 3], Some(MlType::BFloat16)),
        ("fortran_bf16", "|V2", true, &[2, 3], Some(MlType::BFloat16)),
        ("e4m3", "|V1", false, &[4], Some(MlType::Float8E4M3Fn)),
    ];
    for &(name, descr, fortran, shape, hint) in cases {
        let npy = dir.join(format!("{name}.npy"));
        npy_file(&npy, descr, fortran, shape);
        let options = ToOptions::default().hint(hint);
        let want = dir.join(format!("{name}.want.safetensors"));
        to_safetensors(&npy, &want, &options).unwrap();
        let got = dir.join(format!("{name}.safetensors"));
        let mut f = std::fs::File::open(&npy).unwrap();
        let parsed = npy_core::Header::read(&mut std::io::BufReader::new(&mut f)).unwrap();
        f.seek(std::io::SeekFrom::Start(parsed.data_offset()))
            .unwrap();
        let mut w = TensorWriter::create(&got, name, &parsed.header, &options).unwrap();
        let mut piece = [0u8; 7];
        loop {
            let n = f.read(&mut piece).unwrap();
            if n == 0 {
                break;
            }
            w.write_all(&piece[..n]).unwrap();
        }
        assert!(!got.exists(), "{name}: the output appeared before finish");
        w.finish().unwrap();
        assert!(
            std::fs::read(&got).unwrap() == std::fs::read(&want).unwrap(),
            "{name}: TensorWriter differs from to_safetensors"
        );
    }
    if let Some(python) = npy_test_support::python::python_for("TensorWriter vs save_file") {
        let script = r#"
import sys, os, numpy as np
from safetensors.numpy import save_file
d = sys.argv[1]
for name in sys.argv[2:]:
    a = np.load(os.path.join(d, name + ".npy"))
    c = a.copy(order="C")
    if c.dtype.byteorder == ">":
        c = c.byteswap().view(c.dtype.newbyteorder("<"))
    save_file({name: c}, os.path.join(d, name + ".py.safetensors"))
print("ok")
"#;
        let plain: Vec<&str> = cases
            .iter()
            .filter(|c| c.4.is_none())
            .map(|c| c.0)
            .collect();
        let mut args: Vec<PathBuf> = vec![dir.clone()];
        args.extend(plain.iter().map(PathBuf::from));
        let args: Vec<&Path> = args.iter().map(PathBuf::as_path).collect();
        assert_eq!(run_python(&python, script, &args).trim(), "ok");
        for name in plain {
            assert!(
                std::fs::read(dir.join(format!("{name}.safetensors"))).unwrap()
                    == std::fs::read(dir.join(format!("{name}.py.safetensors"))).unwrap(),
                "{name}: TensorWriter differs from save_file"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `TensorWriter` given fewer or more data bytes than its header promises fails and leaves
/// no output; a dtype safetensors lacks is refused, by the tensor's name, before an output
/// exists (the format's rules: a tensor's bytes are exactly its shape's).
#[test]
fn tensor_writer_refuses_wrong_sizes_and_dtypes() {
    use std::io::Write as _;
    let dir = scratch("tensor-writer-refuse");
    let header = npy_core::Header::new("<f4".parse().unwrap(), vec![2, 2]);
    for fortran in [false, true] {
        let header = npy_core::Header {
            fortran_order: fortran,
            ..header.clone()
        };
        let out = dir.join("short.safetensors");
        let mut w = TensorWriter::create(&out, "t", &header, &ToOptions::default()).unwrap();
        w.write_all(&[0u8; 15]).unwrap();
        let err = w.finish().unwrap_err();
        assert!(err.to_string().contains("15 of its 16"), "{err}");
        assert!(!out.exists());
        let out = dir.join("long.safetensors");
        let mut w = TensorWriter::create(&out, "t", &header, &ToOptions::default()).unwrap();
        w.write_all(&[0u8; 12]).unwrap();
        let err = w.write_all(&[0u8; 5]).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput, "{err}");
        drop(w);
        assert!(!out.exists());
    }
    for descr in [
        "[('x', '<f4'), ('n', '<i8')]",
        "<U3",
        "|V2",
        "<M8[s]",
        "<c16",
    ] {
        let header = npy_core::Header::new(descr.parse().unwrap(), vec![3]);
        let out = dir.join("refused.safetensors");
        let err = TensorWriter::create(&out, "tab", &header, &ToOptions::default()).unwrap_err();
        match err.kind() {
            ErrorKind::Unsupported { member, .. } => assert_eq!(member, "tab", "{descr}"),
            other => panic!("{descr}: {other:?}"),
        }
        assert!(!out.exists(), "{descr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The error's member (issue 40): converting numpy's `.npz` (written by `np.savez` through the
/// pinned Python), the member safetensors cannot hold is named by `member()`, with the
/// archive as `path()`; an `.npy` input's one tensor, named after the file's stem, is no
/// member.
#[test]
fn unsupported_member_is_the_errors_member() {
    let Some(python) = npy_test_support::python::python_for("npz member of an error") else {
        return;
    };
    let dir = scratch("member");
    let (npz, npy) = (dir.join("mixed.npz"), dir.join("rec.npy"));
    run_python(
        &python,
        "import sys, numpy as np\n\
         rec = np.zeros(2, dtype=[('a', '<i4')])\n\
         np.savez(sys.argv[1], fine=np.ones(3, dtype='<f4'), rec=rec)\n\
         np.save(sys.argv[2], rec)",
        &[&npz, &npy],
    );
    let err = to_safetensors(&npz, dir.join("o.safetensors"), &ToOptions::default()).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Unsupported { .. }), "{err}");
    assert_eq!(err.member(), Some("rec"));
    assert_eq!(err.path(), Some(npz.as_path()));

    let err = to_safetensors(&npy, dir.join("p.safetensors"), &ToOptions::default()).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Unsupported { .. }), "{err}");
    assert_eq!(err.member(), None);
    assert_eq!(err.path(), Some(npy.as_path()));
    let _ = std::fs::remove_dir_all(&dir);
}
