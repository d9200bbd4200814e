//! `--jobs N`: the pure stages of each record (parse, extract, judge) on `N`
//! threads, the calling thread and `N - 1` workers; framing and everything after
//! judging on the calling thread, in input order, so results, loop detection and
//! statistics are the same as with one job.
//!
//! Records go out in batches, each to a worker with room in its queue, or, when
//! every queue is full, prepared by the calling thread itself (so `N` threads
//! keep `N` cores busy, and none waits while there is work). Each batch in flight
//! remembers where it went, and a worker's results come back in the order it was
//! given batches: results are written in input order without a reorder buffer.
//! At most [`DEPTH`] batches per thread (and [`IN_FLIGHT_BYTES`] of records) are
//! in flight; past that, the oldest batch is written before more is read, so
//! memory does not grow with the input. Before a read that may block, every
//! batch in flight is written and flushed: the filter stays live. (Which reads
//! cannot block, the caller may say: [`Input::ready`].)

use std::collections::VecDeque;
use std::io::Read;
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
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
/// Batches in flight per thread.
pub(super) const DEPTH: usize = 4;
/// Bytes of records in flight, whatever the number of batches (records can be
/// large).
pub(super) const IN_FLIGHT_BYTES: usize = 8 << 20;

/// The number of threads `jobs` asks for: itself, or with `0` one per core;
/// never more than [`MAX_JOBS`](super::MAX_JOBS).
pub(super) fn resolve(jobs: usize) -> usize {
    match jobs {
        0 => thread::available_parallelism().map_or(1, usize::from),
        n => n,
    }
    .min(super::MAX_JOBS)
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
struct Pipeline<'scope> {
    /// Each worker's queue in, its results out, and how many of its batches are
    /// in flight.
    workers: Vec<Worker>,
    /// The calling thread's own preparing: the filter, the source's name, and its
    /// fork of the sink.
    filter: Filter<'scope>,
    source: &'scope str,
    fork: Option<Printer<Vec<u8>>>,
    /// Records not sent yet.
    batch: Batch,
    /// The batches sent and not written, oldest first.
    in_flight: VecDeque<Sent>,
    in_flight_bytes: usize,
    streams: Streams,
}

struct Worker {
    batches: Sender<Batch>,
    results: Receiver<Vec<Prepared>>,
    queued: usize,
}

/// A batch in flight: its size, and the worker preparing it, or its records
/// prepared by the calling thread.
struct Sent {
    bytes: usize,
    to: To,
}

enum To {
    Worker(usize),
    Done(Vec<Prepared>),
}

impl Filter<'_> {
    /// [`Filter::stream`] on `jobs` (at least 2) threads: this one and `jobs - 1`
    /// workers.
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

impl<'scope> Pipeline<'scope> {
    /// Keeps the first of `forks` for the calling thread and starts a worker in
    /// `scope` for each of the others, each preparing the records of `source` (and
    /// writing what it can with its fork of the sink).
    fn start(
        filter: Filter<'scope>,
        scope: &'scope Scope<'scope, '_>,
        forks: Vec<Option<Printer<Vec<u8>>>>,
        source: &'scope str,
    ) -> Self {
        let mut forks = forks.into_iter();
        let own = forks.next().flatten();
        let workers = forks
            .map(|mut fork| {
                let (to_worker, batches) = channel::<Batch>();
                let (results, from_worker) = channel::<Vec<Prepared>>();
                scope.spawn(move || {
                    for batch in batches {
                        let prepared = prepare(filter, &batch, source, fork.as_mut());
                        if results.send(prepared).is_err() {
                            break;
                        }
                    }
                });
                Worker {
                    batches: to_worker,
                    results: from_worker,
                    queued: 0,
                }
            })
            .collect();
        Pipeline {
            workers,
            filter,
            source,
            fork: own,
            batch: Batch::with_capacity(),
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

    /// Sends the batch to the worker with the fewest batches, or prepares it on
    /// this thread when every worker has [`DEPTH`]; first writes the batches that
    /// are ready, and the oldest while too much is in flight.
    fn send<S: Sink>(&mut self, out: &mut Out<'_, '_, S>) -> Result<(), StreamError> {
        if self.batch.records.is_empty() {
            return Ok(());
        }
        while self.write_oldest(out, false)? {}
        while !self.in_flight.is_empty()
            && (self.in_flight.len() >= DEPTH * (self.workers.len() + 1)
                || self.in_flight_bytes + self.batch.bytes.len() > IN_FLIGHT_BYTES)
        {
            self.write_oldest(out, true)?;
        }
        let batch = std::mem::replace(&mut self.batch, Batch::with_capacity());
        let bytes = batch.bytes.len();
        let least = self
            .workers
            .iter_mut()
            .enumerate()
            .min_by_key(|(_, w)| w.queued);
        let to = match least.filter(|(_, w)| w.queued < DEPTH) {
            Some((w, worker)) => {
                // A worker stops only by panicking: its panic is carried on here.
                #[allow(clippy::expect_used)]
                worker
                    .batches
                    .send(batch)
                    .expect("a filter worker stopped (it panicked)");
                worker.queued += 1;
                To::Worker(w)
            }
            None => To::Done(prepare(
                self.filter,
                &batch,
                self.source,
                self.fork.as_mut(),
            )),
        };
        self.in_flight.push_back(Sent { bytes, to });
        self.in_flight_bytes += bytes;
        Ok(())
    }

    /// Sends what is batched and writes every batch in flight.
    fn drain<S: Sink>(&mut self, out: &mut Out<'_, '_, S>) -> Result<(), StreamError> {
        self.send(out)?;
        while self.write_oldest(out, true)? {}
        Ok(())
    }

    /// Writes the results of the oldest batch in flight, waiting for them if
    /// `wait`. Returns whether there was one to write.
    fn write_oldest<S: Sink>(
        &mut self,
        out: &mut Out<'_, '_, S>,
        wait: bool,
    ) -> Result<bool, StreamError> {
        let Some(oldest) = self.in_flight.front_mut() else {
            return Ok(false);
        };
        let prepared = match &mut oldest.to {
            To::Done(prepared) => std::mem::take(prepared),
            // A worker returns its batches in the order it was given them, and
            // the oldest in flight is the oldest it has.
            To::Worker(w) => {
                // `w` named a worker when the batch was sent; none is ever removed.
                #[allow(clippy::indexing_slicing)]
                let worker = &mut self.workers[*w];
                let result = if wait {
                    worker
                        .results
                        .recv()
                        .map_err(|_| TryRecvError::Disconnected)
                } else {
                    worker.results.try_recv()
                };
                match result {
                    Ok(prepared) => {
                        worker.queued -= 1;
                        prepared
                    }
                    Err(TryRecvError::Empty) => return Ok(false),
                    Err(TryRecvError::Disconnected) => {
                        panic!("a filter worker stopped (it panicked)")
                    }
                }
            }
        };
        let bytes = self.in_flight.pop_front().map_or(0, |sent| sent.bytes);
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
        Ok(true)
    }
}

/// Prepares a batch's records, in order.
fn prepare(
    filter: Filter<'_>,
    batch: &Batch,
    source: &str,
    mut fork: Option<&mut Printer<Vec<u8>>>,
) -> Vec<Prepared> {
    let mut start = 0;
    batch
        .records
        .iter()
        .map(|(meta, end)| {
            // The ends were recorded as the bytes were appended: in order and
            // in range.
            let bytes = batch.bytes.get(start..*end).unwrap_or_default();
            start = *end;
            filter.prepare(meta, None, bytes, source, fork.as_deref_mut())
        })
        .collect()
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

    #[test]
    fn a_library_caller_gets_at_most_max_jobs_threads() {
        assert_eq!(resolve(100_000), crate::filter::MAX_JOBS);
        assert_eq!(resolve(3), 3);
        assert!((1..=crate::filter::MAX_JOBS).contains(&resolve(0)));
    }

    /// Counts the results written, and checks they come in input order.
    struct Count(usize);
    impl Count {
        fn next(&mut self, at: Position) -> io::Result<()> {
            assert_eq!(at.index, self.0 as u64, "results out of order");
            self.0 += 1;
            Ok(())
        }
    }
    impl Sink for Count {
        fn call(&mut self, at: Position, _: Call, _: Verdict) -> io::Result<()> {
            self.next(at)
        }
        fn record(&mut self, at: Position, _: Verdict) -> io::Result<()> {
            self.next(at)
        }
    }

    /// Pushes `n` copies of `bytes` through a pipeline of `threads` (the calling
    /// one and workers), never letting it drain; after each, at most `cap` records
    /// may be pushed and not written.
    fn push_without_draining(bytes: &[u8], n: usize, threads: usize, cap: usize) {
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
            let forks = (0..threads).map(|_| None).collect();
            let mut pipe = Pipeline::start(filter, scope, forks, "stdin");
            let mut most = 0;
            for i in 0..n {
                let meta = RecordMeta {
                    index: i as u64,
                    line: i as u64 + 1,
                    offset: (i * bytes.len()) as u64,
                    ending: Ending::Complete,
                    oversized: None,
                    values: 3,
                    exponent: true,
                    parsed: None,
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
    fn batches_in_flight_are_capped_and_written_in_order() {
        let call = br#"{"name":"read","arguments":{"file_path":"/a/b.rs"}}"#;
        for threads in [2, 3] {
            push_without_draining(call, 20_000, threads, (threads * DEPTH + 1) * BATCH_RECORDS);
        }
    }

    #[test]
    fn with_no_worker_the_calling_thread_prepares_every_batch() {
        let call = br#"{"name":"read","arguments":{"file_path":"/a/b.rs"}}"#;
        push_without_draining(call, 2_000, 1, (DEPTH + 1) * BATCH_RECORDS);
    }

    #[test]
    fn bytes_in_flight_are_capped() {
        let big = vec![b'x'; 2 << 20];
        push_without_draining(&big, 40, 2, IN_FLIGHT_BYTES / big.len() + 1);
    }
}
