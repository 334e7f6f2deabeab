//! pq under Ballista: a scheduler and two executors, each its own process
//! (`pq-ballista-scheduler`, `pq-ballista-executor`) on 127.0.0.1, and a
//! client that registers pq tables and submits queries to them. Every
//! query must give the rows a single local `SessionContext` gives over the
//! same tables (in order where it has an ORDER BY).
//!
//! One test binary on purpose, apart from the query suite only because it
//! needs feature `ballista`.

mod common;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ballista_core::extension::{SessionConfigExt, SessionStateExt};
use common::{render, write_lineitem_part};
use datafusion::error::Result;
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use pq_datafusion::codec::with_pq_codecs;
use pq_datafusion::{PqReadOptions, SessionContextExt};

/// A child process killed when the test ends, however it ends.
struct Process {
    name: &'static str,
    child: Child,
    log: PathBuf,
}

impl Drop for Process {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

impl Process {
    fn start(
        name: &'static str,
        exe: &str,
        args: &[String],
        env: &[(&'static str, String)],
        dir: &Path,
    ) -> Process {
        let log = dir.join(format!("{name}.log"));
        let out = std::fs::File::create(&log).unwrap_or_else(|e| panic!("{e}"));
        let err = out.try_clone().unwrap_or_else(|e| panic!("{e}"));
        let child = Command::new(exe)
            .args(args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap_or_else(|e| panic!("{name}: {exe}: {e}"));
        Process { name, child, log }
    }

    /// The process's output so far.
    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits until `ready` holds, checking every 100 ms; gives back why
    /// not if the process exits or 60 s pass first.
    fn wait_until(&mut self, mut ready: impl FnMut(&Process) -> bool) -> Result<(), NotReady> {
        let start = Instant::now();
        loop {
            if ready(self) {
                return Ok(());
            }
            let exited = self.child.try_wait().ok().flatten();
            if exited.is_some() || start.elapsed() > Duration::from_secs(60) {
                return Err(NotReady {
                    exited,
                    log: self.log(),
                });
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until `addr` accepts connections; fails with the process's
    /// output if it exits or 60 s pass first.
    fn wait_listening(&mut self, addr: SocketAddr) {
        self.wait_until(|_| TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok())
            .unwrap_or_else(|not| {
                panic!(
                    "{}",
                    not.describe(self.name, &format!("listening on {addr}"))
                )
            });
    }
}

/// Why a process was not ready: it exited (with this status) or 60 s
/// passed, and what it had printed.
struct NotReady {
    exited: Option<std::process::ExitStatus>,
    log: String,
}

impl NotReady {
    fn describe(&self, name: &str, what: &str) -> String {
        let why = match self.exited {
            Some(status) => format!("exited: {status}"),
            None => "60 s passed".to_owned(),
        };
        format!("{name} is not {what} ({why}):\n{}", self.log)
    }
}

/// Ports free on 127.0.0.1 now, all different (the process they are given
/// binds them soon after; another process taking one first makes the start
/// fail loudly, not the test pass).
fn free_ports<const N: usize>() -> [u16; N] {
    let listeners =
        [(); N].map(|()| TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}")));
    listeners.map(|l| l.local_addr().unwrap_or_else(|e| panic!("{e}")).port())
}

/// A scheduler and two executors, each allowed two tasks at once.
struct Cluster {
    scheduler: SocketAddr,
    executors: Vec<Executor>,
    _scheduler_process: Process,
}

/// An executor and the work directory it writes its tasks' output to.
struct Executor {
    work: PathBuf,
    process: Process,
}

/// The cluster's processes get `env` besides the test's environment.
fn start_cluster(dir: &Path, env: &[(&'static str, String)]) -> Cluster {
    let [port] = free_ports();
    let scheduler: SocketAddr = format!("127.0.0.1:{port}")
        .parse()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut s = Process::start(
        "scheduler",
        env!("CARGO_BIN_EXE_pq-ballista-scheduler"),
        &["--bind".to_owned(), scheduler.to_string()],
        env,
        dir,
    );
    s.wait_listening(scheduler);
    // Ballista's executors log their registration at level info.
    let executor_env: Vec<_> = env
        .iter()
        .cloned()
        .chain([("PQ_BALLISTA_LOG", "info".to_owned())])
        .collect();
    let mut executors = Vec::new();
    for name in ["executor-1", "executor-2"] {
        // A fresh work directory, so that what is in it afterwards is
        // this run's.
        let work = dir.join(name);
        std::fs::remove_dir_all(&work).ok();
        std::fs::create_dir_all(&work).unwrap_or_else(|e| panic!("{e}"));
        // Started again (at most twice) only when a port it was given was
        // taken before it bound it: another test's cluster starts beside.
        let mut attempt = 1;
        let (mut e, flight) = loop {
            let [flight, grpc] = free_ports();
            let mut e = Process::start(
                name,
                env!("CARGO_BIN_EXE_pq-ballista-executor"),
                &[
                    "--scheduler".to_owned(),
                    scheduler.to_string(),
                    "--port".to_owned(),
                    flight.to_string(),
                    "--grpc-port".to_owned(),
                    grpc.to_string(),
                    "--concurrent-tasks".to_owned(),
                    "2".to_owned(),
                    "--work-dir".to_owned(),
                    work.display().to_string(),
                ],
                &executor_env,
                dir,
            );
            // Registered: the scheduler has dialled its gRPC port back and
            // counts its task slots. Listening on its Flight port is not
            // enough: queries sent before it registers all go to the other
            // executor.
            match e.wait_until(|e| e.log().contains("Executor registration succeed")) {
                Ok(()) => break (e, flight),
                Err(not) if attempt < 3 && not.exited.is_some() && not.log.contains("in use") => {
                    eprintln!("{}", not.describe(name, "registered; starting it again"));
                    attempt += 1;
                }
                Err(not) => panic!("{}", not.describe(name, "registered with the scheduler")),
            }
        };
        e.wait_listening(SocketAddr::from(([127, 0, 0, 1], flight)));
        executors.push(Executor { work, process: e });
    }
    Cluster {
        scheduler,
        executors,
        _scheduler_process: s,
    }
}

/// A client session of `cluster`, with pq's codecs.
fn client(cluster: &Cluster) -> Result<SessionContext> {
    let config = with_pq_codecs(SessionConfig::new_with_ballista().with_target_partitions(4));
    let state = SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .build()
        .upgrade_for_ballista(format!("http://{}", cluster.scheduler))?;
    Ok(SessionContext::new_with_state(state))
}

fn data_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/test-data/pq-ballista");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir
}

/// The tables: lineitem in four files of 50 000 rows (two row groups
/// each, so the scan has several tasks), a 4 000-row head of it, and the
/// nested and all-types fixtures.
fn tables(dir: &Path) -> Vec<(&'static str, String)> {
    let lineitem = dir.join("lineitem");
    std::fs::create_dir_all(&lineitem).unwrap_or_else(|e| panic!("{e}"));
    for part in 0..4 {
        write_lineitem_part(
            &lineitem.join(format!("part-{part}.parquet")),
            part * 50_000,
            50_000,
            25_000,
        );
    }
    let head = dir.join("head.parquet");
    write_lineitem_part(&head, 0, 4_000, 1_000);
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data");
    vec![
        ("lineitem", format!("{}/", lineitem.display())),
        ("head", head.display().to_string()),
        (
            "nested",
            fixtures
                .join("nested_plain_v1.parquet")
                .display()
                .to_string(),
        ),
        (
            "all_types",
            fixtures
                .join("all_types_dict_snappy_v1.parquet")
                .display()
                .to_string(),
        ),
    ]
}

const QUERIES: &[&str] = &[
    common::Q1,
    common::Q6,
    "SELECT * FROM lineitem WHERE l_partkey < 2000",
    "SELECT count(*) FROM lineitem",
    "SELECT count(*) FROM lineitem WHERE l_shipmode = 'AIR' AND l_quantity < 5",
    "SELECT l_shipmode, count(*), sum(l_quantity), min(l_receiptdate) FROM lineitem GROUP BY l_shipmode ORDER BY l_shipmode",
    "SELECT l_orderkey, l_comment FROM lineitem ORDER BY l_extendedprice DESC, l_orderkey, l_linenumber LIMIT 10",
    "SELECT h.l_shipmode, count(*) FROM lineitem l JOIN head h ON l.l_orderkey = h.l_orderkey \
     AND l.l_linenumber = h.l_linenumber GROUP BY h.l_shipmode",
    "SELECT count(*) FROM lineitem l LEFT JOIN head h ON l.l_orderkey = h.l_orderkey AND h.l_linenumber = 1 WHERE h.l_orderkey IS NULL",
    "SELECT id, list_int64, \"struct\"['a'], \"struct\"['b'], map_utf8_int64 FROM nested WHERE id % 3 = 1",
    "SELECT count(*), sum(\"struct\"['a']), max(array_length(list_int64)) FROM nested",
    "SELECT * FROM all_types",
    "SELECT utf8, count(*), sum(int64), max(decimal_18_4), min(ts_us_utc) FROM all_types GROUP BY utf8",
    "SELECT count(*) FROM li_sql WHERE l_shipmode IN ('MAIL', 'SHIP')",
];

async fn rows(ctx: &SessionContext, sql: &str) -> Result<Vec<String>> {
    let batches = ctx.sql(sql).await?.collect().await?;
    Ok(render(&batches, sql.contains("ORDER BY")))
}

async fn register(ctx: &SessionContext, tables: &[(&str, String)]) -> Result<()> {
    for (name, location) in tables {
        ctx.register_pq(name, location, PqReadOptions::default())
            .await?;
    }
    ctx.register_pq_format(Default::default())?;
    let lineitem = &tables[0].1;
    ctx.sql(&format!(
        "CREATE EXTERNAL TABLE li_sql STORED AS PQ LOCATION '{lineitem}' OPTIONS ('pruning' 'false')"
    ))
    .await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ballista_cluster_agrees_with_one_context() -> Result<()> {
    let dir = data_dir();
    let tables = tables(&dir);
    let cluster = start_cluster(&dir, &[]);

    let remote = client(&cluster)?;
    register(&remote, &tables).await?;

    let local = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(4));
    register(&local, &tables).await?;

    for sql in QUERIES {
        let want = rows(&local, sql).await?;
        let got = rows(&remote, sql)
            .await
            .unwrap_or_else(|e| panic!("{sql}: through Ballista: {e}"));
        assert_eq!(got.len(), want.len(), "{sql}: row counts");
        assert!(
            got == want,
            "{sql}: rows differ, first: {:?}",
            got.iter().zip(&want).find(|(a, b)| a != b)
        );
    }
    // The queries ran in both executors: each wrote the shuffle output of
    // the jobs it ran tasks of into its work directory.
    for executor in &cluster.executors {
        let work = &executor.work;
        let jobs = std::fs::read_dir(work)
            .map(|d| d.filter_map(|e| e.ok()).count())
            .unwrap_or(0);
        eprintln!("{}: output of {jobs} jobs", work.display());
        assert!(
            jobs > 0,
            "{} ran no task; its log:\n{}",
            work.display(),
            executor.process.log()
        );
    }
    Ok(())
}

/// Tables in an S3 store (moto on 127.0.0.1): the scheduler lists and
/// plans them and the executors read them, each building the store from
/// the URL and its environment (no store is registered in them), and the
/// rows are those of a local context over the same files on disk.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ballista_reads_tables_in_s3() -> Result<()> {
    use object_store::aws::AmazonS3Builder;
    use pq_testkit::MotoServer;

    let Some(moto) = MotoServer::start_or_skip().unwrap_or_else(|e| panic!("{e}")) else {
        return Ok(());
    };
    let dir = data_dir();
    let tables = tables(&dir);
    moto.create_bucket("lake").unwrap_or_else(|e| panic!("{e}"));
    let lineitem = dir.join("lineitem");
    for part in 0..4 {
        let name = format!("part-{part}.parquet");
        let bytes = std::fs::read(lineitem.join(&name)).unwrap_or_else(|e| panic!("{e}"));
        moto.put_object("lake", &format!("lineitem/{name}"), &bytes)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let head = std::fs::read(dir.join("head.parquet")).unwrap_or_else(|e| panic!("{e}"));
    moto.put_object("lake", "head.parquet", &head)
        .unwrap_or_else(|e| panic!("{e}"));
    let in_s3 = [
        ("lineitem", "s3://lake/lineitem/".to_owned()),
        ("head", "s3://lake/head.parquet".to_owned()),
    ];

    let s3_dir = dir.join("s3");
    std::fs::create_dir_all(&s3_dir).unwrap_or_else(|e| panic!("{e}"));
    let cluster = start_cluster(&s3_dir, &moto.client_env());

    let remote = client(&cluster)?;
    // The client reads the footers to register the tables: its store is
    // given to it here (the test's own environment is left alone).
    let store = AmazonS3Builder::new()
        .with_bucket_name("lake")
        .with_endpoint(moto.endpoint())
        .with_region(MotoServer::REGION)
        .with_access_key_id(MotoServer::ACCESS_KEY_ID)
        .with_secret_access_key(MotoServer::SECRET_ACCESS_KEY)
        .with_allow_http(true)
        .build()?;
    let bucket = url::Url::parse("s3://lake").unwrap_or_else(|e| panic!("{e}"));
    remote.register_object_store(&bucket, std::sync::Arc::new(store));
    for (name, location) in &in_s3 {
        remote
            .register_pq(name, location, PqReadOptions::default())
            .await?;
    }

    let local = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(4));
    for (name, location) in tables.iter().take(2) {
        local
            .register_pq(name, location, PqReadOptions::default())
            .await?;
    }
    let on_lineitem = QUERIES
        .iter()
        .filter(|q| !q.contains("nested") && !q.contains("all_types") && !q.contains("li_sql"));
    let mut ran = 0;
    for sql in on_lineitem {
        let want = rows(&local, sql).await?;
        let got = rows(&remote, sql)
            .await
            .unwrap_or_else(|e| panic!("{sql}: through Ballista from S3: {e}"));
        assert!(
            got == want,
            "{sql}: rows differ ({} against {}), first: {:?}",
            got.len(),
            want.len(),
            got.iter().zip(&want).find(|(a, b)| a != b)
        );
        ran += 1;
    }
    assert!(ran >= 8, "only {ran} queries over the S3 tables");
    // A glob in a URL reaches the executors whole (the plan carries it):
    // two of the four parts, as the same glob over the local files.
    remote
        .register_pq(
            "two",
            "s3://lake/lineitem/part-[01].parquet",
            PqReadOptions::default(),
        )
        .await?;
    let local_glob = format!("{}/part-[01].parquet", lineitem.display());
    local
        .register_pq("two", &local_glob, PqReadOptions::default())
        .await?;
    let sql = "SELECT count(*), sum(l_quantity) FROM two";
    let want = rows(&local, sql).await?;
    assert_eq!(rows(&remote, sql).await?, want);
    let all = rows(&local, "SELECT count(*), sum(l_quantity) FROM lineitem").await?;
    assert_ne!(want, all, "the glob chose every part");
    Ok(())
}

/// Plans over pq tables written with pq's codecs and read back (in this
/// process, around DataFusion's own codecs): the plan reads the same, pq's
/// filter, projection, limit and options survive, and it gives the same
/// rows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plans_round_trip_through_the_codecs() -> Result<()> {
    use datafusion::common::tree_node::TreeNode;
    use datafusion::physical_plan::{collect, displayable};
    use datafusion_proto::bytes::{
        logical_plan_from_bytes_with_extension_codec, logical_plan_to_bytes_with_extension_codec,
        physical_plan_from_bytes_with_extension_codec, physical_plan_to_bytes_with_extension_codec,
    };
    use datafusion_proto::logical_plan::DefaultLogicalExtensionCodec;
    use datafusion_proto::physical_plan::DefaultPhysicalExtensionCodec;
    use pq_datafusion::codec::{PqLogicalCodec, PqPhysicalCodec};
    use std::sync::Arc;

    let dir = data_dir();
    let tables = tables(&dir);
    let logical_codec = PqLogicalCodec::wrapping(Arc::new(DefaultLogicalExtensionCodec {}));
    let physical_codec = PqPhysicalCodec::wrapping(Arc::new(DefaultPhysicalExtensionCodec {}));
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(2));
    register(&ctx, &tables).await?;
    // Options other than the defaults, to see them cross.
    let options = PqReadOptions {
        format: pq_datafusion::PqOptions {
            pruning: false,
            fetch: pq_arrow::FetchOptions::default().with_footer_prefetch(1 << 12),
            ..Default::default()
        },
        ..Default::default()
    };
    ctx.register_pq("li_opts", &tables[0].1, options).await?;
    let task = ctx.task_ctx();
    for sql in [
        "SELECT l_orderkey, l_shipmode FROM lineitem WHERE l_quantity < 3 AND l_shipmode = 'AIR' \
         ORDER BY l_orderkey LIMIT 50",
        common::Q6,
        // Its aggregate evaluates a decimal product of two computed
        // columns with pq's own expression, which crosses the wire too.
        common::Q1,
        "SELECT count(*) FROM li_sql WHERE l_shipmode IN ('MAIL', 'SHIP')",
        "SELECT l_orderkey FROM li_opts WHERE l_partkey < 100",
        "SELECT id, \"struct\"['b'] FROM nested WHERE id > 2",
    ] {
        let df = ctx.sql(sql).await?;
        let want = render(&df.clone().collect().await?, false);

        let logical = df.logical_plan().clone();
        let bytes = logical_plan_to_bytes_with_extension_codec(&logical, &logical_codec)?;
        let back = logical_plan_from_bytes_with_extension_codec(&bytes, &task, &logical_codec)?;
        assert_eq!(
            format!("{}", back.display_indent()),
            format!("{}", logical.display_indent()),
            "{sql}: logical plan"
        );
        let got = render(
            &ctx.execute_logical_plan(back).await?.collect().await?,
            false,
        );
        assert_eq!(got, want, "{sql}: rows of the decoded logical plan");

        let physical = df.create_physical_plan().await?;
        let bytes = physical_plan_to_bytes_with_extension_codec(physical.clone(), &physical_codec)?;
        let back = physical_plan_from_bytes_with_extension_codec(&bytes, &task, &physical_codec)?;
        let (a, b) = (
            displayable(physical.as_ref()).indent(true).to_string(),
            displayable(back.as_ref()).indent(true).to_string(),
        );
        assert_eq!(b, a, "{sql}: physical plan");
        // pq's decimal expression displays as DataFusion's does; its
        // `Debug` tells them apart.
        let arith = |p: &Arc<dyn datafusion::physical_plan::ExecutionPlan>| {
            format!("{p:?}").contains("DecimalArith")
        };
        assert_eq!(arith(&back), arith(&physical), "{sql}: pq's expression");
        assert_eq!(arith(&physical), sql == common::Q1, "{sql}");
        assert!(a.contains("file_type=pq"), "{a}");
        let got = render(&collect(back, task.clone()).await?, false);
        assert_eq!(got, want, "{sql}: rows of the decoded physical plan");
    }
    // The options crossed (the plan's text does not show them).
    let df = ctx.sql("SELECT l_orderkey FROM li_opts").await?;
    let logical = df.logical_plan().clone();
    let bytes = logical_plan_to_bytes_with_extension_codec(&logical, &logical_codec)?;
    let back = logical_plan_from_bytes_with_extension_codec(&bytes, &task, &logical_codec)?;
    let mut found = None;
    back.apply(|node| {
        if let datafusion::logical_expr::LogicalPlan::TableScan(scan) = node
            && let Some(table) = datafusion::datasource::source_as_provider(&scan.source)
                .ok()
                .and_then(|p| {
                    (p.as_ref() as &dyn std::any::Any)
                        .downcast_ref::<pq_datafusion::PqTable>()
                        .cloned()
                })
        {
            found = Some(table.pq_options().clone());
        }
        Ok(datafusion::common::tree_node::TreeNodeRecursion::Continue)
    })?;
    let options = found.unwrap_or_else(|| panic!("no pq table in the decoded plan"));
    assert!(!options.pruning && options.pushdown);
    assert_eq!(options.fetch.footer_prefetch(), 1 << 12);
    Ok(())
}

/// A codec that counts the scalar functions it is asked to write and
/// otherwise is DataFusion's default.
#[derive(Debug, Default)]
struct CountingUdfs {
    written: std::sync::atomic::AtomicUsize,
}

impl datafusion_proto::physical_plan::PhysicalExtensionCodec for CountingUdfs {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[std::sync::Arc<dyn datafusion::physical_plan::ExecutionPlan>],
        ctx: &datafusion::execution::TaskContext,
        converter: &dyn datafusion_proto::physical_plan::PhysicalProtoConverterExtension,
    ) -> Result<std::sync::Arc<dyn datafusion::physical_plan::ExecutionPlan>> {
        datafusion_proto::physical_plan::DefaultPhysicalExtensionCodec {}
            .try_decode(buf, inputs, ctx, converter)
    }

    fn try_encode(
        &self,
        node: std::sync::Arc<dyn datafusion::physical_plan::ExecutionPlan>,
        buf: &mut Vec<u8>,
        converter: &dyn datafusion_proto::physical_plan::PhysicalProtoConverterExtension,
    ) -> Result<()> {
        datafusion_proto::physical_plan::DefaultPhysicalExtensionCodec {}
            .try_encode(node, buf, converter)
    }

    fn try_encode_udf(
        &self,
        _node: &datafusion::logical_expr::ScalarUDF,
        _buf: &mut Vec<u8>,
    ) -> Result<()> {
        self.written
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }
}

/// What pq's codec does not own (here a scalar function) reaches the
/// codec it wraps.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn functions_reach_the_wrapped_codec() -> Result<()> {
    use datafusion_proto::bytes::physical_plan_to_bytes_with_extension_codec;
    use pq_datafusion::codec::PqPhysicalCodec;
    use std::sync::Arc;

    let dir = data_dir();
    let tables = tables(&dir);
    let ctx = SessionContext::new();
    register(&ctx, &tables).await?;
    let plan = ctx
        .sql("SELECT upper(l_shipmode) FROM lineitem WHERE l_quantity < 2")
        .await?
        .create_physical_plan()
        .await?;
    let counting = Arc::new(CountingUdfs::default());
    let codec = PqPhysicalCodec::wrapping(counting.clone());
    physical_plan_to_bytes_with_extension_codec(plan, &codec)?;
    let n = counting.written.load(std::sync::atomic::Ordering::Relaxed);
    assert!(n > 0, "upper() never reached the wrapped codec");
    Ok(())
}
