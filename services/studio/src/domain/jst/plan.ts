import type { StepRef } from './errors';
import type { CallContext } from './library';
import type { Obj } from './values';

/** What a node may ask of its run: the library's needs, and calls of user functions. */
export interface NodeContext extends CallContext {
  /** Calls user function `id` with positional arguments; answers its outgoing values by $id. */
  callFunction(id: string, args: readonly unknown[]): Obj;
}

/**
 * A transformation compiled for running: each scope (the document and each user function) as its
 * steps in data-flow order, every assign resolved to the step or incoming value it reads. Built once
 * per stored document by `compileTransformation`; runs only read it.
 */

/** A `context` gate: the step runs (the assign applies) only when switch node `node` matched case `case` (1-based). */
export interface Gate {
  node: number;
  case: number;
}

/** Where an assign reads: an incoming value (`node` -1) or the answer of a node, then a JSON Pointer below it. */
export interface Source {
  node: number;
  /** The incoming $id when `node` is -1. */
  name: string;
  tokens: readonly string[];
}

/** An assign into a node's argument `index` (below `tokens`); index -1 is a `/context` dependency only. */
export interface ArgAssign {
  index: number;
  tokens: readonly string[];
  source: Source;
  gates: readonly Gate[];
}

/** An assign into outgoing `name` (below `tokens`). */
export interface OutAssign {
  name: string;
  tokens: readonly string[];
  source: Source;
  gates: readonly Gate[];
}

export type NodeKind = 'method' | 'declaration' | 'template' | 'function' | 'context';

export interface NodePlan {
  ref: StepRef;
  kind: NodeKind;
  /** The step's static `args`, `null` as undefined (omitted). */
  staticArgs: readonly unknown[];
  assigns: readonly ArgAssign[];
  gates: readonly Gate[];
  /** Outgoing assigns that become ready when this node has run, in document order. */
  after: OutAssign[];
  /** What the step does with its arguments: a library method, a constructor, a template, a function call or a switch. */
  invoke(args: unknown[], ctx: NodeContext): unknown;
}

export interface ScopePlan {
  /** The user function's id; undefined for the document itself. */
  fn?: string;
  incomingIds: readonly string[];
  incomingSchemas: readonly Obj[];
  outgoingIds: readonly string[];
  outgoingSchemas: readonly Obj[];
  nodes: readonly NodePlan[];
  /** Outgoing assigns ready before any node runs (from incoming values, ungated). */
  start: readonly OutAssign[];
}

export interface TransformationPlan {
  name: string;
  root: ScopePlan;
  functions: ReadonlyMap<string, ScopePlan>;
}
