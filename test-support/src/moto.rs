//! moto's S3 API server (`moto_server`, from the project's venv: `moto[server]` in
//! xtask/requirements.txt) on a free port of 127.0.0.1, started by a test and stopped when
//! dropped.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::python::{python_for, REQUIRE_VAR};

/// A running moto server.
#[derive(Debug)]
pub struct Moto {
    child: Child,
    port: u16,
}

impl Moto {
    /// Starts moto on a free port and waits (at most 60 s) until it accepts connections, or
    /// `None` after saying on stderr that `what` did not run (no venv, or no moto in it).
    ///
    /// # Panics
    /// Under `NPY_REQUIRE_PYTHON=1` when moto cannot be started: CI must run the check.
    pub fn start(what: &str) -> Option<Moto> {
        let python = python_for(what)?;
        let required = std::env::var_os(REQUIRE_VAR).is_some_and(|v| v == "1");
        let skip = |why: String| {
            assert!(!required, "{what}: {why} ({REQUIRE_VAR}=1 is set)");
            let _ = writeln!(std::io::stderr(), "NOT CHECKED: {what}: {why}");
        };
        let has_moto = Command::new(&python)
            .args(["-c", "import moto.server"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !has_moto {
            skip(format!(
                "{} cannot import moto.server (run `cargo xtask venv`)",
                python.display()
            ));
            return None;
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port on 127.0.0.1");
        let child = Command::new(&python)
            .args([
                "-m",
                "moto.server",
                "-H",
                "127.0.0.1",
                "-p",
                &port.to_string(),
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let child = match child {
            Ok(c) => c,
            Err(e) => {
                skip(format!("cannot start moto.server: {e}"));
                return None;
            }
        };
        let mut moto = Moto { child, port };
        let deadline = Instant::now() + Duration::from_secs(60);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline || moto.child.try_wait().ok().flatten().is_some() {
                skip("moto.server did not start listening within 60 s".into());
                return None;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Some(moto)
    }

    /// Sends `method /path` with `body` to moto (unsigned: moto does not check signatures)
    /// and returns the status line.
    ///
    /// # Panics
    /// When moto cannot be reached or answers other than 200.
    pub fn send(&self, method: &str, path: &str, body: &[u8]) -> String {
        use std::io::Read;
        let mut c = TcpStream::connect(("127.0.0.1", self.port)).expect("connect to moto");
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n",
            self.port,
            body.len()
        );
        c.write_all(head.as_bytes()).expect("send to moto");
        c.write_all(body).expect("send to moto");
        let mut answer = Vec::new();
        c.read_to_end(&mut answer).expect("moto's answer");
        let answer = String::from_utf8_lossy(&answer);
        let status = answer.lines().next().unwrap_or("").to_owned();
        assert!(status.contains(" 200"), "{method} {path}: {answer}");
        status
    }

    /// Creates bucket `name`.
    pub fn create_bucket(&self, name: &str) {
        self.send("PUT", &format!("/{name}"), b"");
    }

    /// Stores `bytes` as `key` of `bucket`.
    pub fn put(&self, bucket: &str, key: &str, bytes: &[u8]) {
        self.send("PUT", &format!("/{bucket}/{key}"), bytes);
    }

    /// `http://127.0.0.1:PORT`, the endpoint to give the S3 client.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
