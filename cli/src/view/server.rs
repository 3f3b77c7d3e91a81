//! The viewer's HTTP server: a blocking `tiny_http` server answered by a few worker threads,
//! each handing requests to [`super::api::handle`].

use super::api::{self, Response, MAX_BODY};
use super::state::State;
use std::io::Read;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::thread;

/// Worker threads: enough that a slow flow field does not hold up the page's small requests
/// for long, few enough for a laptop.
const WORKERS: usize = 4;

/// A bound server, not yet answering.
pub struct Server {
    http: Arc<tiny_http::Server>,
    addr: SocketAddr,
}

impl Server {
    /// Binds `addr` (port 0 picks a free one).
    ///
    /// # Errors
    /// The operating system's refusal as text (the port taken, an address not ours).
    pub fn bind(addr: SocketAddr) -> Result<Self, String> {
        let http = tiny_http::Server::http(addr).map_err(|e| e.to_string())?;
        let addr = http
            .server_addr()
            .to_ip()
            .ok_or_else(|| "the server is not listening on an IP address".to_string())?;
        Ok(Server {
            http: Arc::new(http),
            addr,
        })
    }

    /// The address actually bound.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Answers requests on `state` until the process ends.
    pub fn serve(self, state: State, name: String) {
        let state = Arc::new(Mutex::new(state));
        let name: Arc<str> = name.into();
        let workers: Vec<_> = (0..WORKERS)
            .map(|_| {
                let (http, state, name) = (self.http.clone(), state.clone(), name.clone());
                thread::spawn(move || {
                    while let Ok(request) = http.recv() {
                        answer(request, &state, &name);
                    }
                })
            })
            .collect();
        for w in workers {
            let _ = w.join();
        }
    }
}

/// Reads one request's body (refusing one over [`MAX_BODY`] bytes), answers it and sends the
/// answer. A client that hangs up early only loses its answer.
fn answer(mut request: tiny_http::Request, state: &Mutex<State>, name: &str) {
    let mut body = Vec::new();
    let too_long = request.body_length().is_some_and(|n| n > MAX_BODY)
        || request
            .as_reader()
            .take(MAX_BODY as u64 + 1)
            .read_to_end(&mut body)
            .is_err()
        || body.len() > MAX_BODY;
    let response = if too_long {
        Response::error(
            413,
            format!("request bodies are limited to {MAX_BODY} bytes"),
        )
    } else {
        let method = request.method().as_str().to_string();
        let url = request.url().to_string();
        let req = api::Request {
            method: &method,
            url: &url,
            body: &body,
        };
        api::handle(state, name, &req)
    };
    let header =
        tiny_http::Header::from_bytes(&b"Content-Type"[..], response.content_type.as_bytes())
            .expect("content types are ASCII");
    let reply = tiny_http::Response::from_data(response.body)
        .with_status_code(response.status)
        .with_header(header);
    let _ = request.respond(reply);
}
