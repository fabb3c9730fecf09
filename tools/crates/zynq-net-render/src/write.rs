//! Atomic output: everything is written into a temporary directory beside
//! the destination, then renamed into place, so a failure never leaves a
//! half-written output directory.

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

/// Writes `files` (relative path, contents, executable) into `dest`,
/// replacing it as a whole. `dest` must be a directory zynq-net owns: an
/// existing `dest` is replaced only if it is empty or holds a
/// `manifest.json` (an earlier output), so a typo cannot wipe a source tree.
///
/// # Errors
/// [`WriteError`] naming the path; `dest` is then left as it was.
pub fn write_atomic(dest: &Path, files: &[(String, Vec<u8>, bool)]) -> Result<(), WriteError> {
    if dest.exists() {
        let ours = dest.join("manifest.json").is_file() || io(dest, fs::read_dir(dest))?.next().is_none();
        if !ours {
            return Err(WriteError {
                path: dest.to_path_buf(),
                source: std::io::Error::other("exists and is not a zynq-net output directory (no manifest.json); choose an empty or new directory"),
            });
        }
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
        io(&p, f.sync_all())?;
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
