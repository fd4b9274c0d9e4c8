//! Opening a database safely: a file that is not an fsbench database (not SQLite, another
//! program's, or a newer schema) is refused without being modified — its header is read from the
//! file itself, then SQLite opens it read-only, and only a file that passes is opened for writing,
//! switched to WAL and migrated.

use crate::StoreError;
use crate::schema::{APPLICATION_ID, MIGRATIONS, V1, VERSION};
use rusqlite::{Connection, OpenFlags};
use std::io::Read;
use std::path::Path;
use std::time::Duration;

/// How long a writer waits for another fsbench holding the database (two runs at once).
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a wait on another program's lock lasts before it is said on the terminal.
pub const SAY_WAITING_AFTER: Duration = Duration::from_secs(1);

/// What identifies a database as fsbench's, and its schema version.
struct Header {
    user_version: i64,
    application_id: i32,
}

/// Whether a non-empty file exists at `path`, refusing one without SQLite's magic (read from the
/// file itself, so a text file or an image is never opened by SQLite at all).
fn exists_as_sqlite(path: &Path) -> Result<bool, StoreError> {
    let io = |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    };
    // A device, FIFO or directory is never a database (`--db /dev/null`, `--db /dev/sda`); its
    // kind is checked before it is opened, since opening a FIFO blocks until a writer comes.
    let mut f = match fsbench_sys::infile::open_regular(path) {
        Ok(f) => f,
        Err(fsbench_sys::infile::InputError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(false);
        }
        Err(fsbench_sys::infile::InputError::Io(e)) => return Err(io(e)),
        Err(fsbench_sys::infile::InputError::NotRegular(kind)) => {
            return Err(StoreError::NotAFile {
                path: path.to_path_buf(),
                kind,
            });
        }
        // open_regular sets no size limit; should it, a database is never too large to open.
        Err(fsbench_sys::infile::InputError::TooLarge(_)) => {
            return Err(StoreError::NotSqlite {
                path: path.to_path_buf(),
            });
        }
    };
    let mut buf = Vec::with_capacity(100);
    (&mut f).take(100).read_to_end(&mut buf).map_err(io)?;
    if buf.is_empty() {
        return Ok(false);
    }
    if buf.len() < 100 || &buf[..16] != b"SQLite format 3\0" {
        return Err(StoreError::NotSqlite {
            path: path.to_path_buf(),
        });
    }
    Ok(true)
}

/// What an SQLite error while opening means for the user: a healthy database that cannot be
/// used here (read-only directory, no space, a lock) is told apart from a damaged file, so that
/// nobody deletes good data because of a message.
fn opening_error(path: &Path, e: rusqlite::Error) -> StoreError {
    use rusqlite::ErrorCode::*;
    let unusable = |why: &str, fix| StoreError::Unusable {
        path: path.to_path_buf(),
        why: why.to_string(),
        fix,
    };
    let dir_writable = path
        .parent()
        .map(|d| {
            if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            }
        })
        .is_some_and(|d| rustix::fs::access(d, rustix::fs::Access::WRITE_OK).is_ok());
    if let Some(full) = crate::full_filesystem(path, &e) {
        return full;
    }
    match e.sqlite_error_code() {
        Some(NotADatabase) => StoreError::NotSqlite {
            path: path.to_path_buf(),
        },
        Some(DatabaseCorrupt) => StoreError::Damaged {
            path: path.to_path_buf(),
            detail: e.to_string(),
        },
        Some(ReadOnly | CannotOpen | PermissionDenied) if !dir_writable => unusable(
            "its directory cannot be written (a read-only filesystem, or no permission), and SQLite needs to place its lock files there",
            "give --db on a writable filesystem or --no-store (history, show, compare and report read it where it is)",
        ),
        Some(PermissionDenied | ReadOnly) => unusable(
            "permission denied",
            "run as a user who may read and write the file",
        ),
        Some(DatabaseBusy | DatabaseLocked) => StoreError::Busy {
            path: path.to_path_buf(),
        },
        _ => StoreError::Sql {
            path: path.to_path_buf(),
            source: e,
        },
    }
}

/// A read-only connection; when SQLite cannot place its lock files (a read-only directory) and
/// nothing is pending in a write-ahead log, the file is opened as immutable instead, so that
/// `history`, `show`, `compare` and `report` read a database on a read-only filesystem.
fn connect_read_only(path: &Path) -> Result<Connection, StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    // The busy timeout is set before the first query: another run switching the file to WAL or
    // migrating it holds a lock for a moment, which is waited for, not reported.
    let plain = Connection::open_with_flags(path, flags).and_then(|c| {
        c.busy_timeout(BUSY_TIMEOUT)?;
        c.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
            r.get::<_, i64>(0)
        })
        .map(|_| c)
    });
    match plain {
        Ok(c) => Ok(c),
        Err(e) => {
            let mut wal = path.as_os_str().to_os_string();
            wal.push("-wal");
            let pending = std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0);
            let code = e.sqlite_error_code();
            let lock_files = matches!(
                code,
                Some(rusqlite::ErrorCode::CannotOpen | rusqlite::ErrorCode::ReadOnly)
            );
            if !lock_files || pending {
                return Err(opening_error(path, e));
            }
            let uri = format!("file:{}?immutable=1", uri_path(path));
            Connection::open_with_flags(uri, flags | OpenFlags::SQLITE_OPEN_URI)
                .map_err(|e| opening_error(path, e))
        }
    }
}

/// `path` for an SQLite URI: `%`, `?` and `#` percent-encoded.
fn uri_path(path: &Path) -> String {
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = String::new();
    for b in abs.as_os_str().as_encoded_bytes() {
        match b {
            b'%' | b'?' | b'#' => out.push_str(&format!("%{b:02X}")),
            b if b.is_ascii() && !b.is_ascii_control() => out.push(*b as char),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Checks an existing database read-only: ours (or empty), not newer, readable. The version and
/// owner come from SQLite, not the raw header: in WAL mode the newest values may still be in the
/// write-ahead log.
fn check_existing(path: &Path) -> Result<Header, StoreError> {
    let sql = |source| StoreError::Sql {
        path: path.to_path_buf(),
        source,
    };
    let not_sqlite = |e| opening_error(path, e);
    let ro = connect_read_only(path)?;
    ro.busy_timeout(BUSY_TIMEOUT).map_err(sql)?;
    let tables: i64 = ro
        .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
        .map_err(not_sqlite)?;
    let h = Header {
        user_version: ro
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(not_sqlite)?,
        application_id: ro
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .map_err(not_sqlite)?,
    };
    if h.application_id != APPLICATION_ID && (h.application_id != 0 || tables > 0) {
        return Err(StoreError::Foreign {
            path: path.to_path_buf(),
        });
    }
    if h.user_version > VERSION {
        return Err(StoreError::Newer {
            path: path.to_path_buf(),
            found: h.user_version,
            supported: VERSION,
        });
    }
    Ok(h)
}

/// Checks every page of an existing database on a read-only connection before anything opens
/// it for writing: switching to WAL, a migration or a first insert would otherwise rewrite the
/// header (change counter, format bytes) of a file that is then refused as damaged.
fn check_pages(path: &Path) -> Result<(), StoreError> {
    let ro = connect_read_only(path)?;
    ro.busy_timeout(BUSY_TIMEOUT)
        .map_err(|e| opening_error(path, e))?;
    let verdict: String = ro
        .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
        .map_err(|e| opening_error(path, e))?;
    if verdict == "ok" {
        Ok(())
    } else {
        Err(StoreError::Damaged {
            path: path.to_path_buf(),
            detail: verdict,
        })
    }
}

/// Runs `attempt` again while another program holds a lock that SQLite does not wait for by
/// itself (some lock changes fail at once rather than call the busy handler), until
/// [`BUSY_TIMEOUT`]; `waiting` is called once when the wait has lasted [`SAY_WAITING_AFTER`], so
/// the terminal can say why nothing happens.
fn while_busy<T>(
    waiting: &mut dyn FnMut(),
    mut attempt: impl FnMut() -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let started = std::time::Instant::now();
    let mut said = false;
    loop {
        match attempt() {
            Err(StoreError::Busy { .. }) if started.elapsed() < BUSY_TIMEOUT => {
                if !said && started.elapsed() >= SAY_WAITING_AFTER {
                    waiting();
                    said = true;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            other => return other,
        }
    }
}

/// Opens (creating if needed) the database at `path` for reading and writing, migrated to
/// [`VERSION`]. An existing file is checked read-only first (ours, not newer, every page
/// sound), so a refused file stays byte-identical. Another program's lock is waited for (see
/// [`while_busy`]), `waiting` told when the wait is long.
pub fn open_waiting(path: &Path, waiting: &mut dyn FnMut()) -> Result<Connection, StoreError> {
    while_busy(waiting, || open_once(path))
}

/// [`open_waiting`] without a word while it waits.
pub fn open(path: &Path) -> Result<Connection, StoreError> {
    open_waiting(path, &mut || {})
}

/// One attempt at [`open_waiting`].
fn open_once(path: &Path) -> Result<Connection, StoreError> {
    if exists_as_sqlite(path)? {
        check_existing(path)?;
        check_pages(path)?;
    } else if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| StoreError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    }
    let sql = |e| opening_error(path, e);
    let mut c = Connection::open(path).map_err(sql)?;
    c.busy_timeout(BUSY_TIMEOUT).map_err(sql)?;
    c.pragma_update_and_check(None, "journal_mode", "WAL", |_| Ok(()))
        .map_err(sql)?;
    c.pragma_update(None, "synchronous", "NORMAL")
        .map_err(sql)?;
    c.pragma_update(None, "foreign_keys", "ON").map_err(sql)?;
    migrate(&mut c).map_err(sql)?;
    Ok(c)
}

/// Opens an existing database read-only (history, show, compare); `None` when there is none yet.
pub fn open_read_only(path: &Path) -> Result<Option<Connection>, StoreError> {
    while_busy(&mut || {}, || open_read_only_once(path))
}

/// One attempt at [`open_read_only`].
fn open_read_only_once(path: &Path) -> Result<Option<Connection>, StoreError> {
    if !exists_as_sqlite(path)? {
        return Ok(None);
    }
    let h = check_existing(path)?;
    if h.user_version < VERSION {
        // An older schema: migrate through a writable open (the data is kept).
        return open(path).map(Some);
    }
    let c = connect_read_only(path)?;
    c.busy_timeout(BUSY_TIMEOUT)
        .map_err(|source| StoreError::Sql {
            path: path.to_path_buf(),
            source,
        })?;
    Ok(Some(c))
}

/// Brings a database to [`VERSION`] in one transaction (an empty one gets the current schema).
fn migrate(c: &mut Connection) -> rusqlite::Result<()> {
    let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version == 0 {
        tx.execute_batch(V1)?;
        for step in MIGRATIONS {
            tx.execute_batch(step)?;
        }
        tx.pragma_update(None, "application_id", APPLICATION_ID)?;
        tx.pragma_update(None, "user_version", VERSION)?;
    } else {
        for step in &MIGRATIONS[(version - 1) as usize..] {
            tx.execute_batch(step)?;
        }
        if version < 5 {
            fill_suites(&tx)?;
        }
        if version < 10 {
            fill_roles(&tx)?;
        }
        tx.pragma_update(None, "user_version", VERSION)?;
    }
    tx.commit()
}

/// Version 10's backfill: each profile stored before roles gets them from the names of its
/// shares ([`fsbench_model::Profile::fill_legacy_roles`]); a profile that cannot be read is
/// left as it is (reading it gives no profile, as before).
fn fill_roles(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    let rows: Vec<(i64, Vec<u8>)> = tx
        .prepare("SELECT rowid, profile FROM cells WHERE profile IS NOT NULL")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    for (rowid, blob) in rows {
        let Some(mut p) = crate::profile_blob::decode(&blob) else {
            continue;
        };
        p.fill_legacy_roles();
        if let Some(blob) = crate::profile_blob::encode(Some(&p)) {
            tx.execute(
                "UPDATE cells SET profile = ?2 WHERE rowid = ?1",
                rusqlite::params![rowid, blob],
            )?;
        }
    }
    Ok(())
}

/// Version 5's backfill: each older run's suite and scale, from its command line
/// ([`fsbench_model::legacy`]).
fn fill_suites(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    let rows: Vec<(String, String)> = tx
        .prepare("SELECT id, argv FROM runs")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    for (id, argv) in rows {
        let argv: Vec<String> = serde_json::from_str(&argv).unwrap_or_default();
        tx.execute(
            "UPDATE runs SET suite = ?2, scale = ?3 WHERE id = ?1",
            rusqlite::params![
                id,
                fsbench_model::legacy::suite_of(&argv),
                fsbench_model::legacy::scale_of(&argv)
            ],
        )?;
    }
    Ok(())
}
