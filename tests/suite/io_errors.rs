//! Bad input: every error names the file and points at the right place, and nothing panics.

use proptest::prelude::*;
use quadpath::io::{self, MapError};
#[cfg(feature = "image")]
use quadpath::io::{BitmapOptions, ColorLegend};
use quadpath::Grid;
use std::path::PathBuf;

fn map_err(text: &str) -> MapError {
    let e = io::parse_map(text, "bad.map").expect_err(text);
    assert!(
        e.to_string().starts_with("bad.map"),
        "message does not name the file: {e}"
    );
    assert_eq!(e.file(), "bad.map");
    e
}

fn scen_err(text: &str) -> MapError {
    let e = io::parse_scen(text, "bad.scen").expect_err(text);
    assert!(
        e.to_string().starts_with("bad.scen"),
        "message does not name the file: {e}"
    );
    e
}

const HEAD: &str = "type octile\nheight 3\nwidth 4\nmap\n";

#[test]
fn header_errors() {
    let e = map_err("");
    assert!(matches!(e, MapError::Header { line: 1, .. }), "{e:?}");
    let e = map_err("type octile\nheight 3\nwidth 4\n");
    assert!(matches!(e, MapError::Header { line: 4, .. }), "{e:?}");
    let e = map_err("type octile\nheight 3\nwidth 4");
    assert!(matches!(e, MapError::Header { line: 4, .. }), "{e:?}");
    let e = map_err("type octile\nhieght 3\nwidth 4\nmap\n....\n");
    assert!(matches!(e, MapError::Header { line: 2, .. }), "{e:?}");
    assert!(e.to_string().contains("bad.map:2:"), "{e}");
    let e = map_err("type octile\nheight 3\nheight 3\nwidth 4\nmap\n");
    assert!(matches!(e, MapError::Header { line: 3, .. }), "{e:?}");
    let e = map_err("type octile\nheight 3 4\nwidth 4\nmap\n");
    assert!(matches!(e, MapError::Header { line: 2, .. }), "{e:?}");
    let e = map_err("type octile\nwidth 4\nmap\n....\n");
    assert!(
        matches!(
            e,
            MapError::MissingHeaderKey {
                line: 3,
                key: "height",
                ..
            }
        ),
        "{e:?}"
    );
    let e = map_err("height 1\nwidth 4\nmap\n....\n");
    assert!(
        matches!(e, MapError::MissingHeaderKey { key: "type", .. }),
        "{e:?}"
    );
    let e = map_err("type octile\nheight three\nwidth 4\nmap\n");
    assert!(
        matches!(e, MapError::BadNumber { line: 2, field: "height", ref value, .. } if value == "three"),
        "{e:?}"
    );
    let e = map_err("type octile\nheight -3\nwidth 4\nmap\n");
    assert!(matches!(e, MapError::BadNumber { line: 2, .. }), "{e:?}");
    let e = map_err("height 1\nwidth 1\ntype tile\nmap\n.\n");
    assert!(
        matches!(e, MapError::UnsupportedType { line: 3, ref found, .. } if found == "tile"),
        "{e:?}"
    );
}

#[test]
fn size_errors() {
    let e = map_err("type octile\nheight 0\nwidth 4\nmap\n");
    assert!(
        matches!(
            e,
            MapError::Empty {
                width: 4,
                height: 0,
                ..
            }
        ),
        "{e:?}"
    );
    let e = map_err("type octile\nheight 3\nwidth 0\nmap\n\n\n\n");
    assert!(matches!(e, MapError::Empty { width: 0, .. }), "{e:?}");
    // 2^33 cells: refused from the header alone.
    let e = map_err("type octile\nheight 131072\nwidth 65536\nmap\n....\n");
    assert!(
        matches!(
            e,
            MapError::TooLarge {
                width: 65536,
                height: 131072,
                ..
            }
        ),
        "{e:?}"
    );
    let e = map_err("type octile\nheight 1\nwidth 99999999999999999\nmap\n....\n");
    assert!(matches!(e, MapError::TooLarge { .. }), "{e:?}");
    // A header under the limits that claims far more cells than the text holds fails on the
    // rows, without allocating the claimed grid first.
    let e = map_err("type octile\nheight 60000\nwidth 60000\nmap\n....\n");
    assert!(
        matches!(
            e,
            MapError::RowLength {
                line: 5,
                column: 5,
                expected: 60000,
                found: 4,
                ..
            }
        ),
        "{e:?}"
    );
    let e = map_err("type octile\nheight 400000000\nwidth 1\nmap\n.\n.\n");
    assert!(
        matches!(
            e,
            MapError::TooFewRows {
                line: 7,
                found: 2,
                expected: 400_000_000,
                ..
            }
        ),
        "{e:?}"
    );
    let e = map_err("type octile\nheight 4000000000\nwidth 1\nmap\n.\n.\n");
    assert!(
        matches!(
            e,
            MapError::TooLarge {
                height: 4_000_000_000,
                ..
            }
        ),
        "side over 2^29: {e:?}"
    );
}

#[test]
fn row_errors() {
    let e = map_err(&format!("{HEAD}....\n....\n"));
    assert!(
        matches!(
            e,
            MapError::TooFewRows {
                line: 7,
                expected: 3,
                found: 2,
                ..
            }
        ),
        "{e:?}"
    );
    let e = map_err(&format!("{HEAD}....\n....\n....\n....\n"));
    assert!(
        matches!(
            e,
            MapError::TooManyRows {
                line: 8,
                expected: 3,
                ..
            }
        ),
        "{e:?}"
    );
    let e = map_err(&format!("{HEAD}....\n...\n....\n"));
    assert!(
        matches!(
            e,
            MapError::RowLength {
                line: 6,
                column: 4,
                expected: 4,
                found: 3,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().starts_with("bad.map:6:4:"), "{e}");
    let e = map_err(&format!("{HEAD}....\n....\n......\n"));
    assert!(
        matches!(
            e,
            MapError::RowLength {
                line: 7,
                column: 5,
                found: 6,
                ..
            }
        ),
        "{e:?}"
    );
    // A blank line inside the map is a short row, not the end.
    let e = map_err(&format!("{HEAD}....\n\n....\n....\n"));
    assert!(
        matches!(
            e,
            MapError::RowLength {
                line: 6,
                column: 1,
                found: 0,
                ..
            }
        ),
        "{e:?}"
    );
    let e = map_err(&format!("{HEAD}....\n..#.\n....\n"));
    assert!(
        matches!(
            e,
            MapError::UnknownChar {
                line: 6,
                column: 3,
                ch: '#',
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().starts_with("bad.map:6:3:"), "{e}");
    let e = map_err(&format!("{HEAD}....\n.é..\n....\n"));
    assert!(
        matches!(
            e,
            MapError::UnknownChar {
                line: 6,
                column: 2,
                ch: 'é',
                ..
            }
        ),
        "{e:?}"
    );
    let e = map_err(&format!("{HEAD}....\n.\t..\n....\n"));
    assert!(
        matches!(
            e,
            MapError::UnknownChar {
                line: 6,
                column: 2,
                ch: '\t',
                ..
            }
        ),
        "{e:?}"
    );
    // CRLF does not shift columns.
    let e = map_err("type octile\r\nheight 1\r\nwidth 3\r\nmap\r\n.x.\r\n");
    assert!(
        matches!(
            e,
            MapError::UnknownChar {
                line: 5,
                column: 2,
                ..
            }
        ),
        "{e:?}"
    );
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("quadpath-io-errors-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn file_errors_name_the_path() {
    let dir = temp_dir("files");
    let missing = dir.join("nowhere.map");
    let e = io::read_map(&missing).unwrap_err();
    assert!(matches!(e, MapError::Io { .. }), "{e:?}");
    assert!(e.to_string().contains("nowhere.map"), "{e}");
    let e = io::read_scen(dir.join("nowhere.scen")).unwrap_err();
    assert!(e.to_string().contains("nowhere.scen"), "{e}");

    // Invalid UTF-8 is an unknown character where it sits.
    let p = dir.join("latin1.map");
    std::fs::write(&p, b"type octile\nheight 1\nwidth 3\nmap\n.\xe9.\n").unwrap();
    let e = io::read_map(&p).unwrap_err();
    assert!(
        matches!(
            e,
            MapError::UnknownChar {
                line: 5,
                column: 2,
                ch: '\u{fffd}',
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("latin1.map:5:2"), "{e}");
}

#[test]
fn scenario_errors() {
    let e = scen_err("");
    assert!(matches!(e, MapError::ScenVersion { line: 1, .. }), "{e:?}");
    let e = scen_err("version 2\n");
    assert!(matches!(e, MapError::ScenVersion { line: 1, .. }), "{e:?}");
    let e = scen_err("0\ta.map\t4\t4\t0\t0\t1\t1\t1.4\n");
    assert!(
        matches!(e, MapError::ScenVersion { line: 1, .. }),
        "missing version line: {e:?}"
    );
    let e = scen_err("version 1\n0\ta.map\t4\t4\t0\t0\t1\t1\n");
    assert!(
        matches!(
            e,
            MapError::FieldCount {
                line: 2,
                found: 8,
                ..
            }
        ),
        "{e:?}"
    );
    let e = scen_err(
        "version 1\n0\ta.map\t4\t4\t0\t0\t1\t1\t1.4\n\n0\ta.map\t4\t4\t0\t0\t1\t1\t1.4\t9\n",
    );
    assert!(
        matches!(
            e,
            MapError::FieldCount {
                line: 4,
                found: 10,
                ..
            }
        ),
        "{e:?}"
    );
    let e = scen_err("version 1\n0\ta.map\t4\t4\t0\tx\t1\t1\t1.4\n");
    assert!(
        matches!(
            e,
            MapError::BadNumber {
                line: 2,
                field: "start y",
                ..
            }
        ),
        "{e:?}"
    );
    assert!(
        e.to_string().contains("bad.scen:2:") && e.to_string().contains("start y"),
        "{e}"
    );
    let e = scen_err("version 1\n0\ta.map\t4\t-4\t0\t0\t1\t1\t1.4\n");
    assert!(
        matches!(
            e,
            MapError::BadNumber {
                field: "map height",
                ..
            }
        ),
        "{e:?}"
    );
    let e = scen_err("version 1\n0\ta.map\t4\t4\t0\t0\t1\t1\tNaN\n");
    assert!(
        matches!(
            e,
            MapError::BadNumber {
                field: "optimal length",
                ..
            }
        ),
        "{e:?}"
    );
    let e = scen_err("version 1.0\n0\ta.map\t4\t4\t0\t0\t4\t1\t4\n");
    assert!(
        matches!(
            e,
            MapError::PointOutside {
                line: 2,
                what: "goal",
                x: 4,
                y: 1,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn scenario_validation_errors() {
    let g = io::parse_map("type octile\nheight 2\nwidth 3\nmap\n..@\n...\n", "g.map").unwrap();
    let s = io::parse_scen(
        "version 1\n0\tg.map\t3\t2\t0\t0\t1\t1\t1.41\n0\tg.map\t3\t3\t0\t0\t1\t1\t1.41\n",
        "v.scen",
    )
    .unwrap();
    let e = s.validate_against(&g).unwrap_err();
    assert!(
        matches!(
            e,
            MapError::DimensionMismatch {
                line: 3,
                scen_height: 3,
                map_height: 2,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().starts_with("v.scen:3:"), "{e}");
    let s = io::parse_scen("version 1\n0\tg.map\t3\t2\t0\t0\t2\t0\t2\n", "v.scen").unwrap();
    let e = s.validate_against(&g).unwrap_err();
    assert!(
        matches!(
            e,
            MapError::PointBlocked {
                line: 2,
                what: "goal",
                x: 2,
                y: 0,
                ..
            }
        ),
        "{e:?}"
    );
}

#[cfg(feature = "image")]
fn bitmap_err(bytes: &[u8], opts: &BitmapOptions) -> MapError {
    let e = io::decode_bitmap(bytes, None, "bad.png", opts).unwrap_err();
    assert!(e.to_string().starts_with("bad.png"), "{e}");
    e
}

#[cfg(feature = "image")]
#[test]
fn bitmap_errors() {
    let opts = BitmapOptions::default();
    let e = bitmap_err(b"this is not an image", &opts);
    assert!(matches!(e, MapError::Decode { .. }), "{e:?}");
    // A PNG signature with garbage after it: the decoder's message is passed on.
    let e = bitmap_err(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDRgarbage", &opts);
    assert!(matches!(e, MapError::Decode { .. }), "{e:?}");
    // Headers claiming huge images are refused before any pixel is decoded.
    let e = bitmap_err(b"P5\n30000 30000\n255\n", &opts);
    assert!(
        matches!(
            e,
            MapError::TooLarge {
                width: 30000,
                height: 30000,
                ..
            }
        ),
        "{e:?}"
    );
    let e = bitmap_err(b"P5\n536870000 1\n255\n", &opts);
    assert!(matches!(e, MapError::TooLarge { .. }), "{e:?}");
    let empty = image::DynamicImage::new_luma8(0, 0);
    let e = io::grid_from_image(&empty, &opts).unwrap_err();
    assert!(
        matches!(
            e,
            MapError::Empty {
                width: 0,
                height: 0,
                ..
            }
        ),
        "{e:?}"
    );

    // Through a file: the message names it.
    let dir = temp_dir("bitmap");
    let p = dir.join("broken.png");
    std::fs::write(&p, b"\x89PNG\r\n\x1a\nnope").unwrap();
    let e = io::read_bitmap(&p, &opts).unwrap_err();
    assert!(e.to_string().contains("broken.png"), "{e}");
    let e = io::load_grid(dir.join("absent.bmp"), &opts).unwrap_err();
    assert!(
        matches!(e, MapError::Io { .. }) && e.to_string().contains("absent.bmp"),
        "{e:?}"
    );
}

#[cfg(feature = "image")]
#[test]
fn strict_legend_names_the_pixel() {
    let mut legend = ColorLegend::parse("000000=@,ffffff=.").unwrap();
    legend.strict = true;
    let img = image::RgbImage::from_fn(4, 3, |x, y| {
        if (x, y) == (2, 1) {
            image::Rgb([255, 0, 0])
        } else {
            image::Rgb([255; 3])
        }
    });
    let opts = BitmapOptions {
        legend: Some(legend),
        ..Default::default()
    };
    let mut png = Vec::new();
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let e = bitmap_err(&png, &opts);
    assert!(
        matches!(
            e,
            MapError::UnknownColor {
                x: 2,
                y: 1,
                rgb: [255, 0, 0],
                ..
            }
        ),
        "{e:?}"
    );
    assert!(
        e.to_string().contains("(2,1)") && e.to_string().contains("#ff0000"),
        "{e}"
    );
}

#[cfg(feature = "image")]
#[test]
fn legend_errors() {
    let cases: [(&str, usize, usize); 7] = [
        ("", 1, 1),
        ("000000=@,", 2, 10),
        ("000000", 1, 1),
        ("000000=@,00ff=W", 2, 10),
        ("000000=@,0000gg=W", 2, 10),
        ("000000=@,ffffff=.,000000=T", 3, 19),
        ("ff0000=x", 1, 1),
    ];
    for (text, entry, column) in cases {
        let e = ColorLegend::parse_named(text, "--legend").expect_err(text);
        assert!(
            matches!(e, MapError::Legend { entry: en, column: c, .. } if en == entry && c == column),
            "{text:?}: {e:?}"
        );
        assert!(e.to_string().starts_with("--legend"), "{e}");
    }
    for bad in [
        "ff0000=xy",
        "ff0000=x:maybe",
        "ff0000=",
        "ff0000=\u{e9}:free",
    ] {
        assert!(ColorLegend::parse(bad).is_err(), "{bad:?}");
    }
    let l = ColorLegend::parse(" #FF0000 = x : blocked , 00ff00=G").unwrap();
    assert_eq!(l.entries.len(), 2);
    assert!(!l.entries[0].free && l.entries[0].terrain == b'x' && l.entries[0].rgb == [255, 0, 0]);
}

/// Issue 17: a legend's `:COST` suffixes. Every bad cost is a typed error naming the
/// legend's source and the entry; a cost out of range or on a blocked code wraps the
/// [`CostError`](quadpath::CostError) that says why.
#[cfg(feature = "image")]
#[test]
fn legend_cost_errors() {
    use quadpath::CostError;
    // `None`: a cost out of range; `Some(code)`: a cost on the blocked code.
    let cases: [(&str, usize, Option<u8>); 9] = [
        ("ffffff=.,8b6914=G:0", 2, None),
        ("8b6914=G:-1", 1, None),
        ("8b6914=G:NaN", 1, None),
        ("8b6914=G:inf", 1, None),
        ("8b6914=G:1e400", 1, None),
        ("8b6914=G:0.001", 1, None),
        ("ffffff=.,000000=@:2", 2, Some(b'@')),
        ("0000ff=W:2", 1, Some(b'W')),
        ("ff0000=x:blocked:2", 1, Some(b'x')),
    ];
    for (text, entry, kind) in cases {
        let e = ColorLegend::parse_named(text, "--legend").expect_err(text);
        let why = match &e {
            MapError::LegendCost { source, .. } => source,
            other => panic!("{text:?}: {other:?}"),
        };
        match kind {
            None => assert!(
                matches!(
                    why,
                    CostError::OutOfRange {
                        terrain: quadpath::Terrain(b'G'),
                        ..
                    }
                ),
                "{text:?}: {why:?}"
            ),
            Some(code) => assert_eq!(
                why,
                &CostError::Impassable {
                    terrain: code.into()
                },
                "{text:?}"
            ),
        }
        assert!(
            matches!(e, MapError::LegendCost { entry: Some(en), .. } if en == entry),
            "{text:?}: {e:?}"
        );
        let msg = e.to_string();
        assert!(
            msg.starts_with(&format!("--legend: legend entry {entry} ")),
            "{msg}"
        );
        assert_eq!(e.file(), "--legend");
    }
    // Suffixes that are not a passability nor a number, out of order or repeated, and costs
    // that disagree: syntax errors of the legend, naming the entry.
    for (text, entry, needle) in [
        (
            "8b6914=G:fast",
            1,
            "expected `free`, `blocked` or a cost, found \"fast\"",
        ),
        ("8b6914=G:", 1, "expected `free`, `blocked` or a cost"),
        ("ff0000=x:2:free", 1, "before a cost"),
        ("ff0000=x:free:blocked", 1, "must come once"),
        ("ff0000=x:free:1:2", 1, "a second cost"),
        ("ff0000=x:2", 1, "add :free or :blocked"),
        (
            "d2b48c=G:0.5,ffffff=.,8b6914=G:2",
            3,
            "costs 2 here but 0.5 in entry 1",
        ),
    ] {
        let e = ColorLegend::parse_named(text, "--legend").expect_err(text);
        assert!(
            matches!(e, MapError::Legend { entry: en, .. } if en == entry),
            "{text:?}: {e:?}"
        );
        assert!(e.to_string().contains(needle), "{text:?}: {e}");
    }
    // The same cost twice, or a second colour for the code without one, is fine.
    for text in [
        "d2b48c=G:0.5,8b6914=G:0.5",
        "d2b48c=G:0.5,8b6914=G",
        "ff0000=x:free:2",
    ] {
        assert!(ColorLegend::parse(text).is_ok(), "{text}");
    }
    // A legend built in code is checked when applied: water is blocked, so it has no cost.
    let legend = ColorLegend {
        costs: "W=2".parse().unwrap(),
        ..ColorLegend::rts_default()
    };
    let img = image::DynamicImage::ImageRgb8(image::RgbImage::new(2, 2));
    let opts = BitmapOptions {
        legend: Some(legend),
        ..Default::default()
    };
    let e = io::grid_from_image_named(&img, "v.png", &opts).unwrap_err();
    assert!(
        matches!(
            e,
            MapError::LegendCost {
                entry: None,
                source: CostError::Impassable {
                    terrain: quadpath::Terrain(b'W')
                },
                ..
            }
        ),
        "{e:?}"
    );
    assert!(
        e.to_string().starts_with("v.png: legend costs \"W=2\": "),
        "{e}"
    );
}

const GOOD_MAP: &str = "type octile\nheight 4\nwidth 5\nmap\n.GS@.\nOTW..\n.....\n@@.@.\n";
const GOOD_SCEN: &str =
    "version 1\n0\tm.map\t5\t4\t0\t0\t4\t3\t5.1\n1\tm.map\t5\t4\t4\t0\t0\t2\t4.8\n";
const GOOD_DYNAMIC: &str = "version 2\nheight 4\nwidth 5\ncost 2 manhattan octile\npatch p.patch\ncommands\nQ 0 0 0 4 3 7 5.24264\nP 1 0 2 1\nQ 2 4 3 0 0 -1 -1\n";
const GOOD_PATCHES: &str =
    "type patch\npatches 2\npatch 0\nheight 1\nwidth 2\nmap\n@.\npatch 1\nheight 2\nwidth 1\nmap\nT\n.\n";

#[cfg(feature = "image")]
fn good_png() -> Vec<u8> {
    let g = io::parse_map(GOOD_MAP, "m").unwrap();
    let mut png = Vec::new();
    image::DynamicImage::ImageLuma8(g.to_image())
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    png
}

#[derive(Debug, Clone)]
enum Edit {
    Set(usize, u8),
    Insert(usize, u8),
    Delete(usize),
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let n = bytes.len();
        match *e {
            Edit::Set(i, b) if n > 0 => bytes[i % n] = b,
            Edit::Insert(i, b) => bytes.insert(i % (n + 1), b),
            Edit::Delete(i) if n > 0 => {
                bytes.remove(i % n);
            }
            _ => {}
        }
    }
    bytes
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    // Bytes drawn mostly from the formats' own alphabets, so that mutations stay near valid.
    let byte = prop_oneof![
        prop::sample::select(b".@GSOTW\n\r\t 0123456789-.".to_vec()),
        any::<u8>()
    ];
    let edit = prop_oneof![
        (any::<usize>(), byte.clone()).prop_map(|(i, b)| Edit::Set(i, b)),
        (any::<usize>(), byte).prop_map(|(i, b)| Edit::Insert(i, b)),
        any::<usize>().prop_map(Edit::Delete),
    ];
    prop::collection::vec(edit, 1..6)
}

fn check_grid(g: &Grid) {
    assert!(g.width() > 0 && g.height() > 0);
    let text = g.to_map_string();
    assert_eq!(&io::parse_map(&text, "again").unwrap(), g);
}

fn all_parsers(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    if let Ok(g) = io::parse_map(&text, "fuzz.map") {
        check_grid(&g);
    }
    if let Ok(s) = io::parse_scen(&text, "fuzz.scen") {
        for e in &s.entries {
            assert!(e.start.x < e.width && e.goal.y < e.height);
        }
    }
    match io::parse_dynamic_scen(&text, "fuzz.scen") {
        Ok(s) => {
            assert!(s.cost_models.iter().any(|m| m == "octile"));
            for q in s.queries() {
                assert!(q.start.x < s.width && q.goal.y < s.height);
                assert!(q.optimal.map_or(true, |v| v.is_finite() && v >= 0.0));
            }
        }
        Err(e) => assert_eq!(e.file(), "fuzz.scen"),
    }
    match io::parse_patches(&text, "fuzz.patch") {
        Ok(patches) => {
            for p in &patches {
                assert_eq!(p.codes().len(), (p.width() * p.height()) as usize);
            }
        }
        Err(e) => assert_eq!(e.file(), "fuzz.patch"),
    }
    #[cfg(feature = "image")]
    {
        let _ = ColorLegend::parse(&text);
        for hint in [
            None,
            Some(image::ImageFormat::Tga),
            Some(image::ImageFormat::Bmp),
        ] {
            if let Ok(g) = io::decode_bitmap(bytes, hint, "fuzz.img", &BitmapOptions::default()) {
                assert!(g.width() > 0 && g.height() > 0);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        all_parsers(&bytes);
    }

    #[test]
    fn mutated_map_never_panics(e in edits()) {
        all_parsers(&apply(GOOD_MAP.as_bytes().to_vec(), &e));
    }

    #[test]
    fn mutated_scen_never_panics(e in edits()) {
        all_parsers(&apply(GOOD_SCEN.as_bytes().to_vec(), &e));
    }

    #[test]
    fn mutated_dynamic_scen_never_panics(e in edits()) {
        all_parsers(&apply(GOOD_DYNAMIC.as_bytes().to_vec(), &e));
    }

    #[test]
    fn mutated_patches_never_panic(e in edits()) {
        all_parsers(&apply(GOOD_PATCHES.as_bytes().to_vec(), &e));
    }

    #[cfg(feature = "image")]
    #[test]
    fn mutated_png_never_panics(e in edits()) {
        let bytes = apply(good_png(), &e);
        let _ = io::decode_bitmap(&bytes, None, "fuzz.png", &BitmapOptions::default());
        let _ = io::decode_bitmap(&bytes, None, "fuzz.png", &BitmapOptions { legend: Some(ColorLegend::rts_default()), ..Default::default() });
    }

    #[cfg(feature = "image")]
    #[test]
    fn image_headers_never_panic(w in 0u32..100_000, h in 0u32..100_000, kind in 0u8..3) {
        let bytes = match kind {
            0 => format!("P5\n{w} {h}\n255\n").into_bytes(),
            1 => format!("P1\n{w} {h}\n0 1 0\n").into_bytes(),
            _ => {
                let mut b = b"BM".to_vec();
                b.extend_from_slice(&[0; 12]);
                b.extend_from_slice(&40u32.to_le_bytes());
                b.extend_from_slice(&w.to_le_bytes());
                b.extend_from_slice(&h.to_le_bytes());
                b.extend_from_slice(&[1, 0, 24, 0]);
                b
            }
        };
        let _ = io::decode_bitmap(&bytes, None, "hdr", &BitmapOptions::default());
    }
}

/// Issue 11: a failed write (a full disk) is reported, naming the file, also for outputs
/// small enough to sit in a write buffer until it is dropped.
#[cfg(target_os = "linux")]
#[test]
fn writes_to_a_full_disk_fail_with_the_file_name() {
    let full = std::path::Path::new("/dev/full");
    let g = io::parse_map(GOOD_MAP, "m").unwrap();
    let e = io::save_map(&g, full).unwrap_err();
    assert!(matches!(e, MapError::Io { .. }), "{e:?}");
    assert!(e.to_string().starts_with("/dev/full: "), "{e}");
    // save_bitmap takes the format from the extension: a `.png` link to the full device.
    #[cfg(feature = "image")]
    {
        let png = temp_dir("full").join("full.png");
        let _ = std::fs::remove_file(&png);
        std::os::unix::fs::symlink(full, &png).unwrap();
        for legend in [None, Some(ColorLegend::rts_default())] {
            let e = io::save_bitmap(&g, &png, legend.as_ref()).unwrap_err();
            assert!(matches!(e, MapError::Io { .. }), "{e:?}");
            assert!(e.to_string().contains("full.png: "), "{e}");
        }
    }
    // Through the public writer, for the caller's own files.
    let mut out = io::OutputFile::create(full).unwrap();
    std::io::Write::write_all(&mut out, b"a few bytes").unwrap();
    let e = out.finish().unwrap_err();
    assert!(e.to_string().contains("/dev/full"), "{e}");
}

/// Issue 11: input quoted in an error is cut to a short excerpt, however long the line.
#[test]
fn long_input_is_quoted_as_an_excerpt() {
    let junk = "x".repeat(1 << 20);
    let short = |e: MapError| {
        let text = e.to_string();
        assert!(
            text.chars().count() < 300 && text.contains('…'),
            "{} chars: {e:?}",
            text.len()
        );
    };
    short(map_err(&junk));
    short(map_err(&format!("{junk} 1\n")));
    short(map_err(&format!(
        "type {junk}\nheight 1\nwidth 1\nmap\n.\n"
    )));
    short(map_err(&format!("type octile\nheight {junk}\n")));
    short(map_err(&format!("type octile {junk}\n")));
    short(scen_err(&junk));
    short(scen_err(&format!(
        "version 1\n0 m.map 5 4 0 0 4 3 {junk}\n"
    )));
    short(scen_err(&format!(
        "version 1\n{junk} m.map 5 4 0 0 4 3 1\n"
    )));
    #[cfg(feature = "image")]
    for legend in [
        format!("{junk}=@"),
        format!("000000={junk}"),
        format!("000000=x:{junk}"),
        format!("000000=G:{junk}"),
        format!("000000=G:0.5:{junk}"),
    ] {
        short(ColorLegend::parse(&legend).unwrap_err());
    }
}

/// Cases for the long fuzz runs below: `QUADPATH_FUZZ_CASES`, or 100,000.
fn fuzz_cases() -> u32 {
    std::env::var("QUADPATH_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000)
}

// The same properties as above with many more cases: too long for CI (minutes each). Run
// them with `QUADPATH_FUZZ_CASES=1000000 cargo test --test suite -- --ignored fuzz_`.
proptest! {
    #![proptest_config(ProptestConfig { cases: fuzz_cases(), ..ProptestConfig::default() })]

    #[test]
    #[ignore = "long fuzz run, kept out of CI; see README, Fuzzing"]
    fn fuzz_random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..2000)) {
        all_parsers(&bytes);
    }

    #[test]
    #[ignore = "long fuzz run, kept out of CI; see README, Fuzzing"]
    fn fuzz_mutated_inputs(e in edits(), which in 0u8..6) {
        let base = match which {
            0 => GOOD_MAP.as_bytes().to_vec(),
            1 => GOOD_SCEN.as_bytes().to_vec(),
            2 => b"000000=@,0000ff=W:blocked,ffffff=.".to_vec(),
            3 => GOOD_DYNAMIC.as_bytes().to_vec(),
            4 => GOOD_PATCHES.as_bytes().to_vec(),
            #[cfg(feature = "image")]
            _ => good_png(),
            #[cfg(not(feature = "image"))]
            _ => GOOD_MAP.replace('\n', "\r\n").into_bytes(),
        };
        all_parsers(&apply(base, &e));
    }

    #[cfg(feature = "image")]
    #[test]
    #[ignore = "long fuzz run, kept out of CI; see README, Fuzzing"]
    fn fuzz_png_headers(w in any::<u32>(), h in any::<u32>(), depth in any::<u8>(), colour in any::<u8>()) {
        let _ = io::decode_bitmap(&png_header(w, h, depth, colour), None, "hdr.png", &BitmapOptions::default());
    }
}

/// CRC-32 (IEEE), for PNG chunks made by hand.
#[cfg(feature = "image")]
fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// A PNG that claims `w`×`h` pixels of the given bit depth and colour type, with one tiny
/// (and for most sizes far too short) image data chunk.
#[cfg(feature = "image")]
fn png_header(w: u32, h: u32, depth: u8, colour: u8) -> Vec<u8> {
    let chunk = |out: &mut Vec<u8>, kind: &[u8], data: &[u8]| {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut body = kind.to_vec();
        body.extend_from_slice(data);
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32(&body).to_be_bytes());
    };
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = w.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[depth, colour, 0, 0, 0]);
    chunk(&mut png, b"IHDR", &ihdr);
    // zlib of a few zero bytes.
    chunk(
        &mut png,
        b"IDAT",
        &[0x78, 0x9c, 0x63, 0x60, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01],
    );
    chunk(&mut png, b"IEND", &[]);
    png
}

/// Every file of `tests/corpus` (truncated headers, huge claimed sizes, lying dimensions,
/// non-UTF-8, CRLF, giant lines, odd legends, broken images) through every parser, as text
/// and through the file loaders: no panic, and each answer is a typed error naming its
/// source or a valid result.
#[test]
fn corpus_inputs_give_typed_errors_or_valid_grids() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 30, "corpus missing: {}", files.len());
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        all_parsers(&bytes);
        for line in String::from_utf8_lossy(&bytes).lines() {
            all_parsers(line.as_bytes());
        }
        let shown = path.display().to_string();
        match io::read_map(path) {
            Ok(g) => check_grid(&g),
            Err(e) => assert!(e.to_string().contains(&shown), "{shown}: {e}"),
        }
        match io::read_scen(path) {
            Ok(s) => assert!(s.entries.iter().all(|e| e.start.x < e.width)),
            Err(e) => assert!(e.to_string().contains(&shown), "{shown}: {e}"),
        }
        // A version 2 file names its patch file, which may be the one in error.
        match io::read_any_scen(path) {
            Ok(_) => {}
            Err(e) => assert!(
                e.to_string().contains(&shown) || e.to_string().contains(".patch"),
                "{shown}: {e}"
            ),
        }
        #[cfg(feature = "image")]
        match io::load_grid(path, &BitmapOptions::default()) {
            Ok(g) => check_grid(&g),
            Err(e) => assert!(!e.to_string().is_empty(), "{shown}"),
        }
    }
}

/// Hand-made PNG headers: tiny, empty, huge, and invalid depths and colour types decode to
/// a grid or a typed error, never a panic or a huge allocation.
#[cfg(feature = "image")]
#[test]
fn generated_png_headers_give_typed_errors() {
    let ok = io::decode_bitmap(
        &png_header(1, 1, 8, 0),
        None,
        "tiny.png",
        &BitmapOptions::default(),
    )
    .unwrap();
    assert_eq!((ok.width(), ok.height()), (1, 1));
    for (w, h, depth, colour) in [
        (0, 0, 8, 0),
        (0, 5, 8, 0),
        (100_000, 100_000, 8, 0),
        (u32::MAX, u32::MAX, 16, 6),
        (1 << 31, 1, 8, 0),
        (65_536, 65_536, 1, 0),
        (4, 4, 3, 0),
        (4, 4, 8, 7),
        (4, 4, 8, 3),
    ] {
        let bytes = png_header(w, h, depth, colour);
        let r = io::decode_bitmap(&bytes, None, "gen.png", &BitmapOptions::default());
        match r {
            Ok(g) => check_grid(&g),
            Err(e) => assert!(e.to_string().starts_with("gen.png"), "{w}x{h}: {e}"),
        }
    }
}
