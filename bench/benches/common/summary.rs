//! The one-screen summary of a peers run: per map family, each contender's query times, its
//! speed against the reference searches, its path quality, memory and build time.

use super::report::{
    fmt_bytes, fmt_ms, fmt_pct, fmt_ratio, fmt_us, geomean, median, quantile, table,
};

/// One contender's results on one map.
pub struct Sample<'a> {
    pub map: &'a str,
    pub family: &'a str,
    pub contender: &'a str,
    /// Per query, in µs.
    pub times_us: &'a [f64],
    /// Per query with a path: length / optimum − 1.
    pub subopt: &'a [f64],
    pub invalid: usize,
    pub queries: usize,
    pub memory: usize,
    pub build_ms: f64,
}

/// The searches speeds are stated against: the GPPC convention's A* (Warthog's), the
/// strongest online search (Warthog's JPS2) and quadpath's long-standing yardstick
/// (`pathfinding::astar`).
pub struct References<'a> {
    pub astar: &'a str,
    pub jps2: &'a str,
    pub yardstick: &'a str,
}

/// Writes the summary table: a row per contender (in `contenders` order), per family of
/// `families` the median and 95th percentile over all its queries and the geometric mean
/// over its maps of the speed-ups (reference median ÷ contender median, per map) against
/// [`References::astar`] and [`References::jps2`]; then over all maps the speed-up against
/// [`References::yardstick`], the mean and largest suboptimality, invalid paths, and the
/// largest memory and build time of any map. A reference that did not run leaves its
/// column out.
pub fn summary_table(
    out: &mut String,
    samples: &[Sample<'_>],
    contenders: &[&str],
    families: &[&str],
    refs: &References<'_>,
) {
    let has = |name: &str| samples.iter().any(|s| s.contender == name);
    let of = |contender: &str, family: Option<&str>| -> Vec<&Sample<'_>> {
        samples
            .iter()
            .filter(|s| s.contender == contender && family.map_or(true, |f| s.family == f))
            .collect()
    };
    // Geometric mean over the maps where both ran of (reference median / contender median).
    let speedup = |contender: &str, reference: &str, family: Option<&str>| -> f64 {
        let ratios: Vec<f64> = of(contender, family)
            .iter()
            .filter_map(|s| {
                let r = samples
                    .iter()
                    .find(|r| r.contender == reference && r.map == s.map)?;
                Some(median(r.times_us) / median(s.times_us))
            })
            .collect();
        geomean(&ratios)
    };
    let vs: Vec<(&str, &str)> = [("W-A*", refs.astar), ("JPS2", refs.jps2)]
        .into_iter()
        .filter(|(_, r)| has(r))
        .collect();

    let mut header = vec!["contender".to_string()];
    for f in families {
        header.push(format!("{f}: median / p95"));
        if !vs.is_empty() {
            let names: Vec<String> = vs.iter().map(|(label, _)| format!("× {label}")).collect();
            header.push(format!("{f}: {}", names.join(" / ")));
        }
    }
    if has(refs.yardstick) {
        header.push(format!("× `{}` (all maps)", refs.yardstick));
    }
    for h in [
        "subopt mean / max",
        "invalid",
        "memory (most)",
        "build (most)",
    ] {
        header.push(h.into());
    }

    let mut rows = Vec::new();
    for &c in contenders.iter().filter(|c| has(c)) {
        let mut row = vec![format!("`{c}`")];
        for &f in families {
            let pooled: Vec<f64> = of(c, Some(f))
                .iter()
                .flat_map(|s| s.times_us.iter().copied())
                .collect();
            row.push(if pooled.is_empty() {
                "–".into()
            } else {
                format!(
                    "{} / {}",
                    fmt_us(median(&pooled)),
                    fmt_us(quantile(&pooled, 0.95))
                )
            });
            if !vs.is_empty() {
                let ratios: Vec<String> = vs
                    .iter()
                    .map(|(_, r)| fmt_ratio(speedup(c, r, Some(f))))
                    .collect();
                row.push(ratios.join(" / "));
            }
        }
        if has(refs.yardstick) {
            row.push(fmt_ratio(speedup(c, refs.yardstick, None)));
        }
        let all = of(c, None);
        let subopt: Vec<f64> = all.iter().flat_map(|s| s.subopt.iter().copied()).collect();
        let mean = subopt.iter().sum::<f64>() / subopt.len() as f64;
        let max = subopt.iter().copied().fold(f64::NAN, f64::max);
        row.push(format!("{} / {}", fmt_pct(mean), fmt_pct(max)));
        let invalid: usize = all.iter().map(|s| s.invalid).sum();
        let queries: usize = all.iter().map(|s| s.queries).sum();
        row.push(format!("{invalid}/{queries}"));
        row.push(fmt_bytes(all.iter().map(|s| s.memory).max().unwrap_or(0)));
        row.push(fmt_ms(all.iter().map(|s| s.build_ms).fold(0.0, f64::max)));
        rows.push(row);
    }
    table(out, &header, &rows);
}
