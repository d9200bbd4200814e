//! Findings in the formats CI systems display: a line for people
//! (`path:line:col: severity[rule]: message`), a JSON object per line, a GitHub
//! Actions workflow command per line, and one SARIF 2.1.0 log.

use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use serde_json::{Value, json};

use super::{Finding, Rule};
use crate::message::one_line;
use crate::spelling::Spellings;

/// `path:line:col: severity[rule]: message`, with the severity as given (the
/// binary colours it). One line whatever the file and the message hold (both
/// through `one_line`), and never a GitHub workflow command: a path that
/// starts with `::` is written `./::…`, the same file.
pub fn human(f: &Finding, severity: &str) -> String {
    let file = one_line(&f.file);
    let dot = if file.starts_with("::") { "./" } else { "" };
    format!(
        "{dot}{file}:{}:{}: {severity}[{}]: {}",
        f.line,
        f.col,
        f.rule,
        one_line(&f.message)
    )
}

/// One JSON object: `file`, `line`, `col`, `severity`, `rule`, `message`. One
/// line for any reader: what serde_json leaves raw in a string (DEL, C1,
/// U+2028, U+2029) is escaped too.
pub fn json(f: &Finding) -> String {
    let mut out = Vec::with_capacity(128);
    // Writing to a Vec cannot fail, and the output is UTF-8.
    let _ = Spellings::default().write(&mut out, f);
    String::from_utf8(out).unwrap_or_default()
}

/// A GitHub Actions workflow command (`::error file=…,line=…,col=…,title=…::…`),
/// which the runner shows as an annotation on the file.
pub fn github(f: &Finding) -> String {
    format!(
        "::{} file={},line={},col={},title={}::{}",
        f.severity.as_str(),
        property(&f.file),
        f.line,
        f.col,
        property(&format!("callfix {}", f.rule)),
        data(&f.message)
    )
}

/// A workflow command's message, escaped as the runner reads it (`%`, CR, LF),
/// and every other control or line separator written visibly ([`one_line`]):
/// the command stays one line for the runner and for whatever reads the log.
fn data(s: &str) -> String {
    let escaped = s
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    one_line(&escaped).into_owned()
}

/// A workflow command's property value: the message escapes, and `:` and `,`.
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Where the SARIF schema is published (SARIF logs name it).
const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// One SARIF 2.1.0 log of every finding: one run, every rule described in the
/// driver, columns counted in Unicode code points. `version` is the tool's.
/// SARIF's levels include `error` and `warning`, the severities' own words.
pub fn sarif(findings: &[Finding], version: &str, information_uri: &str) -> Value {
    let rules: Vec<Value> = Rule::ALL
        .iter()
        .map(|r| {
            json!({
                "id": r.id(),
                "shortDescription": {"text": r.help()},
                "defaultConfiguration": {"level": r.severity().as_str()},
            })
        })
        .collect();
    let results: Vec<Value> = findings
        .iter()
        .map(|f| {
            json!({
                "ruleId": f.rule.id(),
                "ruleIndex": Rule::ALL.iter().position(|r| *r == f.rule).unwrap_or(0),
                "level": f.severity.as_str(),
                "message": {"text": f.message},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri(&f.file)},
                        "region": {"startLine": f.line, "startColumn": f.col},
                    }
                }],
            })
        })
        .collect();
    json!({
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "callfix",
                "version": version,
                "informationUri": information_uri,
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

/// What a URI reference cannot hold as it is (RFC 3986): escaped.
const NOT_IN_URI: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b']')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// A file path as a SARIF artifact URI: relative paths stay relative (to the
/// directory the check ran in), absolute ones become `file://` URIs.
fn uri(path: &str) -> String {
    let slashed = if cfg!(windows) {
        path.replace('\\', "/")
    } else {
        path.to_owned()
    };
    let encoded = utf8_percent_encode(&slashed, NOT_IN_URI).to_string();
    if slashed.starts_with('/') {
        format!("file://{encoded}")
    } else if slashed.as_bytes().get(1) == Some(&b':') {
        format!("file:///{encoded}")
    } else {
        encoded
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Severity;

    fn finding(message: &str) -> Finding {
        Finding {
            file: "dir, x/a:b.json".into(),
            line: 14,
            col: 7,
            severity: Severity::Error,
            rule: Rule::RequiredUndeclared,
            message: message.into(),
        }
    }

    #[test]
    fn github_commands_escape_what_the_runner_would_read_as_syntax() {
        let line = github(&finding("50% done\nnext: line"));
        assert_eq!(
            line,
            "::error file=dir%2C x/a%3Ab.json,line=14,col=7,title=callfix required-undeclared::50%25 done%0Anext: line"
        );
    }

    #[test]
    fn github_commands_escape_every_control_and_line_separator() {
        let line = github(&finding("a\u{85}b\u{2028}c\u{1b}[2Kd\u{7f}\r\n::error::x"));
        assert_eq!(
            line,
            "::error file=dir%2C x/a%3Ab.json,line=14,col=7,title=callfix required-undeclared::a\\u0085b\\u2028c\\u001b[2Kd\\u007f%0D%0A::error::x"
        );
    }

    #[test]
    fn human_lines_are_one_line_and_never_a_workflow_command() {
        let mut f = finding("to \"x\n::error file=README.md::forged\u{2028}\"");
        assert_eq!(
            human(&f, "error"),
            "dir, x/a:b.json:14:7: error[required-undeclared]: to \"x\\n::error file=README.md::forged\\u2028\""
        );
        f.file = "::error::x\u{85}.json".into();
        assert_eq!(
            human(&f, "error"),
            "./::error::x\\u0085.json:14:7: error[required-undeclared]: to \"x\\n::error file=README.md::forged\\u2028\""
        );
    }

    #[test]
    fn json_lines_escape_what_serde_json_leaves_raw() {
        let line = json(&finding("a\u{2028}b\u{85}c\u{7f}\n"));
        assert!(
            line.ends_with(r#""message":"a\u2028b\u0085c\u007f\n"}"#),
            "{line}"
        );
        let back: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(back["message"], "a\u{2028}b\u{85}c\u{7f}\n");
    }

    #[test]
    fn human_lines_lead_with_the_place() {
        assert_eq!(
            human(&finding("m"), "error"),
            "dir, x/a:b.json:14:7: error[required-undeclared]: m"
        );
    }

    #[test]
    fn sarif_uris_are_escaped_and_absolute_paths_are_file_uris() {
        assert_eq!(uri("schemas/a b#1.json"), "schemas/a%20b%231.json");
        assert_eq!(uri("/tmp/x.json"), "file:///tmp/x.json");
        assert_eq!(uri("<stdin>"), "%3Cstdin%3E");
    }

    #[test]
    fn sarif_results_point_at_their_rule() {
        let log = sarif(&[finding("m")], "0.1.0", "https://example.com");
        let result = &log["runs"][0]["results"][0];
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(
            log["runs"][0]["tool"]["driver"]["rules"][index]["id"],
            "required-undeclared"
        );
        assert_eq!(
            result["locations"][0]["physicalLocation"]["region"],
            json!({"startLine": 14, "startColumn": 7})
        );
    }
}
