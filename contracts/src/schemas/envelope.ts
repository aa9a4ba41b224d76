import type { TProperties, TSchema } from '@sinclair/typebox';
import { anyObject, arr, int, nullable, obj, str, withId } from './common';

/**
 * `{ message, data, metadata }`: the envelope the operations manager and the studio project routes
 * answer in, the shape the platform's existing clients (GitHub Actions, ipsdk, the Ansible
 * collection, the MCP server) read.
 */
export function envelopeOf<D extends TSchema>(id: string, data: D) {
  return withId(
    id,
    obj({ message: str(), data, metadata: anyObject('paging members on lists; empty otherwise') }, ['message', 'data', 'metadata']),
  );
}

/**
 * `{ message, data: [...], metadata: { total, skip, limit } }`: a page of a list in the envelope;
 * `more` adds optional members to the metadata (what a list says beyond the paging members).
 */
export function envelopePageOf<I extends TSchema, M extends TProperties = Record<never, never>>(id: string, item: I, more?: M) {
  return withId(
    id,
    obj(
      {
        message: str(),
        data: arr(item),
        metadata: obj(
          {
            total: int({ minimum: 0, description: 'number of items matching the query' }),
            skip: int({ minimum: 0 }),
            limit: int({ minimum: 0 }),
            currentPageSize: int({ minimum: 0 }),
            nextPageSkip: nullable(int({ minimum: 0, description: 'skip of the next page; null at the end' })),
            previousPageSkip: nullable(int({ minimum: 0, description: 'skip of the previous page; null at the start' })),
            ...((more ?? {}) as M),
          },
          ['total'],
        ),
      },
      ['message', 'data', 'metadata'],
    ),
  );
}

/** `{ message, data, metadata }` answered by the routes of the envelope. */
export type Envelope<T> = { message: string; data: T; metadata: Record<string, unknown> };

/** A page in the envelope. */
export type EnvelopePage<T> = {
  message: string;
  data: T[];
  metadata: {
    total: number;
    skip?: number;
    limit?: number;
    currentPageSize?: number;
    nextPageSkip?: number | null;
    previousPageSkip?: number | null;
  };
};
