// Media types and formats, as the reference's api package maps them:
// `Content-Type` names a request payload's format and `Accept` the
// response's. An empty type or `*/*` means the default format.

import { invalid, LakeError } from '../lake/errors';

/** Media type → format name. */
const formatOf: Record<string, string> = {
  'application/vnd.apache.arrow.stream': 'arrows',
  'text/csv': 'csv',
  'application/json': 'json',
  'application/x-line': 'line',
  'application/x-ndjson': 'ndjson',
  'application/x-parquet': 'parquet',
  // Not in the reference's list; zlake writes and reads TSV too.
  'text/tab-separated-values': 'tsv',
  'application/x-vng': 'vng',
  'application/x-zeek': 'zeek',
  'application/x-zjson': 'zjson',
  'application/x-zng': 'zng',
  'application/x-zson': 'zson',
};

const mediaTypeOf: Record<string, string> = Object.fromEntries(
  Object.entries(formatOf).map(([m, f]) => [f, m]),
);

/** The error for a media type no format answers to (the reference's text). */
export function unsupportedMimeType(type: string): LakeError {
  return invalid(`unsupported MIME type: ${type}`);
}

/** The base type of a media type value: lower case, without parameters. */
export function baseMediaType(s: string): string {
  const semi = s.indexOf(';');
  return (semi < 0 ? s : s.slice(0, semi)).trim().toLowerCase();
}

/**
 * The format a media type names; dflt when the value is empty or `*\/*`.
 * Throws an invalid-kind error for other types.
 */
export function mediaTypeToFormat(s: string | undefined, dflt: string): string {
  const typ = baseMediaType(s ?? '');
  if (typ === '' || typ === '*/*') return dflt;
  const f = formatOf[typ];
  if (f === undefined) throw unsupportedMimeType(typ);
  return f;
}

/** The canonical media type of a format. */
export function formatToMediaType(format: string): string {
  const m = mediaTypeOf[format];
  if (m === undefined) throw new Error(`unknown format type: ${format}`);
  return m;
}

/** True when the format name has a media type (the `-defaultfmt` check). */
export function isKnownFormat(format: string): boolean {
  return mediaTypeOf[format] !== undefined;
}

/**
 * The response format from an Accept header, as the reference chooses it:
 * the first listed type that names a format (or `*\/*`, or nothing) wins,
 * whatever its q-value. `text/event-stream` counts as the default on
 * /events, so browsers' EventSource works.
 */
export function negotiate(accept: string | undefined, dflt: string, eventStream = false): string {
  const parts = (accept ?? '').split(',');
  for (const part of parts) {
    if (eventStream && baseMediaType(part) === 'text/event-stream') return dflt;
    try {
      return mediaTypeToFormat(part, dflt);
    } catch {
      // try the next one
    }
  }
  throw invalid('could not find supported MIME type in Accept header');
}

/**
 * The request payload format from Content-Type. curl sends
 * application/x-www-form-urlencoded with -d, so that type means the
 * default too, as in the reference (and so does text/plain).
 */
export function requestFormat(contentType: string | undefined, dflt: string): string {
  const base = baseMediaType(contentType ?? '');
  // text/plain too: fetch() and browsers send it with a string body.
  if (base === 'application/x-www-form-urlencoded' || base === 'text/plain') return dflt;
  return mediaTypeToFormat(contentType, dflt);
}
