/**
 * Writes a transformation of the current form in the form 2023.1-era releases saved, by that
 * release's rules (read off the documents those releases exported, compared with the same documents
 * exported later): used by the tests to show that both forms of a document give the same results.
 * It is written apart from the engine's migration on purpose, so that a test compares two independent
 * readings of the rules rather than a function with its own inverse.
 *
 * The rules. A callback of `Array.map/filter/find/findIndex/some/every/flatMap/reduce/reduceRight`
 * receives the arguments written after it in its call (for reduce, after `initialValue`): the current
 * form lists them as incoming `constantValue1..N`; the older form as one incoming `thisArg`
 * (`type: object`, `isContext: true`, `isIndexed: true`, present even when nothing follows the
 * callback) whose members are named `<position>_<label>`, position from 0, label what the editor had
 * wired into that argument (an incoming name, `<method> return`). Steps read a member:
 * `constantValue2` at `/x` is `thisArg` at `/1_<label>/x`. The version reads `4.1.2-2023.1.10`.
 * Nothing else differs.
 */

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Callback methods: where the callback is, and where the arguments after it start. */
const CALLBACKS: Readonly<Record<string, { callback: number; constants: number }>> = {
  map: { callback: 1, constants: 2 },
  filter: { callback: 1, constants: 2 },
  find: { callback: 1, constants: 2 },
  findIndex: { callback: 1, constants: 2 },
  some: { callback: 1, constants: 2 },
  every: { callback: 1, constants: 2 },
  flatMap: { callback: 1, constants: 2 },
  reduce: { callback: 1, constants: 3 },
  reduceRight: { callback: 1, constants: 3 },
};

const CONSTANT = /^constantValue([1-9]\d*)$/;

/** The values the editor gave a new callback, before any constant value. */
const CALLBACK_SHAPES = ['currentValue,index,array', 'element,index,array', 'accumulator,currentValue,index,array'];

interface CallSite {
  scope: Obj;
  step: Obj;
  constants: number;
}

/** Every step that calls `fn` back, in any scope. */
function callSites(doc: Obj, fnId: string): CallSite[] {
  const scopes = [doc, ...(Array.isArray(doc.functions) ? doc.functions.filter(isObj) : [])];
  return scopes.flatMap((scope) =>
    (Array.isArray(scope.steps) ? scope.steps.filter(isObj) : []).flatMap((step) => {
      const kind = step.type === 'method' && step.library === 'Array' ? CALLBACKS[String(step.method)] : undefined;
      return kind && Array.isArray(step.args) && step.args[kind.callback] === fnId ? [{ scope, step, constants: kind.constants }] : [];
    }),
  );
}

/** What the editor labelled argument `n` (0-based) after the callback: the name of what is wired into it. */
function label(site: CallSite | undefined, n: number): string {
  if (site === undefined) return `constantValue${n + 1}`;
  const ptr = `/args/${site.constants + n}/value`;
  const wire = (Array.isArray(site.scope.steps) ? site.scope.steps.filter(isObj) : []).find(
    (s) => s.type === 'assign' && isObj(s.to) && s.to.name === site.step.id && s.to.ptr === ptr,
  );
  const from = wire?.from;
  if (!isObj(from)) return `constantValue${n + 1}`;
  if (from.location === 'incoming') return String(from.name);
  const source = (Array.isArray(site.scope.steps) ? site.scope.steps.filter(isObj) : []).find((s) => s.id === from.name);
  return `${String(source?.method ?? from.location)} return`;
}

export function toOlderForm(doc: Obj): Obj {
  const functions = Array.isArray(doc.functions) ? doc.functions : [];
  const older = functions.map((fn: unknown) => {
    if (!isObj(fn) || !Array.isArray(fn.incoming)) return fn;
    const sites = callSites(doc, String(fn.id));
    const incoming = fn.incoming.filter(isObj);
    const constants = incoming.filter((s) => CONSTANT.test(String(s.$id)));
    // the editor gave every callback its thisArg, and it stayed when a callback lost its caller
    const shaped = CALLBACK_SHAPES.includes(incoming.map((s) => String(s.$id)).join(','));
    if (sites.length === 0 && constants.length === 0 && !shaped) return fn;
    const keys = new Map<string, string>();
    const properties: Obj = {};
    for (const schema of constants) {
      const n = Number(CONSTANT.exec(String(schema.$id))?.[1]) - 1;
      const key = `${n}_${label(sites[0], n)}`;
      keys.set(String(schema.$id), key);
      properties[key] = { $id: key, type: schema.type };
    }
    const steps = (Array.isArray(fn.steps) ? fn.steps : []).map((s: unknown) => {
      if (!isObj(s) || s.type !== 'assign' || !isObj(s.from) || s.from.location !== 'incoming') return s;
      const key = keys.get(String(s.from.name));
      if (key === undefined) return s;
      return { ...s, from: { ...s.from, name: 'thisArg', ptr: `/${key}${String(s.from.ptr ?? '')}` } };
    });
    return {
      ...fn,
      incoming: [
        ...incoming.filter((s) => !CONSTANT.test(String(s.$id))),
        { $id: 'thisArg', type: 'object', properties, isContext: true, isIndexed: true },
      ],
      steps,
    };
  });
  return { ...doc, version: '4.1.2-2023.1.10', functions: older };
}

/** Whether some step of the document calls one of its functions back (`Array.map(array, "ƒ_map_1")`, sort too). */
export function hasCallback(doc: Obj): boolean {
  const functions = Array.isArray(doc.functions) ? doc.functions.filter(isObj) : [];
  return functions.some((fn) => callSites(doc, String(fn.id)).length > 0 || sortedBy(doc, String(fn.id)));
}

function sortedBy(doc: Obj, fnId: string): boolean {
  const scopes = [doc, ...(Array.isArray(doc.functions) ? doc.functions.filter(isObj) : [])];
  return scopes.some((scope) =>
    (Array.isArray(scope.steps) ? scope.steps.filter(isObj) : []).some(
      (s) => s.type === 'method' && s.library === 'Array' && s.method === 'sort' && Array.isArray(s.args) && s.args[1] === fnId,
    ),
  );
}
