//! Parsing of real iperf3 3.12 `--json` output recorded in the lab
//! (tests/data/README.md says how each capture was made).
#![allow(clippy::unwrap_used)]

use zynq_net_bench::iperf::{parse, Protocol, Summary};

fn load(name: &str) -> Summary {
    let p = format!("{}/tests/data/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"));
    parse(&text).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn mbit(x: f64) -> f64 {
    x / 1e6
}

#[test]
fn tcp_single_stream() {
    let s = load("tcp");
    assert_eq!(s.protocol, Protocol::Tcp);
    assert_eq!(s.streams, 1);
    assert_eq!(s.blksize, 131072);
    assert!(!s.bidir && s.reverse_flow.is_none());
    // shaped to 200 Mbit/s of L2 bytes: ~190 Mbit/s of TCP payload
    assert!((mbit(s.forward.received_bps) - 190.1).abs() < 0.1, "{}", s.forward.received_bps);
    assert!(s.forward.sent_bps > s.forward.received_bps);
    assert_eq!(s.forward.retransmits, Some(5623));
    assert_eq!(s.forward.lost_packets, None);
    assert_eq!(s.version.map(|v| (v.major, v.minor)), Some((3, 12)));
}

#[test]
fn tcp_four_streams_are_summed() {
    let s = load("tcp_p4");
    assert_eq!(s.streams, 4);
    assert!((mbit(s.forward.received_bps) - 190.1).abs() < 0.1);
    assert_eq!(s.forward.retransmits, Some(9910));
}

#[test]
fn tcp_bidir_has_both_directions() {
    let s = load("tcp_bidir");
    assert!(s.bidir);
    let r = s.reverse_flow.as_ref().expect("reverse flow");
    assert!((mbit(s.forward.received_bps) - 186.3).abs() < 0.1);
    assert!((mbit(r.received_bps) - 8057.6).abs() < 0.1, "reverse is unshaped");
    assert!((s.total_received_bps() - s.forward.received_bps - r.received_bps).abs() < 1.0);
}

#[test]
fn udp_with_loss_uses_the_receiver_rate_not_end_sum() {
    let s = load("udp_loss");
    assert_eq!(s.protocol, Protocol::Udp);
    assert_eq!(s.blksize, 1472);
    // end.sum.bits_per_second is the sender's 300 Mbit/s: not a throughput.
    assert!((mbit(s.forward.sent_bps) - 299.9).abs() < 0.1);
    assert!((mbit(s.forward.received_bps) - 194.1).abs() < 0.1);
    assert_eq!(s.forward.packets_sent, Some(50932));
    assert_eq!(s.forward.lost_packets, Some(17892));
    assert!((s.forward.lost_percent.unwrap_or(0.0) - 35.13).abs() < 0.01);
    assert!(s.forward.jitter_ms.is_some());
}

#[test]
fn udp_without_loss() {
    let s = load("udp_noloss");
    assert_eq!(s.forward.lost_packets, Some(0));
    assert!((s.forward.received_bps - s.forward.sent_bps).abs() / s.forward.sent_bps < 0.001);
}

#[test]
fn udp_bidir_loss_only_on_the_shaped_direction() {
    let s = load("udp_bidir");
    let r = s.reverse_flow.as_ref().expect("reverse flow");
    assert_eq!(s.forward.lost_packets, Some(17945));
    assert_eq!(r.lost_packets, Some(811));
    assert!((mbit(s.forward.received_bps) - 193.8).abs() < 0.1);
    assert!((mbit(r.received_bps) - 294.8).abs() < 0.1);
}

#[test]
fn udp_reverse_four_streams() {
    let s = load("udp_p4_reverse");
    assert!(s.reverse);
    assert_eq!(s.streams, 4);
    assert!((mbit(s.forward.received_bps) - 319.9).abs() < 0.1);
    assert_eq!(s.forward.lost_packets, Some(0));
}

#[test]
fn server_side_output_is_not_mistaken_for_a_client_result() {
    // The server's JSON has the same shape; parsing it must still give the
    // receiver's rate for the forward direction.
    let p = format!("{}/tests/data/udp_loss.server.json", env!("CARGO_MANIFEST_DIR"));
    let s = parse(&std::fs::read_to_string(p).unwrap()).unwrap();
    assert!((mbit(s.forward.received_bps) - 194.1).abs() < 1.0, "{}", s.forward.received_bps);
}

#[test]
fn iperf3_error_is_reported() {
    let e = parse(r#"{"start":{},"intervals":[],"end":{},"error":"unable to connect to server: Connection refused"}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("Connection refused"), "{e}");
}
