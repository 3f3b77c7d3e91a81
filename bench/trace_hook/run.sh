#!/bin/sh
# Measures what the search-trace hook costs untraced queries: one criterion run, in one
# process, of untraced exact queries on den520d with three copies of the library built
# from this checkout's HEAD:
#   generic  - HEAD as it is (the search generic over its recorder, untraced = no-op);
#   no_hook  - HEAD with every recording call deleted from src/hpa/search.rs;
#   branch   - HEAD with src/hpa/search.rs and src/hpa/trace.rs as before the recorder
#              (a runtime `if let Some(events)` per offer and expansion), for scale.
# Usage: sh bench/trace_hook/run.sh [criterion args]   (takes a few minutes)
set -eu
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
work="$root/target/trace_hook"
# The three copies lie beside the bench crate, not under it (a path dependency under a
# workspace root would join its workspace, and the copies are workspaces of their own).
rm -rf "$work/src"
mkdir -p "$work/src/generic" "$work/src/no_hook" "$work/src/branch" "$work/bench/benches"
for v in generic no_hook branch; do
  git -C "$root" archive HEAD | tar -x -C "$work/src/$v"
  # Packages of one name and version cannot share a lockfile: each copy gets its own.
  sed -i "0,/^name = \"quadpath\"/s//name = \"quadpath_$v\"/" "$work/src/$v/Cargo.toml"
done
# The recording calls are one line each (rustfmt keeps them so).
sed -i '/^ *note\(_expansion\)\?::<R>(.*);$/d' "$work/src/no_hook/src/hpa/search.rs"
before=$(git -C "$root" log --format=%H -1 --grep='generic over a Recorder')^
for f in src/hpa/search.rs src/hpa/trace.rs; do
  git -C "$root" show "$before:$f" > "$work/src/branch/$f"
done
cp "$root/bench/trace_hook/trace_hook.rs" "$work/bench/benches/"
cat > "$work/bench/Cargo.toml" <<TOML
[package]
name = "trace-hook-bench"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dev-dependencies]
generic = { package = "quadpath_generic", path = "../src/generic" }
no_hook = { package = "quadpath_no_hook", path = "../src/no_hook" }
branch = { package = "quadpath_branch", path = "../src/branch" }
criterion = { version = "0.5", default-features = false, features = ["cargo_bench_support"] }

[[bench]]
name = "trace_hook"
harness = false

[profile.bench]
debug = false
TOML
cd "$work/bench"
export QUADPATH_MAP="$root/maps/den520d.map" CARGO_TARGET_DIR="$work/target"
cargo bench --offline --bench trace_hook -- "$@"
# Instructions a batch of 1000 queries executes with each build, counted by callgrind
# (deterministic, whatever the machine's load): the count with 3 batches minus the count
# with 1, halved. (Criterion probes for gnuplot in a child process, counted apart: the
# larger count is the bench's.)
if command -v valgrind >/dev/null; then
  bin=$(ls -t "$work"/target/release/deps/trace_hook-* | grep -v '\.d$' | head -1)
  for build in no_hook generic_untraced branch_untraced generic_traced; do
    for k in 1 3; do
      TRACE_HOOK_ONLY=$build TRACE_HOOK_BATCHES=$k valgrind --tool=callgrind \
        --callgrind-out-file=/dev/null "$bin" --bench 2>&1 | sed -n 's/.*Collected : *//p' | sort -n | tail -1 > "$work/ir_$k"
    done
    echo "$build: $(( ($(cat "$work/ir_3") - $(cat "$work/ir_1")) / 2 )) instructions a batch"
  done
fi
