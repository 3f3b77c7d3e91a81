//! Search traces in Posthoc's format, so that a search shown in the viewer can be opened in
//! Posthoc (ShortestPathLab's search-trace visualiser) too.
//!
//! Posthoc reads a document with a `version`, a `render` section saying how to draw an
//! event (here: a one-cell rectangle at the event's `x`, `y`), and `events` in order, each
//! with a `type` (`source`, `destination`, `generating`, `updating`, `expanding`,
//! `closing`, `end`), the node's `id`, its parent's `pId`, and `g` and `f`. A node's id
//! is its cell's index `y · width + x`. JSON is written: Posthoc's format is YAML, and
//! JSON is YAML.

use quadpath::{Cell, SearchTrace, TraceKind};
use serde_json::{json, Value};

/// The format version written.
pub const VERSION: &str = "1.0.5";

/// `trace`, a search on a `width × height` map between `ends`, as a Posthoc document;
/// `cost` is the cost of the path found, if any (its goal gets an `end` event).
pub fn search_trace(
    (width, _height): (u32, u32),
    (start, goal): (Cell, Cell),
    trace: &SearchTrace,
    cost: Option<f64>,
) -> Value {
    let id = |c: Cell| u64::from(c.y) * u64::from(width) + u64::from(c.x);
    let node = |kind: &str, c: Cell| json!({ "type": kind, "id": id(c), "x": c.x, "y": c.y });
    let mut events = vec![node("source", start), node("destination", goal)];
    let mut open_expansion: Option<Value> = None;
    for e in &trace.events {
        let kind = match e.kind {
            TraceKind::Generated => "generating",
            TraceKind::Updated => "updating",
            _ => "expanding",
        };
        let mut event = node(kind, e.cell);
        event["pId"] = e.parent.map_or(Value::Null, |p| json!(id(p)));
        event["g"] = json!(e.g);
        event["f"] = json!(e.f);
        if e.kind == TraceKind::Expanded {
            // The node expanded before is closed once its successors are all generated.
            events.extend(open_expansion.take());
            let mut closing = event.clone();
            closing["type"] = json!("closing");
            open_expansion = Some(closing);
        }
        events.push(event);
    }
    events.extend(open_expansion);
    if let Some(cost) = cost {
        let mut end = node("end", goal);
        end["g"] = json!(cost);
        end["f"] = json!(cost);
        events.push(end);
    }
    json!({
        "version": VERSION,
        "render": {
            "components": {
                "cell": [{
                    "$": "rect",
                    "width": 1,
                    "height": 1,
                    "x": "{{$.event.x}}",
                    "y": "{{$.event.y}}",
                }],
            },
            "views": { "main": { "components": [{ "$": "cell" }] } },
        },
        "events": events,
    })
}
