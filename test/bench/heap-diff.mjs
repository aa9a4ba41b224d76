// Compares two V8 heap snapshots (.heapsnapshot files, as v8.writeHeapSnapshot writes them): what
// grew between them, grouped by node type and constructor name, and for the groups that grew most,
// the chain of retainers that keeps one of their new objects alive (first strong retainer of each,
// up to a GC root). `diffHeapSnapshots(before, after)` answers { groups, retainers }.
import { readFileSync } from 'node:fs';

/** Parses a snapshot into flat arrays and the accessors the diff needs. */
function load(file) {
  const raw = JSON.parse(readFileSync(file, 'utf8'));
  const meta = raw.snapshot.meta;
  const nodeFields = meta.node_fields;
  const edgeFields = meta.edge_fields;
  const N = nodeFields.length;
  const E = edgeFields.length;
  const nodeTypes = meta.node_types[nodeFields.indexOf('type')];
  const edgeTypes = meta.edge_types[edgeFields.indexOf('type')];
  const f = {
    type: nodeFields.indexOf('type'),
    name: nodeFields.indexOf('name'),
    id: nodeFields.indexOf('id'),
    size: nodeFields.indexOf('self_size'),
    edges: nodeFields.indexOf('edge_count'),
    etype: edgeFields.indexOf('type'),
    ename: edgeFields.indexOf('name_or_index'),
    eto: edgeFields.indexOf('to_node'),
  };
  const { nodes, edges, strings } = raw;
  const count = nodes.length / N;
  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0, e = 0; i < count; i++) {
    firstEdge[i] = e;
    e += nodes[i * N + f.edges] * E;
    firstEdge[i + 1] = e;
  }
  const typeOf = (i) => nodeTypes[nodes[i * N + f.type]];
  const nameOf = (i) => {
    const type = typeOf(i);
    const name = strings[nodes[i * N + f.name]];
    // strings and numbers group by their type, not their (unbounded) value
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string' || type === 'number') return `(${type})`;
    return `${name}`.slice(0, 80);
  };
  return { nodes, edges, strings, N, E, f, count, firstEdge, typeOf, nameOf, edgeTypes };
}

function groups(s) {
  const out = new Map();
  for (let i = 0; i < s.count; i++) {
    const key = `${s.typeOf(i)} ${s.nameOf(i)}`;
    const g = out.get(key) ?? { count: 0, bytes: 0 };
    g.count += 1;
    g.bytes += s.nodes[i * s.N + s.f.size];
    out.set(key, g);
  }
  return out;
}

/** First strong retainer of every node (index, edge label), or -1. */
function retainers(s) {
  const by = new Int32Array(s.count).fill(-1);
  const label = new Array(s.count);
  for (let i = 0; i < s.count; i++) {
    for (let e = s.firstEdge[i]; e < s.firstEdge[i + 1]; e += s.E) {
      const type = s.edgeTypes[s.edges[e + s.f.etype]];
      if (type === 'weak' || type === 'shortcut') continue;
      const to = s.edges[e + s.f.eto] / s.N;
      if (by[to] !== -1 || to === i) continue;
      by[to] = i;
      const nameOrIndex = s.edges[e + s.f.ename];
      label[to] = type === 'element' || type === 'hidden' ? `[${nameOrIndex}]` : String(s.strings[nameOrIndex]);
    }
  }
  return { by, label };
}

/**
 * What grew from snapshot `beforeFile` to `afterFile`: the `top` groups by bytes grown, and for the
 * first `chains` of them the retainer chain of one object that is new in the second snapshot.
 */
export function diffHeapSnapshots(beforeFile, afterFile, { top = 15, chains = 5 } = {}) {
  let before = load(beforeFile);
  const was = groups(before);
  const oldIds = new Set();
  for (let i = 0; i < before.count; i++) oldIds.add(before.nodes[i * before.N + before.f.id]);
  before = undefined;
  const after = load(afterFile);
  const now = groups(after);
  const grown = [...now]
    .map(([key, g]) => ({ key, count: g.count - (was.get(key)?.count ?? 0), bytes: g.bytes - (was.get(key)?.bytes ?? 0) }))
    .filter((g) => g.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, top);
  const { by, label } = retainers(after);
  const chainsOut = [];
  for (const g of grown.slice(0, chains)) {
    let sample = -1;
    for (let i = after.count - 1; i >= 0; i--) {
      if (`${after.typeOf(i)} ${after.nameOf(i)}` === g.key && !oldIds.has(after.nodes[i * after.N + after.f.id])) {
        sample = i;
        break;
      }
    }
    if (sample === -1) continue;
    const chain = [];
    const seen = new Set();
    // each entry after the first holds the one before it through the named member
    for (let i = sample, via; i !== -1 && chain.length < 12 && !seen.has(i); via = label[i], i = by[i]) {
      seen.add(i);
      chain.push(`${after.typeOf(i)} ${after.nameOf(i)}${via !== undefined ? ` (through .${via})` : ''}`);
    }
    chainsOut.push({ key: g.key, chain });
  }
  return { groups: grown, retainers: chainsOut };
}
