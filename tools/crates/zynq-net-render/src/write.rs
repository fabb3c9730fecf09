//! Atomic output: everything is written into a temporary directory beside
//! the destination, then renamed into place, so a failure never leaves a
//! half-written output directory. (No fsync: the rename gives all-or-nothing
//! visibility, which is what builds need; durability across a power cut is
//! not worth a sync per file.)

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};


/// Writing the output failed; the destination is unchanged.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {source}", path.display())]
pub struct WriteError {
    /// The path that failed.
    pub path: PathBuf,
    /// Cause.
    #[source]
    pub source: std::io::Error,
}

fn io<T>(path: &Path, r: std::io::Result<T>) -> Result<T, WriteError> {
    r.map_err(|source| WriteError { path: path.to_path_buf(), source })
}

/// Why `dest` may not be replaced, or `None` when it is new, empty, or a
/// complete earlier zynq-net output: a `manifest.json` whose `tool` is
/// `zynq-net` and which lists every file in the directory. Anything else
/// (a symlink, a foreign file, a board file kept beside the output) is refused.
fn refuse_reason(dest: &Path) -> Result<Option<String>, WriteError> {
    let meta = match fs::symlink_metadata(dest) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(WriteError { path: dest.to_path_buf(), source: e }),
    };
    if meta.file_type().is_symlink() {
        return Ok(Some("is a symbolic link; name the real directory".into()));
    }
    if !meta.is_dir() {
        return Ok(Some("exists and is not a directory".into()));
    }
    let mut present = Vec::new();
    let mut stack = vec![dest.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in io(&d, fs::read_dir(&d))? {
            let e = io(&d, e)?;
            let ft = io(&e.path(), e.file_type())?;
            if ft.is_dir() {
                stack.push(e.path());
            } else {
                let rel = e.path().strip_prefix(dest).map(|r| r.to_string_lossy().replace('\\', "/")).unwrap_or_default();
                present.push(rel);
            }
        }
    }
    if present.is_empty() {
        return Ok(None);
    }
    let manifest: Option<serde_json::Value> = fs::read(dest.join("manifest.json")).ok().and_then(|b| serde_json::from_slice(&b).ok());
    let Some(m) = manifest.filter(|m| m["tool"] == "zynq-net") else {
        return Ok(Some("exists and is not a zynq-net output directory (no zynq-net manifest.json); choose an empty or new directory".into()));
    };
    let listed: Vec<&str> = m["artifacts"].as_array().map(|a| a.iter().filter_map(|x| x["path"].as_str()).collect()).unwrap_or_default();
    let mut foreign: Vec<String> = present.into_iter().filter(|p| p != "manifest.json" && !listed.contains(&p.as_str())).collect();
    if foreign.is_empty() {
        return Ok(None);
    }
    foreign.sort();
    foreign.truncate(5);
    Ok(Some(format!("holds files zynq-net did not write ({}); move them away or choose another directory", foreign.join(", "))))
}

/// Writes `files` (relative path, contents, executable) into `dest`,
/// replacing it as a whole. An existing `dest` is replaced only when it is
/// empty or an earlier zynq-net output with nothing else in it
/// ([`refuse_reason`]), so a typo cannot wipe a source tree.
///
/// # Errors
/// [`WriteError`] naming the path; `dest` is then left as it was.
pub fn write_atomic(dest: &Path, files: &[(String, Vec<u8>, bool)]) -> Result<(), WriteError> {
    if let Some(why) = refuse_reason(dest)? {
        return Err(WriteError { path: dest.to_path_buf(), source: std::io::Error::other(why) });
    }
    let parent = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    io(&parent, fs::create_dir_all(&parent))?;
    let tmp = io(&parent, tempfile::Builder::new().prefix(".zynq-net-gen.").tempdir_in(&parent))?;
    for (rel, data, exec) in files {
        let p = tmp.path().join(rel);
        if let Some(d) = p.parent() {
            io(d, fs::create_dir_all(d))?;
        }
        let mut f = io(&p, fs::File::create(&p))?;
        io(&p, f.write_all(data))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = if *exec { 0o755 } else { 0o644 };
            io(&p, fs::set_permissions(&p, fs::Permissions::from_mode(mode)))?;
        }
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        io(tmp.path(), fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755)))?;
    }
    let staged = tmp.keep();
    if dest.exists() {
        // Swap: move the old output aside, move the new one in, drop the old.
        let old = parent.join(format!(".zynq-net-old.{}", std::process::id()));
        io(dest, fs::rename(dest, &old))?;
        if let Err(source) = fs::rename(&staged, dest) {
            let _ = fs::rename(&old, dest);
            let _ = fs::remove_dir_all(&staged);
            return Err(WriteError { path: dest.to_path_buf(), source });
        }
        let _ = fs::remove_dir_all(&old);
    } else if let Err(source) = fs::rename(&staged, dest) {
        let _ = fs::remove_dir_all(&staged);
        return Err(WriteError { path: dest.to_path_buf(), source });
    }
    Ok(())
}
