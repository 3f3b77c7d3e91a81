//! What the viewer's tests share: a `quadpath view` process on an ephemeral loopback port,
//! and a minimal HTTP/1.1 client (one request per connection), so that the tests speak to
//! the server exactly as a browser would, over real sockets.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A shipped map.
pub fn map(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../maps")
        .join(name)
}

/// A running `quadpath view`, killed when dropped.
pub struct Viewer {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    /// The URL it printed.
    pub url: String,
}

impl Viewer {
    /// Starts `quadpath view MAP --port 0 ARGS...` and reads the URL it prints.
    pub fn start(map_name: &str, args: &[&str]) -> Viewer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_quadpath"))
            .arg("view")
            .arg(map(map_name))
            .args(["--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the quadpath binary starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped"))
            .read_line(&mut line)
            .expect("the viewer prints its URL");
        let url = line
            .trim()
            .strip_prefix("quadpath view: ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_string();
        let host = url
            .strip_prefix("http://")
            .and_then(|r| r.split('/').next())
            .expect("an http URL");
        let addr: SocketAddr = host.parse().expect("an IP address and port");
        assert!(
            addr.ip().is_loopback(),
            "the viewer listens on {addr}, not loopback"
        );
        Viewer { child, addr, url }
    }

    /// Sends one request; returns the status and the body.
    pub fn request(&self, method: &str, path: &str, body: &[u8]) -> (u16, Vec<u8>) {
        let mut s = TcpStream::connect(self.addr).expect("connect to the viewer");
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
            self.addr,
            body.len()
        );
        s.write_all(head.as_bytes()).unwrap();
        s.write_all(body).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).expect("read the response");
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a header block");
        let head = String::from_utf8_lossy(&raw[..split]).to_string();
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .expect("a status code");
        let mut body = raw[split + 4..].to_vec();
        if head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
        {
            body = dechunk(&body);
        }
        (status, body)
    }

    /// `GET path`, which must answer 200 with JSON.
    pub fn get_json(&self, path: &str) -> serde_json::Value {
        let (status, body) = self.request("GET", path, b"");
        assert_eq!(
            status,
            200,
            "GET {path}: {}",
            String::from_utf8_lossy(&body)
        );
        serde_json::from_slice(&body).expect("JSON")
    }

    /// `GET path`, which must answer 200; the raw body.
    pub fn get_bytes(&self, path: &str) -> Vec<u8> {
        let (status, body) = self.request("GET", path, b"");
        assert_eq!(
            status,
            200,
            "GET {path}: {}",
            String::from_utf8_lossy(&body)
        );
        body
    }

    /// `POST path` with a JSON body, which must answer 200 with JSON.
    pub fn post_json(&self, path: &str, body: &str) -> serde_json::Value {
        let (status, got) = self.request("POST", path, body.as_bytes());
        assert_eq!(
            status,
            200,
            "POST {path} {body}: {}",
            String::from_utf8_lossy(&got)
        );
        serde_json::from_slice(&got).expect("JSON")
    }
}

impl Drop for Viewer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(eol) = b.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&b[..eol]).trim(), 16).unwrap_or(0);
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + size]);
        b = &b[eol + 2 + size + 2..];
    }
}
