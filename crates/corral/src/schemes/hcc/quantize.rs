//! Lloyd-Max quantization of flow demands (HCC section III-C, after Ketabi and Ganjali, NOMS
//! 2020): `bins` levels fitted to the demands an agent has seen, so that flows with close
//! demands share one value. Lloyd's algorithm alternates two steps until the levels stop
//! moving: each boundary is the midpoint between neighbouring levels, and each level the mean
//! of the values between its boundaries (a level with no value keeps its place). Both steps
//! never raise the mean squared error.

/// Fitted levels, increasing.
#[derive(Clone, Debug, PartialEq)]
pub struct Quantizer {
    levels: Vec<f64>,
}

impl Quantizer {
    /// Fits at most `bins` levels to the finite values in `values` (levels start at
    /// quantiles). With no finite value there is no level and [`Self::quantize`] returns its
    /// input.
    pub fn fit(values: &[f64], bins: usize, iterations: usize) -> Quantizer {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        v.sort_by(f64::total_cmp);
        if v.is_empty() || bins == 0 {
            return Quantizer { levels: Vec::new() };
        }
        let bins = bins.min(v.len());
        let mut levels: Vec<f64> =
            (0..bins).map(|k| v[((2 * k + 1) * v.len()) / (2 * bins)]).collect();
        levels.dedup();
        for _ in 0..iterations {
            let mut sum = vec![0.0; levels.len()];
            let mut count = vec![0usize; levels.len()];
            for &x in &v {
                let k = nearest(&levels, x);
                sum[k] += x;
                count[k] += 1;
            }
            let next: Vec<f64> = levels
                .iter()
                .enumerate()
                .map(|(k, &l)| if count[k] > 0 { sum[k] / count[k] as f64 } else { l })
                .collect();
            let moved =
                next.iter().zip(&levels).any(|(a, b)| (a - b).abs() > 1e-12 * b.abs().max(1.0));
            levels = next;
            if !moved {
                break;
            }
        }
        Quantizer { levels }
    }

    pub fn levels(&self) -> &[f64] {
        &self.levels
    }

    /// The level nearest `x` (ties to the lower); infinite demands stay infinite, and a
    /// zero demand (an idle flow: an on-off application's off period) stays 0, since any
    /// level above it would reserve capacity for a flow that sends nothing.
    pub fn quantize(&self, x: f64) -> f64 {
        if self.levels.is_empty() || !x.is_finite() || x == 0.0 {
            return x;
        }
        self.levels[nearest(&self.levels, x)]
    }

    /// Mean squared error of quantizing `values`.
    pub fn mse(&self, values: &[f64]) -> f64 {
        let finite: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        finite.iter().map(|&x| (self.quantize(x) - x).powi(2)).sum::<f64>()
            / finite.len().max(1) as f64
    }
}

/// Index of the level nearest `x` in increasing `levels` (boundaries at midpoints).
fn nearest(levels: &[f64], x: f64) -> usize {
    let i = levels.partition_point(|&l| l < x);
    if i == 0 {
        0
    } else if i == levels.len() || x - levels[i - 1] <= levels[i] - x {
        i - 1
    } else {
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_clusters_get_their_means_and_quantize_to_the_nearest_level() {
        let values = [1.0, 1.2, 0.8, 1.0, 10.0, 11.0, 9.0, 10.0];
        let q = Quantizer::fit(&values, 2, 50);
        assert_eq!(q.levels(), &[1.0, 10.0]);
        assert_eq!((q.quantize(4.0), q.quantize(6.0), q.quantize(5.5)), (1.0, 10.0, 1.0));
        assert!(q.quantize(f64::INFINITY).is_infinite());
        assert_eq!(Quantizer::fit(&[], 4, 10).quantize(3.0), 3.0);
        let q = Quantizer::fit(&[0.0, 1.0, 1.2, 10.0], 2, 50);
        assert!(q.levels()[0] > 0.0, "0 shares its bin: {:?}", q.levels());
        assert_eq!(q.quantize(0.0), 0.0, "a zero demand is no demand");
    }

    #[test]
    fn more_iterations_and_more_bins_never_raise_the_error() {
        let mut rng = crate::sim::Rng::stream(3, 0, 0);
        let values: Vec<f64> = (0..500).map(|_| (rng.unit() * 10.0).exp()).collect();
        let mut last = f64::INFINITY;
        for it in [0, 1, 2, 5, 20] {
            let e = Quantizer::fit(&values, 8, it).mse(&values);
            assert!(e <= last * (1.0 + 1e-12), "{it} iterations: {e} > {last}");
            last = e;
        }
        let coarse = Quantizer::fit(&values, 4, 50).mse(&values);
        let fine = Quantizer::fit(&values, 16, 50).mse(&values);
        assert!(fine < coarse);
    }
}
