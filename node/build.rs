//! napi-rs's link setup for a Node addon (no symbols are resolved at link time:
//! Node provides them when it loads the `.node` file).
fn main() {
    napi_build::setup();
}
