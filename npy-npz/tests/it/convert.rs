//! `npy_npz::convert`: one array between `.npy` and `.npz`. Every fixture (written by numpy's
//! `np.save`) goes into an archive and back; the member and the file that comes back are the
//! fixture's bytes, as `np.savez` stores `np.save`'s bytes of the array.

use npy_npz::{convert, ErrorKind, NpzArchive};

fn fixtures() -> Vec<std::path::PathBuf> {
    let mut all: Vec<_> = std::fs::read_dir(npy_test_support::fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "npy"))
        .collect();
    all.sort();
    assert!(
        all.len() > 100,
        "the fixtures are missing: run cargo xtask fixtures"
    );
    all
}

#[test]
fn every_fixture_goes_into_an_archive_and_back_as_numpy_wrote_it() {
    let dir = tempfile::tempdir().unwrap();
    for fixture in fixtures() {
        let want = std::fs::read(&fixture).unwrap();
        let stem = fixture.file_stem().unwrap().to_str().unwrap();
        let npz = dir.path().join("a.NPZ");
        convert(&fixture, &npz, None).unwrap_or_else(|e| panic!("{stem}: {e}"));
        let archive = NpzArchive::open(&npz).unwrap();
        assert_eq!(archive.keys().collect::<Vec<_>>(), [stem]);
        let member = archive.read_bytes(stem).unwrap();
        assert!(member == want, "{stem}: the member is not np.save's bytes");
        let back = dir.path().join("back.npy");
        convert(&npz, &back, None).unwrap_or_else(|e| panic!("{stem} back: {e}"));
        assert!(std::fs::read(&back).unwrap() == want, "{stem}: back");
    }
}

#[test]
fn a_member_is_chosen_by_key_and_only_of_an_archive() {
    let dir = tempfile::tempdir().unwrap();
    let npz = dir.path().join("two.npz");
    let mut w = npy_npz::NpzWriter::create(&npz).unwrap();
    w.add("a", &[1i32, 2], &[2]).unwrap();
    w.add("b", &[3i64], &[1]).unwrap();
    w.finish().unwrap();
    let out = dir.path().join("out.npy");
    let e = convert(&npz, &out, None).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::ChooseMember { keys } if keys == &["a", "b"]));
    // The refusal names the option as the API call and as the command's flag.
    let said = e.to_string();
    assert!(said.contains("the `member` argument, Some(KEY)"), "{said}");
    assert!(said.contains("npy convert --member KEY"), "{said}");
    assert_eq!(e.path(), Some(npz.as_path()));
    assert!(!out.exists());
    convert(&npz, &out, Some("b")).unwrap();
    assert_eq!(npy_core::read::<i64>(&out).unwrap().into_vec(), [3]);
    let e = convert(&out, dir.path().join("x.npy"), Some("b")).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::MemberOfNpy { key } if key == "b"));
    let e = convert(&npz, &out, Some("c")).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::MissingMember { .. }), "{e}");
    assert_eq!(e.path(), Some(npz.as_path()));
}

/// A `.npy` file shorter than its header says is refused as npy-core refuses it (`np.load`
/// refuses it too), naming the input; nothing is written.
#[test]
fn a_short_npy_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let full = std::fs::read(npy_test_support::fixture("w_f32.npy")).unwrap();
    let cut = dir.path().join("cut.npy");
    std::fs::write(&cut, &full[..full.len() - 4]).unwrap();
    let out = dir.path().join("out.npz");
    let e = convert(&cut, &out, None).unwrap_err();
    let ErrorKind::Npy(inner) = e.kind() else {
        panic!("{e:?}")
    };
    assert!(
        matches!(
            inner.kind(),
            npy_core::ErrorKind::Truncated {
                needed: 1024,
                found: 1020,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.path(), Some(cut.as_path()));
    assert!(!out.exists());
}
