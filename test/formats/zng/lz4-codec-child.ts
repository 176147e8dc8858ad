// Prints which LZ4 codec a process chose (for lz4.test.ts: ZLAKE_LZ4).
import { lz4Codec } from '../../../src/formats/zng/lz4';

process.stdout.write(`${lz4Codec}\n`);
