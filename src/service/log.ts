// Structured logs: one JSON object per line, with the fields the
// reference's zap production logger writes (level, ts in seconds, logger,
// msg) and the event's own fields.

import { createWriteStream, WriteStream } from 'node:fs';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const rank: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export function parseLogLevel(s: string): LogLevel {
  const l = s.toLowerCase();
  if (l === 'warning') return 'warn';
  if (l in rank) return l as LogLevel;
  throw new Error(`unrecognized level: ${JSON.stringify(s)}`);
}

export type LogFields = Record<string, unknown>;

export interface LogSink {
  write(line: string): void;
}

export class Logger {
  constructor(
    private sink: LogSink,
    private level: LogLevel = 'info',
    private name = '',
    private fields: LogFields = {},
  ) {}

  /** A logger that adds fields (and a name segment) to every line. */
  with(fields: LogFields, name?: string): Logger {
    const n = name ? (this.name ? `${this.name}.${name}` : name) : this.name;
    return new Logger(this.sink, this.level, n, { ...this.fields, ...fields });
  }

  enabled(level: LogLevel): boolean {
    return rank[level] >= rank[this.level];
  }

  debug(msg: string, fields?: LogFields): void {
    this.log('debug', msg, fields);
  }
  info(msg: string, fields?: LogFields): void {
    this.log('info', msg, fields);
  }
  warn(msg: string, fields?: LogFields): void {
    this.log('warn', msg, fields);
  }
  error(msg: string, fields?: LogFields): void {
    this.log('error', msg, fields);
  }

  private log(level: LogLevel, msg: string, fields?: LogFields): void {
    if (!this.enabled(level)) return;
    const line: LogFields = { level, ts: Date.now() / 1000 };
    if (this.name) line.logger = this.name;
    line.msg = msg;
    Object.assign(line, this.fields, fields);
    this.sink.write(JSON.stringify(line, jsonSafe) + '\n');
  }
}

function jsonSafe(_key: string, v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Error) return v.message;
  return v;
}

/** A logger that writes nothing (tests, embedding). */
export const nopLogger = new Logger({ write: () => undefined }, 'error');

/**
 * Opens a log destination: "stderr", "stdout" or a file path (appended to
 * or truncated).
 */
export function openLogSink(
  path: string,
  mode: 'append' | 'truncate' = 'truncate',
): {
  sink: LogSink;
  close(): Promise<void>;
} {
  if (path === '' || path === 'stderr') {
    return { sink: { write: (l) => process.stderr.write(l) }, close: async () => undefined };
  }
  if (path === 'stdout') {
    return { sink: { write: (l) => process.stdout.write(l) }, close: async () => undefined };
  }
  const stream: WriteStream = createWriteStream(path, { flags: mode === 'append' ? 'a' : 'w' });
  return {
    sink: { write: (l) => stream.write(l) },
    close: () => new Promise((resolve) => stream.end(resolve)),
  };
}
