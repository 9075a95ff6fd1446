//! Throughput and latency percentiles from the samples of every connection.

use std::fmt;
use std::time::Instant;

use super::{Clock, ConnStats, LoadConfig};

/// The outcome of a run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Report {
    pub target: &'static str,
    pub connections: usize,
    pub depth: usize,
    /// Measured requests (answered and checked).
    pub requests: u64,
    /// Every answer checked, warm-up included.
    pub checked: u64,
    pub seconds: f64,
    pub req_per_s: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub p999_us: f64,
    pub max_us: f64,
    pub errors: u64,
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    // Nearest rank; the epsilon keeps 99.9% of 1000 at rank 999 despite rounding.
    let rank = ((p / 100.0) * sorted.len() as f64 - 1e-9).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1] as f64 / 1000.0
}

impl Report {
    pub(crate) fn new(
        config: &LoadConfig,
        clock: &Clock,
        start: Instant,
        conns: Vec<ConnStats>,
    ) -> Report {
        let checked = conns.iter().map(|c| c.answered).sum();
        let end = conns.iter().filter_map(|c| c.last).max();
        let mut samples: Vec<u64> = conns.into_iter().flat_map(|c| c.latencies).collect();
        samples.sort_unstable();
        let from = clock.measure_from.max(start);
        let window = match (clock.stop_at, end) {
            (Some(stop), _) => stop.saturating_duration_since(from),
            (None, Some(end)) => end.saturating_duration_since(from),
            (None, None) => Default::default(),
        };
        let seconds = window.as_secs_f64();
        let requests = samples.len() as u64;
        Report {
            target: config.target.name(),
            connections: config.connections,
            depth: config.depth,
            requests,
            checked,
            seconds,
            req_per_s: if seconds > 0.0 {
                requests as f64 / seconds
            } else {
                0.0
            },
            p50_us: percentile(&samples, 50.0),
            p99_us: percentile(&samples, 99.0),
            p999_us: percentile(&samples, 99.9),
            max_us: percentile(&samples, 100.0),
            errors: 0,
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:<10} conns {:>3} depth {:>2}: {:>10.0} req/s over {:.1} s ({} measured, {} checked, {} errors); latency p50 {:.0} us, p99 {:.0} us, p99.9 {:.0} us, max {:.0} us",
            self.target,
            self.connections,
            self.depth,
            self.req_per_s,
            self.seconds,
            self.requests,
            self.checked,
            self.errors,
            self.p50_us,
            self.p99_us,
            self.p999_us,
            self.max_us
        )
    }
}

#[cfg(test)]
mod tests {
    use super::percentile;

    #[test]
    fn percentiles_of_a_known_distribution() {
        let samples: Vec<u64> = (1..=1000).map(|us| us * 1000).collect();
        assert_eq!(percentile(&samples, 50.0), 500.0);
        assert_eq!(percentile(&samples, 99.0), 990.0);
        assert_eq!(percentile(&samples, 99.9), 999.0);
        assert_eq!(percentile(&samples, 100.0), 1000.0);
        assert_eq!(percentile(&[], 50.0), 0.0);
    }
}
