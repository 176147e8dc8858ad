// A lake command given a storage location (a directory, file://PATH or
// s3://bucket/prefix) instead of a service URL works on that lake directly,
// as the reference's `zed -lake DIR ...` does: the command opens the lake in
// this process, serves it on a loopback port for the command's lifetime and
// talks to it with the ordinary client, so a local command and a request to
// `zlake serve` run the same code. One process at a time owns a local lake
// directory (its coordination lock), so a command on a directory that a
// server holds is refused rather than racing it. The lake and the service
// are loaded only here, so a command given a service URL starts without
// them.

import { promises as fs } from 'node:fs';
import { isS3Location, localPath } from '../../backend/location';
import type { Lake } from '../../lake/lake';

/** A lake location the client opens itself rather than asking a service. */
export function isStorageLocation(location: string): boolean {
  return !/^https?:\/\//.test(location);
}

/** The location as the reference names it in messages (file:///abs/path, s3://...). */
export function locationURI(location: string): string {
  return isS3Location(location) ? location : `file://${localPath(location)}`;
}

/** True when something is at the location: a lake, or a directory in the way. */
async function occupied(location: string): Promise<boolean> {
  if (isS3Location(location)) return false;
  try {
    return (await fs.readdir(localPath(location))).length > 0;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

async function exists(location: string): Promise<boolean> {
  if (isS3Location(location)) return true;
  try {
    return (await fs.stat(localPath(location))).isDirectory();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

export interface LocalService {
  /** The loopback URL the command's client talks to. */
  url: string;
  close(): Promise<void>;
}

async function openOwned(location: string): Promise<Lake> {
  const { openLake } = await import('../../backend/open');
  try {
    return await openLake({
      lake: isS3Location(location) ? location : localPath(location),
      shared: true,
    });
  } catch (e) {
    const held = /is in use by process (\d+)/.exec((e as Error).message);
    if (held) {
      throw new Error(
        `${locationURI(location)}: lake is in use by process ${held[1]} (a zlake serve?): ` +
          'give its URL with -lake',
        { cause: e },
      );
    }
    throw e;
  }
}

/** Opens an existing lake at location and serves it on a loopback port. */
export async function serveLocal(location: string): Promise<LocalService> {
  if (!(await exists(location))) throw new Error(`${locationURI(location)}: lake does not exist`);
  const { Service } = await import('../../service/server');
  const lake = await openOwned(location);
  const service = new Service({ lake });
  try {
    const addr = await service.listen('127.0.0.1:0');
    return {
      url: `http://127.0.0.1:${addr.port}`,
      close: async () => {
        await service.close(0);
        await lake.close();
      },
    };
  } catch (e) {
    await service.close(0);
    await lake.close();
    throw e;
  }
}

/** Creates a lake at location (`zlake init`). */
export async function createLocal(location: string): Promise<void> {
  if (await occupied(location)) throw new Error(`${locationURI(location)}: lake already exists`);
  if (!isS3Location(location)) await fs.mkdir(localPath(location), { recursive: true });
  const lake = await openOwned(location);
  await lake.close();
}
