import type { TransformationProblem } from '@nap/contracts';
import { DECLARATIONS, findMethod } from './library';
import type { ArgAssign, Gate, NodeKind, NodePlan, OutAssign, ScopePlan, Source, TransformationPlan } from './plan';
import type { Obj } from './values';
import { isPlainObject, parsePointer } from './values';

/**
 * Checks a transformation document and compiles it into a {@link TransformationPlan}. Every problem
 * is reported (not only the first) as `{ code, message, path }` with a JSON Pointer into the
 * document; a document with errors has no plan. Nothing of the document is ever evaluated as code:
 * steps name library methods from a fixed table, templates are split into text and placeholders.
 */

export interface CompileResult {
  errors: TransformationProblem[];
  warnings: TransformationProblem[];
  plan?: TransformationPlan;
}

const NODE_KINDS: readonly string[] = ['method', 'declaration', 'template', 'function', 'context'] satisfies NodeKind[];

function isNodeKind(value: unknown): value is NodeKind {
  return typeof value === 'string' && NODE_KINDS.includes(value);
}
const FROM_LOCATIONS = new Set(['incoming', 'method', 'declaration', 'template', 'function', 'context']);
const ARG_POINTER = /^\/args\/(0|[1-9]\d*)\/value(\/.*)?$/;
const CONTEXT_PART = /^\/([^/[\]]+)\[([1-9]\d*)\]/;

type StepId = number | string;

interface Problems {
  errors: TransformationProblem[];
  warnings: TransformationProblem[];
}

function error(p: Problems, code: string, message: string, path: string): void {
  p.errors.push({ code, message, path });
}

function warn(p: Problems, code: string, message: string, path: string): void {
  p.warnings.push({ code, message, path });
}

function list(doc: Obj, key: string, path: string, p: Problems): unknown[] {
  const value = doc[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    error(p, 'NOT_AN_ARRAY', `"${key}" must be an array`, `${path}/${key}`);
    return [];
  }
  return value;
}

function schemaIds(schemas: unknown[], path: string, p: Problems): { ids: string[]; schemas: Obj[] } {
  const ids: string[] = [];
  const out: Obj[] = [];
  for (const [i, schema] of schemas.entries()) {
    const at = `${path}/${i}`;
    if (!isPlainObject(schema) || typeof schema.$id !== 'string' || schema.$id === '') {
      error(p, 'SCHEMA_WITHOUT_ID', 'a schema must be an object with a non-empty $id naming its variable', at);
      continue;
    }
    if (ids.includes(schema.$id)) error(p, 'DUPLICATE_ID', `$id "${schema.$id}" is used twice`, `${at}/$id`);
    ids.push(schema.$id);
    out.push(schema);
  }
  return { ids, schemas: out };
}

function isStepId(value: unknown): value is StepId {
  return (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && value !== '');
}

/** `#` → no gate; `#/24[2]` → switch step 24, case 2; chains `#/24[2]/30[1]` gate on both. */
function parseContext(value: unknown): { step: string; case: number }[] | undefined {
  if (value === undefined || value === null || value === '#' || value === '') return [];
  if (typeof value !== 'string' || !value.startsWith('#')) return undefined;
  const gates: { step: string; case: number }[] = [];
  let rest = value.slice(1);
  while (rest !== '') {
    const m = CONTEXT_PART.exec(rest);
    if (!m) return undefined;
    gates.push({ step: m[1] as string, case: Number(m[2]) });
    rest = rest.slice(m[0].length);
  }
  return gates;
}

/** The placeholders of a template literal: text parts and, per placeholder, the index of its distinct name. */
function splitTemplate(text: string): { parts: string[]; slots: number[]; names: string[] } {
  const parts: string[] = [];
  const slots: number[] = [];
  const names: string[] = [];
  const re = /\$\{([^}]*)\}/g;
  let last = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    parts.push(text.slice(last, m.index));
    const name = (m[1] ?? '').trim();
    let index = names.indexOf(name);
    if (index === -1) {
      names.push(name);
      index = names.length - 1;
    }
    slots.push(index);
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  return { parts, slots, names };
}

/** A template literal filled in: `${name}` placeholders by the argument of their distinct name, as JavaScript writes values. */
function renderTemplate(parts: readonly string[], slots: readonly number[], args: readonly unknown[]): string {
  let text = parts[0] ?? '';
  for (let i = 0; i < slots.length; i += 1) text += String(args[slots[i] as number]) + (parts[i + 1] ?? '');
  return text;
}

/** `Conditional.switch`: `{ case_1, …, case_n }`, true for the first case strictly equal to the value (JavaScript's switch). */
function switchCases(cases: readonly unknown[], value: unknown): Obj {
  const matched = cases.findIndex((c) => c === value);
  const out: Obj = {};
  for (let i = 0; i < cases.length; i += 1) out[`case_${i + 1}`] = i === matched;
  return out;
}

interface Draft {
  id: StepId;
  index: number;
  path: string;
  step: Obj;
  node: NodePlan;
  assigns: { assign: ArgAssign; fromStep?: string; gateSteps: { step: string; case: number }[] }[];
  gateSteps: { step: string; case: number }[];
}

function nodeOf(
  step: Obj,
  type: NodeKind,
  id: StepId,
  path: string,
  fn: string | undefined,
  fnIds: ReadonlySet<string>,
  p: Problems,
): NodePlan | undefined {
  const ref = { step: id, label: String(type), ...(fn === undefined ? {} : { fn }) };
  const args = step.args === undefined ? [] : step.args;
  if (!Array.isArray(args)) {
    error(p, 'BAD_STEP', `step ${String(id)}: "args" must be an array`, `${path}/args`);
    return undefined;
  }
  const staticArgs = args.map((a: unknown) => (a === null ? undefined : a));
  const base = { ref, kind: type, staticArgs, assigns: [], gates: [], after: [] };
  const library = typeof step.library === 'string' ? step.library : '';
  const method = typeof step.method === 'string' ? step.method : '';
  switch (type) {
    case 'method': {
      const def = findMethod(library, method);
      ref.label = `${library}.${method}`;
      if (def === undefined) {
        error(p, 'UNKNOWN_METHOD', `step ${String(id)} calls ${library}.${method}, which is not a method of the library`, path);
        return undefined;
      }
      if (def.callback !== undefined) {
        const callback = staticArgs[def.callback];
        if (callback !== undefined && (typeof callback !== 'string' || !fnIds.has(callback))) {
          error(
            p,
            'UNKNOWN_FUNCTION',
            `step ${String(id)} (${ref.label}) calls back function "${String(callback)}", which is not in the functions table`,
            `${path}/args/${def.callback}`,
          );
        }
      }
      return { ...base, invoke: (a, ctx) => def.run(a, ctx) };
    }
    case 'declaration': {
      const def = DECLARATIONS[`${library}.${method}`];
      ref.label = method;
      if (def === undefined) {
        error(p, 'UNKNOWN_METHOD', `step ${String(id)} declares ${library}.${method}, which is not a constructor of the library`, path);
        return undefined;
      }
      const polymorph = step.polymorphIndex === undefined || step.polymorphIndex === null ? 0 : Number(step.polymorphIndex);
      if (!Number.isInteger(polymorph) || polymorph < 0)
        error(p, 'BAD_STEP', `step ${String(id)}: polymorphIndex must be a whole number`, `${path}/polymorphIndex`);
      return { ...base, invoke: (a, ctx) => def.run(a, polymorph, ctx) };
    }
    case 'template': {
      ref.label = 'String.templateLiteral';
      if (typeof step.template !== 'string') {
        error(p, 'BAD_STEP', `step ${String(id)}: a template step needs its "template" text`, `${path}/template`);
        return undefined;
      }
      const { parts, slots } = splitTemplate(step.template);
      return { ...base, invoke: (a) => renderTemplate(parts, slots, a) };
    }
    case 'function': {
      const fnId = typeof step.function === 'string' ? step.function : String(step.function);
      ref.label = `function ${fnId}`;
      if (!fnIds.has(fnId)) {
        error(
          p,
          'UNKNOWN_FUNCTION',
          `step ${String(id)} calls function "${fnId}", which is not in the functions table`,
          `${path}/function`,
        );
        return undefined;
      }
      return { ...base, invoke: (a, ctx) => ctx.callFunction(fnId, a) };
    }
    case 'context': {
      ref.label = `${library}.${method}`;
      if (library !== 'Conditional' || method !== 'switch') {
        error(
          p,
          'UNKNOWN_METHOD',
          `step ${String(id)} is a context step of ${library}.${method}; only Conditional.switch makes a context`,
          path,
        );
        return undefined;
      }
      const cases: unknown[] = Array.isArray(step.return) ? step.return : [];
      return { ...base, invoke: (a) => switchCases(cases, a[0]) };
    }
  }
}

/** Compiles one scope (the document or a user function). */
function compileScope(doc: Obj, path: string, fn: string | undefined, fnIds: ReadonlySet<string>, p: Problems): ScopePlan {
  const incoming = schemaIds(list(doc, 'incoming', path, p), `${path}/incoming`, p);
  const outgoing = schemaIds(list(doc, 'outgoing', path, p), `${path}/outgoing`, p);
  const steps = list(doc, 'steps', path, p);
  const drafts = new Map<string, Draft>();
  const assigns: { step: Obj; path: string }[] = [];

  for (const [i, step] of steps.entries()) {
    const at = `${path}/steps/${i}`;
    if (!isPlainObject(step)) {
      error(p, 'BAD_STEP', 'a step must be an object', at);
      continue;
    }
    const type = step.type;
    if (type === 'assign') {
      assigns.push({ step, path: at });
      continue;
    }
    if (!isNodeKind(type)) {
      error(
        p,
        'UNKNOWN_STEP_TYPE',
        `step ${String(step.id)} has type ${JSON.stringify(type)}; use assign, method, declaration, template, function or context`,
        `${at}/type`,
      );
      continue;
    }
    if (!isStepId(step.id)) {
      error(p, 'BAD_STEP', 'a step needs an id', `${at}/id`);
      continue;
    }
    if (drafts.has(String(step.id))) {
      error(p, 'DUPLICATE_STEP', `step id ${String(step.id)} is used twice`, `${at}/id`);
      continue;
    }
    const gateSteps = parseContext(step.context);
    if (gateSteps === undefined)
      error(
        p,
        'BAD_CONTEXT',
        `step ${String(step.id)} has context ${JSON.stringify(step.context)}; write "#" or "#/<switch step>[<case>]"`,
        `${at}/context`,
      );
    const node = nodeOf(step, type, step.id, at, fn, fnIds, p);
    if (node) drafts.set(String(step.id), { id: step.id, index: i, path: at, step, node, assigns: [], gateSteps: gateSteps ?? [] });
  }

  const outDrafts: { assign: OutAssign; fromStep?: string; gateSteps: { step: string; case: number }[]; path: string }[] = [];
  const assigned = new Set<string>();
  const used = new Set<string>();

  for (const { step, path: at } of assigns) {
    const from = step.from;
    const to = step.to;
    if (!isPlainObject(from) || !isPlainObject(to)) {
      error(p, 'BAD_ASSIGN', `assign ${String(step.id)} needs "from" and "to" objects`, at);
      continue;
    }
    const gateSteps = parseContext(step.context);
    if (gateSteps === undefined) {
      error(
        p,
        'BAD_CONTEXT',
        `assign ${String(step.id)} has context ${JSON.stringify(step.context)}; write "#" or "#/<switch step>[<case>]"`,
        `${at}/context`,
      );
      continue;
    }
    const fromPtr = typeof from.ptr === 'string' ? parsePointer(from.ptr) : undefined;
    const toPtr = typeof to.ptr === 'string' ? parsePointer(to.ptr) : undefined;
    if (fromPtr === undefined)
      error(p, 'BAD_POINTER', `assign ${String(step.id)}: from.ptr ${JSON.stringify(from.ptr)} is not a JSON Pointer`, `${at}/from/ptr`);
    if (toPtr === undefined)
      error(p, 'BAD_POINTER', `assign ${String(step.id)}: to.ptr ${JSON.stringify(to.ptr)} is not a JSON Pointer`, `${at}/to/ptr`);
    if (fromPtr === undefined || toPtr === undefined) continue;

    // the source
    let source: Source | undefined;
    let fromStep: string | undefined;
    const fromLocation = String(from.location);
    if (!FROM_LOCATIONS.has(fromLocation)) {
      error(
        p,
        'BAD_ASSIGN',
        `assign ${String(step.id)} reads from location "${fromLocation}"; use incoming or a step`,
        `${at}/from/location`,
      );
    } else if (fromLocation === 'incoming') {
      const name = String(from.name);
      if (!incoming.ids.includes(name))
        error(p, 'BAD_ASSIGN', `assign ${String(step.id)} reads incoming "${name}", which no incoming schema names`, `${at}/from/name`);
      else source = { node: -1, name, tokens: fromPtr };
    } else {
      fromStep = String(from.name);
      if (!drafts.has(fromStep))
        error(p, 'BAD_ASSIGN', `assign ${String(step.id)} reads step ${fromStep}, which does not exist or cannot run`, `${at}/from/name`);
      else if (fromPtr[0] !== 'return')
        error(
          p,
          'BAD_POINTER',
          `assign ${String(step.id)} reads ${JSON.stringify(from.ptr)} of step ${fromStep}; a step's answer is at /return`,
          `${at}/from/ptr`,
        );
      else {
        source = { node: 0, name: fromStep, tokens: fromPtr.slice(1) };
        used.add(fromStep);
      }
    }
    if (source === undefined) continue;

    // the target
    if (to.location === 'outgoing') {
      const name = String(to.name);
      if (!outgoing.ids.includes(name)) {
        error(p, 'BAD_ASSIGN', `assign ${String(step.id)} writes outgoing "${name}", which no outgoing schema names`, `${at}/to/name`);
        continue;
      }
      assigned.add(name);
      outDrafts.push({
        assign: { name, tokens: toPtr, source, gates: [] },
        ...(fromStep === undefined ? {} : { fromStep }),
        gateSteps,
        path: at,
      });
      continue;
    }
    const target = drafts.get(String(to.name));
    if (target === undefined) {
      error(
        p,
        'BAD_ASSIGN',
        `assign ${String(step.id)} writes step ${String(to.name)}, which does not exist or cannot run`,
        `${at}/to/name`,
      );
      continue;
    }
    let index: number;
    let tokens: string[] = [];
    if (to.ptr === '/context') index = -1;
    else {
      const m = ARG_POINTER.exec(String(to.ptr));
      if (!m) {
        error(
          p,
          'BAD_POINTER',
          `assign ${String(step.id)} writes ${JSON.stringify(to.ptr)} of step ${String(to.name)}; use /args/<n>/value or /context`,
          `${at}/to/ptr`,
        );
        continue;
      }
      index = Number(m[1]);
      tokens = toPtr.slice(3);
    }
    target.assigns.push({ assign: { index, tokens, source, gates: [] }, ...(fromStep === undefined ? {} : { fromStep }), gateSteps });
  }

  // gates must name context steps
  const checkGates = (gates: { step: string; case: number }[], at: string, what: string): boolean => {
    for (const g of gates) {
      const d = drafts.get(g.step);
      if (d === undefined || d.node.kind !== 'context') {
        error(p, 'BAD_CONTEXT', `${what} is gated on step ${g.step}, which is not a Conditional.switch step`, at);
        return false;
      }
    }
    return true;
  };
  for (const d of drafts.values()) checkGates(d.gateSteps, `${d.path}/context`, `step ${String(d.id)}`);

  // data-flow order: a node after every node it reads and every switch that gates it or its assigns
  const order: Draft[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const depsOf = (d: Draft): string[] => [
    ...d.gateSteps.map((g) => g.step),
    ...d.assigns.flatMap((a) => [...(a.fromStep === undefined ? [] : [a.fromStep]), ...a.gateSteps.map((g) => g.step)]),
  ];
  const visit = (d: Draft, trail: string[]): void => {
    const key = String(d.id);
    const s = state.get(key);
    if (s === 'done') return;
    if (s === 'visiting') {
      error(p, 'CYCLE', `steps ${[...trail.slice(trail.indexOf(key)), key].join(' → ')} depend on each other in a cycle`, d.path);
      return;
    }
    state.set(key, 'visiting');
    for (const dep of depsOf(d)) {
      const next = drafts.get(dep);
      if (next) visit(next, [...trail, key]);
    }
    state.set(key, 'done');
    order.push(d);
  };
  for (const d of [...drafts.values()].sort((x, y) => x.index - y.index)) visit(d, []);

  const position = new Map(order.map((d, i) => [String(d.id), i]));
  const gatesOf = (gs: { step: string; case: number }[]): Gate[] =>
    gs.flatMap((g) => (position.has(g.step) ? [{ node: position.get(g.step) as number, case: g.case }] : []));
  const resolve = (s: Source, fromStep: string | undefined): Source =>
    fromStep === undefined ? s : { ...s, node: position.get(fromStep) ?? -1 };

  const nodes: NodePlan[] = order.map((d) => ({
    ...d.node,
    gates: gatesOf(d.gateSteps),
    assigns: d.assigns.map((a) => ({ ...a.assign, source: resolve(a.assign.source, a.fromStep), gates: gatesOf(a.gateSteps) })),
    after: [],
  }));
  const start: OutAssign[] = [];
  for (const o of outDrafts) {
    if (!checkGates(o.gateSteps, `${o.path}/context`, 'an assign')) continue;
    const gates = gatesOf(o.gateSteps);
    const assign: OutAssign = { ...o.assign, source: resolve(o.assign.source, o.fromStep), gates };
    const at = Math.max(assign.source.node, ...gates.map((g) => g.node));
    if (at < 0) start.push(assign);
    else (nodes[at] as NodePlan).after.push(assign);
  }

  for (const id of outgoing.ids)
    if (!assigned.has(id))
      warn(p, 'OUTGOING_UNASSIGNED', `nothing is assigned to outgoing "${id}"`, `${path}/outgoing/${outgoing.ids.indexOf(id)}`);
  for (const d of drafts.values()) {
    if (!used.has(String(d.id)) && d.node.kind !== 'context')
      warn(p, 'STEP_UNUSED', `the answer of step ${String(d.id)} (${d.node.ref.label}) is never used`, d.path);
  }

  return {
    ...(fn === undefined ? {} : { fn }),
    incomingIds: incoming.ids,
    incomingSchemas: incoming.schemas,
    outgoingIds: outgoing.ids,
    outgoingSchemas: outgoing.schemas,
    nodes,
    start,
  };
}

/** Checks and compiles a transformation document (already migrated). */
export function compileTransformation(doc: unknown): CompileResult {
  const p: Problems = { errors: [], warnings: [] };
  if (!isPlainObject(doc)) {
    error(p, 'NOT_AN_OBJECT', 'a transformation must be an object', '');
    return p;
  }
  const name = typeof doc.name === 'string' ? doc.name : '';
  if (name === '') error(p, 'BAD_NAME', 'a transformation needs a name', '/name');

  const fnDocs = list(doc, 'functions', '', p);
  const fnIds = new Set<string>();
  const fns: { id: string; doc: Obj; path: string }[] = [];
  for (const [i, f] of fnDocs.entries()) {
    const at = `/functions/${i}`;
    if (!isPlainObject(f) || !isStepId(f.id)) {
      error(p, 'BAD_FUNCTION', 'a function must be an object with an id', at);
      continue;
    }
    const id = String(f.id);
    if (fnIds.has(id)) {
      // exported documents hold such twins; calls find the first, so the second can never run
      warn(p, 'DUPLICATE_FUNCTION', `function id "${id}" is used twice; calls run the first one`, `${at}/id`);
      continue;
    }
    fnIds.add(id);
    fns.push({ id, doc: f, path: at });
    if (Array.isArray(f.functions) && f.functions.length > 0)
      warn(
        p,
        'NESTED_FUNCTIONS',
        `function "${id}" holds functions of its own; calls resolve from the document's one table, so they are not used`,
        `${at}/functions`,
      );
  }

  const root = compileScope(doc, '', undefined, fnIds, p);
  const functions = new Map<string, ScopePlan>();
  for (const f of fns) {
    const scope = compileScope(f.doc, f.path, f.id, fnIds, p);
    if (scope.outgoingIds.length === 0)
      warn(p, 'FUNCTION_WITHOUT_OUTGOING', `function "${f.id}" has no outgoing schema, so it answers nothing`, `${f.path}/outgoing`);
    functions.set(f.id, scope);
  }
  if (p.errors.length > 0) return p;
  return { ...p, plan: { name, root, functions } };
}
