import { randomBytes } from 'node:crypto';

let counter = randomBytes(3).readUIntBE(0, 3);
const processPart = randomBytes(5).toString('hex');

/**
 * A new job id: 24 hex digits laid out like a MongoDB ObjectId (seconds since the epoch, a
 * per-process random part, a counter), so ids sort by creation time and match the
 * `^[0-9a-f]{24}$` pattern that existing workflows' schemas give `_id`.
 */
export function newJobId(nowMs: number = Date.now()): string {
  counter = (counter + 1) % 0x1000000;
  const seconds = Math.floor(nowMs / 1000)
    .toString(16)
    .padStart(8, '0')
    .slice(-8);
  return `${seconds}${processPart}${counter.toString(16).padStart(6, '0')}`;
}
