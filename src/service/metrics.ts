// Prometheus metrics (GET /metrics), named by the Prometheus conventions:
// a zlake_ prefix, _total for counters, base units (seconds, bytes).

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CompressCounts } from '../formats/zng/compresspool';
import type { ScanCacheStats } from '../lake/cache';
import type { ScanTotals } from '../lake/lake';

export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route'>;
  readonly httpInFlight: Gauge;
  readonly queries: Counter<'outcome'>;
  readonly queryRecordsRead: Counter;
  readonly queryBytesRead: Counter;
  readonly queryRecordsWritten: Counter;
  readonly queryBytesWritten: Counter;
  readonly loadRecords: Counter;
  readonly loadBytes: Counter;
  readonly loadRequestBytes: Counter;
  readonly commits: Counter<'operation'>;
  readonly eventSubscribers: Gauge;
  readonly eventsSent: Counter;
  readonly eventSubscribersDropped: Counter;
  readonly queryDuration: Histogram<'outcome'>;
  readonly loads: Counter<'outcome'>;
  readonly commitRetries: Counter;
  readonly commitConflicts: Counter;
  readonly storageDuration: Histogram<'backend' | 'op'>;
  readonly storageErrors: Counter<'backend' | 'op'>;
  readonly coordDuration: Histogram<'backend' | 'op'>;
  readonly coordErrors: Counter<'backend' | 'op'>;
  readonly queriesRejected: Counter<'reason'>;
  readonly unauthorized: Counter;

  constructor(defaultMetrics = true) {
    const registers = [this.registry];
    if (defaultMetrics) collectDefaultMetrics({ register: this.registry });
    this.httpRequests = new Counter({
      name: 'zlake_http_requests_total',
      help: 'HTTP requests completed, by method, route and status code.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'zlake_http_request_duration_seconds',
      help: 'Time from a request arriving to its response ending.',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 60],
      registers,
    });
    this.httpInFlight = new Gauge({
      name: 'zlake_http_requests_in_flight',
      help: 'HTTP requests being served (event streams included).',
      registers,
    });
    this.queries = new Counter({
      name: 'zlake_queries_total',
      help: 'Queries run, by outcome (ok, error, cancelled).',
      labelNames: ['outcome'],
      registers,
    });
    this.queryRecordsRead = new Counter({
      name: 'zlake_query_records_read_total',
      help: 'Values queries read from storage.',
      registers,
    });
    this.queryBytesRead = new Counter({
      name: 'zlake_query_bytes_read_total',
      help: 'Bytes of values queries read from storage.',
      registers,
    });
    this.queryRecordsWritten = new Counter({
      name: 'zlake_query_records_written_total',
      help: 'Result values queries sent to clients.',
      registers,
    });
    this.queryBytesWritten = new Counter({
      name: 'zlake_query_response_bytes_total',
      help: 'Bytes of query results sent to clients.',
      registers,
    });
    this.loadRecords = new Counter({
      name: 'zlake_load_records_total',
      help: 'Values committed by loads.',
      registers,
    });
    this.loadBytes = new Counter({
      name: 'zlake_load_bytes_written_total',
      help: 'Bytes of data objects written by loads.',
      registers,
    });
    this.loadRequestBytes = new Counter({
      name: 'zlake_load_request_bytes_total',
      help: 'Bytes of load request bodies read (after Content-Encoding is undone).',
      registers,
    });
    this.commits = new Counter({
      name: 'zlake_commits_total',
      help: 'Commits made through the service, by operation.',
      labelNames: ['operation'],
      registers,
    });
    this.eventSubscribers = new Gauge({
      name: 'zlake_event_subscribers',
      help: 'Clients connected to GET /events.',
      registers,
    });
    this.eventsSent = new Counter({
      name: 'zlake_events_sent_total',
      help: 'Events queued to subscribers.',
      registers,
    });
    this.eventSubscribersDropped = new Counter({
      name: 'zlake_event_subscribers_dropped_total',
      help: 'Subscribers disconnected because they did not keep up.',
      registers,
    });
    this.queryDuration = new Histogram({
      name: 'zlake_query_duration_seconds',
      help: 'Time from a query arriving to its last result, by outcome (ok, error, cancelled, timeout).',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    });
    this.queriesRejected = new Counter({
      name: 'zlake_queries_rejected_total',
      help: 'Queries refused before running, by reason (concurrency: -limit.queries).',
      labelNames: ['reason'],
      registers,
    });
    this.unauthorized = new Counter({
      name: 'zlake_request_errors_unauthorized_total',
      help: 'Requests refused (401) for a missing or invalid bearer token.',
      registers,
    });
    this.loads = new Counter({
      name: 'zlake_loads_total',
      help: 'Loads into a branch, by outcome (ok, error).',
      labelNames: ['outcome'],
      registers,
    });
    this.commitRetries = new Counter({
      name: 'zlake_commit_retries_total',
      help: 'Commits rebuilt on a newer branch tip after losing the compare-and-swap.',
      registers,
    });
    this.commitConflicts = new Counter({
      name: 'zlake_commit_conflicts_total',
      help: 'Commits that gave up after the most attempts at moving a branch tip.',
      registers,
    });
    const opBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];
    this.storageDuration = new Histogram({
      name: 'zlake_storage_operation_duration_seconds',
      help: 'Object store calls (S3 or the lake directory), by backend and operation, retries included.',
      labelNames: ['backend', 'op'],
      buckets: opBuckets,
      registers,
    });
    this.storageErrors = new Counter({
      name: 'zlake_storage_errors_total',
      help: 'Object store calls that failed (after their retries), by backend and operation.',
      labelNames: ['backend', 'op'],
      registers,
    });
    this.coordDuration = new Histogram({
      name: 'zlake_coord_operation_duration_seconds',
      help: 'Coordinator calls (Redis or in-process), by backend and operation.',
      labelNames: ['backend', 'op'],
      buckets: opBuckets,
      registers,
    });
    this.coordErrors = new Counter({
      name: 'zlake_coord_errors_total',
      help: 'Coordinator calls that failed (after their retries), by backend and operation.',
      labelNames: ['backend', 'op'],
      registers,
    });
  }

  /** An observer of one backend's calls, for backend/instrument.ts. */
  backendObserver(
    kind: 'storage' | 'coord',
    backend: string,
  ): (op: string, seconds: number, failed: boolean) => void {
    const hist = kind === 'storage' ? this.storageDuration : this.coordDuration;
    const errors = kind === 'storage' ? this.storageErrors : this.coordErrors;
    return (op, seconds, failed) => {
      hist.observe({ backend, op }, seconds);
      if (failed) errors.inc({ backend, op });
    };
  }

  /**
   * Reports the lake's scan cache, read when metrics are scraped: its size
   * and budget (gauges) and its hits, misses and evictions (counters).
   */
  observeScanCache(stats: () => ScanCacheStats, budget: number): void {
    const registers = [this.registry];
    const gauge = (name: string, help: string, read: (s: ScanCacheStats) => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read(stats()));
        },
      });
    const counter = (name: string, help: string, read: (s: ScanCacheStats) => number) =>
      this.scrapedCounter(name, help, () => read(stats()));
    gauge(
      'zlake_scan_cache_bytes',
      'Bytes of decoded data held by the scan cache.',
      (s) => s.bytes,
    );
    gauge('zlake_scan_cache_streams', 'ZNG streams held by the scan cache.', (s) => s.entries);
    gauge(
      'zlake_scan_cache_capacity_bytes',
      'Bytes the scan cache may hold (-cache.size; 0 is off).',
      () => budget,
    );
    counter(
      'zlake_scan_cache_hits_total',
      'ZNG streams of data objects that scans found in the cache.',
      (s) => s.hits,
    );
    counter(
      'zlake_scan_cache_misses_total',
      'ZNG streams of data objects that scans decoded from storage with the cache on.',
      (s) => s.misses,
    );
    counter(
      'zlake_scan_cache_evictions_total',
      'ZNG streams evicted from the scan cache to stay within its capacity.',
      (s) => s.evictions,
    );
  }

  /**
   * Reports where big ZNG frames were compressed (read when metrics are
   * scraped): on the compression worker, or on the query's thread because
   * the worker had two frames already (a worker that does not keep up).
   */
  observeZngWorker(counts: () => CompressCounts | null): void {
    this.byThread(
      'zlake_zng_frames_compressed_total',
      'ZNG frames of 64 KiB and more compressed, by thread: worker (-zng.worker) or query.',
      () => {
        const c = counts();
        return [c?.worker ?? 0, c?.thread ?? 0];
      },
    );
  }

  /**
   * Reports where the dcounts of large group-bys kept their sketches (read
   * when metrics are scraped): on a worker thread (-dcount.workers), or on
   * the query's thread because every worker was in use.
   */
  observeDcountAside(counts: () => { aside: number; busy: number }): void {
    this.byThread(
      'zlake_dcount_columns_total',
      'dcount columns of large group-bys, by thread: worker (-dcount.workers) or query (every worker in use).',
      () => [counts().aside, counts().busy],
    );
  }

  /** A counter by thread (worker, query) whose values are read when metrics are scraped. */
  private byThread(name: string, help: string, read: () => [number, number]): void {
    new Counter({
      name,
      help,
      labelNames: ['thread'],
      registers: [this.registry],
      collect() {
        const [worker, query] = read();
        this.reset();
        this.inc({ thread: 'worker' }, worker);
        this.inc({ thread: 'query' }, query);
      },
    });
  }

  /** A counter whose value is read from a running total when metrics are scraped. */
  private scrapedCounter(name: string, help: string, total: () => number): Counter {
    return new Counter({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(total());
      },
    });
  }

  /**
   * Reports what the lake's scans read and skipped (read when metrics are
   * scraped): data bytes and objects read, objects skipped for their key
   * span or ruled out by their indexes, and the index bytes that took.
   */
  observeScans(totals: () => ScanTotals): void {
    const counter = (name: string, help: string, read: (t: ScanTotals) => number) =>
      this.scrapedCounter(name, help, () => read(totals()));
    counter(
      'zlake_scan_bytes_read_total',
      'Bytes of data objects pool scans read (from storage or the scan cache).',
      (t) => t.bytesRead,
    );
    counter('zlake_scan_objects_read_total', 'Data objects pool scans read.', (t) => t.objectsRead);
    counter(
      'zlake_scan_objects_skipped_total',
      'Data objects pool scans skipped because their key span is outside the query range.',
      (t) => t.objectsSkipped,
    );
    counter(
      'zlake_scan_objects_pruned_total',
      'Data objects pool scans skipped because their index objects rule out every match.',
      (t) => t.objectsPruned,
    );
    counter(
      'zlake_index_bytes_read_total',
      'Bytes of index objects read to decide which data objects a scan skips.',
      (t) => t.indexBytesRead,
    );
  }
}
