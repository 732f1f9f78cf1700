//! SCC's private congestion control (section IV): each slot τ a tunnel computes its
//! reference weight W'_t from its flows and, with in-tunnel scheduling on, each flow's rate
//! within the tunnel's allowed bandwidth BW_res.
//!
//! - **DS (Algorithm 1).** x_s = M_s / δ_s (bytes left over time to deadline); W'_t = Σ x_s.
//!   If the tunnel grants at least that, each flow sends at x_s. Otherwise flows are admitted
//!   in ascending x while their sum fits; the rest are served in earliest-deadline order from
//!   what is left, late flows (δ ≤ 0) last.
//! - **CS (Algorithm 2).** W'_t = Σ 1 / M_s; in the tunnel, shortest remaining first.
//! - **LS (Algorithm 3).** x_s = (Q_s − ε Q*) / τ when Q_s > ε Q* (Q_s the flow's queue in
//!   the tunnel); W'_t = Σ x_s. If it fits each flow sends at x_s; otherwise flows are admitted
//!   by descending V_s = Q_s + Q* − 2 ε Q* while they fit. Every flow keeps a floor of 10
//!   packets per RTT (the paper's "at least 10 × N_f").
//!
//! What is left after the admitted flows goes, whole, to the next flow in service order
//! (strict priority inside the tunnel), and when every flow fits, to the first one (earliest
//! deadline, largest V): **our choice**, work-conserving, where the algorithms as written
//! leave it idle. A flow's own window may not let it use its rate (a shared tunnel queue
//! would then serve the next flow): [`spill`] passes what a flow cannot use on in service
//! order. Rates are in bit/s.

/// A DS flow: bytes left and seconds to its deadline (≤ 0: late).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DsFlow {
    pub left_bits: f64,
    pub to_deadline_s: f64,
}

/// Algorithm 1's reference weight: Σ x_s over the flows not yet late (a late flow's need is
/// unbounded; it is served last instead).
pub fn ds_reference(flows: &[DsFlow]) -> f64 {
    flows.iter().filter(|f| f.to_deadline_s > 0.0).map(|f| f.left_bits / f.to_deadline_s).sum()
}

/// Algorithm 1's in-tunnel rates within `granted` bit/s.
pub fn ds_rates(flows: &[DsFlow], granted: f64) -> Vec<f64> {
    let need: Vec<f64> = flows
        .iter()
        .map(|f| if f.to_deadline_s > 0.0 { f.left_bits / f.to_deadline_s } else { f64::INFINITY })
        .collect();
    let mut by_need: Vec<usize> = (0..flows.len()).collect();
    by_need.sort_by(|&a, &b| need[a].total_cmp(&need[b]).then(a.cmp(&b)));
    let mut rates = vec![0.0; flows.len()];
    let mut left = granted;
    let mut rest = Vec::new();
    for i in by_need {
        if need[i] <= left {
            rates[i] = need[i];
            left -= need[i];
        } else {
            rest.push(i);
        }
    }
    // Earliest deadline first among the rest (or among all, when all fit); late flows last.
    let mut order = if rest.is_empty() { (0..flows.len()).collect() } else { rest };
    order.sort_by(|&a, &b| {
        let (da, db) = (flows[a].to_deadline_s, flows[b].to_deadline_s);
        (da <= 0.0).cmp(&(db <= 0.0)).then(da.total_cmp(&db)).then(a.cmp(&b))
    });
    give_rest(&mut rates, &order, left);
    rates
}

/// Algorithm 2's reference weight: Σ 1 / M_s (bytes).
pub fn cs_reference(left_bytes: &[f64]) -> f64 {
    left_bytes.iter().filter(|&&m| m > 0.0).map(|m| 1.0 / m).sum()
}

/// Algorithm 2's in-tunnel order: shortest remaining first; the whole grant goes to the
/// first.
pub fn cs_rates(left_bytes: &[f64], granted: f64) -> Vec<f64> {
    let mut order: Vec<usize> = (0..left_bytes.len()).collect();
    order.sort_by(|&a, &b| left_bytes[a].total_cmp(&left_bytes[b]).then(a.cmp(&b)));
    let mut rates = vec![0.0; left_bytes.len()];
    give_rest(&mut rates, &order, granted);
    rates
}

/// Algorithm 3's settings: the target queue Q* (bits), ε, the slot τ, and the floor per flow
/// (10 packets per RTT, bit/s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LsParams {
    pub q_star_bits: f64,
    pub epsilon: f64,
    pub slot_s: f64,
    pub floor: f64,
}

fn ls_need(p: &LsParams, q_bits: f64) -> f64 {
    if q_bits > p.epsilon * p.q_star_bits {
        (q_bits - p.epsilon * p.q_star_bits) / p.slot_s
    } else {
        0.0
    }
}

/// Algorithm 3's reference weight: Σ max(x_s, floor).
pub fn ls_reference(p: &LsParams, queues_bits: &[f64]) -> f64 {
    queues_bits.iter().map(|&q| ls_need(p, q).max(p.floor)).sum()
}

/// Algorithm 3's in-tunnel rates within `granted` (the paper's BW_res): each flow's x_s (at
/// least the floor) if all fit, else admission by descending V_s while they fit, the rest of
/// the grant in that order; every flow keeps its floor. The floor (10 packets per RTT, "the
/// average bandwidth of a tunnel to be at least 10 x N_f") is what the tunnel asks for (its
/// reference weight); the rates never exceed the grant, so when the grant is below N_f floors
/// each flow's floor is an equal share of it.
pub fn ls_rates(p: &LsParams, queues_bits: &[f64], granted: f64) -> Vec<f64> {
    let floor = p.floor.min(granted.max(0.0) / queues_bits.len().max(1) as f64);
    let p = &LsParams { floor, ..*p };
    let need: Vec<f64> = queues_bits.iter().map(|&q| ls_need(p, q).max(p.floor)).collect();
    let value = |q: f64| q + p.q_star_bits - 2.0 * p.epsilon * p.q_star_bits;
    let mut order: Vec<usize> = (0..need.len()).collect();
    order.sort_by(|&a, &b| value(queues_bits[b]).total_cmp(&value(queues_bits[a])).then(a.cmp(&b)));
    if need.iter().sum::<f64>() <= granted {
        let mut rates = need.clone();
        give_rest(&mut rates, &order, granted - need.iter().sum::<f64>());
        return rates;
    }
    let mut rates = vec![p.floor; need.len()];
    let mut left = (granted - p.floor * need.len() as f64).max(0.0);
    let mut rest = Vec::new();
    for i in order {
        let extra = need[i] - p.floor;
        if extra <= left {
            rates[i] += extra;
            left -= extra;
        } else {
            rest.push(i);
        }
    }
    for &i in &rest {
        rates[i] -= p.floor;
    }
    give_rest(&mut rates, &rest, left);
    for &i in &rest {
        rates[i] += p.floor;
    }
    rates
}

/// Strict priority: the first flow of `order` gets all of `left`, the others nothing more.
fn give_rest(rates: &mut [f64], order: &[usize], left: f64) {
    if let Some(&first) = order.first() {
        rates[first] += left.max(0.0);
    }
}

/// Caps each flow's rate at what it can use (`caps`, e.g. its window over its RTT) and gives
/// the excess to the flows after it in `order`, each up to its cap; what nobody can use stays
/// with the first flow (the grant is kept whole).
pub fn spill(rates: &mut [f64], caps: &[f64], order: &[usize]) {
    let mut excess = 0.0;
    for (r, &c) in rates.iter_mut().zip(caps) {
        if *r > c {
            excess += *r - c;
            *r = c;
        }
    }
    for &i in order {
        let room = (caps[i] - rates[i]).max(0.0).min(excess);
        rates[i] += room;
        excess -= room;
    }
    give_rest(rates, order, excess);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ds(left_bits: f64, to_deadline_s: f64) -> DsFlow {
        DsFlow { left_bits, to_deadline_s }
    }

    #[test]
    fn ds_sends_each_flow_at_least_its_need_when_the_grant_covers_it() {
        let flows = [ds(1e6, 0.01), ds(4e6, 0.02)];
        assert_eq!(ds_reference(&flows), 300e6);
        assert_eq!(
            ds_rates(&flows, 400e6),
            vec![200e6, 200e6],
            "the spare 100 to the earliest deadline"
        );
    }

    // Needs 100, 200 and 300 Mbps in 350: the two smallest are admitted (300), the third is
    // left the remaining 50; a late flow comes after a flow that can still make it.
    #[test]
    fn ds_admits_the_smallest_needs_then_serves_by_deadline() {
        let flows = [ds(3e6, 0.01), ds(1e6, 0.01), ds(2e6, 0.01)];
        assert_eq!(ds_rates(&flows, 350e6), vec![50e6, 100e6, 200e6]);
        let flows = [ds(1e6, -0.001), ds(9e6, 0.01), ds(1e6, 0.01)];
        let r = ds_rates(&flows, 150e6);
        assert_eq!(
            r,
            vec![0.0, 50e6, 100e6],
            "admit 100, then the 900 Mbps flow before the late one"
        );
        assert_eq!(ds_reference(&flows), 1000e6, "a late flow adds no reference weight");
    }

    #[test]
    fn cs_weights_by_inverse_size_and_serves_the_shortest() {
        assert!((cs_reference(&[1000.0, 4000.0]) - 1.25e-3).abs() < 1e-15);
        assert_eq!(cs_rates(&[5000.0, 1000.0, 3000.0], 1e9), vec![0.0, 1e9, 0.0]);
    }

    #[test]
    fn spill_passes_what_a_flow_cannot_use_down_the_service_order() {
        // Order 1, 0, 2: flow 1 has 900 but can use 300; flow 0 takes 200 more (its cap),
        // flow 2 the last 400.
        let mut r = vec![0.0, 900.0, 100.0];
        spill(&mut r, &[200.0, 300.0, 500.0], &[1, 0, 2]);
        assert_eq!(r, vec![200.0, 300.0, 500.0]);
        // Nobody can use the last 100: it stays with the first flow in order.
        let mut r = vec![0.0, 1000.0];
        spill(&mut r, &[500.0, 400.0], &[1, 0]);
        assert_eq!(r, vec![500.0, 500.0]);
    }

    // Q* = 100 kbit, epsilon 0.5, tau 1 ms, floor 1 Mbps. Queues 150, 40 and 90 kbit need 100,
    // 0 (floor) and 40 Mbps.
    #[test]
    fn ls_drains_queues_above_the_target_with_a_floor() {
        let p = LsParams { q_star_bits: 100e3, epsilon: 0.5, slot_s: 1e-3, floor: 1e6 };
        let q = [150e3, 40e3, 90e3];
        assert_eq!(ls_reference(&p, &q), 141e6);
        assert_eq!(
            ls_rates(&p, &q, 200e6),
            vec![159e6, 1e6, 40e6],
            "the spare 59 to the largest V"
        );
        // 120 Mbps: floors 3, then by V (150k first: +99 fits, 90k: +39 does not); the rest
        // (18) goes to the 90 kbit flow.
        let r = ls_rates(&p, &q, 120e6);
        assert_eq!(r, vec![100e6, 1e6, 19e6]);
        assert!((r.iter().sum::<f64>() - 120e6).abs() < 1.0);
    }

    // A grant below the flows' floors (3 flows at 1 Mbps, 1.5 Mbps granted): the rates stay
    // within the grant, an equal share each where the queues need nothing more, and the
    // grant goes by V where one does; the reference still asks for the floors.
    #[test]
    fn ls_rates_never_exceed_the_grant() {
        let p = LsParams { q_star_bits: 100e3, epsilon: 0.5, slot_s: 1e-3, floor: 1e6 };
        assert_eq!(ls_rates(&p, &[0.0, 0.0, 0.0], 1.5e6), vec![0.5e6, 0.5e6, 0.5e6]);
        let r = ls_rates(&p, &[150e3, 40e3, 90e3], 1.5e6);
        assert!(r.iter().sum::<f64>() <= 1.5e6 + 1.0, "{r:?}");
        assert!(
            r.iter().all(|&x| x >= 0.5e6 - 1.0),
            "every flow keeps its share of the floor: {r:?}"
        );
        assert_eq!(ls_reference(&p, &[0.0, 0.0, 0.0]), 3e6, "the tunnel still asks for 10 x N_f");
        assert_eq!(ls_rates(&p, &[0.0, 0.0], 0.0), vec![0.0, 0.0], "no grant, no rate");
    }
}
