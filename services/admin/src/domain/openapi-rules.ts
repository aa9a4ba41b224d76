import type { ModelFinding } from '@nap/contracts';
import { isRecord } from '@nap/util';
import { isHttpMethod } from './method-names';

/**
 * Rules of OpenAPI (2.0 and 3.x alike) that its JSON Schema cannot state, checked on the document as sent:
 * every `{name}` of a path template is a path parameter of the operation or of its path item, and
 * every path parameter is in the template; operationIds are unique. Each finding has a JSON pointer
 * into the document. Pure: the document in, findings out.
 */

type Json = Record<string, unknown>;

/** `~` and `/` escaped as RFC 6901 asks. */
export function pointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A parameter object, following one internal reference (`#/components/parameters/<name>` in 3.x, `#/parameters/<name>` in 2.0). */
function resolveParameter(document: Json, value: unknown): Json | undefined {
  if (!isRecord(value)) return undefined;
  const ref = value.$ref;
  if (typeof ref !== 'string') return value;
  const m = /^#\/(?:components\/)?parameters\/(.+)$/.exec(ref);
  const components = isRecord(document.components) ? document.components : {};
  const parameters = isRecord(components.parameters) ? components.parameters : isRecord(document.parameters) ? document.parameters : {};
  const target = m?.[1] === undefined ? undefined : parameters[m[1].replace(/~1/g, '/').replace(/~0/g, '~')];
  return isRecord(target) ? target : undefined;
}

/** The `in: path` parameters of a parameter list, with the pointer of each. */
function pathParameters(openapi: Json, list: unknown, at: string): { name: string; at: string }[] {
  if (!Array.isArray(list)) return [];
  const out: { name: string; at: string }[] = [];
  list.forEach((entry, i) => {
    const p = resolveParameter(openapi, entry);
    if (p?.in === 'path' && typeof p.name === 'string') out.push({ name: p.name, at: `${at}/${i}` });
  });
  return out;
}

/** The findings of the rules above; none for a document whose paths are not an object (the schema check reports that). */
export function specFindings(openapi: Json): ModelFinding[] {
  const findings: ModelFinding[] = [];
  const paths = isRecord(openapi.paths) ? openapi.paths : {};
  const operationIds = new Map<string, string>();
  for (const [template, item] of Object.entries(paths)) {
    if (!isRecord(item)) continue;
    const itemAt = `/paths/${pointerSegment(template)}`;
    const inTemplate = [...template.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1] ?? '');
    const shared = pathParameters(openapi, item.parameters, `${itemAt}/parameters`);
    for (const [method, operation] of Object.entries(item)) {
      if (!isHttpMethod(method) || !isRecord(operation)) continue;
      const opAt = `${itemAt}/${method}`;
      const own = pathParameters(openapi, operation.parameters, `${opAt}/parameters`);
      const declared = [...own, ...shared.filter((s) => !own.some((o) => o.name === s.name))];
      for (const name of inTemplate)
        if (!declared.some((d) => d.name === name))
          findings.push({
            path: opAt,
            message: `declares no path parameter "${name}" for {${name}} of ${template}: a parameter with in: path and name: ${name} is missing`,
          });
      for (const d of own)
        if (!inTemplate.includes(d.name))
          findings.push({ path: d.at, message: `is the path parameter "${d.name}", but ${template} has no {${d.name}}` });
      const id = operation.operationId;
      if (typeof id === 'string') {
        const first = operationIds.get(id);
        if (first === undefined) operationIds.set(id, `${method.toUpperCase()} ${template}`);
        else
          findings.push({
            path: `${opAt}/operationId`,
            message: `"${id}" is the operationId of ${first} already: operationIds must be unique`,
          });
      }
    }
    for (const d of shared)
      if (!inTemplate.includes(d.name))
        findings.push({ path: d.at, message: `is the path parameter "${d.name}", but ${template} has no {${d.name}}` });
  }
  return findings;
}
