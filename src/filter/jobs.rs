//! `--jobs N`: the pure stages of each record (parse, extract, judge) on `N`
//! worker threads; framing and everything after judging on the calling thread,
//! in input order, so results, loop detection and statistics are the same as
//! with one job.
//!
//! Records go to the workers in batches, batch `k` to worker `k mod N`, and come
//! back from that worker's queue in the same order: no reorder buffer is needed.
//! At most [`DEPTH`] batches per worker (and [`IN_FLIGHT_BYTES`] of records) are
//! in flight; past that, the oldest batch is written before more is read, so
//! memory does not grow with the input. Before a read that may block, every
//! batch in flight is written and flushed: the filter stays live. (Which reads
//! cannot block, the caller may say: [`Input::ready`].)

use std::collections::VecDeque;
use std::io::Read;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::{self, Scope};

use super::record::Prepared;
use super::{Filter, Input, StreamError, Summary};
use crate::input::RecordMeta;
use crate::output::{Printer, Sink};
use crate::provider::stream::Streams;

/// Records in one batch (fewer when the input pauses).
const BATCH_RECORDS: usize = 64;
/// A batch is sent once its records hold this many bytes.
const BATCH_BYTES: usize = 64 * 1024;
/// Batches in flight per worker.
pub(super) const DEPTH: usize = 4;
/// Bytes of records in flight, whatever the number of batches (records can be
/// large).
pub(super) const IN_FLIGHT_BYTES: usize = 8 << 20;

/// The number of worker threads `jobs` asks for: itself, or with `0` one per
/// core.
pub(super) fn resolve(jobs: usize) -> usize {
    match jobs {
        0 => thread::available_parallelism().map_or(1, usize::from),
        n => n,
    }
}

/// Records framed and not sent yet: their bytes end to end (one allocation
/// crosses to the worker, not one per record).
#[derive(Debug)]
struct Batch {
    bytes: Vec<u8>,
    /// Each record, and where its bytes end.
    records: Vec<(RecordMeta, usize)>,
}

impl Batch {
    fn with_capacity() -> Self {
        Batch {
            bytes: Vec::with_capacity(BATCH_BYTES),
            records: Vec::with_capacity(BATCH_RECORDS),
        }
    }
}

/// The batches between the framer and the sink.
struct Pipeline {
    /// Each worker's queue in, and its results out.
    workers: Vec<(Sender<Batch>, Receiver<Vec<Prepared>>)>,
    /// Records not sent yet.
    batch: Batch,
    /// Batches sent, counted from the start.
    sent: usize,
    /// Bytes of each batch in flight (sent, not written), oldest first.
    in_flight: VecDeque<usize>,
    in_flight_bytes: usize,
    streams: Streams,
}

impl Filter<'_> {
    /// [`Filter::stream`] with `jobs` (at least 2) worker threads.
    pub(super) fn stream_jobs<R: Read, S: Sink>(
        &self,
        jobs: usize,
        input: Input<'_, R>,
        printer: &mut S,
        summary: &mut Summary,
    ) -> Result<u64, StreamError> {
        let (mut framer, source, ready) = input.framer(self.options.max_record_bytes);
        thread::scope(|scope| {
            let forks = (0..jobs).map(|_| printer.fork()).collect();
            let mut pipe = Pipeline::start(*self, scope, forks, source);
            let mut out = Out {
                filter: self,
                source,
                summary,
                printer,
            };
            let mut buf = Vec::new();
            loop {
                // Everything read so far is written before the framer waits.
                let mut idle = Ok(());
                let next = framer.next_record(&mut buf, &mut || {
                    if idle.is_ok() && !ready.is_some_and(|ready| ready()) {
                        idle = pipe
                            .drain(&mut out)
                            .and_then(|()| out.printer.flush().map_err(StreamError::Write));
                    }
                });
                idle?;
                let Some(meta) = next.map_err(StreamError::Read)? else {
                    break;
                };
                out.summary.records += 1;
                pipe.push(meta, &buf, &mut out)?;
            }
            pipe.drain(&mut out)?;
            if let Some(done) = pipe.streams.finish() {
                self.assembled(done, source, out.summary, out.printer)?;
            }
            Ok(framer.next_index())
        })
    }
}

/// Where prepared records are delivered, in order.
struct Out<'a, 'r, S> {
    filter: &'a Filter<'r>,
    source: &'a str,
    summary: &'a mut Summary,
    printer: &'a mut S,
}

impl Pipeline {
    /// Starts a worker in `scope` for each of `forks`, each preparing the records
    /// of `source` (and writing what it can with its fork of the sink).
    fn start<'scope>(
        filter: Filter<'scope>,
        scope: &'scope Scope<'scope, '_>,
        forks: Vec<Option<Printer<Vec<u8>>>>,
        source: &'scope str,
    ) -> Self {
        let workers = forks
            .into_iter()
            .map(|mut fork| {
                let (to_worker, batches) = channel::<Batch>();
                let (results, from_worker) = channel::<Vec<Prepared>>();
                scope.spawn(move || {
                    for batch in batches {
                        let mut start = 0;
                        let prepared = batch
                            .records
                            .iter()
                            .map(|(meta, end)| {
                                let bytes = &batch.bytes[start..*end];
                                start = *end;
                                filter.prepare(meta, bytes, source, fork.as_mut())
                            })
                            .collect();
                        if results.send(prepared).is_err() {
                            break;
                        }
                    }
                });
                (to_worker, from_worker)
            })
            .collect();
        Pipeline {
            workers,
            batch: Batch::with_capacity(),
            sent: 0,
            in_flight: VecDeque::new(),
            in_flight_bytes: 0,
            streams: Streams::default(),
        }
    }

    /// Adds a framed record; sends the batch once it is full.
    fn push<S: Sink>(
        &mut self,
        meta: RecordMeta,
        bytes: &[u8],
        out: &mut Out<'_, '_, S>,
    ) -> Result<(), StreamError> {
        self.batch.bytes.extend_from_slice(bytes);
        self.batch.records.push((meta, self.batch.bytes.len()));
        if self.batch.records.len() >= BATCH_RECORDS || self.batch.bytes.len() >= BATCH_BYTES {
            self.send(out)?;
        }
        Ok(())
    }

    /// Sends the batch to the next worker, first writing the oldest batches
    /// while too much is in flight.
    fn send<S: Sink>(&mut self, out: &mut Out<'_, '_, S>) -> Result<(), StreamError> {
        if self.batch.records.is_empty() {
            return Ok(());
        }
        while !self.in_flight.is_empty()
            && (self.in_flight.len() >= DEPTH * self.workers.len()
                || self.in_flight_bytes + self.batch.bytes.len() > IN_FLIGHT_BYTES)
        {
            self.write_oldest(out)?;
        }
        let batch = std::mem::replace(&mut self.batch, Batch::with_capacity());
        let bytes = batch.bytes.len();
        let worker = &self.workers[self.sent % self.workers.len()];
        worker
            .0
            .send(batch)
            .expect("a filter worker stopped (it panicked)");
        self.sent += 1;
        self.in_flight.push_back(bytes);
        self.in_flight_bytes += bytes;
        Ok(())
    }

    /// Sends what is batched and writes every batch in flight.
    fn drain<S: Sink>(&mut self, out: &mut Out<'_, '_, S>) -> Result<(), StreamError> {
        self.send(out)?;
        while !self.in_flight.is_empty() {
            self.write_oldest(out)?;
        }
        Ok(())
    }

    /// Waits for the oldest batch in flight and writes its results.
    fn write_oldest<S: Sink>(&mut self, out: &mut Out<'_, '_, S>) -> Result<(), StreamError> {
        let Some(bytes) = self.in_flight.pop_front() else {
            return Ok(());
        };
        // Batches written so far went to the workers in turn.
        let oldest = self.sent - self.in_flight.len() - 1;
        let worker = &self.workers[oldest % self.workers.len()];
        let prepared = worker
            .1
            .recv()
            .expect("a filter worker stopped (it panicked)");
        self.in_flight_bytes -= bytes;
        for record in prepared {
            out.filter.deliver(
                record,
                &mut self.streams,
                out.source,
                out.summary,
                out.printer,
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::Options;
    use crate::input::{Ending, RecordMeta};
    use crate::output::Position;
    use crate::provider::Call;
    use crate::registry::Registry;
    use crate::verdict::Verdict;
    use std::io;
    use std::path::PathBuf;

    /// Counts the results written.
    struct Count(usize);
    impl Sink for Count {
        fn call(&mut self, _: Position, _: Call, _: Verdict) -> io::Result<()> {
            self.0 += 1;
            Ok(())
        }
        fn record(&mut self, _: Position, _: Verdict) -> io::Result<()> {
            self.0 += 1;
            Ok(())
        }
    }

    /// Pushes `n` copies of `bytes` through a two-worker pipeline, never letting
    /// it drain; after each, at most `cap` records may be pushed and not written.
    fn push_without_draining(bytes: &[u8], n: usize, cap: usize) {
        let registry =
            Registry::load(&[PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schemas")]).unwrap();
        let options = Options::default();
        let filter = Filter {
            registry: &registry,
            options: &options,
        };
        let mut sink = Count(0);
        let mut summary = Summary::default();
        let mut out = Out {
            filter: &filter,
            source: "stdin",
            summary: &mut summary,
            printer: &mut sink,
        };
        thread::scope(|scope| {
            let mut pipe = Pipeline::start(filter, scope, vec![None, None], "stdin");
            let mut most = 0;
            for i in 0..n {
                let meta = RecordMeta {
                    index: i as u64,
                    line: i as u64 + 1,
                    offset: (i * bytes.len()) as u64,
                    ending: Ending::Complete,
                    oversized: None,
                    values: 3,
                };
                pipe.push(meta, bytes, &mut out).unwrap();
                most = most.max(i + 1 - out.printer.0);
            }
            assert!(most <= cap, "{most} records in flight (cap {cap})");
            pipe.drain(&mut out).unwrap();
        });
        assert_eq!(sink.0, n);
    }

    #[test]
    fn batches_in_flight_are_capped() {
        let call = br#"{"name":"read","arguments":{"file_path":"/a/b.rs"}}"#;
        push_without_draining(call, 20_000, (2 * DEPTH + 1) * BATCH_RECORDS);
    }

    #[test]
    fn bytes_in_flight_are_capped() {
        let big = vec![b'x'; 2 << 20];
        push_without_draining(&big, 40, IN_FLIGHT_BYTES / big.len() + 1);
    }
}
