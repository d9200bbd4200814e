use serde_json::{Value, json};

use super::{FromClient, Proxy};
use crate::filter::Options;
use crate::registry::Registry;

fn proxy() -> Proxy {
    Proxy::new(Registry::default(), Options::default())
}

fn line(v: &Value) -> Vec<u8> {
    v.to_string().into_bytes()
}

fn list(p: &mut Proxy, id: u64, cursor: Option<&str>, tools: Value) {
    let mut request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"});
    if let Some(c) = cursor {
        request["params"] = json!({"cursor": c});
    }
    assert!(matches!(
        p.from_client(&line(&request)).0,
        FromClient::Forward
    ));
    let response = json!({"jsonrpc": "2.0", "id": id, "result": {"tools": tools}});
    p.from_server(&line(&response));
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
    list(&mut p, 1, None, json!([read_tool()]));
    // Spacing and number spelling the proxy would never write itself.
    let text = br#"{"jsonrpc":"2.0", "id":7,"method":"tools/call","params":{"name":"read","arguments":{"path":"/a","offset":1E0}}}"#;
    let (action, judged) = p.from_client(text);
    assert!(matches!(action, FromClient::Forward), "{action:?}");
    assert_eq!(
        judged.unwrap().verdict.status,
        crate::verdict::Status::Valid
    );
}

#[test]
fn a_repairable_call_is_forwarded_repaired_with_its_id() {
    let mut p = proxy();
    list(&mut p, 1, None, json!([read_tool()]));
    let (action, _) = p.from_client(&call(
        json!("c-1"),
        "read",
        json!({"path": "/a", "offset": "2"}),
    ));
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
    list(&mut p, 1, None, json!([read_tool()]));
    let (action, _) = p.from_client(&call(json!(9), "read", json!({"offset": 1})));
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
fn a_tool_without_a_schema_is_the_servers_to_judge() {
    let mut p = proxy();
    list(&mut p, 1, None, json!([read_tool()]));
    let (action, judged) = p.from_client(&call(json!(2), "reed", json!({})));
    assert!(matches!(action, FromClient::Forward));
    assert!(judged.is_none());
}

#[test]
fn every_page_is_learned_and_a_new_list_replaces_the_old() {
    let mut p = proxy();
    list(&mut p, 1, None, json!([read_tool()]));
    list(
        &mut p,
        2,
        Some("page-2"),
        json!([{"name": "write", "inputSchema": {"type": "object"}}]),
    );
    assert_eq!(p.learned().collect::<Vec<_>>(), ["read", "write"]);
    list(
        &mut p,
        3,
        None,
        json!([{"name": "grep", "inputSchema": {"type": "object"}}]),
    );
    assert_eq!(p.learned().collect::<Vec<_>>(), ["grep"]);
}

#[test]
fn list_changed_forgets_the_schemas_until_the_next_list() {
    let mut p = proxy();
    list(&mut p, 1, None, json!([read_tool()]));
    p.from_server(br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#);
    let (action, _) = p.from_client(&call(json!(4), "read", json!({})));
    assert!(matches!(action, FromClient::Forward));
}

#[test]
fn ids_are_matched_exactly_and_only_for_the_clients_requests() {
    let mut p = proxy();
    // The server asks the client something with the same id as a pending list.
    p.from_client(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    p.from_server(br#"{"jsonrpc":"2.0","id":1,"method":"roots/list"}"#);
    // An answer to id "1" (a string) is not the answer to id 1.
    p.from_server(br#"{"jsonrpc":"2.0","id":"1","result":{"tools":[]}}"#);
    p.from_server(&line(
        &json!({"jsonrpc":"2.0","id":1,"result":{"tools":[read_tool()]}}),
    ));
    assert_eq!(p.learned().collect::<Vec<_>>(), ["read"]);
}

#[test]
fn unanswered_requests_get_an_error_when_the_server_goes() {
    let mut p = proxy();
    p.from_client(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    p.from_client(br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
    p.from_client(br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#);
    p.from_client(
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
        assert!(matches!(p.from_client(text).0, FromClient::Forward));
        p.from_server(text);
    }
}

#[test]
fn given_schemas_come_before_learned_ones() {
    let given = Registry::from_schemas([(
        "read".to_owned(),
        json!({"type": "object", "required": ["file"]}),
    )]);
    let mut p = Proxy::new(given, Options::default());
    list(&mut p, 1, None, json!([read_tool()]));
    let (action, _) = p.from_client(&call(json!(5), "read", json!({"path": "/a"})));
    assert!(matches!(action, FromClient::Answer(_)), "{action:?}");
}

#[test]
fn the_same_rejected_call_again_and_again_is_told_to_stop() {
    let mut p = proxy();
    list(&mut p, 1, None, json!([read_tool()]));
    let texts: Vec<String> = (0..3)
        .map(|i| {
            let (action, _) = p.from_client(&call(json!(10 + i), "read", json!({"offset": 1})));
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
