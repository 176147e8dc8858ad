// The physical layout of a VNG file as the reference writes it
// (docs/formats/vng.md; vng/writer.go and its ZNG marshaling of the
// vector.Metadata structs with simple type names): data section of
// segments, reassembly ZNG stream, trailer ZNG stream.

import { TypeContext } from '../../../src/zed/context';
import { formatType } from '../../../src/zed/typestring';
import { decodeZng } from '../../../src/formats/zng';
import { vngFormat, readTrailer } from '../../../src/formats/vng';
import { encode, toZson, zson } from '../arrow/zio';

const SEGMENT = 'Segment={Offset:int64,Length:int32,MemLength:int32,CompressionFormat:uint8}';

test('the hello example: column segments, then root, then reassembly and trailer', async () => {
  const file = await encode(vngFormat, zson('{a:"hello",b:"world"}\n{a:"goodnight",b:"gracie"}\n'));
  // Data section: column a (16 bytes), column b (13), root type numbers (2).
  expect(file.subarray(0, 31).toString('latin1')).toBe(
    '\x06hello\x0agoodnight' + '\x06world\x07gracie' + '\x01\x01',
  );
  const trailer = readTrailer(file);
  expect(trailer.sections[0]).toBe(31);
  expect(trailer).toMatchObject({ skewThresh: 26214400, segmentThresh: 5242880 });
  const maps = decodeZng(file, {
    ctx: new TypeContext(),
    offset: 31,
    end: 31 + trailer.sections[1],
  });
  expect(maps.map((v) => formatType(v.type))).toEqual([
    `[${SEGMENT}]`,
    `Record={Fields:[Field={Name:string,Values:Primitive={Type:type,Segmap:[${SEGMENT}]}}]}`,
  ]);
  expect(await toZson(maps, 0)).toBe(
    `[{Offset:29,Length:2(int32),MemLength:2(int32),CompressionFormat:0(uint8)}(=Segment)]\n` +
      `{Fields:[{Name:"a",Values:{Type:<string>,Segmap:[{Offset:0,Length:16(int32),MemLength:16(int32),CompressionFormat:0(uint8)}(=Segment)]}(=Primitive)}(=Field),` +
      `{Name:"b",Values:{Type:<string>,Segmap:[{Offset:16,Length:13,MemLength:13,CompressionFormat:0}]}}(Field)]}(=Record)\n`,
  );
  const tail = decodeZng(file, { ctx: new TypeContext(), offset: 31 + trailer.sections[1] });
  expect(tail).toHaveLength(1);
  expect(formatType(tail[0].type)).toBe(
    'zngio.Trailer={magic:string,type:string,version:int64,sections:[int64],meta:vng.FileMeta={skew_thresh:int64,segment_thresh:int64}}',
  );
  expect(await toZson(tail, 0)).toBe(
    `{magic:"ZNG Trailer",type:"vng",version:3,sections:[31,${trailer.sections[1]}],meta:{skew_thresh:26214400,segment_thresh:5242880}(=vng.FileMeta)}(=zngio.Trailer)\n`,
  );
  expect(31 + trailer.sections[1] + (file.length - 31 - trailer.sections[1])).toBe(file.length);
});

test('fields of different column kinds make an array of a union of Field types', async () => {
  const file = await encode(
    vngFormat,
    zson('{a:"x",b:[1],c:null(string)}\n{a:"y",b:null([int64]),c:"z"}\n'),
  );
  const t = readTrailer(file);
  const maps = decodeZng(file, {
    ctx: new TypeContext(),
    offset: t.sections[0],
    end: t.sections[0] + t.sections[1],
  });
  // b has a null, so its column is Nulls wrapping Array; the distinct Field
  // types are ordered as zed.CompareTypes orders them.
  expect(formatType(maps[1].type)).toBe(
    'Record={Fields:[(' +
      'Field={Name:string,Values:Nulls={Runs:[Segment=' +
      SEGMENT.slice('Segment='.length) +
      '],Values:Array={Lengths:[Segment],Values:Primitive={Type:type,Segmap:[Segment]}}}},' +
      'Field={Name:string,Values:Primitive})]}',
  );
});
