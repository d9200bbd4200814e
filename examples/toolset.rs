//! The library without the command line: a tool set from schemas in memory, and
//! a valid, a repairable and an invalid call checked against it. No file is read
//! and no command-line type is used. CI runs it and checks its output.
//!
//!     cargo run --example toolset

#![allow(clippy::print_stdout)] // a program whose job is to print

use callfix::{Outcome, Toolset};
use serde_json::json;

fn main() {
    let tools = Toolset::from_schemas([(
        "read".to_owned(),
        json!({
            "type": "object",
            "properties": {
                "file_path": {"type": "string"},
                "offset": {"type": "integer", "minimum": 1},
                "limit": {"type": "integer", "minimum": 1}
            },
            "required": ["file_path"],
            "additionalProperties": false
        }),
    )]);
    let calls = [
        json!({"file_path": "/src/main.rs", "offset": 1.0}),
        json!({"filePath": "/src/main.rs", "offset": "120", "limit": null}),
        json!({"limit": "ten"}),
    ];
    for args in calls {
        match tools.check("read", args) {
            Outcome::Valid { args } => println!("valid: {args}"),
            Outcome::Repaired { args, repairs } => {
                let kinds: Vec<&str> = repairs.iter().map(|r| r.kind.name()).collect();
                println!("repaired: {args} ({})", kinds.join(", "));
            }
            Outcome::Rejected { message, .. } => println!("rejected: {message}"),
            Outcome::Broken { message } => println!("broken schema: {message}"),
        }
    }
}
