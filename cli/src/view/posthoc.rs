//! Search traces in Posthoc's format, so that a search shown in the viewer can be opened in
//! Posthoc (ShortestPathLab's search-trace visualiser) too.
//!
//! The format is the one Posthoc's documentation describes as its search trace
//! (<https://posthoc.pathfinding.ai/docs/search-trace>), version 1.4.0, which the visualiser
//! requires to be declared (older versions have another schema: a `render` section and
//! event types such as `expanding`): a document with `version: 1.4.0`, a `views` section
//! whose `main` view is the entry point (here: a one-cell `rect` at each event's `x`, `y`)
//! and `events` in order. Each event has a `type`, the node's `id` and, for a node reached
//! from another, its parent's `pId` (`null` for the start), with `g` and `f`. The types are
//! the documented generic search events `source`, `generate`, `expand` and `close`, and
//! `destination`, `update` and `end` in the same spirit. A node's id is its cell's index
//! `y · width + x`. JSON is written: the format is YAML, and JSON is YAML (the
//! documentation's `.trace.json` traces).

use quadpath::{Cell, SearchTrace, TraceKind};
use serde_json::{json, Value};

/// The format version written.
pub const VERSION: &str = "1.4.0";

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
    let mut source = node("source", start);
    source["pId"] = Value::Null;
    let mut events = vec![source, node("destination", goal)];
    let mut open_expansion: Option<Value> = None;
    for e in &trace.events {
        let kind = match e.kind {
            TraceKind::Generated => "generate",
            TraceKind::Updated => "update",
            _ => "expand",
        };
        let mut event = node(kind, e.cell);
        event["pId"] = e.parent.map_or(Value::Null, |p| json!(id(p)));
        event["g"] = json!(e.g);
        event["f"] = json!(e.f);
        if e.kind == TraceKind::Expanded {
            // The node expanded before is closed once its successors are all generated.
            events.extend(open_expansion.take());
            let mut closing = event.clone();
            closing["type"] = json!("close");
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
        "views": {
            "main": [{
                "$": "rect",
                "x": "${{ $.x }}",
                "y": "${{ $.y }}",
                "width": 1,
                "height": 1,
                "fill": "${{ theme.foreground }}",
            }],
        },
        "events": events,
    })
}
