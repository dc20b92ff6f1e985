//! Quoted paths in FROM (`SELECT … FROM 'shards/*.npy'`): [`enable_url_table`], DataFusion's
//! `SessionContext::enable_url_table` with `.npy` tables checked as [`NpyTable`]s and `.npz`
//! members (`'ARCHIVE.npz:KEY'`).

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::catalog::{DynamicFileCatalog, TableProvider, UrlTableFactory};
use datafusion::datasource::dynamic_file::DynamicListTableFactory;
use datafusion::datasource::listing::ListingTableUrl;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::context::SessionState;
use datafusion::prelude::SessionContext;
use futures::StreamExt as _;

use crate::{NpyOptions, NpyTable, NPY_EXTENSION};

/// `ARCHIVE:KEY` → the archive location and the member key, when `location` names a member
/// of `.npz` archives: split at the first colon whose left side ends in `.npz` (any case), in
/// `/`, or is a local directory (of archives), so that a key may hold colons and a URL's
/// scheme and port are not taken for one. `None`: not a member (an `.npy` location, a URL).
///
/// The rule of `npy sql --table NAME=ARCHIVE:KEY` and of a quoted `'ARCHIVE.npz:KEY'` in FROM
/// ([`enable_url_table`]).
pub fn npz_member(location: &str) -> Option<(&str, &str)> {
    location.match_indices(':').find_map(|(i, _)| {
        let (archive, key) = (&location[..i], &location[i + 1..]);
        let npz = archive.to_ascii_lowercase().ends_with(".npz")
            || archive.ends_with('/')
            || (!archive.is_empty() && !archive.contains("://") && Path::new(archive).is_dir());
        (npz && !key.is_empty()).then_some((archive, key))
    })
}

/// The table URL of a location as a user writes it: a local directory gets its trailing `/`
/// (DataFusion lists a URL ending in `/` as a directory), and a relative path that exists is
/// taken as a path even when it holds a `:` (`run:2024-01-01/a.npy`, which DataFusion's
/// parser takes for a URL of scheme `run`; a glob's directory before its first wildcard must
/// exist): it is made absolute.
///
/// # Errors
/// DataFusion's, for a location that is no URL or path.
pub fn location_url(location: &str) -> Result<ListingTableUrl> {
    let mut loc = location.to_owned();
    if !loc.contains("://") {
        let path = Path::new(location);
        // What must exist: the path, or a glob's directory before its first wildcard.
        let existing = match location.find(['*', '?', '[']) {
            Some(i) => location[..i].rfind('/').map(|j| &location[..=j]),
            None => Some(location),
        };
        let exists = existing.is_some_and(|e| Path::new(e).exists());
        if path.is_relative() && location.contains(':') && exists {
            if let Some(absolute) = std::path::absolute(path)
                .ok()
                .and_then(|a| a.to_str().map(str::to_owned))
            {
                loc = absolute;
            }
        }
        if Path::new(&loc).is_dir() && !loc.ends_with('/') {
            loc.push('/');
        }
    }
    ListingTableUrl::parse(&loc)
}

/// `ctx` with quoted paths in FROM taken as tables, as `SessionContext::enable_url_table`
/// does, with [`NpyUrlTableFactory`] in place of DataFusion's factory:
///
/// - `'ARCHIVE.npz:KEY'` (the rule of [`npz_member`]; ARCHIVE a file, a directory of
///   archives, a glob) is member KEY of each archive, as `NpyOptions::member`; a plain
///   array's column is named KEY.
/// - A path ending in `.npy` (a file, a glob), or a directory holding `.npy` files at its top
///   level (whatever else it holds, in whatever order the file system lists it: DataFusion's
///   factory takes the format of the first file listed), is an [`NpyTable`]: a location
///   without `.npy` files, or a 0-byte `.npy`, is an error naming it, where DataFusion's own
///   factory answers "table not found" or leaves the file out. A directory of Hive-style
///   partitions (`year=2024/…`) is left to DataFusion (partition columns), without the 0-byte
///   check.
/// - `'ARCHIVE.npz'` without `:KEY` is refused, naming the form (and the keys of a local
///   archive): a table is one member.
/// - A local FIFO, socket or device is refused before anything opens it (opening a FIFO
///   waits for a writer); a URL whose store the session lacks is refused naming it (DataFusion
///   calls that an internal error).
/// - Anything else goes to DataFusion's own factory (`DynamicListTableFactory`); a local file
///   or directory it makes no table of is an error saying so, not "table not found".
///
/// Call [`crate::register`] too, so that DataFusion reads `.npy` files by their extension.
pub fn enable_url_table(ctx: SessionContext) -> SessionContext {
    let current = Arc::clone(ctx.state_ref().read().catalog_list());
    let factory = Arc::new(NpyUrlTableFactory {
        default: DynamicListTableFactory::default(),
    });
    let catalogs = Arc::new(DynamicFileCatalog::new(
        current,
        Arc::clone(&factory) as Arc<dyn UrlTableFactory>,
    ));
    let session_id = ctx.session_id();
    let ctx: SessionContext = ctx
        .into_state_builder()
        .with_session_id(session_id)
        .with_catalog_list(catalogs)
        .build()
        .into();
    factory
        .default
        .session_store()
        .with_state(ctx.state_weak_ref());
    ctx
}

/// DataFusion's `UrlTableFactory` for `.npy` tables and `.npz` members (see
/// [`enable_url_table`], which installs it), handing every other location to DataFusion's
/// own factory.
#[derive(Debug)]
pub struct NpyUrlTableFactory {
    /// DataFusion's factory; its session store holds the session's state.
    default: DynamicListTableFactory,
}

impl NpyUrlTableFactory {
    /// The session's state, as DataFusion's factory gets it.
    fn state(&self) -> Result<SessionState> {
        self.default
            .session_store()
            .get_session()
            .upgrade()
            .and_then(|s| s.read().as_any().downcast_ref::<SessionState>().cloned())
            .ok_or_else(|| {
                DataFusionError::Plan("npy: the session of the URL tables is gone".to_owned())
            })
    }

    /// DataFusion's factory's table for `location`; where it has none ("table not found")
    /// but `location` is a local file or directory, the error says what it holds instead.
    async fn delegate(&self, location: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        let table = self.default.try_new(location).await?;
        if table.is_some() || location.contains("://") || std::fs::metadata(location).is_err() {
            return Ok(table);
        }
        Err(crate::Error::Unsupported {
            path: location.to_owned(),
            what: "no table here: no .npy file (at its top level, for a directory), and no \
                   file of a format this session reads by its extension"
                .to_owned(),
        }
        .into())
    }

    /// `true` when `url` (the location `location`) is an `.npy` table: its path ends in
    /// `.npy`, or it is a directory holding `.npy` files (at its top level, in any order, with
    /// other files beside them or not) and no partitions.
    async fn is_npy(state: &SessionState, location: &str, url: &ListingTableUrl) -> Result<bool> {
        let dotted = format!(".{NPY_EXTENSION}");
        let tail = location.get(location.len().saturating_sub(dotted.len())..);
        if tail.is_some_and(|t| t.eq_ignore_ascii_case(&dotted)) {
            return Ok(true);
        }
        if !url.is_collection() || url.get_glob().is_some() {
            return Ok(false);
        }
        let Ok(store) = state.runtime_env().object_store(url) else {
            return Ok(false);
        };
        // DataFusion's factory takes a directory's format from the first file its listing
        // returns, which is the file system's order: a README or a CSV listed first made a
        // directory of shards "not found" or a CSV table. Here a directory holding an `.npy`
        // is an `.npy` table whatever the order. A location DataFusion cannot list is its
        // factory's to answer.
        let Ok(mut files) = url.list_all_files(state, store.as_ref(), "").await else {
            return Ok(false);
        };
        let mut npy = false;
        while let Some(Ok(meta)) = files.next().await {
            if Path::new(meta.location.as_ref())
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case(NPY_EXTENSION))
            {
                npy = true;
                break;
            }
        }
        drop(files);
        if !npy {
            return Ok(false);
        }
        let listing =
            datafusion::datasource::listing::ListingOptions::new(Arc::new(crate::NpyFormat::new()))
                .with_file_extension(dotted);
        Ok(listing.infer_partitions(state, url).await?.is_empty())
    }
}

#[async_trait]
impl UrlTableFactory for NpyUrlTableFactory {
    async fn try_new(&self, location: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        if let Some(refused) = not_a_location(location) {
            return Err(refused);
        }
        let (path, options) = match npz_member(location) {
            Some((archive, key)) => (
                archive,
                NpyOptions {
                    column_name: Some(key.to_owned()),
                    member: Some(key.to_owned()),
                },
            ),
            None if location.to_ascii_lowercase().ends_with(".npz") => {
                return Err(whole_archive(location));
            }
            None => (location, NpyOptions::default()),
        };
        let Ok(url) = location_url(path) else {
            return self.delegate(location).await;
        };
        let state = self.state()?;
        if state.runtime_env().object_store(&url).is_err() {
            // DataFusion's factory calls this an internal error ("a bug in DataFusion").
            return Err(crate::Error::Unsupported {
                path: location.to_owned(),
                what: format!(
                    "no object store is registered for {} (a program registers one on the \
                     session's RuntimeEnv; npy sql does for a --table NAME=URL)",
                    url.object_store().as_str()
                ),
            }
            .into());
        }
        if options.member.is_none() && !Self::is_npy(&state, path, &url).await? {
            return self.delegate(location).await;
        }
        let table = NpyTable::try_new_named(&state, vec![(url, path.to_owned())], options).await?;
        Ok(Some(Arc::new(table)))
    }
}

/// The refusal of a quoted `'ARCHIVE.npz'` without `:KEY` (DataFusion's factory answered
/// "table not found"): a table is one member, named with its key; the keys of a local
/// archive are listed.
fn whole_archive(location: &str) -> DataFusionError {
    let keys = npy_npz::NpzArchive::open(location)
        .map(|a| {
            let keys: Vec<String> = a.keys().map(|k| format!("{k:?}")).collect();
            format!(" (its keys: {})", keys.join(", "))
        })
        .unwrap_or_default();
    crate::Error::Unsupported {
        path: location.to_owned(),
        what: format!("an .npz archive is read through one member: FROM '{location}:KEY'{keys}"),
    }
    .into()
}

/// The refusal of a local `location` that is a FIFO, socket or device
/// ([`crate::location::special_file`]; for `ARCHIVE:KEY`, the archive), before DataFusion's
/// factory lists it.
fn not_a_location(location: &str) -> Option<DataFusionError> {
    let path = npz_member(location).map_or(location, |(archive, _)| archive);
    if path.contains("://") || path.contains(['*', '?', '[']) {
        return None;
    }
    crate::location::special_file(Path::new(path), path).map(DataFusionError::from)
}
