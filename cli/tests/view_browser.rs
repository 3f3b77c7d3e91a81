//! The viewer in a real browser: headless Chromium driven over the Chrome DevTools protocol
//! (a websocket, `tungstenite`). It loads a shipped map, clicks a start and a goal, checks
//! the length the page shows against the library's, paints a wall across the path and checks
//! the new path, toggles the leaves layer and checks a screenshot's pixels at known cells
//! against the library's leaves. Saves the screenshot the README shows (docs/viewer.png,
//! with `QUADPATH_UPDATE_SCREENSHOT=1`; else into Cargo's temporary folder).
//!
//! Needs /usr/bin/chromium (Debian package `chromium`; `cli/tests/install-chromium.sh`
//! installs it). The tests are `#[ignore]`d so that the README's `cargo test` needs nothing but
//! Rust; CI runs them by name, `cargo test --test view_browser -- --ignored`, and there a
//! missing browser fails them, saying so, instead of skipping.

#[allow(dead_code)] // the HTTP client is the server tests'
mod viewer;

use base64::Engine;
use quadpath::io::{load_grid, BitmapOptions};
use quadpath::{baseline, Cell, Grid, HpaMap, Mode, Rect};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tungstenite::{stream::MaybeTlsStream, Message, WebSocket};
use viewer::{map, Viewer};

const CHROMIUM: &str = "/usr/bin/chromium";

/// Headless Chromium with a fresh profile, killed when dropped.
struct Browser {
    child: Child,
    _profile: TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One page's DevTools session.
struct Page {
    ws: WebSocket<MaybeTlsStream<TcpStream>>,
    next_id: u64,
}

impl Page {
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let msg = json!({ "id": id, "method": method, "params": params });
        self.ws.send(Message::text(msg.to_string())).unwrap();
        loop {
            let Message::Text(text) = self.ws.read().expect("a DevTools message") else {
                continue;
            };
            let v: Value = serde_json::from_str(&text).unwrap();
            if v["id"] == id {
                assert!(v["error"].is_null(), "{method}: {}", v["error"]);
                return v["result"].clone();
            }
        }
    }

    /// Evaluates `expr` in the page (awaiting a promise) and returns its value.
    fn eval(&mut self, expr: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({ "expression": expr, "awaitPromise": true, "returnByValue": true }),
        );
        assert!(
            r["exceptionDetails"].is_null(),
            "{expr}: {}",
            r["exceptionDetails"]
        );
        r["result"]["value"].clone()
    }

    /// Waits (at most 20 s) until `expr` is true in the page.
    fn wait_for(&mut self, expr: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.eval(expr) != json!(true) {
            assert!(Instant::now() < deadline, "timed out waiting for {expr}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits for the page's queued requests and a frame.
    fn idle(&mut self) {
        self.eval("viewer.idle()");
    }

    fn mouse(&mut self, kind: &str, x: f64, y: f64) {
        let mut params = json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 });
        if kind == "mouseMoved" {
            params["buttons"] = json!(0);
        }
        self.call("Input.dispatchMouseEvent", params);
    }

    fn click_at(&mut self, x: f64, y: f64) {
        self.mouse("mouseMoved", x, y);
        self.mouse("mousePressed", x, y);
        self.mouse("mouseReleased", x, y);
    }

    fn click_cell(&mut self, c: Cell) {
        let (x, y) = self.cell_to_client(c);
        self.click_at(x, y);
    }

    /// Clicks the middle of the element with this id.
    fn click_element(&mut self, id: &str) {
        self.click_element_selector(&format!("#{id}"));
    }

    /// Clicks the middle of the first element `selector` picks.
    fn click_element_selector(&mut self, selector: &str) {
        let r = self.eval(&format!(
            "(() => {{ const e = document.querySelector('{selector}'); e.scrollIntoView({{ block: 'center' }}); const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
        ));
        self.click_at(r[0].as_f64().unwrap(), r[1].as_f64().unwrap());
    }

    fn cell_to_client(&mut self, c: Cell) -> (f64, f64) {
        let p = self.eval(&format!("viewer.cellToClient({}, {})", c.x, c.y));
        (p[0].as_f64().unwrap(), p[1].as_f64().unwrap())
    }

    fn text(&mut self, id: &str) -> String {
        self.eval(&format!("document.getElementById('{id}').textContent"))
            .as_str()
            .unwrap()
            .to_string()
    }

    fn screenshot(&mut self) -> (Vec<u8>, image::RgbImage) {
        let r = self.call("Page.captureScreenshot", json!({ "format": "png" }));
        let png = base64::engine::general_purpose::STANDARD
            .decode(r["data"].as_str().unwrap())
            .unwrap();
        let img = image::load_from_memory(&png).unwrap().to_rgb8();
        (png, img)
    }
}

fn start_browser() -> (Browser, String) {
    assert!(
        Path::new(CHROMIUM).exists(),
        "the browser test needs {CHROMIUM} (Debian package chromium): run \
         `sh cli/tests/install-chromium.sh` as root, or `apt-get install chromium`"
    );
    // One fresh profile per browser: two tests running at once must not share one.
    static BROWSERS: AtomicUsize = AtomicUsize::new(0);
    let n = BROWSERS.fetch_add(1, Ordering::Relaxed);
    let profile =
        std::env::temp_dir().join(format!("quadpath-view-test-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&profile);
    std::fs::create_dir_all(&profile).unwrap();
    let mut child = Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--remote-debugging-port=0",
            "--window-size=1200,800",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("about:blank")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chromium starts");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    let ws = loop {
        line.clear();
        let n = stderr.read_line(&mut line).unwrap();
        assert!(n > 0, "chromium exited without a DevTools URL");
        if let Some(i) = line.find("ws://") {
            break line[i..].trim().to_string();
        }
    };
    // Keep draining chromium's messages so that it never blocks on a full pipe.
    std::thread::spawn(move || {
        let mut sink = Vec::new();
        let _ = stderr.read_to_end(&mut sink);
    });
    let browser = Browser {
        child,
        _profile: TempDir(profile),
    };
    (browser, ws)
}

/// The websocket URL of the browser's first page, from its `/json/list`.
fn page_url(browser_ws: &str) -> String {
    let host = browser_ws
        .strip_prefix("ws://")
        .and_then(|r| r.split('/').next())
        .unwrap();
    let addr = host.to_socket_addrs().unwrap().next().unwrap();
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET /json/list HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    // Chromium keeps the connection open: read the headers, then Content-Length bytes.
    let mut reader = BufReader::new(s);
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap();
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let targets: Value = serde_json::from_slice(&body).unwrap();
    targets
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["type"] == "page")
        .expect("a page target")["webSocketDebuggerUrl"]
        .as_str()
        .unwrap()
        .to_string()
}

fn cells_of(v: &Value) -> Vec<Cell> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|c| Cell::new(c[0].as_u64().unwrap() as u32, c[1].as_u64().unwrap() as u32))
        .collect()
}

const GROUND: [f64; 3] = [240.0, 237.0, 228.0];
const LEAF_COLOURS: [[f64; 3]; 4] = [
    [255.0, 170.0, 60.0],
    [90.0, 200.0, 250.0],
    [170.0, 120.0, 250.0],
    [110.0, 220.0, 120.0],
];

/// The colour the page fills a free leaf with over plain ground (see `leafColour` and
/// `LEAF_ALPHA` in viewer.js).
fn leaf_fill(r: Rect) -> [f64; 3] {
    let c = LEAF_COLOURS[((r.x1 * 7 + r.y1 * 13 + r.width() + r.height()) % 4) as usize];
    [0, 1, 2].map(|i| GROUND[i] * 0.55 + c[i] * 0.45)
}

fn assert_pixel(img: &image::RgbImage, at: (f64, f64), want: [f64; 3], what: &str) {
    let p = img.get_pixel(at.0 as u32, at.1 as u32).0;
    let off = (0..3)
        .map(|i| (f64::from(p[i]) - want[i]).abs())
        .fold(0.0, f64::max);
    assert!(off <= 4.0, "{what}: pixel {p:?} at {at:?}, want {want:?}");
}

/// Starts `quadpath view MAP` and headless Chromium, and loads the page.
fn open_page(map_name: &str) -> (Viewer, Browser, Page) {
    open_page_with(map_name, &[])
}

/// [`open_page`] with more arguments for `quadpath view`.
fn open_page_with(map_name: &str, args: &[&str]) -> (Viewer, Browser, Page) {
    let server = Viewer::start(map_name, args);
    let (browser, browser_ws) = start_browser();
    let (ws, _) = tungstenite::connect(page_url(&browser_ws)).expect("DevTools websocket");
    let mut page = Page { ws, next_id: 0 };
    page.call(
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": 1200, "height": 800, "deviceScaleFactor": 1, "mobile": false }),
    );
    page.call("Page.navigate", json!({ "url": server.url }));
    page.wait_for("document.body && document.body.dataset.ready === '1'");
    (server, browser, page)
}

/// A browser that stops answering must not hang CI: fail the whole test binary instead.
fn watchdog() {
    std::thread::spawn(|| {
        std::thread::sleep(Duration::from_secs(120));
        eprintln!("a browser test took over 120 s: giving up");
        std::process::exit(1);
    });
}

#[test]
#[ignore = "needs headless Chromium: cargo test --test view_browser -- --ignored (CI runs it)"]
fn the_scenario_panel_runs_the_files_queries() {
    watchdog();
    let (_server, _browser, mut page) = open_page("arena.map.scen");
    let file = match quadpath::io::read_any_scen(map("arena.map.scen")).unwrap() {
        quadpath::io::AnyScenarioFile::Static(f) => f,
        _ => panic!("arena.map.scen is a version 1 file"),
    };
    page.click_element("scenario-run");
    page.wait_for("document.querySelectorAll('#scenario-list tr[data-i]').length > 0");
    let rows = page.eval("document.querySelectorAll('#scenario-list tr[data-i]').length");
    assert_eq!(rows.as_u64(), Some(file.entries.len() as u64));
    assert_eq!(
        page.eval("document.querySelectorAll('#scenario-list tr.failed').length"),
        json!(0)
    );
    // Click the 10th query: its path is drawn, with the file's length.
    page.eval("document.querySelector('#scenario-list tr[data-i=\"9\"]').scrollIntoView()");
    page.click_element_selector("#scenario-list tr[data-i=\"9\"] td");
    page.wait_for("document.getElementById('exact-length').textContent !== '–'");
    let s = &file.entries[9];
    let shown: f64 = page.text("exact-length").parse().unwrap();
    assert!(
        (shown - s.optimal).abs() <= s.tolerance().max(5e-5),
        "{shown} vs {}",
        s.optimal
    );
    assert_eq!(
        page.text("ends"),
        format!(
            "from {},{} to {},{}",
            s.start.x, s.start.y, s.goal.x, s.goal.y
        )
    );
}

#[test]
#[ignore = "needs headless Chromium: cargo test --test view_browser -- --ignored (CI runs it)"]
fn the_page_finds_edits_and_draws_what_the_library_says() {
    let t0 = Instant::now();
    watchdog();
    let (_server, _browser, mut page) = open_page("arena.map");
    // 14 pixels a cell, the map's corner 10 pixels into the canvas.
    page.eval("viewer.setView(14, 10, 10)");

    let mut grid: Grid = load_grid(map("arena.map"), &BitmapOptions::default()).unwrap();
    let (s, g) = (Cell::new(3, 3), Cell::new(45, 40));
    page.click_cell(s);
    page.click_cell(g);
    page.idle();
    page.wait_for("document.getElementById('exact-length').textContent !== '–'");
    let optimal = HpaMap::new(grid.clone(), Mode::Exact)
        .unwrap()
        .find_path(s, g)
        .unwrap()
        .length;
    assert_eq!(page.text("exact-length"), format!("{optimal:.4}"));
    let fast = HpaMap::new(grid.clone(), Mode::Fast)
        .unwrap()
        .find_path(s, g)
        .unwrap()
        .length;
    assert_eq!(page.text("fast-length"), format!("{fast:.4}"));
    let before = cells_of(&page.eval("viewer.state.paths.exact.cells"));

    // A 5x5 wall on the path's middle cell, painted with the brush.
    page.eval("document.querySelector('input[name=tool][value=paint]').click()");
    page.eval("document.getElementById('brush').value = '5'");
    page.eval("document.getElementById('paint-kind').value = 'wall'");
    let mid = before[before.len() / 2];
    page.click_cell(mid);
    page.idle();
    page.wait_for("viewer.state.revision === 1");
    page.idle();
    grid.set_terrain(Rect::new(mid.x - 2, mid.y - 2, mid.x + 2, mid.y + 2), b'@');
    let after = cells_of(&page.eval("viewer.state.paths.exact.cells"));
    let fast_after = cells_of(&page.eval("viewer.state.paths.fast.cells"));
    assert_ne!(after, before, "the shown path did not change");
    let shown = quadpath::Path::from_cells(after.clone());
    shown
        .validate(&grid, &quadpath::TerrainCosts::unit(), s, g)
        .expect("the shown path is valid on the edited map");
    let reference = baseline::astar(&grid, s, g).unwrap().length;
    assert_eq!(page.text("exact-length"), format!("{reference:.4}"));

    // The leaves layer, checked in the pixels of free cells away from both paths (the fast
    // path need not follow the exact one).
    let hpa = HpaMap::new(grid.clone(), Mode::Exact).unwrap();
    let near_path = |c: Cell| {
        after
            .iter()
            .chain(&fast_after)
            .chain([&s, &g])
            .any(|p| p.x.abs_diff(c.x) <= 2 && p.y.abs_diff(c.y) <= 2)
    };
    let probes: Vec<(Cell, Rect)> = hpa
        .tree()
        .leaves()
        .filter(|l| hpa.is_free_leaf(l) && l.rect().width() >= 3)
        .map(|l| {
            let r = l.rect();
            (Cell::new(r.x1 + r.width() / 2, r.y1 + r.height() / 2), r)
        })
        .filter(|&(c, _)| !near_path(c) && grid.terrain(c).code() == b'.')
        .take(6)
        .collect();
    assert!(probes.len() >= 3, "too few leaves to probe: {probes:?}");
    let (_, plain) = page.screenshot();
    for &(c, _) in &probes {
        assert_pixel(
            &plain,
            page.cell_to_client(c),
            GROUND,
            &format!("ground at {c}"),
        );
    }
    page.click_element("layer-leaves");
    page.idle();
    page.wait_for("viewer.state.leaves !== null");
    page.idle();
    let (tinted_png, tinted) = page.screenshot();
    for &(c, r) in &probes {
        let what = format!("leaf {r:?} at {c}");
        assert_pixel(&tinted, page.cell_to_client(c), leaf_fill(r), &what);
    }

    // The README's picture: the leaves and both paths around the wall.
    // Into docs/ only when asked (QUADPATH_UPDATE_SCREENSHOT=1): the timings in it change
    // every run, and a test run should not dirty the work tree.
    let out = match std::env::var_os("QUADPATH_UPDATE_SCREENSHOT") {
        Some(_) => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/viewer.png"),
        None => PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("viewer.png"),
    };
    std::fs::write(&out, tinted_png).unwrap();
    // The gates layer loads too.
    page.click_element("layer-gates");
    page.idle();
    page.wait_for("viewer.state.gates !== null && viewer.state.gates.data.length > 0");
    assert!(
        t0.elapsed() < Duration::from_secs(60),
        "took {:?}",
        t0.elapsed()
    );
}

#[test]
#[ignore = "needs headless Chromium: cargo test --test view_browser -- --ignored (CI runs it)"]
fn the_trace_panel_replays_the_librarys_search() {
    watchdog();
    let (_server, _browser, mut page) = open_page("arena.map");
    page.eval("viewer.setView(14, 10, 10)");
    let grid: Grid = load_grid(map("arena.map"), &BitmapOptions::default()).unwrap();
    let (s, g) = (Cell::new(3, 3), Cell::new(45, 40));
    page.click_cell(s);
    page.click_cell(g);
    page.idle();
    page.wait_for("document.getElementById('exact-length').textContent !== '–'");
    let mut ctx = quadpath::SearchContext::new();
    HpaMap::new(grid, Mode::Exact)
        .unwrap()
        .find_path_with(&mut ctx, s, g)
        .unwrap();
    let expansions = ctx.last_expansions();
    page.click_element("trace-load");
    page.wait_for("document.getElementById('trace-summary').textContent !== ''");
    assert_eq!(
        page.text("trace-summary").split(", ").next().unwrap(),
        format!("exact: 0 of {expansions} expansions")
    );
    // Each step shows one more expansion; the first event is the start.
    page.click_element("trace-step");
    page.click_element("trace-step");
    page.idle();
    assert!(
        page.text("trace-summary")
            .starts_with(&format!("exact: 2 of {expansions} expansions")),
        "{}",
        page.text("trace-summary")
    );
    assert_eq!(
        page.eval("viewer.state.trace.events[0].slice(1, 3)"),
        json!([s.x, s.y])
    );
}

/// The page's drawing time per frame while panning and zooming: each frame sets a new view
/// and draws it, then reads one pixel back, which makes the canvas rasterise, so the time
/// is the frame's whole drawing work. Zooms from the whole map in to 16 pixels a cell
/// round the map's middle, pans across, and zooms back out.
const MEASURE_FRAMES: &str = r#"(async () => {
  const st = viewer.state, c = document.getElementById('map');
  const g = c.getContext('2d');
  const fit = Math.min(c.clientWidth / st.w, c.clientHeight / st.h);
  const views = [];
  for (let i = 0; i <= 60; i++) views.push([fit * Math.pow(16 / fit, i / 60), 0.5, 0.5]);
  for (let i = 1; i <= 60; i++) views.push([16, 0.5 - 0.3 * i / 60, 0.5 - 0.2 * i / 60]);
  for (let i = 60; i >= 0; i--) views.push([fit * Math.pow(16 / fit, i / 60), 0.2, 0.3]);
  const times = [], draws = viewer.overlayDraws();
  for (const [s, fx, fy] of views) {
    const ox = c.clientWidth / 2 - fx * st.w * s, oy = c.clientHeight / 2 - fy * st.h * s;
    const t0 = performance.now();
    viewer.setView(s, ox, oy);
    g.getImageData(0, 0, 1, 1);
    times.push(performance.now() - t0);
    await new Promise((r) => requestAnimationFrame(r));
  }
  const redrawn = viewer.overlayDraws() - draws;
  const rest = [];
  for (const [s, fx, fy] of [views[30], views[90], views[150]]) {
    viewer.setView(s, c.clientWidth / 2 - fx * st.w * s, c.clientHeight / 2 - fy * st.h * s);
    rest.push(viewer.timeRestingFrame());
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  return [times.length, at(0.5), at(0.95), times[times.length - 1], redrawn, Math.max(...rest)];
})()"#;

/// Measures frame times (not a timed assertion: the figures are printed; docs/viewer.md
/// quotes them) on `QUADPATH_VIEW_MAP` if set (e.g. a 1024² StarCraft map from
/// the benchmark corpus's `sc1` folder, run with `--release --nocapture`), else the shipped 512² Aftershock.
#[test]
#[ignore = "needs headless Chromium: cargo test --test view_browser -- --ignored (CI runs it)"]
fn panning_and_zooming_frame_times() {
    watchdog();
    let chosen = std::env::var("QUADPATH_VIEW_MAP").ok();
    let name = chosen.as_deref().unwrap_or("Aftershock.map");
    let (_server, _browser, mut page) = open_page(name);
    let all = ["leaves", "gates", "clusters", "components", "clearance"];
    let configs: [(&str, &[&str]); 5] = [
        ("terrain only", &[]),
        ("leaves", &["leaves"]),
        ("gates", &["gates"]),
        ("clusters", &["clusters"]),
        ("five layers", &all),
    ];
    for (what, on) in configs {
        for layer in all {
            page.eval(&format!(
                "(() => {{ const b = document.getElementById('layer-{layer}'); b.checked = {}; b.dispatchEvent(new Event('change')); }})()",
                on.contains(&layer)
            ));
        }
        page.idle();
        for layer in ["leaves", "gates", "clusters"]
            .iter()
            .filter(|l| on.contains(l))
        {
            page.wait_for(&format!("viewer.state.{layer} !== null"));
        }
        let r = page.eval(MEASURE_FRAMES);
        let n = r[0].as_u64().unwrap();
        let [median, p95, worst, redrawn, rest] = [1, 2, 3, 4, 5].map(|i| r[i].as_f64().unwrap());
        assert!(
            n == 182 && median > 0.0 && median <= p95 && p95 <= worst,
            "{r}"
        );
        println!(
            "frame times on {name}, {what}: {n} frames, median {median:.1} ms, p95 {p95:.1} ms, \
             worst {worst:.1} ms; overlay drawn afresh in {redrawn} of them; a resting frame \
             (overlay drawn afresh) at most {rest:.1} ms"
        );
    }
}

/// The clusters layer fills the library's entrance cells with its colour (on a costed map,
/// where fast mode keeps clusters), and the units
/// layer shows the `--units` army (on by itself) with the index's cell count.
#[test]
#[ignore = "needs headless Chromium: cargo test --test view_browser -- --ignored (CI runs it)"]
fn the_clusters_and_units_layers_draw_the_librarys_data() {
    watchdog();
    let (server, _browser, mut page) = open_page_with("room-100-10.map", &["--units", "40"]);
    let units = server.get_json("/api/units");
    let cells = units["cells"].as_array().unwrap().len() / 5;
    page.wait_for("viewer.state.units !== null");
    assert_eq!(
        page.text("units-summary"),
        format!("40 units in {cells} cells of the index")
    );
    let scale = 7.0;
    page.eval(&format!("viewer.setView({scale}, 4, 4)"));
    page.idle();
    let (_, img) = page.screenshot();
    let first = &units["units"].as_array().unwrap()[..4];
    let unit = Cell::new(
        first[0].as_f64().unwrap() as u32,
        first[1].as_f64().unwrap() as u32,
    );
    let at = page.cell_to_client(unit);
    // A unit's cell: near-black (the unit, 90% opaque, over whatever is under it).
    let p = img.get_pixel(at.0 as u32, at.1 as u32).0;
    assert!(p.iter().all(|&v| v < 60), "unit at {unit}: pixel {p:?}");
    drop((server, page));
    // Fast mode keeps clusters under terrain costs (on a map of one cost it searches the
    // subgoal graph instead): the RTS valley with its roads and swamps. The ground under
    // an entrance varies there, so each pixel is compared with the same view before the
    // clusters layer is switched on.
    let costs = "G=0.5,S=3";
    let (_server, _browser, mut page) =
        open_page_with("rts_valley.png", &["--legend", "rts", "--costs", costs]);
    page.eval(&format!("viewer.setView({scale}, 4, 4)"));
    page.idle();
    let (_, under) = page.screenshot();
    page.eval("(() => { const b = document.getElementById('layer-clusters'); b.checked = true; b.dispatchEvent(new Event('change')); })()");
    page.wait_for("viewer.state.clusters !== null");
    page.idle();
    let options = BitmapOptions {
        legend: Some(quadpath::io::ColorLegend::rts_default()),
        ..Default::default()
    };
    let grid = load_grid(map("rts_valley.png"), &options).unwrap();
    let costs: quadpath::TerrainCosts = costs.parse().unwrap();
    let fast = HpaMap::with_costs(grid, costs, Mode::Fast).unwrap();
    assert!(fast.cluster_count() > 1, "rts_valley is clustered");
    let (_, img) = page.screenshot();
    let mut checked = 0;
    for c in fast.cluster_outlines() {
        for &e in c.entrances.iter().take(3) {
            let (x, y) = page.cell_to_client(e);
            // Only cells well inside the canvas (the panel is on the left).
            if !(330.0..=1190.0).contains(&x) || !(0.0..=780.0).contains(&y) {
                continue;
            }
            // CLUSTER_COLOUR in viewer.js, 95% opaque over the ground drawn before.
            let ground = under.get_pixel(x as u32, y as u32).0;
            let want = [150.0, 40.0, 170.0].map(|c| c * 0.95);
            let want = [0, 1, 2].map(|i| want[i] + f64::from(ground[i]) * 0.05);
            assert_pixel(&img, (x, y), want, &format!("entrance {e}"));
            checked += 1;
        }
    }
    assert!(checked >= 5, "only {checked} entrances in view");
}
