// What a lake location names, without loading any backend: the lake
// commands ask this before deciding whether to open a lake in-process.

import * as path from 'node:path';

/** True for a location served by S3. */
export function isS3Location(lake: string): boolean {
  return lake.startsWith('s3://');
}

/** The directory of a local lake location (file://PATH or PATH). */
export function localPath(lake: string): string {
  return path.resolve(lake.replace(/^file:\/\//, ''));
}
