//! End to end over a real socket: bind port 0, answer a real HTTP client (hyper's), and shut
//! down.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use fabula_server::{ServeConfig, bind};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::{Method, Request, StatusCode};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::{Value, json};
use tokio::net::TcpStream;

use crate::support::{fixture_worlds, write_corpus};

type HttpClient = Client<HttpConnector, Full<Bytes>>;

/// Sends one request and parses the answer as JSON.
async fn call(
    client: &HttpClient,
    addr: SocketAddr,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let body = body.map_or_else(Bytes::new, |body| Bytes::from(body.to_string()));
    let request = Request::builder()
        .method(method)
        .uri(format!("http://{addr}{path}"))
        .header("content-type", "application/json")
        .body(Full::new(body))
        .unwrap();
    let response = client.request(request).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap())
}

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

    let client: HttpClient = Client::builder(TokioExecutor::new()).build_http();
    let (status, health) = call(&client, addr, Method::GET, "/health", None).await;
    assert_eq!(status, StatusCode::OK, "{health}");
    assert_eq!(health["status"], "ok");
    assert_eq!(health["worlds"], 2);

    // Concurrent searches over the client's keep-alive connections, both worlds at once.
    let searches = (0..8).map(|idx| {
        let client = client.clone();
        let world = if idx % 2 == 0 { 0 } else { 3 };
        let path = format!("/v1/worlds/{world}/search");
        let body = json!({"query": "harbour ferry guild", "top_k": 3});
        async move { call(&client, addr, Method::POST, &path, Some(body)).await }
    });
    for (status, answer) in futures_join_all(searches).await {
        assert_eq!(status, StatusCode::OK, "{answer}");
        assert!(
            !answer["results"].as_array().unwrap().is_empty(),
            "{answer}"
        );
        assert_eq!(answer["rendered_by"], "template");
    }
    let (status, missing) = call(&client, addr, Method::GET, "/v1/worlds/9/nope", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{missing}");
    assert_eq!(missing["error"]["code"], "not_found");

    drop(client);
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

/// Runs the futures concurrently on the runtime and returns their outputs in order.
async fn futures_join_all<F>(futures: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let tasks: Vec<_> = futures.map(tokio::spawn).collect();
    let mut outputs = Vec::with_capacity(tasks.len());
    for task in tasks {
        outputs.push(task.await.unwrap());
    }
    outputs
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
