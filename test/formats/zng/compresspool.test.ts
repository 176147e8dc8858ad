// The ZNG writer's compression worker (src/formats/zng/compresspool.ts):
// frames built on the worker, in-thread when it is busy, must give the
// same bytes in the same order as a writer without it, whatever comes
// between them (new types, control messages, ends of stream, a slow sink),
// and a worker that dies must fail the write, not hang it.

import { BufferSink, ByteSink, readAll, sourceFromBuffer } from '../../../src/formats/io';
import { newReader, ZngWriter } from '../../../src/formats/zng';
import {
  CompressPool,
  compressPool,
  MIN_OFFLOAD,
  parseCompressWorkerMode,
} from '../../../src/formats/zng/compresspool';
import { TypeContext } from '../../../src/zed/context';
import { TypeInt64, TypeString, TypeRecord } from '../../../src/zed/types';
import { Value } from '../../../src/zed/value';
import { putUvarint } from '../../../src/zed/zcode';

/** A small deterministic generator (xorshift), so a failure replays. */
function rng(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

type Step = { vals: Value[] } | { control: string } | { end: true };

/**
 * A script of writes: batches of records of a few types (a new type now
 * and then, so typedefs come mid-stream), compressible text or random
 * bytes (frames LZ4 cannot shrink go uncompressed), with control messages
 * and ends of stream between batches.
 */
function script(seed: number, batches: number): Step[] {
  const r = rng(seed);
  const zctx = new TypeContext();
  const types: TypeRecord[] = [];
  const typeOf = (k: number) => {
    while (types.length <= k)
      types.push(
        zctx.lookupTypeRecord([
          { name: `s${types.length}`, type: TypeString },
          { name: 'n', type: TypeInt64 },
        ]),
      );
    return types[k];
  };
  const steps: Step[] = [];
  for (let b = 0; b < batches; b++) {
    const random = r() < 0.2;
    const n = 200 + Math.floor(r() * 3000);
    const vals: Value[] = [];
    for (let i = 0; i < n; i++) {
      const t = typeOf(Math.floor(r() * Math.min(types.length + 1, 6)));
      const len = 10 + Math.floor(r() * 120);
      const s = Buffer.alloc(len);
      for (let k = 0; k < len; k++)
        s[k] = random ? Math.floor(r() * 256) : 97 + ((k * 7 + i) % (random ? 26 : 5));
      const body = Buffer.alloc(len + 12);
      let o = putUvarint(body, 0, len + 1);
      s.copy(body, o);
      o += len;
      o = putUvarint(body, o, 2);
      body[o++] = i & 0x7f;
      vals.push(new Value(t, body, 0, o));
    }
    steps.push({ vals });
    const x = r();
    if (x < 0.1) steps.push({ control: `{n:${b}}(=Note)\n` });
    else if (x < 0.15) steps.push({ end: true });
  }
  return steps;
}

/** A sink that takes its time now and then, as a slow client does. */
class SlowSink implements ByteSink {
  readonly inner = new BufferSink();
  private r = rng(7);

  async write(chunk: Buffer): Promise<void> {
    if (this.r() < 0.3) await new Promise((res) => setTimeout(res, 1));
    await this.inner.write(chunk);
  }

  async end(): Promise<void> {
    await this.inner.end();
  }
}

async function run(steps: Step[], pool: CompressPool | null, slow = false): Promise<Buffer> {
  const sink = slow ? new SlowSink() : new BufferSink();
  const w = new ZngWriter(sink, { pool });
  for (const s of steps) {
    if ('vals' in s) await w.write(s.vals);
    else if ('control' in s) await w.writeControl(s.control);
    else await w.endStream();
  }
  await w.close();
  return sink instanceof SlowSink ? sink.inner.bytes() : sink.bytes();
}

describe('ZNG compression worker', () => {
  let pool: CompressPool;
  beforeEach(() => {
    pool = new CompressPool();
  });
  afterEach(async () => {
    await pool.close();
  });

  test.each([1, 2, 3])('the same bytes as in-thread compression (script %i)', async (seed) => {
    const steps = script(seed, 60);
    const spy = jest.spyOn(pool, 'compress');
    const want = await run(steps, null);
    const got = await run(steps, pool);
    expect(spy.mock.calls.length).toBeGreaterThan(5);
    expect(got.equals(want)).toBe(true);
    // And they read back as the values written.
    const vals = await readAll(newReader(sourceFromBuffer(got), { ctx: new TypeContext() }));
    const written = steps.flatMap((s) => ('vals' in s ? s.vals : []));
    expect(vals.length).toBe(written.length);
    expect(vals[vals.length - 1].bytes()).toEqual(written[written.length - 1].bytes());
  });

  test('the same bytes through a slow sink', async () => {
    const steps = script(4, 50);
    const want = await run(steps, null);
    expect((await run(steps, pool, true)).equals(want)).toBe(true);
  });

  test('two writers at once share the worker and each keeps its order', async () => {
    const a = script(5, 60);
    const b = script(6, 60);
    const [wa, wb] = [await run(a, null), await run(b, null)];
    const [ga, gb] = await Promise.all([run(a, pool, true), run(b, pool)]);
    expect(ga.equals(wa)).toBe(true);
    expect(gb.equals(wb)).toBe(true);
  });

  test('small frames stay in-thread', async () => {
    const spy = jest.spyOn(pool, 'compress');
    const steps = script(8, 10);
    const sink = new BufferSink();
    const w = new ZngWriter(sink, { pool, frameThreshold: MIN_OFFLOAD / 2 });
    for (const s of steps) if ('vals' in s) await w.write(s.vals);
    await w.close();
    expect(spy).not.toHaveBeenCalled();
  });

  test('a worker that dies fails the write; the next write gets a new worker', async () => {
    const steps = script(9, 100);
    const sink = new BufferSink();
    const w = new ZngWriter(sink, { pool });
    const write = (async () => {
      for (const s of steps) {
        if ('vals' in s) await w.write(s.vals);
        // Kill the worker while it holds a frame.
        if (pool.inFlight > 0)
          await (
            pool as unknown as { worker: { terminate(): Promise<number> } }
          ).worker.terminate();
      }
      await w.close();
    })();
    await expect(write).rejects.toThrow(/ZNG compression worker failed/);
    const again = script(10, 40);
    expect((await run(again, pool)).equals(await run(again, null))).toBe(true);
  });

  test('ZLAKE_ZNG_WORKER=off turns the worker off, on turns it on', () => {
    const saved = process.env.ZLAKE_ZNG_WORKER;
    const poolWith = (env: string) => {
      process.env.ZLAKE_ZNG_WORKER = env;
      let p: CompressPool | null = null;
      jest.isolateModules(() => {
        p = jest
          .requireActual<{ compressPool: typeof compressPool }>(
            '../../../src/formats/zng/compresspool',
          )
          .compressPool();
      });
      return p as CompressPool | null;
    };
    try {
      expect(poolWith('off')).toBeNull();
      expect(poolWith('0')).toBeNull();
      expect(poolWith('on')?.takes(MIN_OFFLOAD)).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.ZLAKE_ZNG_WORKER;
      else process.env.ZLAKE_ZNG_WORKER = saved;
    }
  });

  test('modes', () => {
    expect(parseCompressWorkerMode(undefined)).toBe('auto');
    expect(parseCompressWorkerMode('auto')).toBe('auto');
    expect(parseCompressWorkerMode('on')).toBe('on');
    expect(parseCompressWorkerMode('off')).toBe('off');
    expect(() => parseCompressWorkerMode('2')).toThrow(
      'the ZNG compression worker must be auto, on or off: 2',
    );
  });
});
