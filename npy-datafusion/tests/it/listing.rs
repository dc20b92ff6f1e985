//! What a table's listing must not pass over, and how errors name files and locations:
//! a 0-byte shard (numpy's `np.load` raises `EOFError`) is an error naming it, not a table
//! answered without it; a location matching no file is named as given; a local file is named
//! by its absolute path and a file of another store by its URL; a quoted `'ARCHIVE.npz:KEY'`
//! in FROM is that member, as numpy loads it.

use std::sync::Arc;

use datafusion::datasource::listing::ListingTableUrl;
use datafusion::error::DataFusionError;
use datafusion::execution::object_store::ObjectStoreUrl;
use datafusion::prelude::{SessionConfig, SessionContext};
use npy_datafusion::{Error, NpyOptions, NpyTable};
use object_store::{ObjectStoreExt as _, PutPayload};

use super::{expected, python_for, query, runtime};

/// A session reading `.npy` whose quoted paths in FROM go through npy-datafusion's factory.
fn npy_session() -> SessionContext {
    let ctx = npy_datafusion::enable_url_table(SessionContext::new_with_config(
        SessionConfig::new().with_target_partitions(2),
    ));
    npy_datafusion::register(&ctx).unwrap();
    ctx
}

/// The query's error (planning or running), which must be npy-datafusion's.
async fn ours(ctx: &SessionContext, sql: &str) -> (String, String) {
    let err: DataFusionError = match ctx.sql(sql).await {
        Ok(df) => df.collect().await.expect_err(sql),
        Err(e) => e,
    };
    let e = Error::find(&err).unwrap_or_else(|| panic!("{sql}: not npy-datafusion's: {err}"));
    (e.path().to_owned(), e.to_string())
}

/// A directory (or glob) of shards holding a 0-byte `.npy`: numpy's `np.load` refuses it
/// (`EOFError`), so a table over it is an error naming the file, in every way a table is
/// made: `NpyTable`, a quoted glob or directory in FROM, `CREATE EXTERNAL TABLE`. Without it,
/// numpy's count. DataFusion's listing dropped the file and answered without it.
#[test]
fn a_zero_byte_shard_is_an_error_naming_it() {
    let Some(python) = python_for("a 0-byte .npy shard against numpy's EOFError") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = r"
import sys, os, json, numpy as np
d = sys.argv[1] + '/shards'
os.mkdir(d)
np.save(d + '/s0.npy', np.arange(10, dtype='<i8'))
np.save(d + '/s1.npy', np.arange(5, dtype='<i8'))
open(d + '/s2.npy', 'wb').close()
try:
    np.load(d + '/s2.npy')
    said = None
except EOFError as e:
    said = 'EOFError'
print(json.dumps({'said': said, 'rows': len(np.load(d + '/s0.npy')) + len(np.load(d + '/s1.npy'))}))
";
    let want = expected(&python, script, dir.path());
    assert_eq!(
        want["said"], "EOFError",
        "numpy reads a 0-byte file: {want}"
    );
    let d = format!("{}/shards", dir.path().display());
    let empty = format!("{d}/s2.npy");
    runtime().block_on(async {
        let ctx = npy_session();
        let state = ctx.state();
        for location in [format!("{d}/"), format!("{d}/*.npy"), empty.clone()] {
            let url = ListingTableUrl::parse(&location).unwrap();
            let err = NpyTable::try_new(&state, vec![url], NpyOptions::default())
                .await
                .expect_err(&location);
            let e = Error::find(&err).unwrap_or_else(|| panic!("{location}: {err}"));
            assert!(matches!(e, Error::Empty { .. }), "{location}: {e}");
            assert_eq!(e.path(), empty, "{location}");
            assert!(e.to_string().contains("0 bytes"), "{e}");
        }
        for sql in [
            format!("SELECT count(*) FROM '{d}/*.npy'"),
            format!("SELECT count(*) FROM '{d}/'"),
            format!("SELECT count(*) FROM '{d}'"),
        ] {
            let (path, _) = ours(&ctx, &sql).await;
            assert_eq!(path, empty, "{sql}");
        }
        let (path, _) = ours(
            &ctx,
            &format!("CREATE EXTERNAL TABLE t STORED AS NPY LOCATION '{d}/'"),
        )
        .await;
        assert_eq!(path, empty);
        // Without the empty shard: numpy's count (a new session: the listing of one is
        // cached).
        std::fs::remove_file(&empty).unwrap();
        let rows = query(
            &npy_session(),
            &format!("SELECT count(*) AS n FROM '{d}/*.npy'"),
        )
        .await
        .unwrap();
        assert_eq!(rows[0]["n"], want["rows"]);
    });
}

/// A glob or directory without `.npy` files: an error naming the location as it was given
/// (DataFusion said "No files found" with its URL, or took a quoted path for a missing table).
#[test]
fn a_location_without_files_is_named_as_given() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("none")).unwrap();
    std::fs::write(dir.path().join("none/notes.txt"), "not an array").unwrap();
    let d = dir.path().display().to_string();
    runtime().block_on(async {
        let ctx = npy_session();
        let state = ctx.state();
        for location in [format!("{d}/none/*.npy"), format!("{d}/none/")] {
            let url = ListingTableUrl::parse(&location).unwrap();
            let err = NpyTable::try_new_named(
                &state,
                vec![(url, location.clone())],
                NpyOptions::default(),
            )
            .await
            .expect_err(&location);
            let e = Error::find(&err).unwrap_or_else(|| panic!("{location}: {err}"));
            assert!(matches!(e, Error::NoFiles { .. }), "{location}: {e}");
            assert_eq!(e.path(), location);
            assert!(e.to_string().starts_with(&format!("{location}: ")), "{e}");
        }
        let glob = format!("{d}/none/*.npy");
        let (path, text) = ours(&ctx, &format!("SELECT count(*) FROM '{glob}'")).await;
        assert_eq!(path, glob, "{text}");
        let member = format!("{d}/none/*.npz:x");
        let (path, text) = ours(&ctx, &format!("SELECT count(*) FROM '{member}'")).await;
        assert_eq!(path, format!("{d}/none/*.npz"), "{text}");
    });
}

/// Errors name a local file by its absolute path (object_store's path drops the leading `/`)
/// and a file of another store by its URL: shards that numpy wrote with different dtypes, on
/// the local disk and in an in-memory store registered as `mem://bucket`, found when the table
/// is made (its schema inferred) and when a table of a given schema is scanned.
#[test]
fn errors_name_files_as_a_user_types_them() {
    let Some(python) = python_for("shards of different dtypes written by numpy") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = r"
import sys, os, json, numpy as np
d = sys.argv[1] + '/x'
os.mkdir(d)
np.save(d + '/a.npy', np.arange(3, dtype='<i4'))
np.save(d + '/b.npy', np.arange(3, dtype='<f8'))
print(json.dumps({'a': np.load(d + '/a.npy').dtype.str, 'b': np.load(d + '/b.npy').dtype.str}))
";
    let want = expected(&python, script, dir.path());
    let d = format!("{}/x", dir.path().display());
    runtime().block_on(async {
        let ctx = npy_session();
        // Local: the path as the user wrote it, leading `/` and all.
        let (path, text) = ours(&ctx, &format!("SELECT * FROM '{d}/*.npy'")).await;
        assert_eq!(path, format!("{d}/b.npy"), "{text}");
        let first = format!("{d}/a.npy's");
        assert!(text.contains(&first), "{text}");
        assert!(text.contains(want["a"].as_str().unwrap()), "{text}");
        // Another store: its URL.
        let store = Arc::new(object_store::memory::InMemory::new());
        for f in ["a", "b"] {
            let bytes = std::fs::read(format!("{d}/{f}.npy")).unwrap();
            store
                .put(&format!("x/{f}.npy").into(), PutPayload::from(bytes))
                .await
                .unwrap();
        }
        let base = ObjectStoreUrl::parse("mem://bucket").unwrap();
        ctx.register_object_store(base.as_ref(), Arc::clone(&store) as _);
        let state = ctx.state();
        let url = ListingTableUrl::parse("mem://bucket/x/").unwrap();
        let err = NpyTable::try_new(&state, vec![url.clone()], NpyOptions::default())
            .await
            .expect_err("shards that differ");
        let e = Error::find(&err).unwrap();
        assert_eq!(e.path(), "mem://bucket/x/b.npy", "{e}");
        assert!(e.to_string().contains("mem://bucket/x/a.npy's"), "{e}");
        // A table of a given schema (no header read) scanning the file that differs.
        let a = NpyTable::try_new(
            &state,
            vec![ListingTableUrl::parse("mem://bucket/x/a.npy").unwrap()],
            NpyOptions::default(),
        )
        .await
        .unwrap();
        let table = NpyTable::with_schema(
            vec![url],
            NpyOptions::default(),
            datafusion::catalog::TableProvider::schema(&a),
        )
        .unwrap();
        ctx.register_table("t", Arc::new(table)).unwrap();
        let (path, text) = ours(&ctx, "SELECT * FROM t").await;
        assert_eq!(path, "mem://bucket/x/b.npy", "{text}");
    });
}

/// A quoted `'ARCHIVE.npz:KEY'` in FROM is member KEY of the archive (its column named KEY),
/// as `np.load(archive)[KEY]`: a stored archive, a deflated one, a glob of both; a key of an
/// archive that lacks it is the archive's error.
#[test]
fn a_quoted_npz_member_in_from_answers_as_numpy() {
    let Some(python) = python_for("a quoted .npz member in FROM against numpy") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = r"
import sys, json, numpy as np
d = sys.argv[1]
np.savez(d + '/arch.npz', x=np.arange(12, dtype='<i4') * 3, y=np.ones(2))
np.savez_compressed(d + '/arch2.npz', x=np.arange(7, dtype='>i4') - 2)
a, b = np.load(d + '/arch.npz')['x'], np.load(d + '/arch2.npz')['x']
print(json.dumps({'n': len(a), 's': int(a.sum()), 'both': int(a.sum()) + int(b.sum()),
                  'rows': len(a) + len(b)}))
";
    let want = expected(&python, script, dir.path());
    let d = dir.path().display().to_string();
    runtime().block_on(async {
        let ctx = npy_session();
        let rows = query(
            &ctx,
            &format!("SELECT count(*) AS n, sum(x) AS s FROM '{d}/arch.npz:x'"),
        )
        .await
        .unwrap();
        assert_eq!(
            rows,
            [serde_json::json!({ "n": want["n"], "s": want["s"] })]
        );
        let rows = query(
            &ctx,
            &format!("SELECT count(*) AS n, sum(x) AS s FROM '{d}/arch*.npz:x'"),
        )
        .await
        .unwrap();
        assert_eq!(
            rows,
            [serde_json::json!({ "n": want["rows"], "s": want["both"] })]
        );
        let (path, text) = ours(&ctx, &format!("SELECT * FROM '{d}/arch2.npz:y'")).await;
        assert_eq!(path, format!("{d}/arch2.npz"), "{text}");
        // Other quoted paths are DataFusion's as before: a table that does not exist.
        let err = ctx.sql("SELECT * FROM 'nope.csv'").await.unwrap_err();
        assert!(Error::find(&err).is_none(), "{err}");
    });
}
