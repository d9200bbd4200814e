//! Lines past [`MAX_LINE_BYTES`]: not forwarded. The caller keeps the first
//! [`OVERSIZED_PREFIX_BYTES`](super::OVERSIZED_PREFIX_BYTES) of one, and the
//! proxy answers for it from the `id` and `method` that prefix shows.

use serde_json::Value;

use super::head::scan_head;
use super::listing::Listing;
use super::{MAX_LINE_BYTES, Out, Proxy, error, key};

/// The JSON-RPC error code of a message over [`MAX_LINE_BYTES`].
const TOO_LARGE: i64 = -32600;

impl Proxy {
    /// A line from the client over `MAX_LINE_BYTES`, of which `prefix` is the
    /// start: it is not forwarded. The answer for the client: an error for its
    /// id if the prefix shows it, else a parse error with id `null`.
    pub fn client_oversized(&mut self, prefix: &[u8], len: usize) -> Vec<u8> {
        let (id, _) = scan_head(prefix);
        self.warn(format!(
            "a message from the client of more than {MAX_LINE_BYTES} bytes ({len} read) was not forwarded"
        ));
        let why = format!("the message is larger than callfix's limit of {MAX_LINE_BYTES} bytes");
        match id {
            Some(id) => error(&id, TOO_LARGE, &why),
            None => error(&Value::Null, -32700, &why),
        }
    }

    /// A line from the server over `MAX_LINE_BYTES`, of which `prefix` is the
    /// start: it is not forwarded. The client request it answers gets an error
    /// instead; a request from the server gets an error back.
    pub fn server_oversized(&mut self, prefix: &[u8], len: usize) {
        self.warn(format!(
            "a message from the MCP server of more than {MAX_LINE_BYTES} bytes ({len} read) was not forwarded"
        ));
        let why = format!(
            "the MCP server's message is larger than callfix's limit of {MAX_LINE_BYTES} bytes"
        );
        let (id, method) = scan_head(prefix);
        let Some(id) = id else { return };
        let k = key(&id);
        if method.is_some() {
            self.out.push(Out::Server(error(&id, TOO_LARGE, &why)));
        } else if self.own.remove(&k) {
            if matches!(&self.listing, Listing::Fetching(f) if f.id == k) {
                self.warn(format!("the MCP server's tool list is incomplete: {why}"));
                self.finish_listing();
            }
        } else if let Some(id) = self.pending.remove(&k) {
            self.out.push(Out::Client(error(&id, -32603, &why)));
        }
    }
}
