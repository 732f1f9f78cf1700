//! Jain's fairness index (Jain, Chiu and Hawe, 1984): (sum x)^2 / (n * sum x^2), 1 when all
//! values are equal, 1/n when one takes everything.

pub fn jain_index(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    let sum: f64 = values.iter().sum();
    let sq: f64 = values.iter().map(|x| x * x).sum();
    if values.is_empty() || sq == 0.0 {
        return 1.0;
    }
    sum * sum / (n * sq)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_shares_give_one_and_a_monopoly_one_over_n() {
        assert!((jain_index(&[3.0, 3.0, 3.0]) - 1.0).abs() < 1e-12);
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        assert!((jain_index(&[1.0, 2.0]) - 0.9).abs() < 1e-12);
    }
}
