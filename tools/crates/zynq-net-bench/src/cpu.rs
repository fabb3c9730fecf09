//! Per-core CPU load from `/proc/stat`, the way mpstat computes it.
//!
//! `/proc/stat` `cpuN` lines hold cumulative ticks: user nice system idle
//! iowait irq softirq steal guest guest_nice (proc(5)); guest time is
//! already included in user. Load over an interval is the difference of two
//! samples divided by the total ticks of that core.

use serde::{Deserialize, Serialize};

use crate::error::BenchError;

/// Cumulative ticks of one CPU.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ticks {
    /// user + nice
    pub usr: u64,
    /// system
    pub sys: u64,
    /// hardirq
    pub irq: u64,
    /// softirq
    pub softirq: u64,
    /// idle + iowait
    pub idle: u64,
    /// steal
    pub steal: u64,
}

impl Ticks {
    fn total(&self) -> u64 {
        self.usr + self.sys + self.irq + self.softirq + self.idle + self.steal
    }
}

/// One `/proc/stat` sample: per-CPU ticks, indexed by CPU number.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// `(cpu number, ticks)` for every `cpuN` line.
    pub cpus: Vec<(usize, Ticks)>,
}

/// Parses the text of `/proc/stat`.
pub fn parse_proc_stat(text: &str) -> Result<Sample, BenchError> {
    let mut cpus = Vec::new();
    for line in text.lines() {
        let mut f = line.split_whitespace();
        let Some(name) = f.next() else { continue };
        let Some(num) = name.strip_prefix("cpu") else {
            continue;
        };
        if num.is_empty() {
            continue; // the aggregate line
        }
        let n: usize = num.parse().map_err(|_| BenchError::ProcStat(format!("bad cpu line `{line}`")))?;
        let v: Vec<u64> = f.map(|x| x.parse::<u64>().unwrap_or(0)).collect();
        if v.len() < 7 {
            return Err(BenchError::ProcStat(format!("short cpu line `{line}`")));
        }
        let at = |i: usize| v.get(i).copied().unwrap_or(0);
        cpus.push((
            n,
            Ticks { usr: at(0) + at(1), sys: at(2), idle: at(3) + at(4), irq: at(5), softirq: at(6), steal: at(7) },
        ));
    }
    if cpus.is_empty() {
        return Err(BenchError::ProcStat("no cpuN lines".into()));
    }
    Ok(Sample { cpus })
}

/// Load of one core over an interval, in percent of that core.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoreLoad {
    /// CPU number.
    pub cpu: usize,
    /// user + nice
    pub usr: f64,
    /// system
    pub sys: f64,
    /// hardirq
    pub irq: f64,
    /// softirq
    pub softirq: f64,
    /// idle + iowait
    pub idle: f64,
}

impl CoreLoad {
    /// Busy share: everything but idle.
    pub fn busy(&self) -> f64 {
        (100.0 - self.idle).max(0.0)
    }
}

/// Per-core load between two samples.
pub fn load(before: &Sample, after: &Sample) -> Vec<CoreLoad> {
    let mut out = Vec::new();
    for (cpu, a) in &after.cpus {
        let Some((_, b)) = before.cpus.iter().find(|(c, _)| c == cpu) else {
            continue;
        };
        let d = Ticks {
            usr: a.usr.saturating_sub(b.usr),
            sys: a.sys.saturating_sub(b.sys),
            irq: a.irq.saturating_sub(b.irq),
            softirq: a.softirq.saturating_sub(b.softirq),
            idle: a.idle.saturating_sub(b.idle),
            steal: a.steal.saturating_sub(b.steal),
        };
        let t = d.total();
        if t == 0 {
            continue;
        }
        let pct = |x: u64| (x as f64) * 100.0 / (t as f64);
        out.push(CoreLoad {
            cpu: *cpu,
            usr: pct(d.usr),
            sys: pct(d.sys),
            irq: pct(d.irq),
            softirq: pct(d.softirq),
            idle: pct(d.idle),
        });
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const A: &str = "cpu  10 0 10 100 0 0 0 0 0 0\ncpu0 5 0 5 50 0 0 0 0 0 0\ncpu1 5 0 5 50 0 0 0 0 0 0\nintr 1\n";
    const B: &str = "cpu  10 0 10 100 0 0 0 0 0 0\ncpu0 15 5 35 65 0 20 20 0 0 0\ncpu1 6 0 6 148 0 0 0 0 0 0\nintr 1\n";

    #[test]
    fn per_core_load_like_mpstat() {
        let l = load(&parse_proc_stat(A).unwrap(), &parse_proc_stat(B).unwrap());
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].cpu, 0);
        assert!((l[0].usr - 15.0).abs() < 1e-9);
        assert!((l[0].sys - 30.0).abs() < 1e-9);
        assert!((l[0].irq - 20.0).abs() < 1e-9);
        assert!((l[0].softirq - 20.0).abs() < 1e-9);
        assert!((l[0].busy() - 85.0).abs() < 1e-9);
        assert!((l[1].idle - 98.0).abs() < 1e-9);
    }

    #[test]
    fn rejects_garbage() {
        assert!(parse_proc_stat("hello\n").is_err());
    }

    #[test]
    fn proc_stat_fields_and_edge_cases() {
        // user nice system idle iowait irq softirq steal: usr = user + nice, idle = idle + iowait.
        let s = parse_proc_stat("cpu  1 2 3 4 5 6 7 8\ncpu3 10 20 30 40 50 60 70 80 0 0\n").unwrap();
        assert_eq!(s.cpus, vec![(3, Ticks { usr: 30, sys: 30, idle: 90, irq: 60, softirq: 70, steal: 80 })]);
        // Old kernels without steal: 7 fields are enough.
        let s = parse_proc_stat("cpu0 1 0 1 8 0 0 0\n").unwrap();
        assert_eq!(s.cpus[0].1.steal, 0);
        assert!(parse_proc_stat("cpu0 1 2 3 4 5 6\n").unwrap_err().to_string().contains("short cpu line"));
        assert!(parse_proc_stat("cpuX 1 2 3 4 5 6 7\n").unwrap_err().to_string().contains("bad cpu line"));
        assert!(parse_proc_stat("cpu 1 2 3 4 5 6 7\n").is_err(), "the aggregate alone is no core");
        // Steal counts in the total; a core without new ticks or missing before is left out.
        let a = parse_proc_stat("cpu0 0 0 0 0 0 0 0 0\ncpu1 5 0 0 5 0 0 0 0\n").unwrap();
        let b = parse_proc_stat("cpu0 10 0 0 30 0 0 0 10\ncpu1 5 0 0 5 0 0 0 0\ncpu2 1 1 1 1 1 1 1 1\n").unwrap();
        let l = load(&a, &b);
        assert_eq!(l.len(), 1);
        assert_eq!((l[0].cpu, l[0].usr, l[0].idle), (0, 20.0, 60.0));
        assert_eq!(l[0].busy(), 40.0);
        // busy never goes below zero
        assert_eq!(CoreLoad { cpu: 0, usr: 0.0, sys: 0.0, irq: 0.0, softirq: 0.0, idle: 100.5 }.busy(), 0.0);
    }
}
