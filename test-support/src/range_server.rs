//! A small HTTP/1.1 server on 127.0.0.1 that serves byte ranges of objects held in memory, with
//! switches for the faults a remote reader must survive: a server that ignores `Range`, bodies
//! cut short, a wrong `Content-Range`, an object that changes (new ETag, `If-Match` answered
//! 412), forced statuses (403, 404, 500) and stalls. Threads only (std), one per connection;
//! it stops when dropped.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

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
    /// Give every object a new ETag at every request (an object rewritten between requests);
    /// `If-Match` with an old one is answered 412.
    pub change_etag: AtomicBool,
    /// Answer every request with this status and no body (0: serve normally).
    pub status: AtomicU16,
    /// Wait this many milliseconds before answering.
    pub stall_ms: AtomicU64,
}

#[derive(Debug, Default)]
struct State {
    objects: Mutex<HashMap<String, Vec<u8>>>,
    faults: Faults,
    requests: AtomicU64,
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
    let etag = format!(
        "\"{}-{}\"",
        body.len(),
        state.generation.load(Ordering::SeqCst)
    );
    if let Some(want) = headers.get("if-match") {
        if *want != etag && want != "*" {
            return empty(out, 412, "Precondition Failed", "");
        }
    }
    let len = body.len() as u64;
    let range = headers
        .get("range")
        .filter(|_| !f.ignore_range.load(Ordering::SeqCst))
        .map(|r| parse_range(r, len));
    let common = format!(
        "ETag: {etag}\r\nLast-Modified: Tue, 01 Dec 2026 12:00:00 GMT\r\nAccept-Ranges: bytes\r\n"
    );
    let (status, reason, bytes, extra) = match range {
        None => (200, "OK", &body[..], String::new()),
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
            (
                206,
                "Partial Content",
                &body[a as usize..=b as usize],
                format!("Content-Range: bytes {}-{}/{len}\r\n", a + shift, b + shift),
            )
        }
    };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\n{common}{extra}Content-Length: {}\r\n\r\n",
        bytes.len()
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
        let half = &bytes[..bytes.len() / 2];
        state.bytes.fetch_add(half.len() as u64, Ordering::SeqCst);
        let _ = out.write_all(half);
        let _ = out.flush();
        let _ = out.shutdown(std::net::Shutdown::Both);
        return false;
    }
    state.bytes.fetch_add(bytes.len() as u64, Ordering::SeqCst);
    out.write_all(bytes).is_ok() && out.flush().is_ok()
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
