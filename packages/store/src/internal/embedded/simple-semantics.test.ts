import { Query, find } from 'mingo';
import { update as mingoUpdate } from 'mingo/updater';
import type { Doc, Filter, Projection, Update } from '../../types';
import { cloneValue } from '../clone';
import { applySimpleUpdate, simpleMatcher, simpleProjection } from './simple-semantics';

/**
 * The shapes the embedded store applies without mingo must answer what mingo answers, on documents
 * with missing, null, scalar, array and object values along the paths: every filter against every
 * document, every update to every document it applies to, every projection.
 */

const DOCS: Doc[] = [
  { _id: 'a', status: 'running', n: 0, metrics: { server_id: 's1', owner: 'x' }, outbox: [{ id: 1 }, { id: 2 }], lease: 's1' },
  { _id: 'b', status: 'complete', n: 3, metrics: { server_id: 's2' }, outbox: [], flag: true },
  { _id: 'c', status: null, metrics: null, outbox: null, n: null },
  { _id: 'd', status: ['running', 'paused'], metrics: [{ server_id: 's1' }], n: [0, 5] },
  { _id: 'e', metrics: { server_id: { nested: 1 } }, n: 'three', status: { s: 1 } },
  { _id: 'f', metrics: 'flat', n: -0, eventsPublished: 7 },
  { _id: 'g' },
  { _id: 'h', deleting: '2026-12-06', nextRunAt: 4, claim: { at: 2 }, lease: 's2', n: 2.5 },
  { _id: 'i', deleting: null, nextRunAt: 9, claim: null, status: 'paused' },
  { _id: 'j', nextRunAt: 1, claim: { at: 7 }, status: '' },
];

const FILTERS: Filter[] = [
  { _id: 'a', status: 'running' },
  { 'metrics.server_id': 's1' },
  { 'metrics.server_id': 's1', status: { $in: ['running', 'paused'] } },
  { status: { $nin: ['complete', 'error', 'canceled'] } },
  { n: { $in: [0, null] } },
  { n: 0 },
  { n: { $eq: 3 } },
  { n: { $ne: 0 } },
  { eventsPublished: { $in: [0, null] }, outbox: { $size: 2 } },
  { outbox: { $size: 0 } },
  { lease: { $exists: false } },
  { lease: { $exists: true }, 'metrics.owner': 'x' },
  { 'metrics.owner': { $exists: false } },
  { flag: true },
  { status: { $in: [null] } },
  { 'metrics.server_id': { $nin: ['s1', null] } },
  { status: null },
  { deleting: { $ne: null } },
  { status: { $ne: null }, n: { $ne: null } },
  { $or: [{ lease: { $exists: false } }, { lease: 's1' }], n: { $lte: 3 } },
  { $or: [{ status: 'complete' }, { 'metrics.server_id': 's1' }] },
  { nextRunAt: { $ne: null, $lte: 5 }, $or: [{ claim: null }, { 'claim.at': { $lt: 3 } }] },
  { 'metrics.server_id': null, n: { $eq: null } },
  { n: { $gt: 0 } },
  { n: { $gte: 0, $lt: 5 } },
  { n: { $lte: 2.5 } },
  { status: { $gt: 'p' } },
  { status: { $lt: 'running' } },
  { _id: { $gt: 'b', $lte: 'e' } },
  { $and: [{ status: 'running' }, { n: { $gte: 0 } }] },
  { $and: [{ _id: { $gt: 'a' } }, { $and: [{ n: { $lt: 4 } }] }], 'metrics.server_id': { $exists: true } },
];

function mingoMatches(filter: Filter, doc: Doc): boolean {
  return new Query(filter).test(cloneValue(doc));
}

describe('filters matched without mingo', () => {
  it.each(FILTERS.map((f) => [JSON.stringify(f), f] as const))('%s matches what mingo matches', (_name, filter) => {
    const matcher = simpleMatcher(filter);
    expect(matcher).toBeDefined();
    const verdicts = new Set<boolean>();
    for (const doc of DOCS) {
      const decided = matcher?.(doc);
      // undecided documents go to mingo: only decided ones must agree
      if (decided === undefined) continue;
      verdicts.add(decided);
      expect({ doc: doc._id, matches: decided }).toEqual({ doc: doc._id, matches: mingoMatches(filter, doc) });
    }
    // the filter is decided both ways without mingo on these documents
    expect([...verdicts].sort()).toEqual([false, true]);
  });

  it('leaves every other shape to mingo', () => {
    for (const filter of [
      { $or: [{ a: { b: 1 } }] },
      { a: { $gt: true } },
      { a: { $lt: null } },
      { a: { $gte: [1] } },
      { $and: [] },
      { $and: [{ $nor: [{ a: 1 }] }] },
      { $or: [] },
      { $and: { a: 1 } },
      { a: { b: 1 } },
      { 'a.0': 1 },
      { a: /x/ },
      { a: { $in: [{ b: 1 }] } },
      { a: {} },
    ])
      expect(simpleMatcher(filter as Filter)).toBeUndefined();
  });

  it('does not decide a document with an array on the path', () => {
    expect(simpleMatcher({ 'metrics.server_id': 's1' })?.(DOCS[3] as Doc)).toBeUndefined();
  });
});

const UPDATES: Update[] = [
  { $set: { status: 'complete', 'metrics.end_time': 5, 'tasks.t1': { status: 'done', v: [1, { a: 2 }] } } },
  { $set: { status: 'running' } },
  { $unset: { lease: '', 'metrics.owner': '' } },
  { $push: { outbox: { $each: [{ id: 3 }, { id: 4 }] } }, $set: { last: 'x' } },
  { $push: { outbox: { id: 9 } } },
  { $push: { fresh: { $each: [] } } },
  { $push: { 'deep.list': 'v' } },
  { $set: { outbox: [], eventsPublished: 9 }, $unset: { lease: '' } },
  { $max: { n: 2 } },
  { $min: { n: 1 } },
  { $max: { eventsPublished: 9 }, $set: { status: 'x' } },
  { $max: { eventsPublished: 7 } },
  { $max: { 'metrics.count': 4 } },
  { $min: { fresh: -1 }, $max: { other: 0 } },
];

describe('updates applied without mingo', () => {
  it.each(UPDATES.map((u) => [JSON.stringify(u), u] as const))('%s leaves what mingo leaves', (_name, update) => {
    for (const doc of DOCS) {
      const mine = cloneValue(doc);
      const changed = applySimpleUpdate(mine, update);
      if (changed === undefined) continue;
      const theirs = cloneValue(doc);
      let refused = false;
      let theirsChanged: string[] = [];
      try {
        theirsChanged = mingoUpdate(theirs, cloneValue(update) as Record<string, unknown>, undefined, undefined, { cloneMode: 'deep' });
      } catch {
        refused = true;
      }
      expect({ doc: doc._id, refused }).toEqual({ doc: doc._id, refused: false });
      expect(mine).toEqual(theirs);
      expect({ doc: doc._id, changed }).toEqual({ doc: doc._id, changed: theirsChanged.length > 0 });
    }
  });

  it('takes the general path for pushes to a value that is not an array, overlapping paths and other operators', () => {
    const doc: Doc = { _id: 'x', n: 1, nil: null, a: { b: 1 } };
    for (const update of [
      { $push: { n: 2 } },
      { $push: { nil: 2 } },
      { $set: { a: 1, 'a.b': 2 } },
      { $inc: { n: 1 } },
      { $push: { list: { $each: [1], $slice: 2 } } },
      { $set: { 'n.x': 1 } },
      { $set: { 'a.0': 1 } },
      { $max: { n: 'x' } },
      { $max: { nil: 1 } },
      { $min: { a: 1 } },
      { $max: { n: 2 }, $set: { n: 3 } },
    ])
      expect(applySimpleUpdate(cloneValue(doc), update as Update)).toBeUndefined();
  });
});

describe('projections applied without mingo', () => {
  it.each([
    [{ outbox: 1, eventsPublished: 1, status: 1 }],
    [{ _id: 1, status: 1 }],
    [{ _id: 0, metrics: 1, n: 1 }],
    [{ lease: 1 }],
    [{ lease: 0 }],
    [{ metrics: 0, n: false }],
    [{ _id: 0, status: 0 }],
    [{ _id: 0 }],
  ])('%j projects as mingo does', (projection) => {
    const project = simpleProjection(projection as Projection);
    expect(project).toBeDefined();
    for (const doc of DOCS) expect(project?.(doc)).toEqual(find([cloneValue(doc)], {}, projection).all()[0]);
  });

  it('leaves dotted fields, operators and inclusion mixed with exclusion to mingo', () => {
    for (const projection of [{ 'a.b': 0 }, { 'a.b': 1 }, { a: { $slice: 1 } }, { a: 1, b: 0 }, { _id: 1, b: 0 }])
      expect(simpleProjection(projection as unknown as Projection)).toBeUndefined();
  });
});
