//! What a run measured: the identity of the image the DUT ran, as the
//! harness that booted it recorded it (`image.json` in the run directory:
//! scripts/zynq-net-farm writes it for a booked place, from what it read on
//! the DUT), and the check `bench compare` makes before putting two runs
//! side by side (docs/bench.md, "Compare").
//!
//! ```json
//! {"format": "zynq-net-image 1", "booted_by": "zynq-net-farm place znfarm-p1020-qemu",
//!  "board": "p1020_qemu", "kernel_release": "6.12.57", "kernel_version": "#1 SMP ...",
//!  "kernel_sha256": "…", "dtb_sha256": "…", "image_sha256": "…", "plan_sha256": "…"}
//! ```
//!
//! Every field but `format` may be absent (a real board's kernel file is
//! not readable over its console, say); a field is compared when both runs
//! have it. The plan's SHA-256 is part of the identity: a tuning change is
//! another image, compared on purpose with the override.

use std::path::Path;
use zynq_net_model::out::escaped;

use serde::{Deserialize, Serialize};

use crate::error::BenchError;

/// File name of the record inside a run directory.
pub const FILE: &str = "image.json";
/// Its format tag.
pub const FORMAT: &str = "zynq-net-image 1";

/// The image a run measured.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageIdentity {
    /// [`FORMAT`].
    pub format: String,
    /// Who booted it and where (free text, not compared).
    #[serde(default)]
    pub booted_by: Option<String>,
    /// Board name (the place's `board` tag, the manifest's board).
    #[serde(default)]
    pub board: Option<String>,
    /// `uname -r` on the DUT.
    #[serde(default)]
    pub kernel_release: Option<String>,
    /// `uname -v` on the DUT (build number and date).
    #[serde(default)]
    pub kernel_version: Option<String>,
    /// SHA-256 of the kernel image file that was booted (hex).
    #[serde(default)]
    pub kernel_sha256: Option<String>,
    /// SHA-256 of the device tree blob that was booted (hex).
    #[serde(default)]
    pub dtb_sha256: Option<String>,
    /// SHA-256 of the root file system / initramfs that was booted (hex).
    #[serde(default)]
    pub image_sha256: Option<String>,
    /// SHA-256 of the tuning plan on the DUT (hex).
    #[serde(default)]
    pub plan_sha256: Option<String>,
}

impl ImageIdentity {
    /// The compared fields: name and value.
    fn fields(&self) -> [(&'static str, Option<&str>); 7] {
        [
            ("board", self.board.as_deref()),
            ("kernel_release", self.kernel_release.as_deref()),
            ("kernel_version", self.kernel_version.as_deref()),
            ("kernel_sha256", self.kernel_sha256.as_deref()),
            ("dtb_sha256", self.dtb_sha256.as_deref()),
            ("image_sha256", self.image_sha256.as_deref()),
            ("plan_sha256", self.plan_sha256.as_deref()),
        ]
    }
}

/// Reads `image.json` of a run: `path` is a run directory, or a results
/// file whose directory is read. `Ok(None)` when there is none.
///
/// # Errors
/// [`BenchError::Io`] for an unreadable file; [`BenchError::Invalid`]
/// naming the file for one that is not a `zynq-net-image 1` record.
pub fn load(path: &Path) -> Result<Option<ImageIdentity>, BenchError> {
    let dir = if path.is_dir() { path } else { path.parent().unwrap_or(Path::new(".")) };
    let f = dir.join(FILE);
    let text = match std::fs::read_to_string(&f) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(BenchError::io(&f, e)),
    };
    let id: ImageIdentity =
        crate::records::parse_json(&f, &text, &format!("expected a `{FORMAT}` record (docs/bench.md, \"Compare\")"))?;
    if id.format != FORMAT {
        return Err(BenchError::Invalid(format!(
            "{}: format `{}`, expected `{FORMAT}`",
            f.display(),
            escaped(&id.format)
        )));
    }
    Ok(Some(id))
}

/// Whether runs A and B measured the same image: `Ok(notes)` when they
/// did, or when `allow` is set (then the notes say what differs, for the
/// report); otherwise [`BenchError::Invalid`] listing every difference and
/// the override. Neither run with a record: nothing is known, nothing is
/// refused (runs from a targets file written by hand). One run without a
/// record, or two records without a compared field in common, cannot be
/// told apart from different images and are refused the same way.
///
/// # Errors
/// As above; the CLI exits 2 on it (a usage error: nothing was compared).
pub fn check_same(
    a_label: &str,
    a: Option<&ImageIdentity>,
    b_label: &str,
    b: Option<&ImageIdentity>,
    allow: bool,
) -> Result<Vec<String>, BenchError> {
    let problems: Vec<String> = match (a, b) {
        (None, None) => return Ok(Vec::new()),
        (Some(_), None) => vec![format!("B ({b_label}) has no {FILE}: what it ran is unknown")],
        (None, Some(_)) => vec![format!("A ({a_label}) has no {FILE}: what it ran is unknown")],
        (Some(x), Some(y)) => {
            let both: Vec<_> =
                x.fields().into_iter().zip(y.fields()).filter_map(|((k, va), (_, vb))| Some((k, va?, vb?))).collect();
            if both.is_empty() {
                vec!["the two image records have no field in common to compare".to_string()]
            } else {
                // values as escapes: a newline in a hand-edited record must
                // not forge a line of the message or a row of compare.md
                both.iter()
                    .filter(|(_, va, vb)| va != vb)
                    .map(|(k, va, vb)| format!("{k}: A {}, B {}", escaped(va), escaped(vb)))
                    .collect()
            }
        }
    };
    if problems.is_empty() || allow {
        return Ok(problems.into_iter().map(|p| format!("different images, compared as asked: {p}")).collect());
    }
    Err(BenchError::Invalid(format!(
        "not comparing {a_label} with {b_label}: they may not have measured the same image ({})\n  \
         (a run's image is its {FILE}, written by the harness that booted the DUT; \
         --allow-different-images compares them anyway, e.g. two tunings of one board)",
        problems.join("; ")
    )))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn id(board: &str, kernel: Option<&str>, plan: &str) -> ImageIdentity {
        ImageIdentity {
            format: FORMAT.into(),
            board: Some(board.into()),
            kernel_sha256: kernel.map(Into::into),
            plan_sha256: Some(plan.into()),
            ..Default::default()
        }
    }

    #[test]
    fn same_image_passes_and_any_compared_field_refuses() {
        let a = id("p1020_qemu", Some("k1"), "p1");
        assert_eq!(check_same("A", Some(&a), "B", Some(&a.clone()), false).unwrap(), Vec::<String>::new());
        // a field only one side has is not compared
        let b = id("p1020_qemu", None, "p1");
        assert!(check_same("A", Some(&a), "B", Some(&b), false).unwrap().is_empty());
        for (b, what) in [
            (id("zcu102_qemu", Some("k1"), "p1"), "board: A p1020_qemu, B zcu102_qemu"),
            (id("p1020_qemu", Some("k2"), "p1"), "kernel_sha256: A k1, B k2"),
            (id("p1020_qemu", Some("k1"), "p2"), "plan_sha256: A p1, B p2"),
        ] {
            let e = check_same("runA", Some(&a), "runB", Some(&b), false).unwrap_err().to_string();
            assert!(e.starts_with("not comparing runA with runB") && e.contains(what), "{e}");
            assert!(e.contains("--allow-different-images"), "{e}");
            let notes = check_same("runA", Some(&a), "runB", Some(&b), true).unwrap();
            assert_eq!(notes, vec![format!("different images, compared as asked: {what}")]);
        }
        let mut c = id("zcu102_qemu", Some("k2"), "p1");
        c.image_sha256 = Some("i".into());
        let e = check_same("A", Some(&a), "B", Some(&c), false).unwrap_err().to_string();
        assert!(e.contains("board: A p1020_qemu, B zcu102_qemu; kernel_sha256: A k1, B k2"), "all differences: {e}");
        // control characters of a record are written as escapes
        let d = id("x\n| forged | row |\u{1b}[2J", Some("k1"), "p1");
        let notes = check_same("A", Some(&a), "B", Some(&d), true).unwrap();
        assert_eq!(
            notes,
            vec!["different images, compared as asked: board: A p1020_qemu, B x\\n| forged | row |\\u{1b}[2J"]
        );
    }

    #[test]
    fn unknown_on_one_side_refuses_unknown_on_both_does_not() {
        let a = id("p1020_qemu", None, "p1");
        assert!(check_same("A", None, "B", None, false).unwrap().is_empty());
        let e = check_same("a", Some(&a), "b", None, false).unwrap_err().to_string();
        assert!(e.contains("B (b) has no image.json"), "{e}");
        let e = check_same("a", None, "b", Some(&a), false).unwrap_err().to_string();
        assert!(e.contains("A (a) has no image.json"), "{e}");
        let bare = ImageIdentity { format: FORMAT.into(), booted_by: Some("x".into()), ..Default::default() };
        let e = check_same("a", Some(&a), "b", Some(&bare), false).unwrap_err().to_string();
        assert!(e.contains("no field in common"), "{e}");
        assert_eq!(check_same("a", Some(&a), "b", None, true).unwrap().len(), 1);
    }

    #[test]
    fn load_reads_the_run_directory_or_beside_a_results_file() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(load(d.path()).unwrap(), None);
        let want = id("p1020_qemu", Some("k"), "p");
        std::fs::write(d.path().join(FILE), serde_json::to_string(&want).unwrap()).unwrap();
        assert_eq!(load(d.path()).unwrap().as_ref(), Some(&want));
        assert_eq!(load(&d.path().join("results.jsonl")).unwrap().as_ref(), Some(&want));
        std::fs::write(d.path().join(FILE), r#"{"format": "zynq-net-image 2"}"#).unwrap();
        let e = load(d.path()).unwrap_err().to_string();
        assert!(e.contains("format `zynq-net-image 2`, expected `zynq-net-image 1`"), "{e}");
        std::fs::write(d.path().join(FILE), r#"{"format": "zynq-net-image 1", "bord": "x"}"#).unwrap();
        let e = load(d.path()).unwrap_err().to_string();
        assert!(e.contains("image.json") && e.contains("unknown field `bord`"), "{e}");
    }
}
