/**
 * An Aho–Corasick automaton over the UTF-16 code units of a set of patterns: one pass over a text
 * finds, at each place, the longest pattern that ends there, whatever the number of patterns. The
 * secret masks search texts for the forms of thousands of secrets of a caller's choosing; regular
 * expressions of that many alternatives cost each text their number (V8 tries them one by one).
 *
 * Code units, not characters or graphemes: a secret is masked wherever its code units stand, even
 * when a combining mark or the other half of a surrogate pair follows it. The trie is kept in typed
 * arrays (a node is about 20 bytes): a node's first child is the node made right after it, so only
 * the branches (about one a pattern) are kept in a hash table. Failure links are set when a search
 * first reaches a node: building costs the characters of the patterns once.
 */

const ROOT = 0;
const NONE = -1;
/**
 * Code units below this have the root's edges in an array (the forms of secrets are mostly ASCII:
 * JSON, URL and base64 forms always); a mask is built per session, run or call, and a table of all
 * 65,536 units cost each build a quarter of a megabyte to allocate and fill.
 */
const ROOT_UNITS = 256;
/** Slots of the branch table at first (a power of two; it doubles when half full): a mask of a few secrets has a few dozen branches. */
const BRANCHES_AT_FIRST = 64;

/** A text's runs of covered code units: start and end (exclusive) of each, in order, none overlapping. */
export type Runs = number[];

/** What finds a set of patterns in texts (see the module comment); its patterns are fixed when built. */
export class TextAutomaton {
  /** Length of the longest pattern, in code units. */
  readonly longest: number;
  private readonly parent: Int32Array;
  private readonly unit: Uint16Array;
  private readonly depth: Int32Array;
  private readonly fail: Int32Array;
  /** Length of the longest pattern that ends at this node's string (0 when none). */
  private readonly out: Int32Array;
  /** 1: the node has a child; 2: one in the branch table too (most have none: the table is asked only for those). */
  private readonly hasChild: Uint8Array;
  /** 1: the node's failure link and longest pattern end are set (see {@link reach}). */
  private readonly linked: Uint8Array;
  private readonly rootNext: Int32Array;
  /**
   * Edges to a child that is not the node made right after its parent: an open-addressing table
   * (parent + 1, 0 when free; unit; child), kept at most half full.
   */
  private branchParent = new Int32Array(BRANCHES_AT_FIRST);
  private branchUnit = new Uint16Array(BRANCHES_AT_FIRST);
  private branchChild = new Int32Array(BRANCHES_AT_FIRST);
  private branchCount = 0;
  private size = 1;

  /** Patterns as they are, or each read backwards (`reversed`: what finds the ends of patterns that start a text). */
  constructor(patterns: readonly string[], reversed = false) {
    let capacity = 1;
    let longest = 0;
    for (const pattern of patterns) {
      capacity += pattern.length;
      longest = Math.max(longest, pattern.length);
    }
    this.longest = longest;
    this.parent = new Int32Array(capacity);
    this.unit = new Uint16Array(capacity);
    this.depth = new Int32Array(capacity);
    this.fail = new Int32Array(capacity);
    this.out = new Int32Array(capacity);
    this.hasChild = new Uint8Array(capacity);
    this.linked = new Uint8Array(capacity);
    this.linked[ROOT] = 1;
    this.rootNext = new Int32Array(ROOT_UNITS).fill(NONE);
    for (const pattern of patterns) this.insert(pattern, reversed);
  }

  private child(node: number, unit: number): number {
    if (node === ROOT) {
      if (unit < ROOT_UNITS) return this.rootNext[unit] as number;
      return this.hasChild[ROOT] === 2 ? this.branch(ROOT, unit) : NONE;
    }
    const next = node + 1;
    if (next < this.size && this.parent[next] === node && this.unit[next] === unit) return next;
    return this.hasChild[node] === 2 ? this.branch(node, unit) : NONE;
  }

  private slot(node: number, unit: number): number {
    const mask = this.branchParent.length - 1;
    let slot = (Math.imul(node, 0x9e3779b1) ^ Math.imul(unit + 1, 0x85ebca6b)) & mask;
    while (this.branchParent[slot] !== 0 && (this.branchParent[slot] !== node + 1 || this.branchUnit[slot] !== unit))
      slot = (slot + 1) & mask;
    return slot;
  }

  private branch(node: number, unit: number): number {
    const slot = this.slot(node, unit);
    return this.branchParent[slot] === 0 ? NONE : (this.branchChild[slot] as number);
  }

  private addBranch(node: number, unit: number, child: number): void {
    if (2 * (this.branchCount + 1) > this.branchParent.length) {
      const [parents, units, children] = [this.branchParent, this.branchUnit, this.branchChild];
      this.branchParent = new Int32Array(parents.length * 2);
      this.branchUnit = new Uint16Array(parents.length * 2);
      this.branchChild = new Int32Array(parents.length * 2);
      for (let i = 0; i < parents.length; i++) {
        if (parents[i] === 0) continue;
        const slot = this.slot((parents[i] as number) - 1, units[i] as number);
        this.branchParent[slot] = parents[i] as number;
        this.branchUnit[slot] = units[i] as number;
        this.branchChild[slot] = children[i] as number;
      }
    }
    const slot = this.slot(node, unit);
    this.branchParent[slot] = node + 1;
    this.branchUnit[slot] = unit;
    this.branchChild[slot] = child;
    this.branchCount++;
  }

  private insert(pattern: string, reversed: boolean): void {
    let node = ROOT;
    for (let i = 0; i < pattern.length; i++) {
      const unit = pattern.charCodeAt(reversed ? pattern.length - 1 - i : i);
      let next = this.child(node, unit);
      if (next === NONE) {
        next = this.size++;
        this.parent[next] = node;
        this.unit[next] = unit;
        this.depth[next] = i + 1;
        // the root's edges by a table of the first code units (where texts spend most of their
        // search), the others', and the root's beyond that table, by the branch table
        const branched = node === ROOT ? unit >= ROOT_UNITS : next !== node + 1;
        if (node === ROOT && !branched) this.rootNext[unit] = next;
        else if (branched) this.addBranch(node, unit, next);
        this.hasChild[node] = branched ? 2 : Math.max(1, this.hasChild[node] as number);
      }
      node = next;
    }
    if (node !== ROOT) this.out[node] = pattern.length;
  }

  /**
   * Links `node` (its failure link and longest pattern end) and the shallower nodes that needs,
   * when a search first reaches it: a mask is built for every set of secrets, and most of its
   * nodes are never reached, as texts rarely hold a secret. Each node is linked once.
   */
  private reach(node: number): number {
    if (this.linked[node] === 1) return node;
    const stack = [node];
    while (stack.length > 0) {
      const at = stack[stack.length - 1] as number;
      const needs = this.linkNode(at);
      if (needs === NONE) {
        this.linked[at] = 1;
        stack.pop();
      } else stack.push(needs);
    }
    return node;
  }

  /** Links `node` when the shallower nodes it needs are linked (answers NONE), else answers one of those it needs. */
  private linkNode(node: number): number {
    const linked = this.linked;
    const parent = this.parent[node] as number;
    if (linked[parent] === 0) return parent;
    const unit = this.unit[node] as number;
    let fail = ROOT;
    if (parent !== ROOT) {
      // the longest proper suffix of the node's string that is in the trie: from the parent's
      for (let at = this.fail[parent] as number; ; at = this.fail[at] as number) {
        const next = this.child(at, unit);
        if (next !== NONE) {
          fail = next;
          break;
        }
        if (at === ROOT) break;
        if (linked[at] === 0) return at;
      }
    }
    if (linked[fail] === 0) return fail;
    this.fail[node] = fail;
    if (this.out[node] === 0) this.out[node] = this.out[fail] as number;
    return NONE;
  }

  private step(node: number, unit: number): number {
    for (;;) {
      const next = this.child(node, unit);
      if (next !== NONE) return this.linked[next] === 1 ? next : this.reach(next);
      if (node === ROOT) return ROOT;
      node = this.fail[node] as number;
    }
  }

  /**
   * Adds to `runs` the runs of `text` that patterns cover, overlapping ones merged into one: every
   * code unit of every occurrence of every pattern is in a run.
   */
  cover(text: string, runs: Runs): void {
    let node = ROOT;
    const first = runs.length;
    for (let i = 0; i < text.length; i++) {
      node = this.step(node, text.charCodeAt(i));
      const length = this.out[node] as number;
      if (length === 0) continue;
      let start = i + 1 - length;
      // an occurrence ends at or after every run kept so far: it merges with those it overlaps
      while (runs.length > first && start < (runs[runs.length - 1] as number)) {
        start = Math.min(start, runs[runs.length - 2] as number);
        runs.length -= 2;
      }
      runs.push(start, i + 1);
    }
  }

  /** How many code units at the end of `text` (at least `min`, the most) are a pattern's start and not the whole pattern: 0 when none. */
  startAtEnd(text: string, min: number): number {
    let node = ROOT;
    for (let i = Math.max(0, text.length - (this.longest - 1)); i < text.length; i++) node = this.step(node, text.charCodeAt(i));
    return this.deepestInner(node, min);
  }

  /**
   * How many code units at the start of `text` (at least `min`, the most) are a pattern's end and
   * not the whole pattern, for an automaton of reversed patterns: 0 when none.
   */
  endAtStart(text: string, min: number): number {
    let node = ROOT;
    for (let i = Math.min(text.length, this.longest - 1) - 1; i >= 0; i--) node = this.step(node, text.charCodeAt(i));
    return this.deepestInner(node, min);
  }

  /** The depth of the deepest node, down the failure links from `node`, that is at least `min` deep and has a child (part of a longer pattern). */
  private deepestInner(node: number, min: number): number {
    while ((this.depth[node] as number) >= min) {
      if (this.hasChild[node] !== 0) return this.depth[node] as number;
      node = this.fail[node] as number;
    }
    return 0;
  }
}

/** `text` with each of `runs` replaced by `mask`: `text` itself when there are none. */
export function maskRuns(text: string, runs: Runs, mask: string): string {
  if (runs.length === 0) return text;
  let out = '';
  let copied = 0;
  for (let i = 0; i < runs.length; i += 2) {
    out += `${text.slice(copied, runs[i])}${mask}`;
    copied = runs[i + 1] as number;
  }
  return `${out}${text.slice(copied)}`;
}

/** The runs of several automatons as one list: in order, overlapping ones merged. */
export function mergeRuns(lists: readonly Runs[]): Runs {
  if (lists.length === 1) return lists[0] as Runs;
  const pairs: [number, number][] = [];
  for (const list of lists) for (let i = 0; i < list.length; i += 2) pairs.push([list[i] as number, list[i + 1] as number]);
  pairs.sort((a, b) => a[0] - b[0]);
  const runs: Runs = [];
  for (const [start, end] of pairs) {
    if (runs.length > 0 && start < (runs[runs.length - 1] as number))
      runs[runs.length - 1] = Math.max(runs[runs.length - 1] as number, end);
    else runs.push(start, end);
  }
  return runs;
}
