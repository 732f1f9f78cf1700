//! R2C2's routing search (SIGCOMM 2015, section 3.4): a genetic algorithm over bit strings,
//! one bit per long flow (RPS or VLB), whose fitness is the rack's aggregate throughput under
//! the rate computation. The population holds the current assignment and random others (the
//! paper's), and here also every fixed assignment the caller gives (all flows on one
//! protocol), so that the result is never predicted below any of them;
//! each generation keeps the best tenth, and fills the rest with one-point crossovers of
//! parents picked by tournament, each bit then flipped with the mutation probability. The
//! search stops after `generations`, or when the best fitness has not improved for
//! `patience` generations.

use crate::sim::Rng;

/// GA settings (the paper's population 100 and mutation 0.01 by default).
#[derive(Clone, Copy, Debug)]
pub struct GaSettings {
    pub population: usize,
    pub mutation: f64,
    pub generations: usize,
    pub patience: usize,
}

/// The best assignment found, its fitness, and the generations run.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    pub genes: Vec<bool>,
    pub fitness: f64,
    pub generations: usize,
}

fn tournament<'a>(rng: &mut Rng, ranked: &'a [(f64, Vec<bool>)]) -> &'a [bool] {
    let a = rng.below(ranked.len() as u64) as usize;
    let b = rng.below(ranked.len() as u64) as usize;
    &ranked[a.min(b)].1 // ranked best first: the lower index wins
}

/// Searches from `current` (and the other starting assignments `also`) for the assignment
/// with the highest `fitness`.
pub fn search(
    current: &[bool],
    also: &[Vec<bool>],
    s: GaSettings,
    rng: &mut Rng,
    mut fitness: impl FnMut(&[bool]) -> f64,
) -> Found {
    let n = current.len();
    let pop = s.population.max(2);
    let mut population: Vec<Vec<bool>> = vec![current.to_vec()];
    population.extend(also.iter().filter(|g| g.len() == n).take(pop - 1).cloned());
    while population.len() < pop {
        population.push((0..n).map(|_| rng.below(2) == 1).collect());
    }
    let mut best = Found { genes: current.to_vec(), fitness: f64::NEG_INFINITY, generations: 0 };
    let mut stale = 0;
    for generation in 0..s.generations.max(1) {
        let mut ranked: Vec<(f64, Vec<bool>)> =
            population.drain(..).map(|g| (fitness(&g), g)).collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
        best.generations = generation + 1;
        if ranked[0].0 > best.fitness * (1.0 + 1e-9) || best.fitness == f64::NEG_INFINITY {
            best.fitness = ranked[0].0;
            best.genes = ranked[0].1.clone();
            stale = 0;
        } else {
            stale += 1;
            if stale >= s.patience {
                break;
            }
        }
        let elite = (pop / 10).max(1);
        population = ranked.iter().take(elite).map(|r| r.1.clone()).collect();
        while population.len() < pop {
            let (a, b) = (tournament(rng, &ranked), tournament(rng, &ranked));
            let cut = if n > 1 { 1 + rng.below(n as u64 - 1) as usize } else { 0 };
            let mut child: Vec<bool> = a[..cut].iter().chain(&b[cut..]).copied().collect();
            for g in child.iter_mut() {
                if rng.unit() < s.mutation {
                    *g = !*g;
                }
            }
            population.push(child);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_planted_assignment_and_never_returns_worse_than_the_start() {
        let target: Vec<bool> = (0..24).map(|i| i % 3 == 0).collect();
        let score = |g: &[bool]| g.iter().zip(&target).filter(|(a, b)| a == b).count() as f64;
        let s = GaSettings { population: 100, mutation: 0.01, generations: 200, patience: 30 };
        let found = search(&[false; 24], &[], s, &mut Rng::stream(7, 0, 0), score);
        assert_eq!(found.genes, target, "after {} generations", found.generations);
        assert_eq!(found.fitness, 24.0);
        // A start that is already optimal stays.
        let again = search(&target, &[], s, &mut Rng::stream(8, 0, 0), score);
        assert_eq!(again.fitness, 24.0);
        assert!(again.generations <= 31, "stops once it stops improving");
    }

    // A deceptive landscape: all-true scores highest, and every other assignment scores
    // the more the fewer true bits it holds. From all-false, with one generation and no
    // mutation, the random population and its crossovers cannot reach all-true; given as a
    // starting assignment, all-true is found (it is never lost: the elite keeps it).
    #[test]
    fn a_given_starting_assignment_is_never_ranked_away() {
        let n = 40;
        let score = |g: &[bool]| {
            let ones = g.iter().filter(|&&b| b).count();
            if ones == n {
                100.0
            } else {
                (n - ones) as f64
            }
        };
        let s = GaSettings { population: 20, mutation: 0.0, generations: 3, patience: 3 };
        let alone = search(&vec![false; n], &[], s, &mut Rng::stream(9, 0, 0), score);
        assert!(alone.fitness < 100.0, "{alone:?}");
        let all = [vec![false; n], vec![true; n]];
        let found = search(&vec![false; n], &all, s, &mut Rng::stream(9, 0, 0), score);
        assert_eq!(found.fitness, 100.0);
        assert!(found.genes.iter().all(|&b| b));
    }
}
