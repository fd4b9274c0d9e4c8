//! sshfs served from a simulated host (`--lab sshfs`): the server host runs `sshd` (root's
//! throwaway key only, keys and configuration generated in the lab scratch, SFTP by the
//! `sftp-server` program) over a directory of its ext4 loop image, and the client mounts it with
//! sshfs over the simulated network.

use super::error::Error;
use super::served;
use super::{Building, text};
use std::path::{Path, PathBuf};

/// sshfs's options besides the key: no host-key checks against anything outside the lab.
const SSHFS_OPTIONS: &str = "StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,LogLevel=ERROR";

/// The SFTP server program (package openssh-sftp-server); sshd's own internal-sftp without it.
const SFTP_SERVER: &str = "/usr/lib/openssh/sftp-server";

/// Builds the server, its keys and sshd, and the client mount; returns the mount point.
pub fn build(b: &mut Building) -> Result<PathBuf, Error> {
    let served = served::hosts(b, &["/run"], &["/run/sshd"], "export")?;
    let ssh = b.mkdir("ssh")?;
    let (host_key, id) = (ssh.join("host_key"), ssh.join("id"));
    for key in [&host_key, &id] {
        b.run(
            "ssh-keygen",
            &["-q", "-t", "ed25519", "-N", "", "-f", text(key)],
        )?;
    }
    let authorized = ssh.join("authorized_keys");
    std::fs::copy(ssh.join("id.pub"), &authorized)
        .map_err(|e| Error::io("write", authorized.clone(), e))?;
    let sftp = [SFTP_SERVER]
        .iter()
        .find(|p| Path::new(p).exists())
        .map_or("internal-sftp", |p| p)
        .to_string();
    let config = ssh.join("sshd_config");
    let (first, server) = &served.servers[0];
    write_config(&config, &server.address, &host_key, &authorized, &sftp)?;
    // sshd runs the SFTP server through root's login shell, and bash reads ~/.bashrc for a
    // command sshd starts: the machine's own shell start-up (a version manager's rehash waiting
    // on a stale lock, here) would run at every connection. The server host's root logs in to
    // /bin/sh instead, as a server of its own would have its own shell.
    let passwd = ssh.join("passwd");
    let system = std::fs::read_to_string("/etc/passwd")
        .map_err(|e| Error::io("read", PathBuf::from("/etc/passwd"), e))?;
    std::fs::write(&passwd, plain_root_shell(&system))
        .map_err(|e| Error::io("write", passwd.clone(), e))?;
    first.run(b, "mount", &["--bind", text(&passwd), "/etc/passwd"])?;
    let log = ssh.join("sshd.log");
    first.daemon(b, "sshd", &["-f", text(&config), "-E", text(&log)])?;
    let versions = vec![
        served::version(b, "ssh", "-V"),
        served::version(b, "sshfs", "--version"),
    ];
    let remote = format!("root@{}:{}", server.address, server.brick);
    let options = format!("IdentityFile={},{SSHFS_OPTIONS}", text(&id));
    let args = [remote.as_str(), "-o", options.as_str()];
    let mnt = served::mount_client(b, &served.client, "sshfs", &args).map_err(|e| {
        // What sshd said is the useful half of a refused connection.
        let said = std::fs::read_to_string(&log).unwrap_or_default();
        match super::tool::last_line(&said) {
            "" => e,
            line => Error::ToolOutput {
                program: "sshfs".into(),
                missing: "no mount",
                output: format!("{e}; sshd: {line}"),
            },
        }
    })?;
    let mut served = served;
    served.servers[0].1.daemons = vec!["sshd".into(), "sftp-server".into()];
    let options = vec![
        format!("-o {options}"),
        format!("sshd Subsystem sftp {sftp}"),
    ];
    let export = served::Export {
        export: remote,
        options,
        versions,
        port: 22,
    };
    served::record(b, &served, export);
    Ok(mnt)
}

/// sshd's configuration: listen on the server's address only, root by key only.
fn write_config(
    path: &Path,
    address: &str,
    host_key: &Path,
    authorized: &Path,
    sftp: &str,
) -> Result<(), Error> {
    let text = format!(
        "ListenAddress {address}\nHostKey {}\nAuthorizedKeysFile {}\nPermitRootLogin prohibit-password\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\nPidFile none\nSubsystem sftp {sftp}\n",
        host_key.display(),
        authorized.display()
    );
    std::fs::write(path, text).map_err(|e| Error::io("write", path, e))
}

/// `/etc/passwd` with root's login shell `/bin/sh` (its other lines as they are).
fn plain_root_shell(passwd: &str) -> String {
    let mut out = String::with_capacity(passwd.len());
    for line in passwd.lines() {
        match line.strip_prefix("root:") {
            Some(_) => {
                let fields: Vec<&str> = line.split(':').collect();
                let kept = &fields[..fields.len().saturating_sub(1).max(1)];
                out.push_str(&kept.join(":"));
                out.push_str(":/bin/sh");
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_servers_root_logs_in_to_a_plain_shell() {
        let system =
            "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n";
        assert_eq!(
            plain_root_shell(system),
            "root:x:0:0:root:/root:/bin/sh\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
        );
        assert_eq!(
            plain_root_shell("rootless:x:5:5::/:/bin/bash"),
            "rootless:x:5:5::/:/bin/bash\n"
        );
    }
}
