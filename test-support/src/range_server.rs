//! A small HTTP/1.1 server on 127.0.0.1 that serves byte ranges of objects held in memory, with
//! switches for the faults a remote reader must survive: a server that ignores `Range`, bodies
//! cut short, a wrong `Content-Range`, an object that changes (new ETag and `Last-Modified`,
//! `If-Match` and `If-Unmodified-Since` answered 412, or preconditions ignored), no ETag, an
//! object longer than its bytes (zeros after them, as a lying `Content-Range` total claims),
//! forced statuses (403, 404, 500), stalls and bodies that drip. Threads only (std), one per
//! connection; it stops when dropped.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// How many requests [`RangeServer::take_log`] keeps (the latest).
pub const LOG_REQUESTS: usize = 4096;

/// The fault switches, read at every request.
#[derive(Debug, Default)]
pub struct Faults {
    /// Answer ranged GETs with `200` and the whole object.
    pub ignore_range: AtomicBool,
    /// Cut this many next bodies in half (the full `Content-Length` is announced, then the
    /// connection closes): a reset mid-stream.
    pub truncate_next: AtomicU32,
    /// Announce a `Content-Range` one byte later than the bytes asked for.
    pub wrong_content_range: AtomicBool,
    /// Announce this total in `Content-Range` (`bytes a-b/TOTAL`) instead of the object's
    /// length (0: its length), the bytes sent unchanged: r14's `cr_total_small`.
    pub content_range_total: AtomicU64,
    /// Give every object a new ETag at every request (an object rewritten between requests);
    /// `If-Match` with an old one is answered 412.
    pub change_etag: AtomicBool,
    /// Answer every request with this status and no body (0: serve normally).
    pub status: AtomicU16,
    /// Wait this many milliseconds before answering: a stall, or a fixed per-request latency
    /// (requests on different connections wait side by side, each on its own thread).
    pub stall_ms: AtomicU64,
    /// Send no `ETag` (`Last-Modified` only, which changes with the object).
    pub no_etag: AtomicBool,
    /// Ignore `If-Match` and `If-Unmodified-Since` (serve whatever the object is now).
    pub ignore_conditions: AtomicBool,
    /// Every object claims at least this many bytes (0: its own length): bytes past its own
    /// are zeros, streamed, never held.
    pub claim_len: AtomicU64,
    /// Send bodies at this many bytes per second, a tenth of it (at least a byte) at a time
    /// (0: at once).
    pub drip_bytes_per_sec: AtomicU64,
}

#[derive(Debug, Default)]
struct State {
    objects: Mutex<HashMap<String, Vec<u8>>>,
    faults: Faults,
    requests: AtomicU64,
    log: Mutex<Vec<String>>,
    bytes: AtomicU64,
    generation: AtomicU64,
    stop: AtomicBool,
}

/// The running server; see the module docs.
#[derive(Debug)]
pub struct RangeServer {
    addr: std::net::SocketAddr,
    state: Arc<State>,
    thread: Option<JoinHandle<()>>,
}

impl RangeServer {
    /// Starts the server on a free port of 127.0.0.1.
    ///
    /// # Panics
    /// When no port can be bound.
    pub fn start() -> RangeServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let addr = listener.local_addr().expect("local address");
        let state = Arc::new(State::default());
        let s = Arc::clone(&state);
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if s.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let s = Arc::clone(&s);
                std::thread::spawn(move || serve(&s, conn));
            }
        });
        RangeServer {
            addr,
            state,
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The URL of object `name`.
    pub fn url(&self, name: &str) -> String {
        format!("{}/{name}", self.base())
    }

    /// Stores `bytes` as object `name`.
    ///
    /// # Panics
    /// When a serving thread panicked holding the objects.
    pub fn put(&self, name: &str, bytes: Vec<u8>) {
        self.state
            .objects
            .lock()
            .expect("objects")
            .insert(name.to_owned(), bytes);
        // A new ETag, as a store gives a rewritten object.
        self.state.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// The fault switches.
    pub fn faults(&self) -> &Faults {
        &self.state.faults
    }

    /// Body bytes sent so far, set back to zero.
    pub fn take_bytes(&self) -> u64 {
        self.state.bytes.swap(0, Ordering::SeqCst)
    }

    /// Requests answered so far (every status), set back to zero.
    pub fn take_requests(&self) -> u64 {
        self.state.requests.swap(0, Ordering::SeqCst)
    }

    /// The last requests (at most [`LOG_REQUESTS`]), each as `METHOD /name` and its `Range`
    /// header if any, oldest first; the log is emptied. For assertion messages.
    ///
    /// # Panics
    /// When a serving thread panicked holding the log.
    pub fn take_log(&self) -> Vec<String> {
        std::mem::take(&mut *self.state.log.lock().expect("log"))
    }
}

impl Drop for RangeServer {
    fn drop(&mut self) {
        self.state.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// One connection: requests answered until the client closes it or a fault does.
fn serve(state: &State, conn: TcpStream) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(30)));
    // The head and the body are separate writes: without this, Nagle's algorithm holds the
    // body until the client's delayed ACK (40 ms a request on Linux), which would dwarf any
    // latency a test sets.
    let _ = conn.set_nodelay(true);
    let Ok(write_half) = conn.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(conn);
    let mut out = write_half;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || state.stop.load(Ordering::SeqCst) {
            return;
        }
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or("").to_owned();
        let target = parts.next().unwrap_or("/").to_owned();
        let mut headers = HashMap::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
            }
        }
        state.requests.fetch_add(1, Ordering::SeqCst);
        if let Ok(mut log) = state.log.lock() {
            if log.len() == LOG_REQUESTS {
                log.remove(0);
            }
            let range = headers.get("range").map_or("", String::as_str);
            log.push(format!("{method} {target} {range}").trim_end().to_owned());
        }
        if !answer(state, &method, &target, &headers, &mut out) {
            return;
        }
    }
}

/// Writes the response; `false` when the connection must close.
fn answer(
    state: &State,
    method: &str,
    target: &str,
    headers: &HashMap<String, String>,
    out: &mut TcpStream,
) -> bool {
    let f = &state.faults;
    let stall = f.stall_ms.load(Ordering::SeqCst);
    if stall > 0 {
        std::thread::sleep(Duration::from_millis(stall));
    }
    let status = f.status.load(Ordering::SeqCst);
    if status != 0 {
        return empty(out, status, "forced", "");
    }
    let name = target.trim_start_matches('/');
    let Some(body) = state.objects.lock().ok().and_then(|o| o.get(name).cloned()) else {
        return empty(out, 404, "Not Found", "");
    };
    if f.change_etag.load(Ordering::SeqCst) {
        state.generation.fetch_add(1, Ordering::SeqCst);
    }
    let generation = state.generation.load(Ordering::SeqCst);
    let etag = format!("\"{}-{generation}\"", body.len());
    // One second later per generation: a rewritten object's date.
    let modified = format!(
        "Tue, 01 Dec 2026 12:{:02}:{:02} GMT",
        generation / 60 % 60,
        generation % 60
    );
    if !f.ignore_conditions.load(Ordering::SeqCst) {
        if let Some(want) = headers.get("if-match") {
            if *want != etag && want != "*" {
                return empty(out, 412, "Precondition Failed", "");
            }
        }
        if let Some(since) = headers.get("if-unmodified-since") {
            if time_of_day(since) != time_of_day(&modified) {
                return empty(out, 412, "Precondition Failed", "");
            }
        }
    }
    let len = (body.len() as u64).max(f.claim_len.load(Ordering::SeqCst));
    let range = headers
        .get("range")
        .filter(|_| !f.ignore_range.load(Ordering::SeqCst))
        .map(|r| parse_range(r, len));
    let etag = if f.no_etag.load(Ordering::SeqCst) {
        String::new()
    } else {
        format!("ETag: {etag}\r\n")
    };
    let common = format!("{etag}Last-Modified: {modified}\r\nAccept-Ranges: bytes\r\n");
    let (status, reason, (a, b), extra) = match range {
        None => (200, "OK", (0, len), String::new()),
        Some(None) => {
            return empty(
                out,
                416,
                "Range Not Satisfiable",
                &format!("Content-Range: bytes */{len}\r\n"),
            )
        }
        Some(Some((a, b))) => {
            let shift = u64::from(f.wrong_content_range.load(Ordering::SeqCst));
            let total = match f.content_range_total.load(Ordering::SeqCst) {
                0 => len,
                t => t,
            };
            (
                206,
                "Partial Content",
                (a, b + 1),
                format!(
                    "Content-Range: bytes {}-{}/{total}\r\n",
                    a + shift,
                    b + shift
                ),
            )
        }
    };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\n{common}{extra}Content-Length: {}\r\n\r\n",
        b - a
    );
    if out.write_all(head.as_bytes()).is_err() {
        return false;
    }
    if method == "HEAD" {
        return true;
    }
    let cut = f
        .truncate_next
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok();
    if cut {
        let half = a + (b - a) / 2;
        let _ = send(state, &body, a..half, out);
        let _ = out.flush();
        let _ = out.shutdown(std::net::Shutdown::Both);
        return false;
    }
    send(state, &body, a..b, out) && out.flush().is_ok()
}

/// Writes bytes `range` of the object whose own bytes are `body` (zeros after them), at the
/// drip rate if one is set, counting what was sent; `false` when the client went away.
fn send(state: &State, body: &[u8], range: std::ops::Range<u64>, out: &mut TcpStream) -> bool {
    let rate = state.faults.drip_bytes_per_sec.load(Ordering::SeqCst);
    let step = if rate == 0 {
        1 << 20
    } else {
        (rate / 10).max(1)
    };
    let zeros = vec![0u8; usize::try_from(step.min(1 << 20)).unwrap_or(1 << 20)];
    let mut at = range.start;
    while at < range.end {
        let end = range.end.min(at + zeros.len() as u64);
        let own = usize::try_from(at.min(body.len() as u64)).unwrap_or(usize::MAX)
            ..usize::try_from(end.min(body.len() as u64)).unwrap_or(usize::MAX);
        let piece = if own.is_empty() {
            &zeros[..usize::try_from(end - at).unwrap_or(0)]
        } else {
            &body[own]
        };
        if out.write_all(piece).is_err() || state.stop.load(Ordering::SeqCst) {
            return false;
        }
        state.bytes.fetch_add(piece.len() as u64, Ordering::SeqCst);
        at += piece.len() as u64;
        if let Some(ms) = (piece.len() as u64 * 1000).checked_div(rate) {
            let _ = out.flush();
            std::thread::sleep(Duration::from_millis(ms));
        }
    }
    true
}

/// The `HH:MM:SS` of an HTTP date, the part this server's dates differ in.
fn time_of_day(date: &str) -> Option<&str> {
    date.split_whitespace()
        .find(|w| w.len() == 8 && w.as_bytes()[2] == b':')
}

fn empty(out: &mut TcpStream, status: u16, reason: &str, extra: &str) -> bool {
    let head = format!("HTTP/1.1 {status} {reason}\r\n{extra}Content-Length: 0\r\n\r\n");
    out.write_all(head.as_bytes()).is_ok() && out.flush().is_ok()
}

/// `bytes=a-b`, `bytes=a-`, `bytes=-n` as inclusive offsets within `len`; `None` when not
/// satisfiable.
fn parse_range(value: &str, len: u64) -> Option<(u64, u64)> {
    let spec = value.strip_prefix("bytes=")?;
    let (a, b) = spec.split_once('-')?;
    let (start, end) = match (a.trim(), b.trim()) {
        ("", n) => {
            let n: u64 = n.parse().ok()?;
            (len.saturating_sub(n), len.checked_sub(1)?)
        }
        (a, "") => (a.parse().ok()?, len.checked_sub(1)?),
        (a, b) => (
            a.parse().ok()?,
            b.parse::<u64>().ok()?.min(len.checked_sub(1)?),
        ),
    };
    (start <= end && start < len).then_some((start, end))
}
