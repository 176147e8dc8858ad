// The state a running query shares across its operators.

import { TypeContext } from '../../zed/context';

/** Counters reported in QueryStats control messages. */
export interface QueryStats {
  bytesRead: number;
  bytesMatched: number;
  recordsRead: number;
  recordsMatched: number;
}

export interface QueryContextOptions {
  zctx?: TypeContext;
  signal?: AbortSignal;
  /** Bytes of values sort and summarize may hold before spilling to disk. */
  memoryLimit?: number;
  /** Directory for spill files (default: the OS temp dir). */
  tmpDir?: string;
  /** Receives warnings (e.g. from `file`, `sort` guesses) as they occur. */
  onWarning?: (msg: string) => void;
}

export class QueryContext {
  readonly zctx: TypeContext;
  readonly signal: AbortSignal;
  readonly memoryLimit: number;
  readonly tmpDir: string | undefined;
  readonly stats: QueryStats = { bytesRead: 0, bytesMatched: 0, recordsRead: 0, recordsMatched: 0 };
  readonly warnings: string[] = [];
  private readonly onWarning?: (msg: string) => void;
  private readonly abort?: AbortController;

  constructor(opts: QueryContextOptions = {}) {
    this.zctx = opts.zctx ?? new TypeContext();
    if (opts.signal) {
      this.signal = opts.signal;
    } else {
      this.abort = new AbortController();
      this.signal = this.abort.signal;
    }
    this.memoryLimit = opts.memoryLimit ?? 512 * 1024 * 1024;
    this.tmpDir = opts.tmpDir;
    this.onWarning = opts.onWarning;
  }

  warn(msg: string): void {
    this.warnings.push(msg);
    this.onWarning?.(msg);
  }

  /** Throws if the query was cancelled (client gone, timeout). */
  checkCancelled(): void {
    if (this.signal.aborted) throw new QueryCancelled();
  }

  cancel(): void {
    this.abort?.abort();
  }
}

export class QueryCancelled extends Error {
  constructor() {
    super('query cancelled');
  }
}
