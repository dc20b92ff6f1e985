//! [`RemoteError`]: every fault of a remote read, typed, naming the object's URL.

use std::ops::Range;

/// What went wrong in a remote read ([`RemoteError::kind`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RemoteErrorKind {
    /// The object does not exist (HTTP 404).
    #[error("not found")]
    NotFound,
    /// The store refused the request (HTTP 401 or 403: credentials missing or not allowed).
    #[error("access denied: {0}")]
    Denied(String),
    /// The server answered a ranged request with the whole object (HTTP 200, not 206): it
    /// ignores `Range`. Refused before the body is read, so nothing of the object is buffered.
    #[error(
        "the server ignores Range requests (it answered 200 with the whole object, which is not \
         read): serve the file with a server that answers Range (most object stores and web \
         servers do; Python's http.server does not), or download it first"
    )]
    RangeIgnored,
    /// The server sent a range other than the one asked for (`Content-Range`).
    #[error("asked for bytes {expected:?}, the server sent {actual}")]
    RangeMismatch {
        /// The bytes asked for.
        expected: Range<u64>,
        /// What the server said it sent.
        actual: String,
    },
    /// The body ended before the bytes asked for (a truncated or short response).
    #[error("the response for bytes {range:?} ended after {got} bytes")]
    Truncated {
        /// The bytes asked for.
        range: Range<u64>,
        /// The bytes that arrived.
        got: u64,
    },
    /// The body held more bytes than asked for; reading stopped there.
    #[error("the response for bytes {range:?} holds more than its {} bytes", range.end - range.start)]
    TooLong {
        /// The bytes asked for.
        range: Range<u64>,
    },
    /// The object changed between requests (another ETag or size than when it was opened, or
    /// an `If-Match` precondition failed).
    #[error("the object changed while being read ({0})")]
    Changed(String),
    /// No connection to the server (refused, no route, DNS failure), after the store's
    /// retries.
    #[error(
        "cannot connect to the server ({0}): check that it is running and that the URL's host \
         and port are right (for an S3 API, the endpoint AWS_ENDPOINT_URL names)"
    )]
    Unreachable(String),
    /// The store found no credentials: none in the environment, and the cloud's metadata
    /// service (AWS's IMDS at 169.254.169.254, for S3) did not answer, as off the cloud.
    #[error(
        "no credentials ({0}): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE), \
         or AWS_SKIP_SIGNATURE=true for a public bucket"
    )]
    NoCredentials(String),
    /// A request timed out (after the store's and this crate's retries).
    #[error("timed out: {0}")]
    Timeout(String),
    /// One read took longer than its time budget
    /// ([`RemoteOptions::request_timeout`](crate::RemoteOptions::request_timeout)), the
    /// store's and this crate's retries included: a server too slow to use (or one that sends
    /// a byte now and then). Not retried.
    #[error(
        "no complete answer within the time budget of {} s for one read \
         (RemoteOptions::request_timeout)",
        .0.as_secs_f64()
    )]
    TimeBudget(std::time::Duration),
    /// The `.npy` data itself: header errors, type mismatches, truncation.
    #[error(transparent)]
    Npy(npy_core::Error),
    /// Converting rows to Arrow (feature `arrow`): a dtype Arrow cannot hold (object arrays
    /// among them), a value out of an Arrow type's range.
    #[cfg(feature = "arrow")]
    #[error(transparent)]
    Arrow(npy_arrow::Error),
    /// A URL this crate cannot open (unknown scheme, backend feature not built).
    #[error("{0}")]
    Url(String),
    /// Any other error of the store (connection refused, reset, a server error).
    #[error(transparent)]
    Store(object_store::Error),
}

/// A remote read's error: its [`RemoteErrorKind`] and the URL of the object.
///
/// # Examples
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// use std::sync::Arc;
/// use npy_object_store::{RemoteErrorKind, RemoteNpy};
/// let store = Arc::new(object_store::memory::InMemory::new());
/// let err = RemoteNpy::open(store, "missing.npy".into(), "memory:///missing.npy")
///     .await
///     .unwrap_err();
/// assert!(matches!(err.kind(), RemoteErrorKind::NotFound));
/// assert_eq!(err.to_string(), "memory:///missing.npy: not found");
/// # }
/// ```
#[derive(thiserror::Error)]
#[error("{url}: {kind}")]
pub struct RemoteError {
    url: String,
    #[source]
    kind: RemoteErrorKind,
}

/// `{:?}` is the message `Display` writes, so that `fn main() -> Result<(), Error>` and
/// `unwrap` print it as anyhow's and std's errors do; `{:#?}` is the structure (URL, kind).
impl std::fmt::Debug for RemoteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !f.alternate() {
            return std::fmt::Display::fmt(self, f);
        }
        f.debug_struct("RemoteError")
            .field("url", &self.url)
            .field("kind", &self.kind)
            .finish()
    }
}

impl RemoteError {
    /// An error of `kind` reading `url`.
    pub fn new(url: impl Into<String>, kind: RemoteErrorKind) -> Self {
        RemoteError {
            url: url.into(),
            kind,
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> &RemoteErrorKind {
        &self.kind
    }

    /// The object's URL.
    ///
    /// It stands for the `path()` of the workspace's other errors: a remote object has no
    /// local path (a `file://` URL names one, and stays a URL here, as given). There is no
    /// `member()`: this crate reads `.npy` objects, never inside an `.npz`; an archive read
    /// over a [`BlockingObject`](crate::BlockingObject) with npy-npz reports through
    /// npy-npz's error, which names the member.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// What kind of problem this is, as every error of the workspace sorts it (npy-core's
    /// [`Category`](npy_core::error::Category)). What the network, the server or the store
    /// did (missing objects, refusals, short bodies, timeouts, objects changed between
    /// requests) is `Io`, as it is for a local file; a server that ignores ranges
    /// `Unsupported`; an object longer than a budget and the time budget `Limit`; a bad URL
    /// or missing credentials `Usage`; npy-core's and npy-arrow's errors keep theirs.
    /// [`is_transient`](Self::is_transient) says which `Io` errors a retry may cure.
    pub fn classify(&self) -> npy_core::error::Category {
        use npy_core::error::Category;
        use RemoteErrorKind::*;
        match &self.kind {
            NotFound
            | Denied(_)
            | RangeMismatch { .. }
            | Truncated { .. }
            | Changed(_)
            | Unreachable(_)
            | Timeout(_)
            | Store(_) => Category::Io,
            RangeIgnored => Category::Unsupported,
            TooLong { .. } | TimeBudget(_) => Category::Limit,
            NoCredentials(_) | Url(_) => Category::Usage,
            Npy(e) => e.classify(),
            #[cfg(feature = "arrow")]
            Arrow(e) => e.classify(),
        }
    }

    /// Whether trying the same request again may succeed (a short body, a reset or a timeout),
    /// what this crate's retries ([`RemoteOptions::retries`](crate::RemoteOptions)) retry.
    pub fn is_transient(&self) -> bool {
        match &self.kind {
            RemoteErrorKind::Truncated { .. } | RemoteErrorKind::Timeout(_) => true,
            RemoteErrorKind::Store(e) => !matches!(
                e,
                object_store::Error::NotFound { .. }
                    | object_store::Error::Precondition { .. }
                    | object_store::Error::PermissionDenied { .. }
                    | object_store::Error::Unauthenticated { .. }
                    | object_store::Error::NotSupported { .. }
                    | object_store::Error::InvalidPath { .. }
            ),
            _ => false,
        }
    }

    /// The error as an I/O error (what [`npy_core::ReadAt`] returns), kept inside it: a
    /// `npy_core::Error` made from it still names the URL and its kind.
    pub fn into_io(self) -> std::io::Error {
        let kind = match &self.kind {
            RemoteErrorKind::NotFound => std::io::ErrorKind::NotFound,
            RemoteErrorKind::Denied(_) | RemoteErrorKind::NoCredentials(_) => {
                std::io::ErrorKind::PermissionDenied
            }
            RemoteErrorKind::Unreachable(_) => std::io::ErrorKind::ConnectionRefused,
            RemoteErrorKind::Timeout(_) | RemoteErrorKind::TimeBudget(_) => {
                std::io::ErrorKind::TimedOut
            }
            RemoteErrorKind::Truncated { .. } => std::io::ErrorKind::UnexpectedEof,
            _ => std::io::ErrorKind::Other,
        };
        std::io::Error::new(kind, self)
    }
}

/// The typed kind of a store error: the HTTP client's refusals of a bad range are generic
/// errors of object_store, told apart by their text.
pub(crate) fn classify(e: object_store::Error, expected: Option<&Range<u64>>) -> RemoteErrorKind {
    match e {
        object_store::Error::NotFound { .. } => RemoteErrorKind::NotFound,
        object_store::Error::PermissionDenied { source, .. }
        | object_store::Error::Unauthenticated { source, .. } => {
            RemoteErrorKind::Denied(source.to_string())
        }
        object_store::Error::Precondition { source, .. } => {
            RemoteErrorKind::Changed(format!("If-Match failed: {source}"))
        }
        e => {
            let chain = chain_text(&e);
            // The generic client's check, and the HTTP store's own (a 200 to a ranged GET).
            if chain.contains("Received non-partial response when range requested")
                || chain.contains("Range request not supported")
            {
                return RemoteErrorKind::RangeIgnored;
            }
            if let (Some(at), Some(expected)) = (chain.find("Requested "), expected) {
                if let Some((asked, rest)) = chain[at + "Requested ".len()..].split_once(", got ") {
                    return RemoteErrorKind::RangeMismatch {
                        expected: expected.clone(),
                        actual: range_sent(expected, asked, rest),
                    };
                }
            }
            // AWS's instance metadata service, asked for credentials when the environment
            // has none (object_store's `instance_creds`): its failure means no credentials,
            // whatever the transport said.
            if chain.contains("/latest/api/token") || chain.contains("/latest/meta-data/iam") {
                return RemoteErrorKind::NoCredentials(format!(
                    "the instance metadata service did not answer: {}",
                    innermost(&e)
                ));
            }
            if connect_failed(&e) {
                return RemoteErrorKind::Unreachable(innermost(&e));
            }
            if timed_out(&e) {
                return RemoteErrorKind::Timeout(chain);
            }
            RemoteErrorKind::Store(e)
        }
    }
}

/// Every message of the error's source chain, joined.
/// What the server sent, from object_store's `Requested A, got B` (`rest` is `B` and the error
/// chain after it, cut at the first `:`). object_store clips the range it checks to the
/// `Content-Range` total, so an `A` that ends before the range asked for means the server
/// stated a total smaller than the bytes it sent (r14: "0..208: Requested 0..16" before).
fn range_sent(expected: &Range<u64>, asked: &str, rest: &str) -> String {
    let sent = rest.split(':').next().unwrap_or(rest).trim();
    match asked
        .split_once("..")
        .map(|(_, end)| end.trim().parse::<u64>())
    {
        Some(Ok(total)) if total < expected.end => {
            format!("{sent}, and its Content-Range says the object holds {total} bytes")
        }
        _ => sent.to_owned(),
    }
}

fn chain_text(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut cur = e.source();
    while let Some(s) = cur {
        out.push_str(": ");
        out.push_str(&s.to_string());
        cur = s.source();
    }
    out
}

/// The message of the error's last source (the cause itself: "tcp connect error: Connection
/// refused (os error 111)"), without the retry layers above it.
fn innermost(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur = e;
    while let Some(s) = cur.source() {
        cur = s;
    }
    cur.to_string()
}

/// Whether the error (or one of its sources) is a failure to connect.
fn connect_failed(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur = Some(e);
    while let Some(s) = cur {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            if matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionRefused
                    | std::io::ErrorKind::HostUnreachable
                    | std::io::ErrorKind::NetworkUnreachable
            ) {
                return true;
            }
        }
        #[cfg(any(feature = "aws", feature = "gcp", feature = "azure", feature = "http"))]
        if let Some(h) = s.downcast_ref::<object_store::client::HttpError>() {
            if matches!(h.kind(), object_store::client::HttpErrorKind::Connect) {
                return true;
            }
        }
        cur = s.source();
    }
    false
}

/// Whether the error (or one of its sources) is a timeout.
fn timed_out(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur = Some(e);
    while let Some(s) = cur {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::TimedOut {
                return true;
            }
        }
        #[cfg(any(feature = "aws", feature = "gcp", feature = "azure", feature = "http"))]
        if let Some(h) = s.downcast_ref::<object_store::client::HttpError>() {
            if matches!(h.kind(), object_store::client::HttpErrorKind::Timeout) {
                return true;
            }
        }
        cur = s.source();
    }
    false
}
