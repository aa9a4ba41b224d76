import type { Command } from 'commander';
import { EXIT_MEANINGS } from './errors';
import type { Verb } from './resources/registry';
import { RESOURCES, VERBS } from './resources/registry';

/**
 * The command reference of docs/cli.md, written from the command definitions and the resource
 * table; cli/test/docs.test.ts keeps the document in step (UPDATE_DOCS=1 rewrites it).
 */
export const REFERENCE_BEGIN =
  '<!-- BEGIN GENERATED REFERENCE: from cli/src/program.ts and cli/src/resources/registry.ts; UPDATE_DOCS=1 npx jest cli/test/docs -->';
export const REFERENCE_END = '<!-- END GENERATED REFERENCE -->';

/** Text for a table cell: pipes escaped, angle brackets as entities (not HTML). */
function escape(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A flag in a code span of a table cell: only the pipes escaped (GFM). */
function code(text: string): string {
  return `\`${text.replace(/\|/g, '\\|')}\``;
}

function usageOf(cmd: Command, parents: string[]): string {
  const args = cmd.registeredArguments.map((a) => {
    const name = `${a.name()}${a.variadic ? '...' : ''}`;
    return a.required ? `<${name}>` : `[${name}]`;
  });
  return ['nap', ...parents, cmd.name(), ...args].join(' ');
}

function section(cmd: Command, parents: string[], lines: string[]): void {
  if (cmd.commands.length > 0 && cmd.registeredArguments.length === 0 && cmd.options.length === 0) {
    for (const sub of cmd.commands) section(sub, [...parents, cmd.name()], lines);
    return;
  }
  lines.push(
    `### \`${usageOf(cmd, parents)}\``,
    '',
    `${escape(cmd.description().charAt(0).toUpperCase() + cmd.description().slice(1))}.`,
    '',
  );
  const rows: string[] = [];
  for (const a of cmd.registeredArguments) rows.push(`| \`${a.name()}\` | ${escape(a.description)} |`);
  for (const o of cmd.options) {
    const def =
      o.defaultValue === undefined || (Array.isArray(o.defaultValue) && o.defaultValue.length === 0)
        ? ''
        : ` (default: ${String(o.defaultValue)})`;
    rows.push(`| ${code(o.flags)} | ${escape(o.description)}${def} |`);
  }
  if (rows.length > 0) lines.push('| argument / flag | meaning |', '|---|---|', ...rows, '');
}

const VERB_LABEL: Record<Verb, string> = {
  get: 'get',
  describe: 'describe',
  create: 'create',
  delete: 'delete',
  import: 'import',
  export: 'export',
  copy: 'copy',
};

function supports(def: (typeof RESOURCES)[number], verb: Verb): boolean {
  if (def.gaps[verb] !== undefined) return false;
  switch (verb) {
    case 'get':
    case 'describe':
      return def.list !== undefined || def.get !== undefined;
    case 'create':
      return def.create !== undefined || def.portable?.create !== undefined;
    case 'delete':
      return def.delete !== undefined || def.portable?.delete !== undefined;
    case 'import':
      return def.import !== undefined || def.portable !== undefined;
    case 'export':
      return def.export !== undefined || def.portable !== undefined;
    case 'copy':
      return (def.import !== undefined && def.export !== undefined) || def.portable !== undefined;
    default:
      return false;
  }
}

/** A verb done in the portable form or through a route named for another verb. */
function indirect(def: (typeof RESOURCES)[number], verb: Verb): boolean {
  switch (verb) {
    case 'create':
      return def.create === undefined || def.create.via !== undefined;
    case 'delete':
      return def.delete === undefined;
    case 'import':
      return def.import === undefined;
    case 'export':
      return def.export === undefined || def.export.via !== undefined;
    case 'copy':
      return def.import === undefined || def.export === undefined;
    default:
      return false;
  }
}

export function renderReference(program: Command): string {
  const lines: string[] = [
    REFERENCE_BEGIN,
    '',
    '### Global flags',
    '',
    'Valid before or after the command.',
    '',
    '| flag | meaning |',
    '|---|---|',
  ];
  for (const o of program.options) {
    const def = o.defaultValue === undefined || o.negate ? '' : ` (default: ${String(o.defaultValue)})`;
    const choices = o.argChoices === undefined ? '' : ` (${o.argChoices.join(', ')})`;
    lines.push(`| ${code(o.flags)} | ${escape(o.description)}${choices}${def} |`);
  }
  lines.push('');
  for (const cmd of program.commands) section(cmd, [], lines);
  lines.push(
    '### Resources and verbs',
    '',
    "Each cell is a verb `nap` does (✓): with the route the platform has for it, or — marked ✓° — in `nap`'s own portable form or through another route (below). Where the platform has no way to do it (—), `nap` says so in one line and exits 4.",
    '',
  );
  lines.push(`| resource | what it is | ${VERBS.map((v) => VERB_LABEL[v]).join(' | ')} |`, `|---|---|${VERBS.map(() => ':-:').join('|')}|`);
  for (const def of RESOURCES) {
    lines.push(
      `| \`${def.plural}\` | ${escape(def.summary)} | ${VERBS.map((v) => (!supports(def, v) ? '—' : indirect(def, v) ? '✓°' : '✓')).join(' | ')} |`,
    );
  }
  lines.push(
    '',
    "#### Exported in nap's own portable form",
    '',
    'The platform has no export or import route for these: `nap export` writes the document as the platform answers it, without what the server owns (ids, timestamps, created/updated-by) and without secrets (which the platform answers masked, or not at all), as `<name>.<kind>.json`; `nap import` creates each document with the create route, and with `--replace` updates the one of the same name in place (its id kept); `nap copy` is that export and import.',
    '',
  );
  for (const def of RESOURCES) if (def.portable !== undefined) lines.push(`- \`${def.plural}\`: ${def.portable.form}.`);
  lines.push(
    '',
    '#### How --replace replaces',
    '',
    '`nap import --replace` and `nap copy --replace` never delete a document to replace it where the platform can update it in place: the one there keeps its id (not the `_id` of the file), and a document the platform refuses leaves it exactly as it was. Where only a delete and an import can replace it, `nap` first reads the document there as the platform exports it, keeps it in memory and in a file of the OS temp folder (`nap-replaced-<resource>-…/`, readable by its owner only), deletes it, imports the new one, and, if the platform refuses that, imports the kept one back; if even that fails, the message names the document deleted and the file that holds it (exit 1), and the file stays.',
    '',
  );
  for (const def of RESOURCES) {
    if (def.portable !== undefined) {
      lines.push(`- \`${def.plural}\`: updated in place, in nap's portable form (above).`);
      continue;
    }
    if (def.import === undefined) continue;
    const update = def.update;
    if (update === undefined)
      lines.push(`- \`${def.plural}\`: deleted and imported again (no route updates one in place), put back if refused.`);
    else
      lines.push(
        `- \`${def.plural}\`: updated in place with \`${update.route.method} ${update.route.path}\`${update.note === undefined ? '' : `: ${update.note}`}.`,
      );
  }
  lines.push('', '#### Verbs served another way', '');
  for (const def of RESOURCES) {
    if (def.create?.via !== undefined) lines.push(`- \`nap create ${def.singular}\`: through ${def.create.via}.`);
    if (def.portable?.create !== undefined) lines.push(`- \`nap create ${def.singular}\`: ${def.portable.create}.`);
    if (def.portable?.delete !== undefined) lines.push(`- \`nap delete ${def.singular}\`: ${def.portable.delete}.`);
    if (def.export?.via !== undefined) lines.push(`- \`nap export ${def.singular}\`: ${def.export.via}.`);
  }
  lines.push('', '#### What the platform has no route for', '');
  for (const def of RESOURCES) {
    for (const verb of VERBS) {
      const gap = def.gaps[verb];
      if (gap !== undefined) lines.push(`- \`nap ${verb} ${def.singular}\`: ${gap}.`);
    }
  }
  lines.push('', '### Exit codes', '', '| code | meaning |', '|---|---|');
  for (const [code, meaning] of EXIT_MEANINGS) lines.push(`| ${code} | ${meaning} |`);
  lines.push('', REFERENCE_END);
  return `${lines.join('\n')}\n`;
}
