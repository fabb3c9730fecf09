//! Statistics of an ablation: paired effects on log throughput, Student-t
//! intervals made simultaneous over all comparisons (Bonferroni), verdicts
//! the interval supports, and how many repeats a clear verdict would need.
//!
//! Why this shape:
//! - **Paired by round.** Every round runs each variant once, in a random
//!   order; the difference of two variants within a round cancels the slow
//!   drift of a shared lab (a build starting on the same host) that would
//!   otherwise pose as an effect or hide one.
//! - **Log throughput.** Load on a host scales throughput by a factor, so
//!   differences of logarithms are closer to normal and read as percent.
//! - **Simultaneous intervals.** With 10 groups × 8 cells, 80 separate 95%
//!   intervals would call about 4 effects out of pure noise; each interval
//!   is taken at `1 − α/m` so that, over all `m` comparisons together, the
//!   chance of any false verdict stays at most `α`.
//!
//! The Student t distribution comes from statrs (a maintained statistics
//! library) rather than our own special functions; the tests check it
//! against table values.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Mean, sample standard deviation and count.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (0 for one value).
    pub sd: f64,
    /// Number of values.
    pub n: usize,
}

impl Stats {
    /// Of a list of values.
    pub fn of(v: &[f64]) -> Stats {
        let n = v.len();
        if n == 0 {
            return Stats { mean: 0.0, sd: 0.0, n: 0 };
        }
        let mean = v.iter().sum::<f64>() / n as f64;
        let sd = if n > 1 { (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt() } else { 0.0 };
        Stats { mean, sd, n }
    }
}

fn student(df: f64) -> StudentsT {
    // df > 0 always holds here (at least one degree of freedom); a bad df
    // would be a bug in the caller, so fall back to the normal limit.
    StudentsT::new(0.0, 1.0, df).unwrap_or_else(|_| StudentsT::new(0.0, 1.0, f64::INFINITY).expect("normal"))
}

/// Cumulative distribution of Student's t with `df` degrees of freedom.
pub fn t_cdf(t: f64, df: f64) -> f64 {
    student(df).cdf(t)
}

/// Quantile of Student's t: the `t` with `t_cdf(t, df) = p`, for
/// 0.5 ≤ p < 1 (`p` is clamped to that range).
pub fn t_quantile(p: f64, df: f64) -> f64 {
    student(df).inverse_cdf(p.clamp(0.5, 1.0 - 1e-15))
}

/// What an interval supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// The whole interval is above zero and the estimate at least the minimum effect.
    #[serde(rename = "helps")]
    Helps,
    /// The whole interval is below zero and the estimate at most minus the minimum effect.
    #[serde(rename = "hurts")]
    Hurts,
    /// Anything else: the interval straddles zero, the effect is below the
    /// minimum, or there are too few repeats.
    #[serde(rename = "no measurable effect")]
    NoEffect,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::Helps => "helps",
            Verdict::Hurts => "hurts",
            Verdict::NoEffect => "no measurable effect",
        })
    }
}

/// The effect of one comparison (a group in a cell, or the whole plan).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Effect {
    /// Rounds with a value on both sides.
    pub n: usize,
    /// Estimated effect, percent of throughput (positive: the steps raise it).
    pub percent: f64,
    /// Lower end of the simultaneous interval, percent.
    pub low: f64,
    /// Upper end, percent.
    pub high: f64,
    /// Verdict at the chosen confidence and minimum effect.
    pub verdict: Verdict,
    /// When the interval straddles zero: repeats (rounds) that would make
    /// an effect of this size (or of the minimum effect, if larger) clear,
    /// assuming the spread stays as measured; `None` when a verdict stands,
    /// or with fewer than two rounds (no spread to go by).
    pub repeats_needed: Option<u32>,
    /// Why the verdict is what it is, when that is not obvious.
    pub note: String,
}

/// Settings of the analysis.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// Family-wise confidence over all comparisons (0.95).
    pub confidence: f64,
    /// Number of comparisons the confidence is shared by.
    pub comparisons: usize,
    /// Smallest effect (percent) called helps or hurts.
    pub min_effect_percent: f64,
}

impl Analysis {
    /// Two-sided per-comparison tail probability after Bonferroni.
    pub fn alpha_each(&self) -> f64 {
        (1.0 - self.confidence) / self.comparisons.max(1) as f64
    }
}

fn to_pct(log_ratio: f64) -> f64 {
    100.0 * (log_ratio.exp() - 1.0)
}

/// Largest number of repeats the estimate reports; beyond that it says "more than".
pub const MAX_REPEATS_ESTIMATE: u32 = 1000;

/// Effect of having a set of steps: `with[r]` and `without[r]` are the
/// throughputs of round `r` with and without them (`None`: missing or
/// failed trial; only rounds with both are used).
pub fn paired_effect(with: &[Option<f64>], without: &[Option<f64>], a: &Analysis) -> Effect {
    let d: Vec<f64> = with
        .iter()
        .zip(without)
        .filter_map(|(x, y)| match (x, y) {
            (Some(x), Some(y)) if *x > 0.0 && *y > 0.0 => Some(x.ln() - y.ln()),
            _ => None,
        })
        .collect();
    let n = d.len();
    if n == 0 {
        return Effect {
            n,
            percent: 0.0,
            low: 0.0,
            high: 0.0,
            verdict: Verdict::NoEffect,
            repeats_needed: None,
            note: "no round with both variants measured".into(),
        };
    }
    let mean = d.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return Effect {
            n,
            percent: to_pct(mean),
            low: f64::NEG_INFINITY,
            high: f64::INFINITY,
            verdict: Verdict::NoEffect,
            repeats_needed: None,
            note: "one round: no spread to judge it by (run at least 2 repeats)".into(),
        };
    }
    let sd = (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    let p = 1.0 - a.alpha_each() / 2.0;
    let half = t_quantile(p, (n - 1) as f64) * sd / (n as f64).sqrt();
    let (lo, hi) = (mean - half, mean + half);
    let min = (1.0 + a.min_effect_percent / 100.0).ln();
    let (verdict, note) = if lo > 0.0 && mean >= min {
        (Verdict::Helps, String::new())
    } else if hi < 0.0 && -mean >= min {
        (Verdict::Hurts, String::new())
    } else if lo > 0.0 || hi < 0.0 {
        (Verdict::NoEffect, format!("clear of zero but below the {}% minimum effect", a.min_effect_percent))
    } else {
        (Verdict::NoEffect, String::new())
    };
    let repeats_needed = if lo <= 0.0 && hi >= 0.0 { Some(repeats_for(mean.abs().max(min), sd, p)) } else { None };
    Effect { n, percent: to_pct(mean), low: to_pct(lo), high: to_pct(hi), verdict, repeats_needed, note }
}

/// Smallest number of rounds whose interval half-width, at this spread,
/// is below `effect` (log scale): then an effect of that size would not
/// straddle zero. Capped at [`MAX_REPEATS_ESTIMATE`] + 1 ("more than").
pub fn repeats_for(effect: f64, sd: f64, p: f64) -> u32 {
    if sd <= 0.0 {
        return 2;
    }
    if effect <= 0.0 {
        return MAX_REPEATS_ESTIMATE + 1;
    }
    // The half-width falls as n grows: bisect for the first n below `effect`.
    let half = |n: u32| t_quantile(p, f64::from(n - 1)) * sd / f64::from(n).sqrt();
    if half(MAX_REPEATS_ESTIMATE) >= effect {
        return MAX_REPEATS_ESTIMATE + 1;
    }
    let (mut lo, mut hi) = (1, MAX_REPEATS_ESTIMATE);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if half(mid) < effect {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// A small deterministic generator (SplitMix64) for the run order: the
/// order is recorded as a seed, so `--resume` recomputes the same order.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// From a seed.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0), without modulo bias worth mentioning for small n.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Fisher–Yates shuffle.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }

    /// Standard normal (Box–Muller), for simulations in tests and benches.
    pub fn normal(&mut self) -> f64 {
        let u1 = ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
        let u2 = ((self.next_u64() >> 11) as f64) / (1u64 << 53) as f64;
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_the_tables() {
        // Two-sided 95% and 99% critical values (any statistics table).
        for (p, df, want) in [
            (0.975, 1.0, 12.706),
            (0.975, 2.0, 4.303),
            (0.975, 4.0, 2.776),
            (0.975, 10.0, 2.228),
            (0.975, 30.0, 2.042),
            (0.995, 5.0, 4.032),
            (0.995, 10.0, 3.169),
            (0.95, 3.0, 2.353),
            (0.9995, 8.0, 5.041),
        ] {
            let got = t_quantile(p, df);
            assert!((got - want).abs() < 2e-3, "t({p}, {df}) = {got}, table {want}");
        }
        assert!((t_cdf(0.0, 7.0) - 0.5).abs() < 1e-12);
        assert!((t_cdf(-2.776, 4.0) - 0.025).abs() < 1e-4);
    }

    fn analysis(m: usize) -> Analysis {
        Analysis { confidence: 0.95, comparisons: m, min_effect_percent: 1.0 }
    }

    #[test]
    fn a_clear_effect_gets_a_verdict_and_noise_does_not() {
        let base = [100.0, 90.0, 110.0, 95.0, 105.0];
        let with: Vec<Option<f64>> = base.iter().map(|x| Some(x * 1.5)).collect();
        let without: Vec<Option<f64>> = base.iter().map(|x| Some(*x)).collect();
        let e = paired_effect(&with, &without, &analysis(3));
        assert_eq!(e.verdict, Verdict::Helps);
        assert!((e.percent - 50.0).abs() < 1e-9, "{e:?}");
        let e = paired_effect(&without, &with, &analysis(3));
        assert_eq!(e.verdict, Verdict::Hurts);
        assert!((e.percent + 33.33).abs() < 0.01, "{e:?}");
        // Straddling zero: no verdict, and a repeats estimate.
        let a = [Some(100.0), Some(104.0), Some(97.0), Some(101.0)];
        let b = [Some(101.0), Some(99.0), Some(100.0), Some(102.0)];
        let e = paired_effect(&a, &b, &analysis(1));
        assert_eq!(e.verdict, Verdict::NoEffect);
        assert!(e.low < 0.0 && e.high > 0.0, "{e:?}");
        assert!(e.repeats_needed.unwrap() > 4, "{e:?}");
    }

    #[test]
    fn small_but_clear_effects_are_below_the_minimum() {
        let with: Vec<Option<f64>> = (0..6).map(|i| Some(100.5 + f64::from(i) * 0.001)).collect();
        let without: Vec<Option<f64>> = (0..6).map(|_| Some(100.0)).collect();
        let e = paired_effect(&with, &without, &analysis(1));
        assert!(e.low > 0.0);
        assert_eq!(e.verdict, Verdict::NoEffect);
        assert!(e.note.contains("minimum"), "{e:?}");
    }

    #[test]
    fn one_round_or_missing_pairs() {
        let e = paired_effect(&[Some(1.0)], &[Some(2.0)], &analysis(1));
        assert_eq!(e.verdict, Verdict::NoEffect);
        assert_eq!(e.n, 1);
        let e = paired_effect(&[Some(1.0), None], &[None, Some(2.0)], &analysis(1));
        assert_eq!(e.n, 0);
    }

    /// Pure noise (identical variants): over many simulated ablations of
    /// 4 groups × 2 cells with 6 rounds and lognormal noise of 10% plus a
    /// drift shared by the round, the share of ablations with *any* helps
    /// or hurts must stay at or below α = 5% (Bonferroni guarantees it;
    /// without it, about a third of them would call something).
    #[test]
    fn pure_noise_calls_nothing_at_the_family_wise_rate() {
        let mut rng = SplitMix64::new(20_261_201);
        let (groups, cells, rounds, sims) = (4, 2, 6, 600);
        let a = Analysis { confidence: 0.95, comparisons: (groups + 1) * cells, min_effect_percent: 0.0 };
        let mut any_call = 0;
        let mut any_call_uncorrected = 0;
        for _ in 0..sims {
            let mut called = false;
            let mut called_unc = false;
            for _ in 0..cells {
                // variants: full, untuned, one per group
                let mut v: Vec<Vec<Option<f64>>> = vec![Vec::new(); groups + 2];
                for _ in 0..rounds {
                    let drift = 0.3 * rng.normal();
                    for x in v.iter_mut() {
                        x.push(Some(1000.0 * (drift + 0.1 * rng.normal()).exp()));
                    }
                }
                for g in 1..groups + 2 {
                    let e = paired_effect(&v[0], &v[g], &a);
                    called |= e.verdict != Verdict::NoEffect;
                    let e1 = paired_effect(&v[0], &v[g], &Analysis { comparisons: 1, ..a });
                    called_unc |= e1.verdict != Verdict::NoEffect;
                }
            }
            any_call += usize::from(called);
            any_call_uncorrected += usize::from(called_unc);
        }
        let rate = any_call as f64 / f64::from(sims);
        let unc = any_call_uncorrected as f64 / f64::from(sims);
        assert!(rate <= 0.05, "family-wise false verdict rate {rate}");
        assert!(unc > 0.15, "the uncorrected rate should be visibly higher: {unc}");
    }

    /// Effects exactly at the minimum effect and exactly zero: rounds with
    /// the same ratio have no spread, so the interval is the mean itself.
    #[test]
    fn effects_exactly_at_the_minimum_or_at_zero() {
        // ln 1.5 - ln 1 = ln(1 + 50 / 100): the minimum effect to the bit.
        let a = Analysis { confidence: 0.95, comparisons: 1, min_effect_percent: 50.0 };
        let (up, one) = ([Some(1.5), Some(1.5)], [Some(1.0), Some(1.0)]);
        let e = paired_effect(&up, &one, &a);
        assert_eq!((e.verdict, e.note.as_str(), e.repeats_needed), (Verdict::Helps, "", None), "{e:?}");
        let e = paired_effect(&one, &up, &a);
        assert_eq!((e.verdict, e.note.as_str(), e.repeats_needed), (Verdict::Hurts, "", None), "{e:?}");
        // No change at all (interval [0, 0]): no verdict, no "clear of
        // zero" note, and a repeats estimate (2: no spread), also with a
        // minimum effect of 0.
        for min in [0.0, 1.0] {
            let a = Analysis { min_effect_percent: min, ..a };
            let e = paired_effect(&one, &one, &a);
            assert_eq!((e.low, e.high), (0.0, 0.0), "{e:?}");
            assert_eq!((e.verdict, e.note.as_str(), e.repeats_needed), (Verdict::NoEffect, "", Some(2)), "{e:?}");
        }
    }

    /// The repeats estimate at the edges of its bisection: an effect equal
    /// to the half-width at n rounds needs n + 1 (below, not at); one equal
    /// to the half-width at the cap is more than the cap.
    #[test]
    fn repeats_for_an_effect_exactly_at_a_half_width() {
        let (p, sd) = (0.975, 0.2);
        let half = |n: u32| t_quantile(p, f64::from(n - 1)) * sd / f64::from(n).sqrt();
        for n in [3, 10, 77, 500] {
            assert_eq!(repeats_for(half(n), sd, p), n + 1, "n = {n}");
        }
        let cap = half(MAX_REPEATS_ESTIMATE);
        assert_eq!(repeats_for(cap, sd, p), MAX_REPEATS_ESTIMATE + 1);
        assert_eq!(repeats_for(cap * (1.0 + 1e-12), sd, p), MAX_REPEATS_ESTIMATE);
    }

    #[test]
    fn repeats_estimate_shrinks_with_the_effect() {
        let p = 0.975;
        let big = repeats_for(0.5, 0.2, p);
        let small = repeats_for(0.05, 0.2, p);
        assert!(big < small, "{big} {small}");
        assert_eq!(repeats_for(0.1, 0.0, p), 2);
        assert!(repeats_for(1e-9, 1.0, p) > MAX_REPEATS_ESTIMATE);
        assert_eq!(repeats_for(0.0, 0.2, p), MAX_REPEATS_ESTIMATE + 1, "no effect: more than the cap");
        assert_eq!(repeats_for(-0.1, 0.2, p), MAX_REPEATS_ESTIMATE + 1);
        // the smallest n whose half-width is below the effect
        let half = |n: u32| t_quantile(p, f64::from(n - 1)) * 0.2 / f64::from(n).sqrt();
        for effect in [0.5, 0.2, 0.1, 0.05] {
            let n = repeats_for(effect, 0.2, p);
            assert!(half(n) < effect && half(n - 1) >= effect, "effect {effect}: n = {n}");
        }
    }

    #[test]
    fn shuffle_is_a_permutation_and_seeded() {
        let mut a: Vec<u32> = (0..10).collect();
        let mut b = a.clone();
        SplitMix64::new(7).shuffle(&mut a);
        SplitMix64::new(7).shuffle(&mut b);
        assert_eq!(a, b);
        let mut s = a.clone();
        s.sort_unstable();
        assert_eq!(s, (0..10).collect::<Vec<_>>());
        assert_ne!(a, (0..10).collect::<Vec<_>>());
        // every order of three equally likely (each of the 6 about 1/6 of 6000 seeds)
        let mut seen = std::collections::BTreeMap::new();
        for seed in 0..6000 {
            let mut v = [0, 1, 2];
            SplitMix64::new(seed).shuffle(&mut v);
            *seen.entry(v).or_insert(0u32) += 1;
        }
        assert_eq!(seen.len(), 6, "{seen:?}");
        assert!(seen.values().all(|&c| (850..1150).contains(&c)), "{seen:?}");
        // below(n) stays below n and reaches its top
        let mut r = SplitMix64::new(1);
        let draws: Vec<usize> = (0..1000).map(|_| r.below(5)).collect();
        assert!(draws.iter().all(|&d| d < 5) && draws.contains(&4) && draws.contains(&0));
    }

    #[test]
    fn splitmix64_matches_the_reference_sequence() {
        // Vigna's splitmix64.c from seed 1234567 (the published test vector).
        let mut r = SplitMix64::new(1_234_567);
        let got: Vec<u64> = (0..5).map(|_| r.next_u64()).collect();
        assert_eq!(
            got,
            [
                6_457_827_717_110_365_317,
                3_203_168_211_198_807_973,
                9_817_491_932_198_370_423,
                4_593_380_528_125_082_431,
                16_408_922_859_458_223_821
            ]
        );
        // below(n) is the high part of next · n.
        let mut a = SplitMix64::new(1_234_567);
        assert_eq!(a.below(10), ((u128::from(got[0]) * 10) >> 64) as usize);
        assert_eq!(a.below(1000), ((u128::from(got[1]) * 1000) >> 64) as usize);
    }

    #[test]
    fn normal_draws_have_the_standard_moments() {
        let mut r = SplitMix64::new(99);
        let n = 20_000;
        let v: Vec<f64> = (0..n).map(|_| r.normal()).collect();
        let mean = v.iter().sum::<f64>() / f64::from(n);
        let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / f64::from(n - 1);
        assert!(mean.abs() < 0.03, "mean {mean}");
        assert!((var - 1.0).abs() < 0.04, "variance {var}");
        // 95% within ±1.96, and both tails used.
        let inside = v.iter().filter(|x| x.abs() < 1.96).count() as f64 / f64::from(n);
        assert!((inside - 0.95).abs() < 0.01, "{inside}");
        assert!(v.iter().any(|x| *x < -3.0) && v.iter().any(|x| *x > 3.0));
    }

    #[test]
    fn an_interval_worked_by_hand() {
        // Log differences 0.1, 0.2, 0.3: mean 0.2, sd 0.1, n 3. At 95% over
        // one comparison t(0.975, 2) = 4.303, half-width 4.303 · 0.1 / √3 =
        // 0.2484: the interval -0.0484..0.4484 straddles zero.
        let without: Vec<Option<f64>> = vec![Some(100.0); 3];
        let with: Vec<Option<f64>> = [0.1f64, 0.2, 0.3].iter().map(|d| Some(100.0 * d.exp())).collect();
        let a = Analysis { confidence: 0.95, comparisons: 1, min_effect_percent: 1.0 };
        let e = paired_effect(&with, &without, &a);
        assert_eq!((e.n, e.verdict), (3, Verdict::NoEffect));
        assert!((e.percent - 22.14).abs() < 0.01, "{e:?}");
        assert!((e.low - 100.0 * ((-0.0484f64).exp() - 1.0)).abs() < 0.02, "{e:?}");
        assert!((e.high - 100.0 * (0.4484f64.exp() - 1.0)).abs() < 0.02, "{e:?}");
        assert!(e.note.is_empty());
        // 4 rounds would do: t(0.975, 3) · 0.1 / 2 = 0.159 < 0.2; 3 do not.
        assert_eq!(e.repeats_needed, Some(4));
        // At 90%, t(0.95, 2) = 2.920: half-width 0.1686, the interval
        // 0.031..0.369 is clear of zero and 22% is above the 1% minimum.
        let e = paired_effect(&with, &without, &Analysis { confidence: 0.9, ..a });
        assert_eq!((e.verdict, e.repeats_needed), (Verdict::Helps, None));
        assert!((e.low - 100.0 * (0.0314f64.exp() - 1.0)).abs() < 0.02, "{e:?}");
        // The same effect shared by 10 comparisons: each at 1 - 0.1/10.
        assert!(
            (Analysis { confidence: 0.9, comparisons: 10, min_effect_percent: 1.0 }.alpha_each() - 0.01).abs() < 1e-12
        );
        assert!(
            (Analysis { confidence: 0.95, comparisons: 0, min_effect_percent: 1.0 }.alpha_each() - 0.05).abs() < 1e-12
        );
        let e = paired_effect(&with, &without, &Analysis { confidence: 0.9, comparisons: 10, ..a });
        assert_eq!(e.verdict, Verdict::NoEffect, "{e:?}");
        // Mirror image: the same interval below zero hurts.
        let e = paired_effect(&without, &with, &Analysis { confidence: 0.9, ..a });
        assert_eq!(e.verdict, Verdict::Hurts, "{e:?}");
        assert!((e.percent - 100.0 * ((-0.2f64).exp() - 1.0)).abs() < 1e-9);
    }

    #[test]
    fn small_clear_losses_are_below_the_minimum_too() {
        let with: Vec<Option<f64>> = (0..6).map(|i| Some(99.5 + f64::from(i) * 0.001)).collect();
        let without: Vec<Option<f64>> = vec![Some(100.0); 6];
        let e = paired_effect(&with, &without, &Analysis { confidence: 0.95, comparisons: 1, min_effect_percent: 1.0 });
        assert!(e.high < 0.0, "{e:?}");
        assert_eq!(e.verdict, Verdict::NoEffect);
        assert_eq!(e.note, "clear of zero but below the 1% minimum effect");
        assert_eq!(e.repeats_needed, None);
    }

    #[test]
    fn rounds_without_a_positive_pair_are_left_out() {
        let a = Analysis { confidence: 0.95, comparisons: 1, min_effect_percent: 1.0 };
        // A zero throughput (a dead link) is not a measurement to take a log of.
        let e = paired_effect(&[Some(0.0), Some(2.0)], &[Some(1.0), Some(1.0)], &a);
        assert_eq!(e.n, 1);
        assert!((e.percent - 100.0).abs() < 1e-9, "{e:?}");
        assert_eq!((e.low, e.high), (f64::NEG_INFINITY, f64::INFINITY));
        assert!(e.note.starts_with("one round"), "{e:?}");
        let e = paired_effect(&[Some(2.0), Some(3.0)], &[Some(0.0), None], &a);
        assert_eq!(e.n, 0);
        assert_eq!(e.note, "no round with both variants measured");
        assert_eq!((e.percent, e.low, e.high, e.repeats_needed), (0.0, 0.0, 0.0, None));
        // Only the log ratio counts: 2/1 and 4/2 are the same doubling (sd 0).
        let e = paired_effect(&[Some(2.0), Some(4.0)], &[Some(1.0), Some(2.0)], &a);
        assert_eq!((e.n, e.verdict), (2, Verdict::Helps));
        assert!((e.percent - 100.0).abs() < 1e-9 && (e.low - 100.0).abs() < 1e-9 && (e.high - 100.0).abs() < 1e-9);
    }

    #[test]
    fn quantile_edges_and_names() {
        // p is clamped to 0.5..1: below the median is 0.
        assert_eq!(t_quantile(0.1, 5.0), 0.0);
        assert_eq!(Verdict::Helps.to_string(), "helps");
        assert_eq!(Verdict::Hurts.to_string(), "hurts");
        assert_eq!(Verdict::NoEffect.to_string(), "no measurable effect");
        assert_eq!(serde_json::to_string(&Verdict::NoEffect).unwrap(), "\"no measurable effect\"");
    }

    #[test]
    fn identical_variants_have_no_effect_and_no_note() {
        // The same throughput with and without: every difference is 0, the
        // interval is the single point 0, which is not clear of zero.
        let v = vec![Some(100.0), Some(90.0), Some(110.0)];
        let e = paired_effect(&v, &v, &Analysis { confidence: 0.95, comparisons: 4, min_effect_percent: 1.0 });
        assert_eq!((e.n, e.percent, e.low, e.high), (3, 0.0, 0.0, 0.0));
        assert_eq!(e.verdict, Verdict::NoEffect);
        assert_eq!(e.note, "", "not 'clear of zero'");
        // No spread: two rounds would show a 1% effect.
        assert_eq!(e.repeats_needed, Some(2));
    }

    /// p is clamped under 1: the quantile of p = 1 is finite.
    #[test]
    fn t_quantile_of_one_is_finite() {
        let q = t_quantile(1.0, 5.0);
        assert!(q.is_finite() && q > t_quantile(0.999_999, 5.0), "{q}");
    }

    /// Identical rounds with and without (no spread, no effect) are no
    /// effect even with a 0 % minimum: an interval [0, 0] touches zero.
    #[test]
    fn identical_rounds_are_no_effect_at_a_zero_minimum() {
        let x: Vec<Option<f64>> = [100.0, 90.0, 110.0].iter().map(|v| Some(*v)).collect();
        let a = Analysis { min_effect_percent: 0.0, ..analysis(1) };
        let e = paired_effect(&x, &x, &a);
        assert_eq!(
            (e.verdict, e.percent, e.low, e.high, e.repeats_needed),
            (Verdict::NoEffect, 0.0, 0.0, 0.0, Some(2))
        );
        assert_eq!(e.note, "");
    }

    /// repeats_for is the smallest n whose half-width is *below* the
    /// effect: an effect exactly the half-width at n rounds needs n + 1.
    #[test]
    fn repeats_for_wants_the_half_width_below_the_effect() {
        let (sd, p) = (0.05, 0.975);
        let half = |n: u32| t_quantile(p, f64::from(n - 1)) * sd / f64::from(n).sqrt();
        for n in [3, 10, 57] {
            assert_eq!(repeats_for(half(n), sd, p), n + 1, "n = {n}");
            assert_eq!(repeats_for(half(n) * 1.000_001, sd, p), n, "n = {n}");
        }
    }
}
