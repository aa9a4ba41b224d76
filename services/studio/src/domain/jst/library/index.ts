import { ARRAY } from './array';
import { OBJECT } from './object';
import { STRING } from './string';
import type { Library, MethodDef } from './types';
import {
  BOOLEAN,
  CONDITIONAL,
  DATE,
  EQUALITY,
  JSON_LIBRARY,
  LOGICAL,
  MATH,
  NULL,
  NUMBER,
  REGEXP,
  RELATIONAL,
  SET,
  WORKFLOW_ENGINE,
} from './values';

export { DECLARATIONS } from './declarations';
export type { DeclarationDef } from './declarations';
export type { CallContext, MethodDef } from './types';

/** The method libraries by name, as steps name them (`library`, `method`). */
const LIBRARIES: Readonly<Record<string, Library>> = {
  Array: ARRAY,
  Boolean: BOOLEAN,
  Conditional: CONDITIONAL,
  Date: DATE,
  Equality: EQUALITY,
  JSON: JSON_LIBRARY,
  Logical: LOGICAL,
  Math: MATH,
  Null: NULL,
  Number: NUMBER,
  Object: OBJECT,
  RegExp: REGEXP,
  Relational: RELATIONAL,
  Set: SET,
  String: STRING,
  WorkFlowEngine: WORKFLOW_ENGINE,
};

/** The method `library.method`, or undefined when the library has none of that name. */
export function findMethod(library: string, method: string): MethodDef | undefined {
  const lib = Object.hasOwn(LIBRARIES, library) ? LIBRARIES[library] : undefined;
  return lib !== undefined && Object.hasOwn(lib, method) ? lib[method] : undefined;
}

/** Every method as `Library.method`, sorted: what `docs/` lists. */
export function methodNames(): string[] {
  return Object.entries(LIBRARIES)
    .flatMap(([library, methods]) => Object.keys(methods).map((m) => `${library}.${m}`))
    .sort();
}
