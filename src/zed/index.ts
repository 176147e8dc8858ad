// The Zed data model: types, the type context, values and their order.
export * from './types';
export * from './context';
export * from './value';
export * from './zcode';
export * from './primitive';
export * from './make';
export * from './record';
export * from './compare';
export * from './hash';
export * from './names';
export * from './typestring';
export * from './nano';
export * from './ipnet';
export * from './floatfmt';
