// DuckDB beside zlake: an in-memory DuckDB in a child process of its own
// (so its peak RSS is not mixed with the case's), driven over IPC. Times
// are taken inside the child around `connection.run(sql)`, which runs the
// query and materializes the whole result in DuckDB's memory without
// converting it to JavaScript values: query time inside an open connection.

import { ChildProcess, fork } from 'node:child_process';
import { procPeakRssMB, resetPeakRss } from './lib';

interface Request {
  id: number;
  sql: string;
}

interface Reply {
  id: number;
  seconds?: number;
  rows?: number;
  /** The first row's first column, as text (for checking counts). */
  first?: string;
  error?: string;
}

export interface DuckResult {
  seconds: number;
  rows: number;
  first?: string;
}

/** The parent's handle on a DuckDB child. */
export class Duck {
  private next = 1;
  private waiting = new Map<number, (r: Reply) => void>();

  private constructor(private child: ChildProcess) {
    child.on('message', (m: Reply) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      w?.(m);
    });
  }

  static async start(): Promise<Duck> {
    const child = fork(__filename, ['child'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const d = new Duck(child);
    await d.run('SELECT 1');
    return d;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Runs one statement; rejects with DuckDB's error. */
  run(sql: string): Promise<DuckResult> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, (r) =>
        r.error !== undefined
          ? reject(new Error(`DuckDB: ${r.error}\n  in: ${sql}`))
          : resolve({ seconds: r.seconds!, rows: r.rows!, first: r.first }),
      );
      this.child.send({ id, sql } satisfies Request);
    });
  }

  peakRssMB(): number {
    return procPeakRssMB(this.pid);
  }

  resetPeak(): boolean {
    return resetPeakRss(this.pid);
  }

  async stop(): Promise<void> {
    const gone = new Promise<void>((r) => this.child.once('exit', () => r()));
    this.child.kill('SIGKILL');
    await gone;
  }
}

async function child(): Promise<void> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  process.on('message', (m: Request) => {
    void (async () => {
      try {
        const t0 = process.hrtime.bigint();
        const r = await conn.run(m.sql);
        const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
        let first: string | undefined;
        if (r.rowCount > 0 && r.columnCount > 0) {
          const v = r.getChunk(0).getColumnValues(0)[0];
          first = v === null || v === undefined ? undefined : String(v);
        }
        process.send!({ id: m.id, seconds, rows: r.rowCount, first } satisfies Reply);
      } catch (e) {
        process.send!({ id: m.id, error: (e as Error).message } satisfies Reply);
      }
    })();
  });
}

if (require.main === module && process.argv[2] === 'child') void child();
