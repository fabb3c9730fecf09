//! Board loader fuzz target: any bytes -> YAML -> model -> validate ->
//! render. Must never panic, overflow the stack or allocate without bound
//! (libFuzzer's -rss_limit_mb and -timeout catch those); a board that fails
//! never reports `internal-error`; a board that loads must render, and its
//! plan must carry a valid end line.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let loaded = match zynq_net_model::load_board_str(std::path::Path::new("fuzz.yml"), text) {
        Ok(l) => l,
        Err(d) => {
            // rule internal-error is a zynq-net bug: no input may reach it
            assert!(!d.items.iter().any(|i| i.rule == zynq_net_model::Rule::Internal), "{d}");
            return;
        }
    };
    let arts = zynq_net_render::render_all(&loaded.board, "fuzz.yml").expect("a valid board renders");
    let plan = arts.iter().find(|a| a.path == "tuning/zynq-net.plan").expect("plan");
    let plan = std::str::from_utf8(&plan.contents).expect("utf-8 plan");
    let body_end = plan.trim_end_matches('\n').rfind('\n').map_or(0, |i| i + 1);
    let (body, end) = plan.split_at(body_end);
    let want = format!("{} {}\n", zynq_net_render::plan::posix_cksum(body.as_bytes()), body.len());
    assert!(end.starts_with("end ") && end.ends_with(&want), "bad end line {end:?}");
});
