//! Connected components of free leaves, kept up to date without global relabelling.
//!
//! Freeing cells can only join components: a new leaf takes the label of its largest
//! neighbouring component and the smaller ones are relabelled, which costs the size of the
//! smaller side. Blocking cells can only split them, and a split is found with a lockstep
//! search: one breadth-first search per leaf next to the change, advanced in turns. Searches
//! that meet merge; a search that runs out of leaves while another is still going has found
//! a piece that broke off, and only that piece is relabelled. When nothing splits, the
//! searches meet within a few leaves of the edit.

use super::graph::{GateGraph, NONE};
use std::collections::VecDeque;

/// Component labels with their sizes in leaves.
#[derive(Clone, Debug, Default)]
pub(crate) struct Components {
    sizes: Vec<u32>,
    free: Vec<u32>,
    epoch: u64,
}

impl Components {
    fn fresh(&mut self) -> u32 {
        match self.free.pop() {
            Some(l) => l,
            None => {
                self.sizes.push(0);
                (self.sizes.len() - 1) as u32
            }
        }
    }

    fn resize(&mut self, label: u32, delta: i64) {
        let s = &mut self.sizes[label as usize];
        *s = (*s as i64 + delta) as u32;
        if *s == 0 {
            self.free.push(label);
        }
    }

    /// Forgets one leaf of component `label` (the leaf is being removed).
    pub fn forget(&mut self, label: u32) {
        if label != NONE {
            self.resize(label, -1);
        }
    }

    /// Checks that the stored sizes match the labels on the leaves. For tests.
    pub fn check_sizes(&self, g: &GateGraph) -> Result<(), String> {
        let mut counted = vec![0u32; self.sizes.len()];
        for &slot in g.leaf_slot.values() {
            let l = g.leaf(slot).component;
            if l as usize >= counted.len() || self.free.contains(&l) {
                return Err(format!("leaf {} has a dead label {l}", g.leaf(slot).id));
            }
            counted[l as usize] += 1;
        }
        for (l, (&c, &s)) in counted.iter().zip(&self.sizes).enumerate() {
            if c != s && !self.free.contains(&(l as u32)) {
                return Err(format!("component {l} has {c} leaves but records {s}"));
            }
        }
        Ok(())
    }

    /// Number of components.
    pub fn count(&self) -> usize {
        self.sizes.len() - self.free.len()
    }

    /// Labels every free leaf from scratch.
    pub fn label_all(&mut self, g: &mut GateGraph) {
        *self = Components::default();
        for slot in 0..g.leaves.capacity() as u32 {
            let leaf = g.leaf(slot);
            if leaf.component == NONE && g.leaf_slot.get(&leaf.id.raw()) == Some(&slot) {
                let label = self.fresh();
                self.flood(g, slot, NONE, label);
            }
        }
    }

    /// Relabels, from `start`, every leaf reachable through leaves labelled `from`
    /// (starting leaf included), to `to`; returns how many.
    fn flood(&mut self, g: &mut GateGraph, start: u32, from: u32, to: u32) -> u32 {
        let mut stack = vec![start];
        g.leaves.items[start as usize].component = to;
        let mut n = 1;
        while let Some(s) = stack.pop() {
            let next: Vec<u32> = g
                .linked_leaves(s)
                .filter(|&o| g.leaf(o).component == from)
                .collect();
            for o in next {
                if g.leaf(o).component == from {
                    g.leaves.items[o as usize].component = to;
                    stack.push(o);
                    n += 1;
                }
            }
        }
        self.resize(to, n as i64);
        if from != NONE {
            self.resize(from, -(n as i64));
        }
        n
    }

    /// Gives labels to new free leaves, joining the components they connect.
    ///
    /// Mid-batch, one old component may lie in several pieces that only the new leaves
    /// join, so every neighbour with a foreign label floods its own piece.
    pub fn absorb_new_leaves(&mut self, g: &mut GateGraph, created: &[u32]) {
        for &slot in created {
            let neighbours: Vec<u32> = g
                .linked_leaves(slot)
                .filter(|&o| g.leaf(o).component != NONE)
                .collect();
            let Some(keep) = neighbours
                .iter()
                .map(|&o| g.leaf(o).component)
                .max_by_key(|&l| self.sizes[l as usize])
            else {
                let label = self.fresh();
                g.leaves.items[slot as usize].component = label;
                self.resize(label, 1);
                continue;
            };
            for o in neighbours {
                let label = g.leaf(o).component;
                if label != keep {
                    self.flood(g, o, label, keep);
                }
            }
            g.leaves.items[slot as usize].component = keep;
            self.resize(keep, 1);
        }
    }

    /// After cells were blocked: finds the pieces that broke off the components of `seeds`
    /// (free leaves next to the change) and gives each a label of its own.
    pub fn split_off(&mut self, g: &mut GateGraph, seeds: &[u32]) {
        let mut by_label: Vec<(u32, u32)> =
            seeds.iter().map(|&s| (g.leaf(s).component, s)).collect();
        by_label.sort_unstable();
        by_label.dedup();
        for run in by_label.chunk_by(|a, b| a.0 == b.0) {
            if run.len() > 1 {
                let seeds: Vec<u32> = run.iter().map(|&(_, s)| s).collect();
                self.lockstep(g, run[0].0, &seeds);
            }
        }
    }

    fn lockstep(&mut self, g: &mut GateGraph, label: u32, seeds: &[u32]) {
        struct Search {
            queue: VecDeque<u32>,
            members: Vec<u32>,
            /// Union-find parent: searches that met are one.
            parent: usize,
        }
        fn root(s: &mut [Search], mut i: usize) -> usize {
            while s[i].parent != i {
                s[i].parent = s[s[i].parent].parent;
                i = s[i].parent;
            }
            i
        }
        self.epoch += 1;
        let epoch = self.epoch;
        let tag = |i: usize| (epoch << 32) | i as u64;
        let mut searches: Vec<Search> = Vec::with_capacity(seeds.len());
        let mut active = 0;
        for &seed in seeds {
            let mark = g.leaf(seed).mark;
            if mark >> 32 == epoch {
                continue; // a duplicate seed
            }
            let i = searches.len();
            g.leaves.items[seed as usize].mark = tag(i);
            searches.push(Search {
                queue: VecDeque::from([seed]),
                members: vec![seed],
                parent: i,
            });
            active += 1;
        }
        let mut turn = 0;
        let mut next = Vec::new();
        while active > 1 {
            turn = (turn + 1) % searches.len();
            if searches[turn].parent != turn || searches[turn].queue.is_empty() {
                continue;
            }
            let s = searches[turn].queue.pop_front().unwrap();
            next.clear();
            next.extend(g.linked_leaves(s));
            for &o in &next {
                let mark = g.leaf(o).mark;
                if mark >> 32 != epoch {
                    g.leaves.items[o as usize].mark = tag(turn);
                    searches[turn].queue.push_back(o);
                    searches[turn].members.push(o);
                    continue;
                }
                let other = root(&mut searches, (mark & 0xffff_ffff) as usize);
                if other != turn {
                    // Two searches met: they are in one piece. Keep `turn` as the root.
                    searches[other].parent = turn;
                    let (q, m) = (
                        std::mem::take(&mut searches[other].queue),
                        std::mem::take(&mut searches[other].members),
                    );
                    searches[turn].queue.extend(q);
                    searches[turn].members.extend(m);
                    active -= 1;
                }
            }
            if searches[turn].queue.is_empty() && active > 1 {
                // This piece is complete and some other search is still going: it broke off.
                let fresh = self.fresh();
                let members = std::mem::take(&mut searches[turn].members);
                for &m in &members {
                    g.leaves.items[m as usize].component = fresh;
                }
                self.resize(fresh, members.len() as i64);
                self.resize(label, -(members.len() as i64));
                active -= 1;
            }
        }
    }
}
