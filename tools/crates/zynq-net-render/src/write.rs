//! Atomic output: everything is written into a temporary directory beside
//! the destination, then put in place with one `renameat2` (exchanged with
//! an existing output: [`place`]), so a failure, SIGKILL or a power cut
//! never leaves a half-written or missing output directory. (The
//! files and the staging directory are synced before the rename, and the
//! parent after it, so that after a power cut the output is the old or the
//! new one with its contents.)

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

/// tempfile's error without the `at path .../.zynq-net-gen.PID.XXXX` it
/// appends: the staging directory's name means nothing to the user, the
/// directory it was to be made in ([`WriteError::path`]) does.
/// (tempfile 3 writes it as `{cause} at path {path:?}`; its error type is
/// private, so the text is cut.)
fn without_path(e: std::io::Error) -> std::io::Error {
    let text = e.to_string();
    match text.find(" at path \"") {
        Some(i) => std::io::Error::new(e.kind(), &text[..i]),
        None => e,
    }
}

fn io<T>(path: &Path, r: std::io::Result<T>) -> Result<T, WriteError> {
    r.map_err(|source| WriteError { path: path.to_path_buf(), source })
}

/// Directories `gen -o` never replaces (refused before anything is read):
/// the root and the FHS top-level and `/usr`, `/var` system directories.
const SYSTEM_DIRS: &[&str] = &[
    "/",
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/home",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/media",
    "/mnt",
    "/opt",
    "/proc",
    "/root",
    "/run",
    "/sbin",
    "/srv",
    "/sys",
    "/tmp",
    "/usr",
    "/var",
    "/usr/bin",
    "/usr/include",
    "/usr/lib",
    "/usr/lib64",
    "/usr/libexec",
    "/usr/local",
    "/usr/sbin",
    "/usr/share",
    "/usr/src",
    "/var/cache",
    "/var/lib",
    "/var/log",
    "/var/tmp",
];

/// Most directory entries `gen` looks at in an existing output directory
/// (a zynq-net output has about 20): more means it is not one.
const MAX_SCAN_ENTRIES: usize = 1000;

/// The output directory `gen` will replace, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Absolute path with every existing parent's symbolic links resolved.
    pub path: PathBuf,
    /// Set when the path as given went through a symbolic link (the caller
    /// says so: the output lands at `path`).
    pub via_symlink: bool,
}

fn refused(path: &Path, why: impl Into<String>) -> WriteError {
    WriteError { path: path.to_path_buf(), source: std::io::Error::other(why.into()) }
}

/// Resolves `dest` for [`write_atomic`]: made absolute, `.`/`..` and the
/// symbolic links of its existing parents resolved (the last component must
/// not be a link: [`write_atomic`] refuses that). Refuses at once, without
/// reading anything, `/` and the system directories of [`SYSTEM_DIRS`] and
/// the user's home directory.
///
/// # Errors
/// [`WriteError`] for a system directory or an unreadable parent.
pub fn resolve_output(dest: &Path) -> Result<Resolved, WriteError> {
    let r = resolve(dest)?;
    if is_system_or_home(&r.path) {
        return Err(refused(&r.path, "is a system or home directory: gen replaces its output directory as a whole; choose a new directory such as ./out"));
    }
    Ok(r)
}

/// [`resolve_output`] without its refusal.
fn resolve(dest: &Path) -> Result<Resolved, WriteError> {
    let cwd = io(Path::new("."), std::env::current_dir())?;
    let abs = cwd.join(dest);
    // lexical form: "." dropped; ".." kept for the canonical walk below
    let lexical: PathBuf = abs.components().filter(|c| !matches!(c, std::path::Component::CurDir)).collect();
    let last_is_name = matches!(lexical.components().next_back(), Some(std::path::Component::Normal(_)));
    let (base, name) = if last_is_name {
        (
            lexical.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("/")),
            lexical.file_name().map(|n| n.to_os_string()),
        )
    } else {
        (lexical.clone(), None)
    };
    // deepest existing ancestor, canonicalized; the rest appended as given
    let mut existing = base.clone();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.file_name().map(|n| n.to_os_string()), existing.parent()) {
            (Some(n), Some(p)) => {
                rest.push(n);
                existing = p.to_path_buf();
            }
            _ => break,
        }
    }
    let mut path = io(&existing, fs::canonicalize(&existing))?;
    for n in rest.into_iter().rev() {
        if n == ".." {
            return Err(refused(dest, "`..` after a directory that does not exist; name the output directory plainly"));
        }
        path.push(n);
    }
    if let Some(n) = name {
        path.push(n);
    }
    let plain: PathBuf = lexical.clone();
    let via_symlink = path != plain && !plain.components().any(|c| matches!(c, std::path::Component::ParentDir));
    Ok(Resolved { path, via_symlink })
}

/// Whether the resolved path `path` ([`resolve_output`]'s) is `/`, one of
/// [`SYSTEM_DIRS`] or the user's home directory (`$HOME`, resolved).
fn is_system_or_home(path: &Path) -> bool {
    let home = std::env::var_os("HOME").and_then(|h| fs::canonicalize(h).ok());
    SYSTEM_DIRS.iter().any(|d| path == Path::new(d)) || home.as_deref() == Some(path)
}

/// For a command that writes its files into a directory it is given (the
/// bench runs, reports and comparisons): `dest` resolved as
/// [`resolve_output`] does, and refused when it is `/`, a system directory
/// of [`SYSTEM_DIRS`] or the home directory (`bench report RUN -o /` wrote
/// report.md into `/`).
///
/// # Errors
/// [`WriteError`] naming the directory and why, or an unreadable parent.
pub fn check_output_dir(dest: &Path) -> Result<PathBuf, WriteError> {
    let r = resolve(dest)?;
    // the files go where a link in the last place points (unlike gen's
    // output, which is replaced as a whole and may not be a link): a link
    // to /etc is /etc
    let target = fs::canonicalize(&r.path).ok().filter(|t| *t != r.path);
    if let Some(sys) = [Some(&r.path), target.as_ref()].into_iter().flatten().find(|p| is_system_or_home(p)) {
        let why = if *sys == r.path { String::new() } else { format!(" (where {} points)", r.path.display()) };
        return Err(refused(
            sys,
            format!(
                "is a system or home directory{why}: the command writes its files into it; \
                 choose a new directory such as ./run"
            ),
        ));
    }
    Ok(r.path)
}

/// Why `dest` may not be replaced, or `None` when it is new, empty, or a
/// complete earlier zynq-net output: a `manifest.json` whose `tool` is
/// `zynq-net` and which lists every file in the directory. Anything else
/// (a symlink, a foreign file, a board file kept beside the output) is
/// refused, as soon as it is seen (a large tree is not walked).
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
    let manifest: Option<serde_json::Value> =
        fs::read(dest.join("manifest.json")).ok().and_then(|b| serde_json::from_slice(&b).ok());
    let manifest = manifest.filter(|m| m["tool"] == "zynq-net");
    let listed: Vec<String> = manifest
        .as_ref()
        .and_then(|m| m["artifacts"].as_array())
        .map(|a| a.iter().filter_map(|x| x["path"].as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    let mut foreign = Vec::new();
    let mut seen = 0usize;
    let mut stack = vec![dest.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in io(&d, fs::read_dir(&d))? {
            let e = io(&d, e)?;
            seen += 1;
            if seen > MAX_SCAN_ENTRIES {
                return Ok(Some(format!("holds more than {MAX_SCAN_ENTRIES} entries: not a zynq-net output directory; choose an empty or new directory")));
            }
            let ft = io(&e.path(), e.file_type())?;
            if ft.is_dir() {
                stack.push(e.path());
                continue;
            }
            let rel = e.path().strip_prefix(dest).map(|r| r.to_string_lossy().replace('\\', "/")).unwrap_or_default();
            if manifest.is_none() {
                return Ok(Some("exists and is not a zynq-net output directory (no zynq-net manifest.json); choose an empty or new directory".into()));
            }
            if rel != "manifest.json" && !listed.contains(&rel) {
                foreign.push(rel);
                if foreign.len() >= 5 {
                    break;
                }
            }
        }
        if foreign.len() >= 5 {
            break;
        }
    }
    if foreign.is_empty() {
        return Ok(None);
    }
    foreign.sort();
    Ok(Some(format!(
        "holds files zynq-net did not write ({}); move them away or choose another directory",
        foreign.join(", ")
    )))
}

const STAGING_PREFIX: &str = ".zynq-net-gen.";

/// Removes staging directories (`.zynq-net-gen.PID.*`) and swapped-out old
/// outputs (`.zynq-net-old.PID`) that earlier runs left in `parent` when
/// they were killed (SIGKILL, power loss): those whose process is gone.
fn clean_stale(parent: &Path) {
    let Ok(rd) = fs::read_dir(parent) else { return };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let pid = name
            .strip_prefix(STAGING_PREFIX)
            .or_else(|| name.strip_prefix(".zynq-net-old."))
            .and_then(|r| r.split('.').next())
            .and_then(|p| p.parse::<u32>().ok());
        if let Some(pid) = pid {
            if pid != std::process::id()
                && !Path::new(&format!("/proc/{pid}")).exists()
                && Path::new("/proc/self").exists()
            {
                let _ = fs::remove_dir_all(e.path());
            }
        }
    }
}

/// Writes `files` (relative path, contents, executable) into `dest`,
/// replacing it as a whole. An existing `dest` is replaced only when it is
/// empty or an earlier zynq-net output with nothing else in it
/// ([`refuse_reason`]), so a typo cannot wipe a source tree.
///
/// # Errors
/// [`WriteError`] naming the path; `dest` is then left as it was.
pub fn write_atomic(dest: &Path, files: &[(String, Vec<u8>, bool)]) -> Result<(), WriteError> {
    write_atomic_cancellable(dest, files, &|| false)
}

/// [`write_atomic`] that gives up, removing its staging directory, as soon
/// as `cancelled()` returns true (checked between files and before the
/// final rename; the CLI sets it from SIGINT/SIGTERM/SIGHUP). Every error
/// path removes the staging directory too (it is a [`tempfile::TempDir`]
/// until the final rename succeeded), and staging left by killed runs is
/// removed ([`clean_stale`]).
///
/// # Errors
/// [`WriteError`] naming the path (kind `Interrupted` when cancelled);
/// `dest` is then left as it was.
pub fn write_atomic_cancellable(
    dest: &Path,
    files: &[(String, Vec<u8>, bool)],
    cancelled: &dyn Fn() -> bool,
) -> Result<(), WriteError> {
    let dest = resolve_output(dest)?.path;
    let dest = dest.as_path();
    if let Some(why) = refuse_reason(dest)? {
        return Err(refused(dest, why));
    }
    let parent = dest.parent().map_or_else(|| PathBuf::from("/"), Path::to_path_buf);
    io(&parent, fs::create_dir_all(&parent))?;
    clean_stale(&parent);
    let stop = |p: &Path| {
        if cancelled() {
            Err(WriteError { path: p.to_path_buf(), source: std::io::Error::from(std::io::ErrorKind::Interrupted) })
        } else {
            Ok(())
        }
    };
    let tmp = io(
        &parent,
        tempfile::Builder::new()
            .prefix(&format!("{STAGING_PREFIX}{}.", std::process::id()))
            .tempdir_in(&parent)
            .map_err(without_path),
    )?;
    for (rel, data, exec) in files {
        stop(dest)?;
        let p = tmp.path().join(rel);
        if let Some(d) = p.parent() {
            io(d, fs::create_dir_all(d))?;
        }
        let mut f = io(&p, fs::File::create(&p))?;
        io(&p, f.write_all(data))?;
        // on disk before the rename can be: after a power cut the new
        // output is whole, not files of zero length
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
    stop(dest)?;
    let staged = tmp.path().to_path_buf();
    sync_dir(&staged);
    match place(&staged, dest) {
        Ok(Placed::Exchanged) => {
            // the staging name now holds the old output
            let _ = tmp.keep();
            let _ = fs::remove_dir_all(&staged);
        }
        Ok(Placed::Moved) => {
            let _ = tmp.keep();
        }
        Err(source) => return Err(WriteError { path: dest.to_path_buf(), source }),
    }
    sync_dir(&parent);
    Ok(())
}

/// fsync(2) of a directory (its entries: the staged files' names, the
/// rename), best effort: a file system that cannot sync a directory still
/// gets the atomic rename.
fn sync_dir(d: &Path) {
    if let Ok(f) = fs::File::open(d) {
        let _ = f.sync_all();
    }
}

/// How [`place`] put the staging directory in.
enum Placed {
    /// `dest` did not exist: renamed in (`staged` is gone).
    Moved,
    /// `dest` existed: the two were exchanged (`staged` holds the old output).
    Exchanged,
}

/// Puts the complete `staged` directory at `dest` so that `dest` is the old
/// or the new output at every instant, whatever kills the process
/// (SIGKILL, power loss): `renameat2(RENAME_NOREPLACE)` when `dest` is new,
/// `renameat2(RENAME_EXCHANGE)` when it exists (rename(2): "atomically
/// exchange"; Linux 3.15, on ext4, xfs, btrfs, tmpfs, overlayfs...). A
/// concurrent `gen` that makes `dest` between the two is met with the
/// exchange. Where the file system has no `renameat2` flags (EINVAL), the
/// old output is moved aside and the new one renamed in: `dest` is missing
/// for that instant only.
fn place(staged: &Path, dest: &Path) -> std::io::Result<Placed> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{renameat_with, RenameFlags, CWD};
        use rustix::io::Errno;
        for _ in 0..8 {
            match renameat_with(CWD, staged, CWD, dest, RenameFlags::NOREPLACE) {
                Ok(()) => return Ok(Placed::Moved),
                Err(Errno::EXIST) => {}
                Err(Errno::INVAL | Errno::NOSYS) => return place_fallback(staged, dest),
                Err(e) => return Err(e.into()),
            }
            match renameat_with(CWD, staged, CWD, dest, RenameFlags::EXCHANGE) {
                Ok(()) => return Ok(Placed::Exchanged),
                // removed in between (another process): try the first again
                Err(Errno::NOENT) => continue,
                Err(Errno::INVAL | Errno::NOSYS) => return place_fallback(staged, dest),
                Err(e) => return Err(e.into()),
            }
        }
        Err(std::io::Error::other("the output directory kept appearing and disappearing (another process?)"))
    }
    #[cfg(not(target_os = "linux"))]
    place_fallback(staged, dest)
}

/// [`place`] with plain renames: the old output moved aside (to a
/// `.zynq-net-old.PID` beside it), the new one in, the old one removed.
fn place_fallback(staged: &Path, dest: &Path) -> std::io::Result<Placed> {
    if !dest.exists() {
        fs::rename(staged, dest)?;
        return Ok(Placed::Moved);
    }
    let parent = dest.parent().map_or_else(|| PathBuf::from("/"), Path::to_path_buf);
    let old = parent.join(format!(".zynq-net-old.{}", std::process::id()));
    fs::rename(dest, &old)?;
    if let Err(e) = fs::rename(staged, dest) {
        let _ = fs::rename(&old, dest);
        return Err(e);
    }
    let _ = fs::remove_dir_all(&old);
    // `staged` was moved: nothing is left to remove under its name
    Ok(Placed::Moved)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(paths: &[&str]) -> Vec<u8> {
        let arts: Vec<_> = paths.iter().map(|p| serde_json::json!({ "path": p })).collect();
        serde_json::to_vec(&serde_json::json!({ "tool": "zynq-net", "artifacts": arts })).expect("json")
    }

    /// Five foreign files are listed at most, also when they are spread
    /// over directories: the scan stops after the directory that holds the
    /// fifth (exactly five in each of two directories here).
    #[test]
    fn at_most_five_foreign_files_over_directories() {
        let t = tempfile::tempdir().expect("tmp");
        let d = t.path().join("out");
        for sub in ["p", "q"] {
            fs::create_dir_all(d.join(sub)).expect("mkdir");
            for n in ["a.c", "b.c", "c.c", "d.c", "e.c"] {
                fs::write(d.join(sub).join(n), "x").expect("write");
            }
        }
        fs::write(d.join("manifest.json"), manifest(&[])).expect("write");
        let why = refuse_reason(&d).expect("ok").expect("refused");
        let names = why.split_once('(').expect("(").1.split_once(')').expect(")").0;
        assert_eq!(names.split(", ").count(), 5, "{why}");
    }

    #[test]
    fn what_may_be_replaced() {
        let t = tempfile::tempdir().expect("tmp");
        let d = t.path().join("out");
        assert_eq!(refuse_reason(&d).expect("ok"), None, "a new directory");
        fs::create_dir(&d).expect("mkdir");
        assert_eq!(refuse_reason(&d).expect("ok"), None, "an empty directory");
        // an earlier output listing every file, in a subdirectory too
        fs::create_dir(d.join("dt")).expect("mkdir");
        fs::write(d.join("dt/a.dtsi"), "x").expect("write");
        fs::write(d.join("manifest.json"), manifest(&["dt/a.dtsi"])).expect("write");
        assert_eq!(refuse_reason(&d).expect("ok"), None);
        // foreign files: listed (sorted, at most five)
        for n in ["z.c", "b.c", "a.c", "d.c", "c.c", "e.c", "f.c"] {
            fs::write(d.join(n), "x").expect("write");
        }
        let why = refuse_reason(&d).expect("ok").expect("refused");
        assert!(why.starts_with("holds files zynq-net did not write ("), "{why}");
        let names = why.split_once('(').expect("(").1.split_once(')').expect(")").0;
        let names: Vec<&str> = names.split(", ").collect();
        assert_eq!(names.len(), 5, "{why}");
        assert!(names.windows(2).all(|w| w[0] < w[1]), "{why}");
        // another tool's manifest, or none
        fs::write(d.join("manifest.json"), br#"{"tool":"other","artifacts":[]}"#).expect("write");
        assert!(refuse_reason(&d).expect("ok").expect("refused").contains("no zynq-net manifest.json"));
        fs::remove_file(d.join("manifest.json")).expect("rm");
        assert!(refuse_reason(&d).expect("ok").expect("refused").contains("not a zynq-net output"));
    }

    #[test]
    fn a_large_tree_is_not_walked() {
        let t = tempfile::tempdir().expect("tmp");
        let d = t.path().join("big");
        for i in 0..=MAX_SCAN_ENTRIES {
            fs::create_dir_all(d.join(format!("d{i}"))).expect("mkdir");
        }
        let why = refuse_reason(&d).expect("ok").expect("refused");
        assert!(why.contains(&format!("holds more than {MAX_SCAN_ENTRIES} entries")), "{why}");
        // exactly the limit: walked (empty directories only: nothing foreign)
        fs::remove_dir(d.join("d0")).expect("rm");
        assert_eq!(refuse_reason(&d).expect("ok"), None);
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_and_system_directories_are_refused() {
        let t = tempfile::tempdir().expect("tmp");
        let real = t.path().join("real");
        fs::create_dir(&real).expect("mkdir");
        let link = t.path().join("link");
        std::os::unix::fs::symlink(&real, &link).expect("symlink");
        assert!(refuse_reason(&link).expect("ok").expect("refused").contains("symbolic link"));
        // a link among the parents is resolved and reported
        let r = resolve_output(&link.join("out")).expect("resolved");
        assert_eq!(r.path, fs::canonicalize(&real).expect("canon").join("out"));
        assert!(r.via_symlink);
        let r = resolve_output(&real.join("out")).expect("resolved");
        assert!(!r.via_symlink);
        for d in ["/", "/etc", "/usr", "/var/tmp"] {
            assert!(resolve_output(Path::new(d)).is_err(), "{d} accepted");
        }
        assert!(resolve_output(&t.path().join("missing/../x")).is_err());
        // a command writing into a directory: a link to /etc is /etc (new-user
        // trial: `bench run -o etclink` wrote its run into /etc); a link to a
        // directory of one's own is that directory
        let etc = t.path().join("etclink");
        std::os::unix::fs::symlink("/etc", &etc).expect("symlink");
        let e = check_output_dir(&etc).expect_err("a link to /etc accepted");
        assert_eq!(e.path, Path::new("/etc"));
        assert!(
            e.source
                .to_string()
                .starts_with(&format!("is a system or home directory (where {} points)", etc.display())),
            "{e}"
        );
        assert_eq!(check_output_dir(&link).expect("own directory"), link);
        assert!(check_output_dir(Path::new("/etc")).is_err());
    }

    #[test]
    fn writes_replace_as_a_whole_and_cancel_cleanly() {
        let t = tempfile::tempdir().expect("tmp");
        let d = t.path().join("out");
        let files = vec![
            ("manifest.json".to_string(), manifest(&["tuning/run", "a.txt"]), false),
            ("tuning/run".to_string(), b"#!/bin/sh\n".to_vec(), true),
            ("a.txt".to_string(), b"one".to_vec(), false),
        ];
        write_atomic(&d, &files).expect("write");
        assert_eq!(fs::read(d.join("a.txt")).expect("read"), b"one");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| fs::metadata(p).expect("meta").permissions().mode() & 0o777;
            assert_eq!(mode(&d.join("tuning/run")), 0o755);
            assert_eq!(mode(&d.join("a.txt")), 0o644);
            assert_eq!(mode(&d), 0o755);
        }
        // replaced as a whole: a file of the first output that the second
        // does not write is gone
        let second = vec![
            ("manifest.json".to_string(), manifest(&["b.txt"]), false),
            ("b.txt".to_string(), b"two".to_vec(), false),
        ];
        write_atomic(&d, &second).expect("write");
        assert!(!d.join("a.txt").exists() && d.join("b.txt").exists());
        // cancelled: the earlier output stays, no staging directory is left
        let err = write_atomic_cancellable(&d, &files, &|| true).expect_err("cancelled");
        assert_eq!(err.source.kind(), std::io::ErrorKind::Interrupted);
        assert_eq!(fs::read(d.join("b.txt")).expect("kept"), b"two");
        let left: Vec<_> = fs::read_dir(t.path()).expect("ls").map(|e| e.expect("e").file_name()).collect();
        assert_eq!(left, vec![std::ffi::OsString::from("out")], "{left:?}");
    }

    /// The plain-rename path (file systems without `renameat2` flags, and
    /// every non-Linux host): a new `dest` is renamed in; an existing one
    /// is replaced as a whole, with no `.zynq-net-old.PID` left behind.
    #[test]
    fn fallback_places_new_and_replaces_existing() {
        let t = tempfile::tempdir().expect("tmp");
        let dest = t.path().join("out");
        let stage = |name: &str, file: &str| {
            let s = t.path().join(name);
            fs::create_dir(&s).expect("mkdir");
            fs::write(s.join(file), file).expect("write");
            s
        };
        let first = stage("s1", "a.txt");
        assert!(matches!(place_fallback(&first, &dest), Ok(Placed::Moved)));
        assert!(dest.join("a.txt").exists() && !first.exists());
        let second = stage("s2", "b.txt");
        assert!(matches!(place_fallback(&second, &dest), Ok(Placed::Moved)));
        assert!(dest.join("b.txt").exists() && !dest.join("a.txt").exists());
        let mut left: Vec<_> = fs::read_dir(t.path()).expect("ls").map(|e| e.expect("e").file_name()).collect();
        left.sort();
        assert_eq!(left, vec![std::ffi::OsString::from("out")], "{left:?}");
    }

    /// A directory no staging directory can be made in (procfs refuses
    /// mkdir, even to root): the error names that directory, not the
    /// staging name tempfile tried, and nothing is written.
    #[cfg(target_os = "linux")]
    #[test]
    fn an_unwritable_parent_is_named_without_the_staging_path() {
        let files = vec![("a.txt".to_string(), b"one".to_vec(), false)];
        let err = write_atomic(Path::new("/proc/zynq-net-test-out"), &files).expect_err("procfs");
        assert_eq!(err.path, Path::new("/proc"));
        let text = err.to_string();
        assert!(text.starts_with("cannot write /proc: ") && !text.contains(STAGING_PREFIX), "{text}");
        assert!(!Path::new("/proc/zynq-net-test-out").exists());
    }

    #[test]
    fn stale_staging_of_dead_processes_is_removed() {
        let t = tempfile::tempdir().expect("tmp");
        let p = t.path();
        // PID 0x7fffffff: above pid_max, so never a running process.
        let dead = p.join(format!("{STAGING_PREFIX}2147483647.abc"));
        let dead_old = p.join(".zynq-net-old.2147483647");
        let mine = p.join(format!("{STAGING_PREFIX}{}.x", std::process::id()));
        let other = p.join("keep-me");
        for d in [&dead, &dead_old, &mine, &other] {
            fs::create_dir(d).expect("mkdir");
        }
        clean_stale(p);
        assert!(!dead.exists() && !dead_old.exists(), "stale staging kept");
        assert!(mine.exists() && other.exists(), "removed what is not stale");
    }

    /// A path under a regular file is an error (ENOTDIR), not "new".
    #[test]
    fn a_path_under_a_file_is_an_error_not_new() {
        let t = tempfile::tempdir().expect("tmp");
        fs::write(t.path().join("f"), "x").expect("write");
        assert!(refuse_reason(&t.path().join("f/out")).is_err());
    }

    /// Directories that do not exist yet are appended as given; `..` after
    /// one is refused (it cannot be resolved).
    #[test]
    fn missing_parents_are_kept_and_dotdot_after_them_refused() {
        let t = tempfile::tempdir().expect("tmp");
        let base = fs::canonicalize(t.path()).expect("canonical");
        let r = resolve_output(&base.join("a/b/out")).expect("resolved");
        assert_eq!(r.path, base.join("a/b/out"));
        assert!(!r.via_symlink);
        assert!(resolve_output(&base.join("a/../out")).is_err());
    }

    /// Staging and old directories of a process that still runs (PID 1,
    /// and this test's own) are kept; those of a PID that is gone are
    /// removed.
    #[test]
    fn stale_staging_of_dead_processes_only_is_removed() {
        let t = tempfile::tempdir().expect("tmp");
        let me = std::process::id();
        let live = [format!("{STAGING_PREFIX}1.x"), format!(".zynq-net-old.{me}"), format!("{STAGING_PREFIX}{me}.y")];
        let dead = [format!("{STAGING_PREFIX}999999999.z"), ".zynq-net-old.999999999".to_string()];
        for n in live.iter().chain(&dead) {
            fs::create_dir(t.path().join(n)).expect("mkdir");
        }
        clean_stale(t.path());
        for n in &live {
            assert!(t.path().join(n).exists(), "{n} removed");
        }
        for n in &dead {
            assert!(!t.path().join(n).exists(), "{n} kept");
        }
    }

    /// A file zynq-net did not write, only in a subdirectory of an earlier
    /// output, is found: the walk goes on past the top directory, and the
    /// directory is not replaced (the file would be lost).
    #[test]
    fn a_foreign_file_in_a_subdirectory_is_found() {
        let t = tempfile::tempdir().expect("tmp");
        let d = t.path().join("out");
        fs::create_dir_all(d.join("dt")).expect("mkdir");
        fs::write(d.join("dt/a.dtsi"), "x").expect("write");
        fs::write(d.join("dt/notes.txt"), "mine").expect("write");
        fs::write(d.join("manifest.json"), manifest(&["dt/a.dtsi"])).expect("write");
        let why = refuse_reason(&d).expect("ok").expect("refused");
        assert!(why.contains("dt/notes.txt"), "{why}");
    }
}
