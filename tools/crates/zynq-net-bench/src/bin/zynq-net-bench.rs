//! Stand-alone entry point with the same `bench ...` / `lab ...` syntax as
//! `zynq-net bench` / `zynq-net lab` (for labs and hosts without the full CLI).

use clap::{Parser, Subcommand};
use zynq_net_bench::cli::{run_bench, run_lab, BenchCommand, LabCommand};

#[derive(Parser)]
#[command(name = "zynq-net-bench", version, about = "zynq-net benchmark runner and namespace lab")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Benchmark runner (plan, run, rfc2544, compare, report).
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Network-namespace lab (up, down, status).
    #[command(subcommand)]
    Lab(LabCommand),
}

fn main() {
    let cli = Cli::parse();
    let res = match cli.command {
        Command::Bench(c) => run_bench(c),
        Command::Lab(c) => run_lab(c),
    };
    match res {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::exit(2);
        }
    }
}
