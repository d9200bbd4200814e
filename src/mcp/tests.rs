use std::time::Instant;

use serde_json::{Value, json};

use super::{FromClient, FromServer, LIST_WAIT, MAX_LINE_BYTES, MAX_TOOLS, Out, Proxy};
use crate::filter::Options;
use crate::registry::Registry;

fn proxy() -> Proxy {
    Proxy::with(Registry::default(), Options::default())
}

fn line(v: &Value) -> Vec<u8> {
    v.to_string().into_bytes()
}

/// What the proxy has to send, as (to the server?, message) pairs; warnings
/// and log entries as `Value::String`s marked false.
fn outbox(p: &mut Proxy) -> Vec<(bool, Value)> {
    p.take_out()
        .into_iter()
        .filter_map(|o| match o {
            Out::Server(l) => Some((true, serde_json::from_slice(&l).unwrap())),
            Out::Client(l) => Some((false, serde_json::from_slice(&l).unwrap())),
            Out::Warn(w) => Some((false, Value::String(w))),
            Out::Log(_) => None,
        })
        .collect()
}

fn client(p: &mut Proxy, text: &[u8]) -> FromClient {
    p.from_client(text, Instant::now()).0
}

/// Initialises the session, and answers the proxy's own `tools/list` with
/// `pages` (each a list of tools), following its cursors.
fn serve_list(p: &mut Proxy, pages: &[Value]) {
    assert!(matches!(
        client(
            p,
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
        ),
        FromClient::Forward
    ));
    answer_list(p, pages);
}

/// Answers the proxy's own `tools/list` requests with `pages`.
fn answer_list(p: &mut Proxy, pages: &[Value]) {
    for (i, tools) in pages.iter().enumerate() {
        let out = outbox(p);
        let Some((true, request)) = out.into_iter().find(|(s, _)| *s) else {
            panic!("no tools/list request for page {i}")
        };
        assert_eq!(request["method"], "tools/list");
        assert!(request["id"].is_string(), "{request}");
        assert_eq!(request["params"]["cursor"].as_str().is_some(), i > 0);
        let mut result = json!({"tools": tools});
        if i + 1 < pages.len() {
            result["nextCursor"] = json!(format!("page-{}", i + 1));
        }
        let response = json!({"jsonrpc": "2.0", "id": request["id"], "result": result});
        assert_eq!(p.from_server(&line(&response)), FromServer::Drop);
    }
}

fn list(p: &mut Proxy, tools: Value) {
    serve_list(p, &[tools]);
}

fn read_tool() -> Value {
    json!({"name": "read", "inputSchema": {"type": "object",
        "properties": {"path": {"type": "string"}, "offset": {"type": "integer"}},
        "required": ["path"], "additionalProperties": false}})
}

fn call(id: Value, name: &str, args: Value) -> Vec<u8> {
    line(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": args}}))
}

#[test]
fn a_valid_call_is_forwarded_as_it_came() {
    let mut p = proxy();
    list(&mut p, json!([read_tool()]));
    // Spacing and number spelling the proxy would never write itself.
    let text = br#"{"jsonrpc":"2.0", "id":7,"method":"tools/call","params":{"name":"read","arguments":{"path":"/a","offset":1E0}}}"#;
    let (action, judged) = p.from_client(text, Instant::now());
    assert!(matches!(action, FromClient::Forward), "{action:?}");
    assert_eq!(
        judged.unwrap().verdict.status,
        crate::verdict::Status::Valid
    );
}

#[test]
fn a_repairable_call_is_forwarded_repaired_with_its_id() {
    let mut p = proxy();
    list(&mut p, json!([read_tool()]));
    let (action, _) = p.from_client(
        &call(json!("c-1"), "read", json!({"path": "/a", "offset": "2"})),
        Instant::now(),
    );
    let FromClient::Rewrite(out) = action else {
        panic!("{action:?}")
    };
    let sent: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(
        sent,
        json!({"jsonrpc": "2.0", "id": "c-1", "method": "tools/call",
            "params": {"name": "read", "arguments": {"path": "/a", "offset": 2}}})
    );
}

#[test]
fn a_rejected_call_is_answered_as_a_tool_error_and_not_forwarded() {
    let mut p = proxy();
    list(&mut p, json!([read_tool()]));
    let (action, _) = p.from_client(
        &call(json!(9), "read", json!({"offset": 1})),
        Instant::now(),
    );
    let FromClient::Answer(out) = action else {
        panic!("{action:?}")
    };
    let answer: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(answer["id"], json!(9));
    assert_eq!(answer["result"]["isError"], json!(true));
    assert_eq!(
        answer["result"]["content"][0]["text"],
        json!("Please rewrite the input with valid arguments. Errors: path: Required")
    );
    // Answered by the proxy: nothing to fail if the server goes.
    assert!(p.server_gone("gone").is_empty());
}

#[test]
fn a_call_a_repeated_key_makes_read_two_ways_is_answered_not_forwarded() {
    // The valid line is forwarded as it came: a server keeping the first
    // `path` would read `/etc/shadow`, one keeping the last `/a`.
    let mut p = proxy();
    list(&mut p, json!([read_tool()]));
    let twice = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read","arguments":{"path":"/etc/shadow","path":"/a"}}}"#;
    let FromClient::Answer(out) = client(&mut p, twice) else {
        panic!("forwarded")
    };
    let answer: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(
        answer["result"]["content"][0]["text"],
        json!(
            "Please rewrite the input with valid arguments. Errors: path: given twice; send each key once"
        )
    );
    // The same value twice, or a key named twice outside the call, reads
    // one way: judged as usual.
    let same = br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read","arguments":{"path":"/a","path":"/a"}}}"#;
    assert!(matches!(client(&mut p, same), FromClient::Forward));
    let around = br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read","arguments":{"path":"/a"},"_meta":{"k":1,"k":2}}}"#;
    let action = client(&mut p, around);
    assert!(matches!(action, FromClient::Forward), "{action:?}");
}

#[test]
fn a_tool_without_a_schema_is_the_servers_to_judge() {
    let mut p = proxy();
    list(&mut p, json!([read_tool()]));
    let (action, judged) = p.from_client(&call(json!(2), "reed", json!({})), Instant::now());
    assert!(matches!(action, FromClient::Forward));
    assert!(judged.is_none());
}

#[test]
fn every_page_is_learned_and_a_new_list_replaces_the_old() {
    let mut p = proxy();
    let write = json!({"name": "write", "inputSchema": {"type": "object"}});
    serve_list(&mut p, &[json!([read_tool()]), json!([write])]);
    assert_eq!(p.learned().collect::<Vec<_>>(), ["read", "write"]);
    p.from_server(br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#);
    let grep = json!({"name": "grep", "inputSchema": {"type": "object"}});
    answer_list(&mut p, &[json!([grep])]);
    assert_eq!(p.learned().collect::<Vec<_>>(), ["grep"]);
}

#[test]
fn the_proxy_lists_the_tools_itself_once_the_client_has_initialised() {
    let mut p = proxy();
    let init = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#;
    assert!(matches!(client(&mut p, init), FromClient::Forward));
    assert!(
        outbox(&mut p).is_empty(),
        "not before notifications/initialized"
    );
    assert_eq!(
        p.from_server(br#"{"jsonrpc":"2.0","id":0,"result":{}}"#),
        FromServer::Forward
    );
    list(&mut p, json!([read_tool()]));
    assert_eq!(p.learned().collect::<Vec<_>>(), ["read"]);
}

#[test]
fn a_call_before_the_list_waits_for_it_and_is_judged() {
    let mut p = proxy();
    client(
        &mut p,
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    let early = call(json!(1), "read", json!({"offset": 1}));
    assert!(matches!(client(&mut p, &early), FromClient::Hold));
    let good = call(json!(2), "read", json!({"path": "/a"}));
    assert!(matches!(client(&mut p, &good), FromClient::Hold));
    assert!(p.holding());
    answer_list(&mut p, &[json!([read_tool()])]);
    assert!(!p.holding());
    let out = outbox(&mut p);
    assert_eq!(out.len(), 2, "{out:?}");
    // The invalid call is answered by the proxy; the valid one goes on, as it came.
    assert!(!out[0].0 && out[0].1["id"] == 1 && out[0].1["result"]["isError"] == true);
    assert_eq!(out[1], (true, serde_json::from_slice(&good).unwrap()));
    // Only the forwarded one waits for the server.
    let gone = p.server_gone("gone");
    assert_eq!(gone.len(), 1);
}

#[test]
fn a_call_waits_for_the_list_no_longer_than_list_wait() {
    let mut p = proxy();
    client(
        &mut p,
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    outbox(&mut p);
    let start = Instant::now();
    let early = call(json!(1), "read", json!({"offset": 1}));
    assert!(matches!(p.from_client(&early, start).0, FromClient::Hold));
    p.expire(start + LIST_WAIT / 2);
    assert!(outbox(&mut p).is_empty());
    p.expire(start + LIST_WAIT);
    let out = outbox(&mut p);
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(out[0], (true, serde_json::from_slice(&early).unwrap()));
    let warning = out[1].1.as_str().unwrap();
    assert!(
        warning.contains("1 call(s) forwarded unjudged"),
        "{warning}"
    );
    // Later calls do not wait again for a list that is late.
    let later = call(json!(2), "read", json!({}));
    assert!(matches!(client(&mut p, &later), FromClient::Forward));
    // Forwarded: the server owes answers.
    assert_eq!(p.server_gone("gone").len(), 2);
}

#[test]
fn a_call_to_an_unlisted_tool_is_forwarded_once_the_list_is_in() {
    let mut p = proxy();
    list(&mut p, json!([read_tool()]));
    let other = call(json!(1), "other", json!({}));
    assert!(matches!(client(&mut p, &other), FromClient::Forward));
}

#[test]
fn list_changed_lists_again_and_holds_calls_until_the_new_list() {
    let mut p = proxy();
    list(&mut p, json!([read_tool()]));
    p.from_server(br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#);
    let stale = call(json!(4), "read", json!({}));
    assert!(matches!(client(&mut p, &stale), FromClient::Hold));
    answer_list(&mut p, &[json!([read_tool()])]);
    let out = outbox(&mut p);
    assert_eq!(out.len(), 1);
    assert!(
        !out[0].0 && out[0].1["result"]["isError"] == true,
        "{out:?}"
    );
}

#[test]
fn list_changed_during_a_listing_starts_it_again() {
    let mut p = proxy();
    client(
        &mut p,
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    let first = outbox(&mut p).pop().unwrap().1;
    p.from_server(br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#);
    let old = json!({"jsonrpc": "2.0", "id": first["id"], "result": {"tools": [read_tool()]}});
    assert_eq!(p.from_server(&line(&old)), FromServer::Drop);
    assert_eq!(p.learned().count(), 0, "the old list is not learned");
    let grep = json!({"name": "grep", "inputSchema": {"type": "object"}});
    answer_list(&mut p, &[json!([grep])]);
    assert_eq!(p.learned().collect::<Vec<_>>(), ["grep"]);
}

#[test]
fn the_proxys_ids_never_collide_with_the_clients() {
    let mut p = proxy();
    // The client already uses the id the proxy would take first.
    let ping = br#"{"jsonrpc":"2.0","id":"callfix-tools-list-1","method":"ping"}"#;
    client(&mut p, ping);
    client(
        &mut p,
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    let request = outbox(&mut p).pop().unwrap().1;
    assert_eq!(request["id"], "callfix-tools-list-2");
    // A client request with the id of the proxy's request in flight is refused.
    let clash = br#"{"jsonrpc":"2.0","id":"callfix-tools-list-2","method":"ping"}"#;
    let FromClient::Answer(out) = client(&mut p, clash) else {
        panic!()
    };
    let answer: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(answer["error"]["code"], -32600);
    // The client's answer is the client's; the proxy's is the proxy's.
    let to_client = br#"{"jsonrpc":"2.0","id":"callfix-tools-list-1","result":{}}"#;
    assert_eq!(p.from_server(to_client), FromServer::Forward);
    let to_proxy = line(
        &json!({"jsonrpc":"2.0","id":"callfix-tools-list-2","result":{"tools":[read_tool()]}}),
    );
    assert_eq!(p.from_server(&to_proxy), FromServer::Drop);
    assert_eq!(p.learned().collect::<Vec<_>>(), ["read"]);
}

#[test]
fn ids_are_matched_exactly_and_only_for_the_clients_requests() {
    let mut p = proxy();
    client(&mut p, br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    // The server asks the client something with the same id as a pending ping.
    p.from_server(br#"{"jsonrpc":"2.0","id":1,"method":"roots/list"}"#);
    // An answer to id "1" (a string) is not the answer to id 1.
    p.from_server(br#"{"jsonrpc":"2.0","id":"1","result":{}}"#);
    assert_eq!(p.server_gone("gone").len(), 1);
}

#[test]
fn a_tool_list_is_learned_in_linear_time_up_to_max_tools() {
    let mut p = proxy();
    let tools: Vec<Value> = (0..MAX_TOOLS + 5_000)
        .map(|i| json!({"name": format!("t{i}"), "inputSchema": {"type": "object"}}))
        .collect();
    // The same name twice: the later schema wins, in the first place.
    let mut page = tools.clone();
    page.insert(1, json!({"name": "t0", "inputSchema": {"type": "string"}}));
    list(&mut p, Value::Array(page));
    assert_eq!(p.learned().count(), MAX_TOOLS);
    assert_eq!(p.learned().next(), Some("t0"));
    let warnings: Vec<_> = outbox(&mut p).into_iter().filter(|(s, _)| !s).collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0]
            .1
            .as_str()
            .unwrap()
            .contains("more than 10000 tools")
    );
    // A tool past the cap is the server's to judge.
    let late = call(json!(1), &format!("t{}", MAX_TOOLS + 1), json!({}));
    assert!(matches!(client(&mut p, &late), FromClient::Forward));
}

#[test]
fn a_broken_schema_is_forwarded_with_one_warning() {
    let mut p = proxy();
    let tool = json!({"name": "look", "inputSchema": {"type": "object",
        "properties": {"x": {"type": "string", "pattern": "^(?!a)"}}}});
    list(&mut p, json!([tool]));
    for id in 1..=3 {
        let c = call(json!(id), "look", json!({"x": 1}));
        assert!(matches!(client(&mut p, &c), FromClient::Forward));
    }
    let warnings = outbox(&mut p);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let w = warnings[0].1.as_str().unwrap();
    assert!(
        w.contains("\"look\"") && w.contains("forwarded unjudged"),
        "{w}"
    );
}

#[test]
fn warnings_escape_what_the_server_chose() {
    let mut p = proxy();
    let tool = json!({"name": "a\u{1b}]0;x\u{7}\n\u{85}\u{2028}b", "inputSchema": {"$ref": "http://example.com/s"}});
    list(&mut p, json!([tool]));
    client(
        &mut p,
        &call(json!(1), tool["name"].as_str().unwrap(), json!({})),
    );
    let w = outbox(&mut p).pop().unwrap().1;
    let w = w.as_str().unwrap();
    assert!(
        !w.chars().any(|c| c.is_control() || c == '\u{2028}'),
        "{w:?}"
    );
    assert!(
        w.contains("a\\u{001b}]0;x\\u{0007}\\u{000a}\\u{0085}\\u{2028}b"),
        "{w}"
    );
}

#[test]
fn an_oversized_client_line_is_answered_for_its_id_or_with_null() {
    let mut p = proxy();
    let prefix = br#"{"jsonrpc":"2.0", "method":"tools/call","params":{"name":"x","arguments":{"a":[1,{"b":"}"}],"text":"xxxx"#;
    let out: Value =
        serde_json::from_slice(&p.client_oversized(prefix, MAX_LINE_BYTES + 1)).unwrap();
    assert_eq!(out["id"], Value::Null);
    assert_eq!(out["error"]["code"], -32700);
    let prefix = br#" { "jsonrpc":"2.0", "params":{"a":"\"id\":3"}, "id" : "r-7", "method":"tools/call","params":{"text":"xxxx"#;
    let out: Value =
        serde_json::from_slice(&p.client_oversized(prefix, MAX_LINE_BYTES + 1)).unwrap();
    assert_eq!(out["id"], "r-7");
    assert_eq!(out["error"]["code"], -32600);
    for garbage in [
        &b""[..],
        b"[",
        b"{\"id\"",
        b"{\"id\":1",
        b"{\"a\":[[[[[[",
        b"\xff\xfe",
    ] {
        let out: Value = serde_json::from_slice(&p.client_oversized(garbage, 1)).unwrap();
        assert_eq!(out["id"], Value::Null, "{garbage:?}");
    }
}

#[test]
fn an_oversized_server_answer_fails_its_request() {
    let mut p = proxy();
    list(&mut p, json!([read_tool()]));
    let c = call(json!(5), "read", json!({"path": "/a"}));
    assert!(matches!(client(&mut p, &c), FromClient::Forward));
    p.server_oversized(
        br#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"text":"xxx"#,
        MAX_LINE_BYTES + 1,
    );
    let out = outbox(&mut p);
    let answer = out.iter().find(|(s, v)| !s && v.is_object()).unwrap();
    assert_eq!(answer.1["id"], 5);
    assert_eq!(answer.1["error"]["code"], -32603);
    assert!(p.server_gone("gone").is_empty(), "answered once");
}

#[test]
fn requests_after_the_server_is_gone_are_answered_at_once() {
    let mut p = proxy();
    p.server_gone("the MCP server exited (code 3)");
    let FromClient::Answer(out) = client(&mut p, &call(json!(1), "read", json!({}))) else {
        panic!()
    };
    let answer: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(answer["error"]["code"], -32000);
}

#[test]
fn unanswered_requests_get_an_error_when_the_server_goes() {
    let mut p = proxy();
    client(&mut p, br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    client(&mut p, br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
    client(&mut p, br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#);
    client(
        &mut p,
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#,
    );
    p.from_server(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    let errors = p.server_gone("MCP server exited with code 3");
    assert_eq!(errors.len(), 1);
    let e: Value = serde_json::from_slice(&errors[0]).unwrap();
    assert_eq!(
        e,
        json!({"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"MCP server exited with code 3"}})
    );
}

#[test]
fn what_is_not_json_rpc_is_forwarded() {
    let mut p = proxy();
    for text in [
        &b"not json"[..],
        b"[1,2]",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
    ] {
        assert!(matches!(client(&mut p, text), FromClient::Forward));
        p.from_server(text);
    }
}

#[test]
fn given_schemas_come_before_learned_ones() {
    let given = Registry::from_schemas([(
        "read".to_owned(),
        json!({"type": "object", "required": ["file"]}),
    )]);
    let mut p = Proxy::with(given, Options::default());
    list(&mut p, json!([read_tool()]));
    let (action, _) = p.from_client(
        &call(json!(5), "read", json!({"path": "/a"})),
        Instant::now(),
    );
    assert!(matches!(action, FromClient::Answer(_)), "{action:?}");
}

#[test]
fn the_same_rejected_call_again_and_again_is_told_to_stop() {
    let mut p = proxy();
    list(&mut p, json!([read_tool()]));
    let texts: Vec<String> = (0..3)
        .map(|i| {
            let (action, _) = p.from_client(
                &call(json!(10 + i), "read", json!({"offset": 1})),
                Instant::now(),
            );
            let FromClient::Answer(out) = action else {
                panic!("{action:?}")
            };
            let answer: Value = serde_json::from_slice(&out).unwrap();
            answer["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(texts[0], texts[1]);
    assert_ne!(
        texts[1], texts[2],
        "the third time is a loop (--loop-limit 3)"
    );
    assert!(texts[2].contains("read"), "{}", texts[2]);
}

#[test]
fn a_call_nested_too_deeply_to_read_is_answered_not_forwarded() {
    let mut p = proxy();
    list(&mut p, json!([read_tool()]));
    let deep = format!("{}{}", "[".repeat(500), "]".repeat(500));
    // `params` first: the scan must get past it to find the id and method.
    let text = format!(
        r#"{{"params":{{"name":"read","arguments":{{"path":{deep}}}}},"jsonrpc":"2.0","id":8,"method":"tools/call"}}"#
    );
    let FromClient::Answer(out) = client(&mut p, text.as_bytes()) else {
        panic!("forwarded unjudged")
    };
    let answer: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(answer["id"], 8);
    assert_eq!(answer["result"]["isError"], true);
    // Deep, but not a call: the server's to answer.
    let other = format!(r#"{{"jsonrpc":"2.0","id":9,"method":"x","params":{deep}}}"#);
    assert!(matches!(
        client(&mut p, other.as_bytes()),
        FromClient::Forward
    ));
    // A deep answer from the server still settles its request.
    let answer = format!(r#"{{"jsonrpc":"2.0","id":9,"result":{deep}}}"#);
    assert_eq!(p.from_server(answer.as_bytes()), FromServer::Forward);
    assert!(p.server_gone("gone").is_empty());
}

#[test]
fn the_head_scan_skips_strings_brackets_and_cut_values() {
    use super::head::scan_head;
    let id = |t: &str| scan_head(t.as_bytes()).0;
    assert_eq!(id(r#"{"a":"}\"]","id":1}"#), Some(json!(1)));
    assert_eq!(id(r#"{"a":[{"b":"]"}],"id":"x","#), Some(json!("x")));
    assert_eq!(id(r#"{"id":12"#), None, "cut: 12 may be 123");
    assert_eq!(id(r#"{"id":true }"#), Some(json!(true)));
    assert_eq!(id(r#"{"a":}"#), None);
    assert_eq!(id(r#"{"a":1 2,"id":3}"#), None);
    assert_eq!(id(r#"["id",1]"#), None);
    let (_, method) = scan_head(br#"{"method":"tools/call","id":1}"#);
    assert_eq!(method, Some(json!("tools/call")));
}

#[test]
fn a_call_without_an_id_is_judged_and_dropped_if_rejected() {
    let mut p = proxy();
    list(&mut p, json!([read_tool()]));
    let bad = br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"read","arguments":{}}}"#;
    assert!(matches!(client(&mut p, bad), FromClient::Drop));
    assert_eq!(outbox(&mut p).len(), 1, "one warning");
    let good = br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"read","arguments":{"path":"/a"}}}"#;
    assert!(matches!(client(&mut p, good), FromClient::Forward));
    assert!(p.server_gone("gone").is_empty(), "nothing to answer");
}
