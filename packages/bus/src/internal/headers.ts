import type { BusHeaders } from '../types';
import { invalidArgument } from './errors';

const CR_LF = /[\r\n]/;

function isValidHeaderName(name: string): boolean {
  if (name.length === 0) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    // printable ASCII except ':' (RFC 822 field names), as nats.js enforces
    if (c < 33 || c > 126 || c === 58) return false;
  }
  return true;
}

/**
 * Checks header names and values the way nats.js does (names printable ASCII without `:`, values
 * without CR/LF), so both buses refuse the same headers with the same `AppError`.
 */
export function assertValidHeaders(headers: BusHeaders | undefined): void {
  if (headers === undefined) return;
  for (const name of Object.keys(headers)) {
    const value: unknown = headers[name];
    if (!isValidHeaderName(name)) throw invalidArgument(`Header name "${name}" is not valid: use printable ASCII without ':'`);
    if (typeof value !== 'string') throw invalidArgument(`Header "${name}" must be a string`);
    if (CR_LF.test(value)) throw invalidArgument(`Header "${name}" must not contain CR or LF`);
  }
}

/**
 * A copy of the headers as a receiver sees them: values trimmed as NATS transmits them; a fresh
 * object so sender and receiver never share it.
 */
export function copyHeaders(headers: BusHeaders | undefined): BusHeaders {
  const out: BusHeaders = {};
  if (headers === undefined) return out;
  for (const name of Object.keys(headers)) out[name] = (headers[name] as string).trim();
  return out;
}

/** {@link copyHeaders} in place, for headers handed over to the bus: the values trimmed, no copy made. */
export function trimHeaders(headers: BusHeaders): BusHeaders {
  for (const name of Object.keys(headers)) {
    const value = headers[name] as string;
    const trimmed = value.trim();
    if (trimmed !== value) headers[name] = trimmed;
  }
  return headers;
}

/** A header value fit for a NATS header line (the error message header carries free text). */
export function toHeaderValue(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').trim();
}

/**
 * A copy of the bytes, so a sender reusing its buffer after a send changes nothing. `Buffer.from`
 * copies a Buffer and a plain Uint8Array alike (a Buffer's own `slice` is a view of its memory), and
 * takes small copies from Node's pool rather than giving each its own ArrayBuffer.
 */
export function copyBytes(data: Uint8Array): Uint8Array {
  return Buffer.from(data);
}
