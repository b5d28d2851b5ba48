//! End to end over a real socket: bind port 0, answer raw HTTP/1.1, run the load generator
//! briefly, and shut down.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use fabula_server::loadgen::{self, LoadConfig};
use fabula_server::{ServeConfig, bind};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::{fixture_worlds, write_corpus};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_over_a_socket_and_shuts_down() {
    let dir = tempfile::tempdir().unwrap();
    write_corpus(dir.path(), &fixture_worlds());
    let config = ServeConfig {
        worlds: dir.path().to_owned(),
        addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
        ..ServeConfig::default()
    };
    let server = bind(config).await.unwrap();
    let addr = server.local_addr();
    assert_ne!(addr.port(), 0);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(server.run_until(async move {
        let _ = stopped.await;
    }));

    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(b"GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).await.unwrap();
    assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
    assert!(raw.contains("\"status\":\"ok\""), "{raw}");

    let report = loadgen::run(LoadConfig {
        addr,
        connections: 4,
        duration: Duration::from_millis(300),
        seed: 1,
        ..LoadConfig::default()
    })
    .await
    .unwrap();
    assert!(report.requests > 0, "{report}");
    assert_eq!(report.errors, 0, "{report}");
    assert!(report.p50 <= report.p99 && report.p99 <= report.max);
    assert_eq!(report.worlds, 2);
    let shown = report.to_string();
    assert!(shown.contains("req/s") && shown.contains("p99"), "{shown}");

    let vocabulary = loadgen::run(LoadConfig {
        addr,
        connections: 2,
        duration: Duration::from_millis(100),
        worlds: vec![3],
        vocabulary: vec!["ferry".to_owned(), "guild".to_owned()],
        ..LoadConfig::default()
    })
    .await
    .unwrap();
    assert!(
        vocabulary.requests > 0 && vocabulary.errors == 0,
        "{vocabulary}"
    );
    assert_eq!(vocabulary.worlds, 1);

    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(10), serving)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(
        TcpStream::connect(addr).await.is_err(),
        "the socket is closed after shutdown"
    );
}

#[tokio::test]
async fn binding_a_taken_port_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    write_corpus(dir.path(), &fixture_worlds());
    let taken = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let config = ServeConfig {
        worlds: dir.path().to_owned(),
        addr: taken.local_addr().unwrap(),
        ..ServeConfig::default()
    };
    let error = bind(config).await.err().expect("the port is taken");
    assert!(
        matches!(error, fabula_server::Error::Bind { .. }),
        "{error:?}"
    );
}

#[test]
fn addresses_parse_with_or_without_scheme() {
    let expected = SocketAddr::from((Ipv4Addr::LOCALHOST, 8080));
    assert_eq!(loadgen::parse_addr("127.0.0.1:8080").unwrap(), expected);
    assert_eq!(
        loadgen::parse_addr("http://127.0.0.1:8080/").unwrap(),
        expected
    );
    assert!(loadgen::parse_addr("nonsense").is_err());
}
