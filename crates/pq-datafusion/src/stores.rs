//! Object stores from URLs and the environment (feature `stores`): the
//! store of an `s3://`, `gs://`, `az://` (`abfs[s]://`, `azure://`) or
//! `http(s)://` URL, built as the object_store crate reads its settings
//! (`AWS_*`, `GOOGLE_*`, `AZURE_*`), and [`EnvObjectStoreRegistry`], a
//! DataFusion registry that builds such stores the first time a table's
//! URL names them.
//!
//! Why here: a Ballista scheduler plans over the same tables as its
//! executors read, so both processes (and the client) must resolve a URL
//! to the same store without being told of it in advance; `pq sql` and the
//! other commands of `pq` build their stores the same way.

use std::sync::Arc;
use std::time::Duration;

use datafusion::common::{DataFusionError, Result};
use datafusion::execution::object_store::{DefaultObjectStoreRegistry, ObjectStoreRegistry};
use object_store::{ClientConfigKey, ClientOptions, ObjectStore, RetryConfig};
use url::Url;

/// How stores are built besides the environment.
#[derive(Debug, Clone)]
pub struct StoreOptions {
    /// The endpoint of an S3-compatible or Azure store (an `http://` one is
    /// allowed); S3 requests then use path-style URLs.
    pub endpoint: Option<String>,
    /// Unsigned requests (public buckets).
    pub no_sign_request: bool,
    /// The longest one request may take.
    pub timeout: Duration,
    /// The longest a connection may take to open.
    pub connect_timeout: Duration,
    /// Retries of the store's own client. pq's async reader retries its
    /// fetches itself, so `pq` sets 0 (retries would multiply); a query
    /// engine's listing and footers go through the store alone.
    pub retries: usize,
}

impl Default for StoreOptions {
    /// No endpoint, signed requests, 30 s per request, 5 s to connect, and
    /// the object_store crate's default retries.
    fn default() -> Self {
        StoreOptions {
            endpoint: None,
            no_sign_request: false,
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(5),
            retries: RetryConfig::default().max_retries,
        }
    }
}

/// The URL schemes [`store_for_url`] builds stores for.
pub const SCHEMES: &[&str] = &[
    "s3", "s3a", "gs", "az", "abfs", "abfss", "azure", "http", "https",
];

/// The store of `url`'s bucket, container or host, built from the
/// environment and `options`. The error is one line.
///
/// ```
/// use pq_datafusion::stores::{store_for_url, StoreOptions};
/// let url = url::Url::parse("s3://bucket/table/part-0.parquet").unwrap();
/// let options = StoreOptions {
///     endpoint: Some("http://127.0.0.1:9000".into()),
///     no_sign_request: true,
///     ..StoreOptions::default()
/// };
/// assert!(store_for_url(&url, &options).is_ok());
/// let ftp = url::Url::parse("ftp://host/file.parquet").unwrap();
/// assert!(store_for_url(&ftp, &options).is_err());
/// ```
pub fn store_for_url(
    url: &Url,
    options: &StoreOptions,
) -> std::result::Result<Arc<dyn ObjectStore>, String> {
    let scheme = url.scheme().to_ascii_lowercase();
    let timeout = format!("{}ms", options.timeout.as_millis());
    let connect = format!("{}ms", options.connect_timeout.as_millis());
    let retry = RetryConfig {
        max_retries: options.retries,
        ..RetryConfig::default()
    };
    let text = url.as_str();
    // What every cloud store takes alike, from the environment and the
    // options. A macro: the three builders share no trait.
    macro_rules! cloud_builder {
        ($builder:ty, $key:ident) => {
            <$builder>::from_env()
                .with_url(text)
                .with_config($key::Client(ClientConfigKey::Timeout), &timeout)
                .with_config($key::Client(ClientConfigKey::ConnectTimeout), &connect)
                .with_retry(retry)
                .with_skip_signature(options.no_sign_request)
        };
    }
    let built: std::result::Result<Arc<dyn ObjectStore>, object_store::Error> =
        match scheme.as_str() {
            "s3" | "s3a" => {
                use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey as K};
                // Timeouts are set key by key: setting whole `ClientOptions`
                // would drop what the environment set (AWS_ALLOW_HTTP).
                let mut b = cloud_builder!(AmazonS3Builder, K);
                if let Some(e) = &options.endpoint {
                    b = b.with_endpoint(e).with_virtual_hosted_style_request(false);
                }
                // An http:// endpoint (a local S3-compatible server), from
                // the options or AWS_ENDPOINT[_URL], is allowed without
                // AWS_ALLOW_HTTP.
                let http = |k: K| {
                    b.get_config_value(&k)
                        .is_some_and(|e| e.starts_with("http://"))
                };
                if http(K::Endpoint) || http(K::S3Endpoint) {
                    b = b.with_allow_http(true);
                }
                b.build().map(|s| Arc::new(s) as _)
            }
            "gs" => {
                use object_store::gcp::{GoogleCloudStorageBuilder, GoogleConfigKey as K};
                cloud_builder!(GoogleCloudStorageBuilder, K)
                    .build()
                    .map(|s| Arc::new(s) as _)
            }
            "az" | "abfs" | "abfss" | "azure" => {
                use object_store::azure::{AzureConfigKey as K, MicrosoftAzureBuilder};
                let mut b = cloud_builder!(MicrosoftAzureBuilder, K);
                if let Some(e) = &options.endpoint {
                    b = b
                        .with_endpoint(e.clone())
                        .with_allow_http(e.starts_with("http://"));
                }
                b.build().map(|s| Arc::new(s) as _)
            }
            "http" | "https" => object_store::http::HttpBuilder::new()
                .with_url(url.origin().ascii_serialization())
                .with_client_options(
                    ClientOptions::new()
                        .with_allow_http(true)
                        .with_config(ClientConfigKey::Timeout, &timeout)
                        .with_config(ClientConfigKey::ConnectTimeout, &connect),
                )
                .with_retry(retry)
                .build()
                .map(|s| Arc::new(s) as _),
            _ => {
                return Err(format!(
                    "{scheme}:// URLs are not read (only s3://, gs://, az://, abfs[s]://, \
                     http:// and https://)"
                ));
            }
        };
    built.map_err(|e| {
        e.to_string()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// A DataFusion [`ObjectStoreRegistry`] that builds the store of an
/// object-store URL ([`store_for_url`]) the first time it is asked for,
/// and keeps it; stores registered by hand and `file://` work as in
/// DataFusion's default registry.
///
/// ```
/// use std::sync::Arc;
/// use datafusion::execution::object_store::ObjectStoreRegistry;
/// use pq_datafusion::stores::{EnvObjectStoreRegistry, StoreOptions};
///
/// let registry = EnvObjectStoreRegistry::new(StoreOptions {
///     endpoint: Some("http://127.0.0.1:9000".into()),
///     no_sign_request: true,
///     ..StoreOptions::default()
/// });
/// let url = url::Url::parse("s3://bucket/").unwrap();
/// let first = registry.get_store(&url).unwrap();
/// assert!(Arc::ptr_eq(&first, &registry.get_store(&url).unwrap()));
/// assert!(registry.get_store(&url::Url::parse("ftp://host/").unwrap()).is_err());
/// ```
#[derive(Debug)]
pub struct EnvObjectStoreRegistry {
    known: DefaultObjectStoreRegistry,
    options: StoreOptions,
}

impl EnvObjectStoreRegistry {
    /// A registry that builds stores with `options`.
    pub fn new(options: StoreOptions) -> Self {
        EnvObjectStoreRegistry {
            known: DefaultObjectStoreRegistry::new(),
            options,
        }
    }
}

impl Default for EnvObjectStoreRegistry {
    fn default() -> Self {
        Self::new(StoreOptions::default())
    }
}

impl ObjectStoreRegistry for EnvObjectStoreRegistry {
    fn register_store(
        &self,
        url: &Url,
        store: Arc<dyn ObjectStore>,
    ) -> Option<Arc<dyn ObjectStore>> {
        self.known.register_store(url, store)
    }

    fn deregister_store(&self, url: &Url) -> Result<Arc<dyn ObjectStore>> {
        self.known.deregister_store(url)
    }

    fn get_store(&self, url: &Url) -> Result<Arc<dyn ObjectStore>> {
        if let Ok(store) = self.known.get_store(url) {
            return Ok(store);
        }
        if !SCHEMES.contains(&url.scheme().to_ascii_lowercase().as_str()) {
            // DataFusion's own message (no store registered for the URL).
            return self.known.get_store(url);
        }
        let store = store_for_url(url, &self.options)
            .map_err(|e| DataFusionError::Configuration(format!("the store of {url}: {e}")))?;
        self.known.register_store(url, store.clone());
        Ok(store)
    }
}
