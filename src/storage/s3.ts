// The object store on S3 or any S3-speaking server (MinIO, ...), through
// @aws-sdk/client-s3. The lake's keys live under the location's prefix:
// `s3://bucket/prefix` stores key K at `prefix/K`.
//
// Every call is retried with backoff and jitter on throttling, 5xx,
// timeouts and dropped connections (including a body cut off mid-read);
// the SDK's own retries are off so the attempts do not multiply. Large
// objects are written by multipart upload, a part at a time while the
// writer produces them; an aborted or failed one is aborted on the server
// so no parts linger. putIfAbsent is S3's conditional write
// (`If-None-Match: *`), which AWS S3 and MinIO honour.

import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { DEFAULT_RETRY, isNetworkError, RetryPolicy, withRetry } from '../backend/retry';
import { ObjectNotFoundError, ObjectStore, ObjectWriter } from './storage';

/** Multipart part size: S3's cost-efficient size, and above its 5 MiB minimum. */
export const PART_SIZE = 8 << 20;
/** Parts uploaded at once by one writer. */
const PARTS_IN_FLIGHT = 4;
const DELETE_BATCH = 1000;

export interface S3StoreOptions {
  /** Endpoint of an S3-speaking server (path-style addressing is used). */
  endpoint?: string;
  /** Region (default: AWS_REGION, AWS_DEFAULT_REGION, else us-east-1). */
  region?: string;
  /** Path-style addressing (default: on when an endpoint is given). */
  pathStyle?: boolean;
  retry?: RetryPolicy;
  /** Ranged reads a scan keeps in flight per object (default 8). */
  readAhead?: number;
  /** Objects a scan by columns fetches ahead of their turn (default 4). */
  objectsAhead?: number;
  /** Milliseconds before a request with no response is abandoned (default 30000). */
  requestTimeoutMs?: number;
}

/** Parses `s3://bucket[/prefix]`. */
export function parseS3Location(url: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url);
  if (!m) throw new Error(`invalid S3 lake location ${url}: want s3://bucket/prefix`);
  return { bucket: m[1], prefix: m[2].replace(/\/+$/, '') };
}

export class S3Store implements ObjectStore {
  readonly location: string;
  readonly readAhead: number;
  readonly objectsAhead: number;
  /** Large ranges: each GET costs a round trip and a request fee. */
  readonly rangeSize = 4 << 20;
  private client: S3Client;
  private bucket: string;
  private prefix: string;
  private retry: RetryPolicy;

  constructor(url: string, opts: S3StoreOptions = {}) {
    const { bucket, prefix } = parseS3Location(url);
    this.location = url;
    this.bucket = bucket;
    this.prefix = prefix === '' ? '' : prefix + '/';
    this.retry = opts.retry ?? DEFAULT_RETRY;
    this.readAhead = opts.readAhead ?? 8;
    this.objectsAhead = opts.objectsAhead ?? 4;
    const agentOpts = { keepAlive: true, maxSockets: 64 };
    this.client = new S3Client({
      region:
        opts.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
      endpoint: opts.endpoint,
      forcePathStyle: opts.pathStyle ?? opts.endpoint !== undefined,
      maxAttempts: 1,
      // Checksums only where S3 requires them: S3-speaking servers differ
      // in what they accept, and the ZNG frames carry their own structure.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: {
        requestTimeout: opts.requestTimeoutMs ?? 30000,
        connectionTimeout: 5000,
        httpAgent: new HttpAgent(agentOpts),
        httpsAgent: new HttpsAgent(agentOpts),
      },
    });
  }

  private keyOf(key: string): string {
    return this.prefix + key;
  }

  private call<T>(op: string, fn: () => Promise<T>): Promise<T> {
    return withRetry('s3', op, this.retry, isTransient, fn);
  }

  async put(key: string, data: Buffer): Promise<void> {
    await this.call('put', () =>
      this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key), Body: data }),
      ),
    );
  }

  async putIfAbsent(key: string, data: Buffer): Promise<boolean> {
    try {
      await this.call('putIfAbsent', () =>
        this.client.send(
          new PutObjectCommand({
            Bucket: this.bucket,
            Key: this.keyOf(key),
            Body: data,
            IfNoneMatch: '*',
          }),
        ),
      );
      return true;
    } catch (e) {
      if (statusOf(e) === 412) return false;
      throw e;
    }
  }

  async create(key: string): Promise<ObjectWriter> {
    return new MultipartWriter(this, this.client, this.bucket, this.keyOf(key));
  }

  async get(key: string): Promise<Buffer> {
    return this.call('get', async () => {
      try {
        const r = await this.client.send(
          new GetObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key) }),
        );
        return Buffer.from(await r.Body!.transformToByteArray());
      } catch (e) {
        throw mapNotFound(e, key);
      }
    });
  }

  async getRange(key: string, offset: number, length: number): Promise<Buffer> {
    if (length <= 0) return Buffer.alloc(0);
    return this.call('getRange', async () => {
      try {
        const r = await this.client.send(
          new GetObjectCommand({
            Bucket: this.bucket,
            Key: this.keyOf(key),
            Range: `bytes=${offset}-${offset + length - 1}`,
          }),
        );
        const buf = Buffer.from(await r.Body!.transformToByteArray());
        // A server that ignores Range sends the whole object.
        if (r.ContentRange === undefined && buf.length > length)
          return buf.subarray(offset, offset + length);
        return buf;
      } catch (e) {
        // A range starting at or past the end: the object has no more bytes.
        if (statusOf(e) === 416) return Buffer.alloc(0);
        throw mapNotFound(e, key);
      }
    });
  }

  async size(key: string): Promise<number> {
    return this.call('size', async () => {
      try {
        const r = await this.client.send(
          new HeadObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key) }),
        );
        return r.ContentLength ?? 0;
      } catch (e) {
        throw mapNotFound(e, key);
      }
    });
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.size(key);
      return true;
    } catch (e) {
      if (e instanceof ObjectNotFoundError) return false;
      throw e;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    let token: string | undefined;
    do {
      const r = await this.call('list', () =>
        this.client.send(
          new ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: this.keyOf(prefix),
            ContinuationToken: token,
          }),
        ),
      );
      for (const o of r.Contents ?? []) if (o.Key) out.push(o.Key.slice(this.prefix.length));
      token = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (token);
    return out.sort();
  }

  async delete(key: string): Promise<void> {
    await this.call('delete', () =>
      this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key) })),
    );
  }

  async deleteByPrefix(prefix: string): Promise<void> {
    const keys = await this.list(prefix);
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH);
      const r = await this.call('deleteBatch', () =>
        this.client.send(
          new DeleteObjectsCommand({
            Bucket: this.bucket,
            Delete: { Objects: batch.map((k) => ({ Key: this.keyOf(k) })), Quiet: true },
          }),
        ),
      );
      // Keys the batch could not delete go one at a time (and retry).
      for (const err of r.Errors ?? []) {
        if (err.Key) await this.delete(err.Key.slice(this.prefix.length));
      }
    }
  }

  async ping(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
  }

  /** Runs one call with this store's retries (for the multipart writer). */
  retrying<T>(op: string, fn: () => Promise<T>): Promise<T> {
    return this.call(op, fn);
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

/**
 * A large object written in parts: bytes gather into PART_SIZE parts,
 * uploaded a few at a time as they fill. An object that never fills a
 * part is a single PUT at commit. Nothing is visible until commit.
 */
class MultipartWriter implements ObjectWriter {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private uploadId: string | null = null;
  private parts: { PartNumber: number; ETag: string }[] = [];
  private inFlight = new Set<Promise<void>>();
  private failure: unknown = null;
  private done = false;

  constructor(
    private store: S3Store,
    private client: S3Client,
    private bucket: string,
    private key: string,
  ) {}

  async write(chunk: Buffer): Promise<void> {
    if (this.done) throw new Error(`write to finished object ${this.key}`);
    if (this.failure) throw this.failure;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    while (this.buffered >= PART_SIZE) await this.sendPart(this.take(PART_SIZE));
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    const part = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    // Copy: the caller may reuse the buffers it wrote.
    return Buffer.from(part);
  }

  private async sendPart(body: Buffer): Promise<void> {
    if (this.uploadId === null) {
      const r = await this.store.retrying('createMultipart', () =>
        this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: this.key })),
      );
      this.uploadId = r.UploadId!;
    }
    const uploadId = this.uploadId;
    const PartNumber = this.parts.length + 1;
    const entry = { PartNumber, ETag: '' };
    this.parts.push(entry);
    const p = this.store
      .retrying('uploadPart', () =>
        this.client.send(
          new UploadPartCommand({
            Bucket: this.bucket,
            Key: this.key,
            UploadId: uploadId,
            PartNumber,
            Body: body,
          }),
        ),
      )
      .then(
        (r) => {
          entry.ETag = r.ETag!;
        },
        (e) => {
          this.failure ??= e;
        },
      )
      .finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
    // Bounded memory: wait for a slot before taking more bytes.
    while (this.inFlight.size >= PARTS_IN_FLIGHT) await Promise.race(this.inFlight);
    if (this.failure) throw this.failure;
  }

  async commit(): Promise<void> {
    if (this.done) return;
    try {
      if (this.uploadId === null) {
        const body = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
        await this.store.retrying('put', () =>
          this.client.send(
            new PutObjectCommand({ Bucket: this.bucket, Key: this.key, Body: body }),
          ),
        );
        this.done = true;
        return;
      }
      if (this.buffered > 0) await this.sendPart(this.take(this.buffered));
      await Promise.all(this.inFlight);
      if (this.failure) throw this.failure;
      const uploadId = this.uploadId;
      await this.store.retrying('completeMultipart', () =>
        this.client.send(
          new CompleteMultipartUploadCommand({
            Bucket: this.bucket,
            Key: this.key,
            UploadId: uploadId,
            MultipartUpload: { Parts: this.parts },
          }),
        ),
      );
      this.done = true;
    } catch (e) {
      await this.abort();
      throw e;
    }
  }

  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    this.chunks = [];
    await Promise.allSettled(this.inFlight);
    if (this.uploadId === null) return;
    const uploadId = this.uploadId;
    await this.store
      .retrying('abortMultipart', () =>
        this.client.send(
          new AbortMultipartUploadCommand({
            Bucket: this.bucket,
            Key: this.key,
            UploadId: uploadId,
          }),
        ),
      )
      .catch(() => undefined);
  }
}

function statusOf(e: unknown): number | undefined {
  return (e as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

function mapNotFound(e: unknown, key: string): unknown {
  const name = (e as { name?: string })?.name;
  if (name === 'NoSuchKey' || name === 'NotFound' || statusOf(e) === 404)
    return new ObjectNotFoundError(key);
  return e;
}

/** Worth another attempt: throttling, server errors, timeouts, dropped connections. */
function isTransient(e: unknown): boolean {
  const status = statusOf(e);
  if (status !== undefined) return status >= 500 || status === 429 || status === 409;
  const name = (e as { name?: string })?.name ?? '';
  if (/Throttl|SlowDown|RequestTimeout|InternalError|ServiceUnavailable/.test(name)) return true;
  return isNetworkError(e);
}
