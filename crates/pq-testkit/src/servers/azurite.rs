//! [`AzuriteServer`]: Azurite, Microsoft's Azure Blob Storage emulator (an
//! npm package that `cargo xtask ci` installs into `target/azurite`), as a
//! child process on a port of `127.0.0.1` it chooses, for the Azure client.

use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::announced::ChildOutput;

/// How long Azurite may take to say where it listens after it starts.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// The file [`PUT_SCRIPT`] is written to, in the server's directory.
const PUT_SCRIPT_NAME: &str = "put.js";

/// Creates a container (if missing) and uploads one file as a block blob,
/// with the emulator's well-known account and key:
/// `node put.js ENDPOINT CONTAINER NAME FILE`.
const PUT_SCRIPT: &str = r#"
const { BlobServiceClient, StorageSharedKeyCredential } = require('@azure/storage-blob');
const [endpoint, container, name, file] = process.argv.slice(2);
const credential = new StorageSharedKeyCredential(process.env.PQ_AZURITE_ACCOUNT, process.env.PQ_AZURITE_KEY);
const client = new BlobServiceClient(endpoint, credential);
(async () => {
  const c = client.getContainerClient(container);
  await c.createIfNotExists();
  await c.getBlockBlobClient(name).uploadFile(file);
})().catch((e) => { console.error(String(e.message || e).split('\n')[0]); process.exit(1); });
"#;

/// Azurite's blob service, stopped (and its storage removed) when dropped.
///
/// ```no_run
/// let Some(azurite) = pq_testkit::AzuriteServer::start_or_skip()? else { return Ok(()) };
/// azurite.put("data", "t/a.parquet", b"PAR1")?;
/// let env = azurite.client_env(); // for object_store's MicrosoftAzureBuilder::from_env
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct AzuriteServer {
    addr: SocketAddr,
    child: Child,
    dir: PathBuf,
    modules: PathBuf,
}

impl AzuriteServer {
    /// The emulator's account.
    pub const ACCOUNT: &'static str = "devstoreaccount1";
    /// The emulator's well-known account key (public, in Azure's docs).
    pub const KEY: &'static str =
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

    /// Starts Azurite from `target/azurite` on a port of its choosing and
    /// waits until it says where it listens (port 0: no other test's
    /// server can take its port between a search and its bind). An
    /// `io::ErrorKind::NotFound` error when it is not installed.
    pub fn start() -> io::Result<Self> {
        static STARTED: AtomicUsize = AtomicUsize::new(0);
        let modules = find_modules()?;
        let n = STARTED.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("pq-azurite-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(PUT_SCRIPT_NAME), PUT_SCRIPT)?;
        let mut child = Command::new(modules.join(".bin").join("azurite-blob"))
            .args(["--blobHost", "127.0.0.1", "--blobPort", "0"])
            .arg("--location")
            .arg(&dir)
            .args(["--silent", "--skipApiVersionCheck"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let said = match child.stdout.take() {
            Some(out) => ChildOutput::read("azurite-blob", out, "listens on http://")
                .and_then(|mut output| output.address(START_TIMEOUT)),
            None => Err(io::Error::other("azurite-blob's output was not piped")),
        };
        match said {
            Ok(addr) => Ok(AzuriteServer {
                addr,
                child,
                dir,
                modules,
            }),
            Err(e) => {
                stop(&mut child, &dir);
                Err(e)
            }
        }
    }

    /// [`Self::start`], except that a missing Azurite skips the calling
    /// test through [`crate::skip`] (a failure under `CI`) and returns
    /// `Ok(None)`.
    pub fn start_or_skip() -> io::Result<Option<Self>> {
        match Self::start() {
            Ok(server) => Ok(Some(server)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                crate::skip(&e.to_string());
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// `http://127.0.0.1:PORT`, what `AZURITE_BLOB_STORAGE_URL` names.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The environment an Azure client needs to reach this emulator, as
    /// object_store's `MicrosoftAzureBuilder::from_env` reads it.
    pub fn client_env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AZURE_STORAGE_USE_EMULATOR", "true".into()),
            ("AZURITE_BLOB_STORAGE_URL", self.url()),
        ]
    }

    /// Stores `bytes` as blob `name` of `container`, creating the
    /// container if it is missing (with Azure's own client, run by node).
    pub fn put(&self, container: &str, name: &str, bytes: &[u8]) -> io::Result<()> {
        let file = self.dir.join(format!("upload-{}", name.replace('/', "_")));
        std::fs::write(&file, bytes)?;
        let script = self.dir.join(PUT_SCRIPT_NAME);
        let endpoint = format!("{}/{}", self.url(), Self::ACCOUNT);
        let out = Command::new("node")
            .arg(&script)
            .args([endpoint.as_str(), container, name])
            .arg(&file)
            .env("NODE_PATH", &self.modules)
            .env("PQ_AZURITE_ACCOUNT", Self::ACCOUNT)
            .env("PQ_AZURITE_KEY", Self::KEY)
            .output()?;
        std::fs::remove_file(&file).ok();
        if out.status.success() {
            Ok(())
        } else {
            Err(io::Error::other(format!(
                "uploading {container}/{name} to Azurite: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )))
        }
    }
}

impl Drop for AzuriteServer {
    fn drop(&mut self) {
        stop(&mut self.child, &self.dir);
    }
}

/// Stops Azurite and removes its storage.
fn stop(child: &mut Child, dir: &Path) {
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(dir);
}

/// `target/azurite/node_modules` (in `$CARGO_TARGET_DIR` or the
/// workspace), when Azurite and the Azure client are installed there.
fn find_modules() -> io::Result<PathBuf> {
    let mut targets = Vec::new();
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        targets.push(PathBuf::from(target));
    }
    // This crate is crates/pq-testkit in the workspace.
    targets.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    targets
        .into_iter()
        .map(|t| t.join("azurite").join("node_modules"))
        .find(|m| {
            m.join(".bin").join("azurite-blob").is_file()
                && m.join("@azure").join("storage-blob").is_dir()
        })
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                "Azurite is not in target/azurite (install it with `cargo xtask ci`, which \
                 puts xtask/azurite/package.json's packages there with npm)",
            )
        })
}
