// Constructors for primitive values, for code off the hot path (literals,
// metadata, tests). Hot paths write bodies into a Builder instead.

import { encodeFloat16, encodeFloat32, encodeFloat64 } from './primitive';
import {
  Type,
  TypeBool,
  TypeBytes,
  TypeDuration,
  TypeFloat16,
  TypeFloat32,
  TypeFloat64,
  TypeInt64,
  TypeIP,
  TypeNet,
  TypeNull,
  TypeString,
  TypeTime,
  TypeUint64,
} from './types';
import { Value } from './value';
import { writeIntLE, writeUintLE } from './zcode';

export function encodeInt(v: number | bigint): Buffer {
  const b = Buffer.allocUnsafe(10);
  return b.subarray(0, writeIntLE(b, 0, v));
}

export function encodeUint(v: number | bigint): Buffer {
  const b = Buffer.allocUnsafe(10);
  return b.subarray(0, writeUintLE(b, 0, v));
}

export function newInt(type: Type, v: number | bigint): Value {
  return Value.fromBytes(type, encodeInt(v));
}
export function newUint(type: Type, v: number | bigint): Value {
  return Value.fromBytes(type, encodeUint(v));
}
export const newInt64 = (v: number | bigint): Value => newInt(TypeInt64, v);
export const newUint64 = (v: number | bigint): Value => newUint(TypeUint64, v);
export const newTime = (ns: number | bigint): Value => newInt(TypeTime, ns);
export const newDuration = (ns: number | bigint): Value => newInt(TypeDuration, ns);
export const newFloat64 = (v: number): Value => Value.fromBytes(TypeFloat64, encodeFloat64(v));
export const newFloat32 = (v: number): Value => Value.fromBytes(TypeFloat32, encodeFloat32(v));
export const newFloat16 = (v: number): Value => Value.fromBytes(TypeFloat16, encodeFloat16(v));
export const newBool = (v: boolean): Value => Value.fromBytes(TypeBool, Buffer.from([v ? 1 : 0]));
export const newString = (s: string): Value => Value.fromBytes(TypeString, Buffer.from(s, 'utf8'));
export const newBytes = (b: Uint8Array): Value => Value.fromBytes(TypeBytes, Buffer.from(b));
export const newIP = (b: Uint8Array): Value => Value.fromBytes(TypeIP, Buffer.from(b));
export const newNet = (b: Uint8Array): Value => Value.fromBytes(TypeNet, Buffer.from(b));
export const newNull = (): Value => Value.null(TypeNull);
