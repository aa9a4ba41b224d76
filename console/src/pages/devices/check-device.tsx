import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { templateOutcome } from '@nap/contracts/dist/template-results';
import { plainName, projectOf } from '../../api/names';
import { nap } from '../../api/nap';
import type { CommandTemplate } from '../../api/nap';
import { templateVariables, variableValue } from '../../api/template-inputs';
import { ErrorMessage } from '../../components/error-message';
import { StatusBadge } from '../../components/status-badge';
import { useProjectNames } from '../../components/workflow-name';
import { ResultsView } from '../job/mop-result-view';
import { deviceChecksKey } from './recent-checks';
import styles from './device-page.module.css';

/** A template's project, as people read it: its name once known, else the end of its id; '' outside any project. */
function projectText(name: string, projects: ReadonlyMap<string, string>): string {
  const id = projectOf(name);
  return id === undefined ? '' : (projects.get(id) ?? `project …${id.slice(-6)}`);
}

/**
 * The templates for this device first (its network OS, or none named), then the others, each by
 * the name people read (a project's template by its own name, then its project's).
 */
function orderFor(templates: readonly CommandTemplate[], os: string | undefined, projects: ReadonlyMap<string, string>): CommandTemplate[] {
  const fits = (t: CommandTemplate) => !t.os || t.os === os;
  return [...templates].sort(
    (a, b) =>
      Number(fits(b)) - Number(fits(a)) ||
      plainName(a.name).localeCompare(plainName(b.name)) ||
      projectText(a.name, projects).localeCompare(projectText(b.name, projects)),
  );
}

/** A template as its option reads: `File Verification — Cisco NX-OS` (its project), `(for eos)` when made for another OS. */
function optionText(template: CommandTemplate, os: string | undefined, projects: ReadonlyMap<string, string>): string {
  const project = projectText(template.name, projects);
  return `${plainName(template.name)}${project ? ` — ${project}` : ''}${template.os && template.os !== os ? ` (for ${template.os})` : ''}`;
}

/**
 * `Check` on a device's page: a MOP command template run on the device (`POST
 * /mop/RunCommandTemplate`), its `<!variables!>` asked one by one, the outcome drawn command by
 * command with the rules a failed one did not pass, as a job's check is.
 */
export function CheckDevice({ device, os }: { device: string; os: string | undefined }) {
  const ids = { template: useId(), hint: useId() };
  const templates = useQuery({ queryKey: ['command-templates'], queryFn: () => nap.commandTemplates() });
  const [chosen, setChosen] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const client = useQueryClient();
  const check = useMutation({
    mutationFn: ({ template, variables }: { template: string; variables: Record<string, unknown> }) =>
      nap.runCommandTemplate(template, [device], variables),
    // the run is kept: the device's recent checks list it
    onSettled: () => client.invalidateQueries({ queryKey: deviceChecksKey(device) }),
  });
  const projects = useProjectNames((templates.data ?? []).map((t) => t.name));
  const ordered = orderFor(templates.data ?? [], os, projects);
  const template = ordered.find((t) => t.name === chosen);
  const names = template === undefined ? [] : templateVariables(template);
  const commands = template?.commands ?? [];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (check.isPending || template === undefined) return;
    const variables: Record<string, unknown> = {};
    for (const name of names) {
      const value = variableValue(values[name] ?? '');
      if (value !== undefined) variables[name] = value;
    }
    check.mutate({ template: template.name, variables });
  };
  const results = check.data === undefined ? undefined : templateOutcome(check.data);
  return (
    <section aria-labelledby="check-device-title" className={`card ${styles.card}`}>
      <h2 id="check-device-title">Check with a command template</h2>
      {templates.isPending ? <p className="muted">Loading the command templates…</p> : null}
      <ErrorMessage error={templates.error} title="The command templates cannot be listed" />
      {templates.data !== undefined && templates.data.length === 0 ? (
        <p className={styles.note}>
          No command template yet. A template lists commands and the rules their output must pass: create one with{' '}
          <code>nap create command-template -f check.yaml</code> or <code>POST /mop/createTemplate</code> (docs/devices.md, “Check the
          output”).
        </p>
      ) : null}
      {ordered.length > 0 ? (
        <form className="stack" onSubmit={submit}>
          <div className={styles.field}>
            <label htmlFor={ids.template}>Command template</label>
            <select
              id={ids.template}
              value={chosen}
              required
              onChange={(e) => {
                setChosen(e.target.value);
                check.reset();
              }}
            >
              <option value="">Choose a template…</option>
              {ordered.map((t) => (
                <option key={t.name} value={t.name} title={t.name}>
                  {optionText(t, os, projects)}
                </option>
              ))}
            </select>
          </div>
          {template !== undefined ? (
            <>
              <p id={ids.hint} className={styles.note}>
                {commands.length} command{commands.length === 1 ? '' : 's'}:{' '}
                {commands.slice(0, 3).map((c, i) => (
                  <span key={i}>
                    {i > 0 ? ', ' : ''}
                    <code>{c.command}</code>
                  </span>
                ))}
                {commands.length > 3 ? ', …' : ''}.
                {names.length > 0
                  ? ' A list (["Gi0/1", "Gi0/2"]) runs a command once per element; a variable left blank skips its commands.'
                  : ''}
              </p>
              {names.map((name) => (
                <div key={name} className={styles.field}>
                  <label htmlFor={`${ids.template}-${name}`}>{name}</label>
                  <input
                    id={`${ids.template}-${name}`}
                    className="mono"
                    value={values[name] ?? ''}
                    spellCheck={false}
                    autoCapitalize="off"
                    autoCorrect="off"
                    aria-describedby={ids.hint}
                    onChange={(e) => setValues({ ...values, [name]: e.target.value })}
                  />
                </div>
              ))}
            </>
          ) : null}
          <div className="row">
            <button type="submit" className="button button-primary" aria-disabled={check.isPending || template === undefined}>
              {check.isPending ? 'Checking…' : 'Run check'}
            </button>
            <span role="status">{check.isPending ? <StatusBadge status="running" label={`checking ${device}`} /> : null}</span>
          </div>
        </form>
      ) : null}
      <ErrorMessage error={check.error} title="The check did not run" />
      {results !== undefined ? (
        <div aria-label="Check results" role="region">
          <ResultsView results={results} />
        </div>
      ) : null}
    </section>
  );
}
