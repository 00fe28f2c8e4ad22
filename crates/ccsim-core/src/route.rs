//! Routing: every packet follows a fixed path of link indices, computed once
//! per (source, destination) pair when the simulation is built (shortest by
//! hop count, deterministic), and stored in one compact table that the
//! forwarding step indexes by (route, hop). The emulation backend routes
//! with the same code (`static_routes`).

use crate::config::{ConfigError, Scenario};
use std::collections::VecDeque;

/// Every route's links in one array, a route being a slice of it: the hot
/// forwarding step reads one compact table instead of following a pointer
/// per route (with 10,000 flows, 20,000 separately allocated routes missed
/// the cache on most hops).
pub(crate) struct Routes {
    hops: Vec<u32>,
    /// Route r is hops[start[r] .. start[r + 1]].
    start: Vec<u32>,
}

impl Routes {
    pub(crate) fn new(routes: Vec<Vec<u32>>) -> Self {
        let mut start = Vec::with_capacity(routes.len() + 1);
        let mut hops = Vec::with_capacity(routes.iter().map(Vec::len).sum());
        start.push(0);
        for r in routes {
            hops.extend_from_slice(&r);
            start.push(u32::try_from(hops.len()).expect("fewer than 2^32 route hops"));
        }
        Routes { hops, start }
    }

    /// The link a packet on route `r` takes at hop `hop`.
    #[inline]
    pub(crate) fn link(&self, r: u32, hop: u16) -> usize {
        debug_assert!((hop as usize) < self.len(r), "hop {hop} beyond route {r}");
        self.hops[self.start[r as usize] as usize + hop as usize] as usize
    }

    /// Hops of route `r`.
    #[inline]
    pub(crate) fn len(&self, r: u32) -> usize {
        (self.start[r as usize + 1] - self.start[r as usize]) as usize
    }
}

/// Shortest path by hop count (ties: lowest link index first), as a list of
/// link indices. Deterministic for a given scenario. `adj[u]` lists
/// (neighbour, link) in link order. The search stops when `dst` is first
/// discovered: its parent is fixed then, so the path is the same as a full
/// search would give.
fn bfs_route(n_nodes: usize, adj: &[Vec<(u32, u32)>], src: u32, dst: u32) -> Option<Vec<u32>> {
    if src == dst {
        return Some(Vec::new());
    }
    // parent[v] = (link into v, node it came from)
    let mut parent: Vec<Option<(u32, u32)>> = vec![None; n_nodes];
    let mut seen = vec![false; n_nodes];
    let mut q = VecDeque::new();
    seen[src as usize] = true;
    q.push_back(src);
    'search: while let Some(u) = q.pop_front() {
        for &(v, l) in &adj[u as usize] {
            if !seen[v as usize] {
                seen[v as usize] = true;
                parent[v as usize] = Some((l, u));
                if v == dst {
                    break 'search;
                }
                q.push_back(v);
            }
        }
    }
    if !seen[dst as usize] {
        return None;
    }
    let mut path = Vec::new();
    let mut v = dst;
    while v != src {
        let (l, u) = parent[v as usize]?;
        path.push(l);
        v = u;
    }
    path.reverse();
    Some(path)
}

/// Routes between nodes. A host attached by a single duplex link (one link
/// out and every link in from the same neighbour) has only one way in and
/// out, so a route between two hosts is their access links around the route
/// between their neighbours, and only that middle part needs a search,
/// cached per node pair. Set-up is then linear in the number of flows on
/// dumbbell-like topologies (a search per flow made it quadratic: 28,000
/// flows took 32 s). The routes are the ones a search from the host itself
/// would find.
struct Router<'a> {
    adj: &'a [Vec<(u32, u32)>],
    /// leaf[u] = Some((neighbour, link u → neighbour, first link neighbour → u))
    leaf: Vec<Option<(u32, u32, u32)>>,
    cache: std::collections::HashMap<(u32, u32), Option<Vec<u32>>>,
}

impl<'a> Router<'a> {
    /// `ends` gives each link's (from, to) in link order.
    fn new(adj: &'a [Vec<(u32, u32)>], ends: impl Iterator<Item = (u32, u32)>) -> Self {
        let n = adj.len();
        let mut into: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
        for (i, (from, to)) in ends.enumerate() {
            into[to as usize].push((from, i as u32));
        }
        let leaf = (0..n)
            .map(|u| match (adj[u].as_slice(), into[u].as_slice()) {
                ([(nb, out)], ins) if !ins.is_empty() && ins.iter().all(|&(f, _)| f == *nb) && *nb as usize != u => {
                    Some((*nb, *out, ins[0].1))
                }
                _ => None,
            })
            .collect();
        Router { adj, leaf, cache: Default::default() }
    }

    fn search(&mut self, s: u32, d: u32) -> Option<Vec<u32>> {
        let adj = self.adj;
        self.cache.entry((s, d)).or_insert_with(|| bfs_route(adj.len(), adj, s, d)).clone()
    }

    fn route(&mut self, s: u32, d: u32) -> Option<Vec<u32>> {
        if s == d {
            return Some(Vec::new());
        }
        let (mut head, mut a) = (Vec::new(), s);
        if let Some((nb, out, _)) = self.leaf[s as usize] {
            head.push(out);
            a = nb;
        }
        if a == d {
            return Some(head);
        }
        let (mut tail, mut b) = (None, d);
        if let Some((nb, _, inl)) = self.leaf[d as usize] {
            // the only links into d come from nb; a search takes the lowest-indexed one
            tail = Some(inl);
            b = nb;
        }
        let mid = if a == b { Vec::new() } else { self.search(a, b)? };
        head.extend(mid);
        head.extend(tail);
        Some(head)
    }
}

/// The link path (link indices) the simulation routes packets from node `s`
/// to node `d` along, for each pair; None where no path exists.
pub fn static_routes(sc: &Scenario, pairs: &[(u32, u32)]) -> Vec<Option<Vec<u32>>> {
    let adj = adjacency(sc);
    let mut router = Router::new(&adj, sc.links.iter().map(|l| (l.from, l.to)));
    pairs.iter().map(|&(s, d)| router.route(s, d)).collect()
}

/// Each node's outgoing (neighbour, link) pairs, in link order.
fn adjacency(sc: &Scenario) -> Vec<Vec<(u32, u32)>> {
    let mut adj: Vec<Vec<(u32, u32)>> = vec![Vec::new(); sc.nodes.len()];
    for (i, l) in sc.links.iter().enumerate() {
        adj[l.from as usize].push((l.to, i as u32));
    }
    adj
}

/// The routes of a validated scenario's flows and UDP sources.
pub(crate) struct Plan {
    pub routes: Routes,
    /// Each TCP flow's (forward, reverse) route.
    pub flows: Vec<(u32, u32)>,
    /// Each UDP source's route.
    pub udp: Vec<u32>,
}

/// Route every flow (both directions, one route per node pair) and every
/// UDP source; an unreachable destination is a configuration error naming
/// the flow.
pub(crate) fn plan(sc: &Scenario) -> Result<Plan, ConfigError> {
    let adj = adjacency(sc);
    let mut router = Router::new(&adj, sc.links.iter().map(|l| (l.from, l.to)));
    let mut routes: Vec<Vec<u32>> = Vec::new();
    let mut cache: std::collections::HashMap<(u32, u32), u32> = Default::default();
    let no_path = |what: String, s: u32, d: u32| {
        ConfigError(format!(
            "{what} path from node {:?} to node {:?}; accepted: nodes joined by links",
            sc.nodes[s as usize], sc.nodes[d as usize]
        ))
    };
    let mut route_of = |s: u32, d: u32, what: &str, i: usize| -> Result<u32, ConfigError> {
        if let Some(&r) = cache.get(&(s, d)) {
            return Ok(r);
        }
        let p = router.route(s, d).ok_or_else(|| no_path(format!("flows[{i}]: no {what}"), s, d))?;
        routes.push(p);
        let r = (routes.len() - 1) as u32;
        cache.insert((s, d), r);
        Ok(r)
    };
    let mut flows = Vec::with_capacity(sc.flows.len());
    for (i, f) in sc.flows.iter().enumerate() {
        let fwd = route_of(f.src, f.dst, "forward", i)?;
        let rev = route_of(f.dst, f.src, "reverse (ACK)", i)?;
        flows.push((fwd, rev));
    }
    let mut udp = Vec::with_capacity(sc.udp.len());
    for (i, u) in sc.udp.iter().enumerate() {
        let r = router.route(u.src, u.dst).ok_or_else(|| no_path(format!("udp[{i}]: no"), u.src, u.dst))?;
        routes.push(r);
        udp.push((routes.len() - 1) as u32);
    }
    Ok(Plan { routes: Routes::new(routes), flows, udp })
}

#[cfg(test)]
mod route_tests {
    use super::{bfs_route, Router};
    use crate::rng::Stream;

    /// Random graphs of routers with hosts hung off them (some by one duplex
    /// link, some by parallel links, some by links to two routers, some with
    /// one direction only): every host-pair route equals a plain search
    /// from the source.
    #[test]
    fn leaf_shortcut_gives_the_searched_route() {
        for seed in 0..40u64 {
            let mut rng = Stream::new(seed, crate::rng::StreamKind::LinkLoss, 7);
            let mut pick = |n: u32| (rng.uniform() * n as f64) as u32 % n;
            let routers = 1 + pick(5);
            let hosts = 2 + pick(12);
            let n = routers + hosts;
            let mut ends: Vec<(u32, u32)> = Vec::new();
            for r in 1..routers {
                let o = pick(r);
                ends.push((r, o));
                ends.push((o, r));
            }
            for h in routers..n {
                let r = pick(routers);
                match pick(6) {
                    0 => {
                        // parallel duplex links
                        ends.extend([(h, r), (r, h), (r, h), (h, r)]);
                    }
                    1 if routers > 1 => {
                        let r2 = (r + 1) % routers;
                        ends.extend([(h, r), (r, h), (h, r2), (r2, h)]);
                    }
                    2 => ends.push((h, r)),
                    3 => {
                        // one link out, two parallel links in
                        ends.extend([(h, r), (r, h), (r, h)]);
                    }
                    _ => ends.extend([(h, r), (r, h)]),
                }
            }
            let mut adj: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n as usize];
            for (i, &(a, b)) in ends.iter().enumerate() {
                adj[a as usize].push((b, i as u32));
            }
            let mut router = Router::new(&adj, ends.iter().copied());
            for s in 0..n {
                for d in 0..n {
                    assert_eq!(
                        router.route(s, d),
                        bfs_route(n as usize, &adj, s, d),
                        "seed {seed}: {s} -> {d}, links {ends:?}"
                    );
                }
            }
        }
    }
}
