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
/// (DataFusion lists a URL ending in `/` as a directory).
///
/// # Errors
/// DataFusion's, for a location that is no URL or path.
pub fn location_url(location: &str) -> Result<ListingTableUrl> {
    let mut loc = location.to_owned();
    if !loc.contains("://") && Path::new(&loc).is_dir() && !loc.ends_with('/') {
        loc.push('/');
    }
    ListingTableUrl::parse(&loc)
}

/// `ctx` with quoted paths in FROM taken as tables, as `SessionContext::enable_url_table`
/// does, with [`NpyUrlTableFactory`] in place of DataFusion's factory:
///
/// - `'ARCHIVE.npz:KEY'` (the rule of [`npz_member`]; ARCHIVE a file, a directory of
///   archives, a glob) is member KEY of each archive, as `NpyOptions::member`; a plain
///   array's column is named KEY.
/// - A path ending in `.npy` (a file, a glob), or a directory whose first file (in DataFusion's
///   listing order, as DataFusion chooses a directory's format) is an `.npy`, is an
///   [`NpyTable`]: a location without `.npy` files, or a 0-byte `.npy`, is an error naming it,
///   where DataFusion's own factory answers "table not found" or leaves the file out. A
///   directory of Hive-style partitions (`year=2024/…`) is left to DataFusion (partition
///   columns), without the 0-byte check.
/// - `'ARCHIVE.npz'` without `:KEY` is refused, naming the form (and the keys of a local
///   archive): a table is one member.
/// - Anything else goes to DataFusion's own factory (`DynamicListTableFactory`).
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

    /// `true` when `url` (the location `location`) is an `.npy` table: its path ends in
    /// `.npy`, or it is a directory whose first file is an `.npy` and holds no partitions.
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
        // DataFusion's choice of a directory's format: its first file's extension. The
        // listing is kept in the session's list-files cache, for the table's and the scan's.
        // A location DataFusion cannot list is its factory's to answer ("table not found").
        let Ok(mut files) = url.list_all_files(state, store.as_ref(), "").await else {
            return Ok(false);
        };
        let Some(Ok(first)) = files.next().await else {
            return Ok(false);
        };
        drop(files);
        let npy = Path::new(first.location.as_ref())
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case(NPY_EXTENSION));
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
            return self.default.try_new(location).await;
        };
        let state = self.state()?;
        if options.member.is_none() && !Self::is_npy(&state, path, &url).await? {
            return self.default.try_new(location).await;
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
