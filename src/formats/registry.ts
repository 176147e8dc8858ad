// Every format zlake reads or writes, found by name (`-i`/`-f`) or by media
// type (`Content-Type`/`Accept`).

import { arrowsFormat } from './arrow';
import { csvFormat } from './csv';
import { Format } from './io';
import { jsonFormat, ndjsonFormat } from './json';
import { lineFormat } from './line';
import { parquetFormat } from './parquet';
import { tableFormat } from './table';
import { textFormat } from './text';
import { tsvFormat } from './tsv';
import { vngFormat } from './vng';
import { zeekFormat } from './zeek';
import { zjsonFormat } from './zjson';
import { zngFormat } from './zng';
import { zsonFormat } from './zson';

export const formats: readonly Format[] = [
  arrowsFormat,
  csvFormat,
  jsonFormat,
  ndjsonFormat,
  lineFormat,
  parquetFormat,
  tableFormat,
  textFormat,
  tsvFormat,
  vngFormat,
  zeekFormat,
  zjsonFormat,
  zngFormat,
  zsonFormat,
];

const byName = new Map(formats.map((f) => [f.name, f]));
const byMime = new Map<string, Format>();
for (const f of formats) for (const m of f.mimeTypes) byMime.set(m, f);

export function formatByName(name: string): Format | undefined {
  return byName.get(name);
}

/**
 * The format a media type names. Parameters (`; charset=...`) and case are
 * ignored. Returns undefined for unknown types.
 */
export function formatByMime(mime: string): Format | undefined {
  const base = mime.split(';')[0].trim().toLowerCase();
  return byMime.get(base);
}
