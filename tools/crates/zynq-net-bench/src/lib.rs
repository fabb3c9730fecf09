//! zynq-net benchmark runner.
//!
//! - [`plan`]: the matrix from a board's `bench` section (protocol ×
//!   direction × MTU × streams), saved as JSON;
//! - [`run`]: iperf3 `--json` trials locally, in a network namespace or over
//!   ssh, per-core `/proc/stat` load on every machine, results appended as
//!   JSON lines;
//! - [`rfc2544`]: zero-loss throughput search per frame size;
//! - [`records`]: the result records the runners write and the presenters
//!   (report, chart, compare, the ablation report) read;
//! - [`compare`]: A vs B with repeat-based noise estimates;
//! - [`image`]: the image a run measured (`image.json`) and compare's
//!   check that A and B measured the same one;
//! - [`table`]: one table value (and a document of tables, headings,
//!   paragraphs and lists) with Markdown, CSV and HTML writers, which
//!   every presenter builds its output from;
//! - [`report`]: Markdown, CSV, JSON and a self-contained HTML page with SVG plots;
//! - [`ablate`]: which groups of tuning steps help and which hurt
//!   (leave-one-out, randomised interleaved order, simultaneous intervals);
//! - [`latency`]: RFC 2544 latency probes for the two-port tester, timed
//!   by kernel software stamps at both ports;
//! - [`interrupt`]: the child processes a signal handler must end;
//! - [`lab`]: client / router (DUT) / server in network namespaces;
//! - [`commands`]: the `bench` and `lab` commands as calls with plain
//!   options, each returning an [`commands::Outcome`] (the `zynq-net`
//!   binary owns the command line and the exit codes).

pub mod ablate;
pub mod board;
pub mod chart;
pub mod commands;
pub mod compare;
pub mod cpu;
pub mod error;
pub mod exec;
#[cfg(test)]
mod golden;
pub mod image;
pub mod interrupt;
pub mod iperf;
pub mod lab;
pub mod latency;
pub mod plan;
pub mod records;
pub mod report;
pub mod rfc2544;
pub mod rfc2544_suite;
pub mod run;
pub mod spec;
pub mod stats;
pub mod suite;
pub mod table;
pub mod targets;
pub mod tester;
pub mod tester_targets;

pub use error::BenchError;
