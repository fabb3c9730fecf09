//! Build script: the SHA-256 of the embedded applier (assets/zynq-net-apply.sh).
//!
//! The applier is written verbatim into every `gen` output and listed in
//! `manifest.json` with its digest. Hashing its 47 KB at run time was a
//! third of `gen`'s instructions (callgrind, benches/gen); the digest of a
//! file fixed at build time is computed here once, with the same sha2
//! crate, and `manifest::sha256_hex_of` uses it only for those exact bytes
//! (test `applier_digest_is_the_digest_of_the_applier`).
use sha2::{Digest, Sha256};

fn main() {
    let path = "assets/zynq-net-apply.sh";
    println!("cargo:rerun-if-changed={path}");
    let data = std::fs::read(path).expect("read assets/zynq-net-apply.sh");
    let hex: String = Sha256::digest(&data).iter().map(|b| format!("{b:02x}")).collect();
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    std::fs::write(out.join("applier_sha256.txt"), hex).expect("write the applier digest");
}
