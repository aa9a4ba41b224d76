import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { FormEvent, ReactNode } from 'react';
import { useMutation } from '@tanstack/react-query';
import { ApiError, isUnauthenticated } from '../../api/http';
import type { RJSFSchema, UiSchema } from '@rjsf/utils';
import { useNavigate } from 'react-router';
import { plainName } from '../../api/names';
import { nap } from '../../api/nap';
import type { Workflow } from '../../api/nap';
import { Dialog } from '../../components/dialog';
import { ErrorMessage } from '../../components/error-message';
import { FormActions } from '../../components/form-actions';
import { SchemaForm } from '../../components/schema-form/schema-form';
import { WorkflowName, useProjectNames } from '../../components/workflow-name';
import { draftKeys, keepDraft, settleDraft } from '../../session/drafts';
import { useWhoami } from '../../session/session';
import {
  blankRequired,
  formOf,
  inputsOf,
  isFormFriendly,
  listText,
  parseVariables,
  skeletonOf,
  typeText,
  valueText,
  variablesText,
} from './workflow-inputs';
import type { WorkflowInput } from './workflow-inputs';
import styles from './run-workflow-dialog.module.css';

type Variables = Record<string, unknown>;

/** What the dialog holds: kept when the session ends as it sends, and given back after the log-in. */
export interface RunDraft {
  mode: 'form' | 'json';
  data: Variables;
  json: string;
  description: string;
}

const lines = (text: string) => text.split('\n').length;

/** The platform's refusal naming the workflow as people read it: its own name, not `@<project id>: <name>`. */
function inPlainWords(error: Error | null, storedName: string): Error | null {
  const plain = plainName(storedName);
  if (!(error instanceof ApiError) || plain === storedName || !error.message.includes(storedName)) return error;
  return new ApiError(error.status, error.code, error.message.split(storedName).join(plain), {
    requestId: error.requestId,
    details: error.details,
  });
}

/** What the workflow's inputSchema asks for, one row a member: what a person writing the JSON needs beside it. */
function InputsTable({ inputs }: { inputs: readonly WorkflowInput[] }) {
  return (
    // a long list scrolls inside its card: a region the keyboard reaches, to scroll it
    <div className={`card table-card ${styles.inputs}`} role="region" aria-label="Inputs of the workflow" tabIndex={0}>
      <table className="table">
        <caption className="visually-hidden">Inputs</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Required</th>
            <th scope="col">Example</th>
          </tr>
        </thead>
        <tbody>
          {inputs.map((input) => (
            <tr key={input.name}>
              <th scope="row">
                <span className="mono">{input.name}</span>
                {input.title || input.description ? (
                  <span className={styles.help}>{[input.title, input.description].filter(Boolean).join(': ')}</span>
                ) : null}
              </th>
              <td>{typeText(input)}</td>
              <td>{input.givenByPlatform ? 'given by the platform' : input.required ? 'yes' : 'no'}</td>
              <td className={`mono ${styles.example}`}>{input.hasExample ? valueText(input.example) : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * `Run` on a workflow's page: the job's variables as its inputSchema describes them, then
 * `POST /operations-manager/jobs/start` and the new job's page. A schema whose every member is a
 * plain value, a list of plain values or an object of such members is asked with a form; any other
 * (members of several types, lists of objects, deeper objects, composed schemas) and a workflow
 * without a schema are written as JSON, started from a skeleton of the members' examples.
 * The platform checks the variables against the schema: its refusal, naming each member, stays here.
 */
export function RunWorkflowDialog({
  workflow,
  onClose,
  draft,
}: {
  workflow: Workflow;
  onClose: () => void;
  /** What the person wrote before their session ended, given back. */
  draft?: RunDraft | undefined;
}) {
  const navigate = useNavigate();
  const { data: whoami } = useWhoami();
  const projects = useProjectNames([workflow.name]);
  const inputs = useMemo(() => inputsOf(workflow.inputSchema), [workflow.inputSchema]);
  const form = useMemo(() => {
    if (!isFormFriendly(workflow.inputSchema)) return undefined;
    const { schema, uiSchema } = formOf(workflow.inputSchema);
    // plain JSON Schema and UI schema objects: what RJSF's types describe
    return { schema: schema as RJSFSchema, uiSchema: uiSchema as UiSchema<Variables, RJSFSchema> };
  }, [workflow.inputSchema]);
  const skeleton = useMemo(() => variablesText(skeletonOf(inputs)), [inputs]);
  const [mode, setMode] = useState<'form' | 'json'>(draft?.mode === 'form' && form ? 'form' : draft ? 'json' : form ? 'form' : 'json');
  const [data, setData] = useState<Variables>(draft?.data ?? {});
  const [json, setJson] = useState(draft?.json ?? skeleton);
  // the text the form's values became: going back to the form unchanged keeps the form as it was
  const [converted, setConverted] = useState<string | undefined>(undefined);
  const [description, setDescription] = useState(draft?.description ?? '');
  // what is wrong with the JSON text, said before anything is sent (or before it becomes the form)
  const [problem, setProblem] = useState<{ title: string; message: string } | undefined>(undefined);
  const body = useRef<HTMLDivElement>(null);
  const ids = { variables: useId(), json: useId(), problem: useId(), description: useId() };
  const draftKey = draftKeys.runWorkflow(workflow.name);
  const run = useMutation({
    mutationFn: (variables: Variables) => {
      // kept until answered: should the session have ended, the person gets it back after logging in
      keepDraft(draftKey, whoami?.username, { mode, data, json, description } satisfies RunDraft);
      return nap.startJob(workflow.name, variables, description.trim() || undefined);
    },
    onSuccess: async (answer) => {
      settleDraft(draftKey);
      onClose();
      await navigate(`/jobs/${encodeURIComponent(answer.data._id)}`);
    },
    onError: (error) => {
      if (!isUnauthenticated(error)) settleDraft(draftKey);
    },
  });
  const close = () => {
    settleDraft(draftKey);
    onClose();
  };

  // the first field has the focus when the dialog opens and when the person switches between form and JSON
  useEffect(() => {
    body.current?.querySelector<HTMLElement>('input, select, textarea')?.focus();
  }, [mode]);

  const start = (variables: Variables) => {
    // a blank the platform would take as given: the job would run against nothing
    const blank = blankRequired(inputs, variables);
    if (blank.length > 0) {
      run.reset();
      setProblem({
        title: 'Nothing was sent',
        message: `${listText(blank)} ${blank.length === 1 ? 'is' : 'are'} required, and ${blank.length === 1 ? 'is' : 'are'} still blank (null or ""): write ${blank.length === 1 ? 'its value' : 'a value for each'}.`,
      });
      return;
    }
    setProblem(undefined);
    run.mutate(variables);
  };
  const submitJson = (event: FormEvent) => {
    event.preventDefault();
    const parsed = parseVariables(json);
    if ('problem' in parsed) {
      run.reset();
      setProblem({ title: 'Nothing was sent', message: parsed.problem });
    } else {
      start(parsed.variables);
    }
  };
  const toJson = () => {
    const text = Object.values(data).some((value) => value !== undefined) ? variablesText(data) : skeleton;
    setJson(text);
    setConverted(text);
    setProblem(undefined);
    setMode('json');
  };
  const toForm = () => {
    if (json !== converted) {
      const parsed = parseVariables(json);
      if ('problem' in parsed) {
        setProblem({ title: 'The form cannot show these variables', message: parsed.problem });
        return;
      }
      setData(parsed.variables);
    }
    setProblem(undefined);
    setMode('form');
  };

  // as tall as the skeleton (or the text, as it grows), within bounds: the box does not shrink under the person typing
  const rows = Math.min(12, Math.max(4, lines(skeleton) + 1, lines(json) + 1));
  const given = inputs.filter((input) => input.givenByPlatform).map((input) => input.name);
  const footer: ReactNode = (
    <div className={`stack ${styles.footer}`}>
      <div className={styles.field}>
        <label htmlFor={ids.description}>
          Description <span className={styles.optional}>(optional)</span>
        </label>
        <input id={ids.description} type="text" value={description} onChange={(e) => setDescription(e.target.value)} />
      </div>
      {problem ? (
        <div id={ids.problem}>
          <ErrorMessage error={new Error(problem.message)} title={problem.title} />
        </div>
      ) : null}
      <ErrorMessage error={inPlainWords(run.error, workflow.name)} title="The workflow did not start" />
      <FormActions action="Run" pending={run.isPending} cancel="Close" onCancel={close} />
    </div>
  );

  return (
    <Dialog title={`Run ${plainName(workflow.name)}`} onClose={close} wide>
      {draft ? (
        <p role="status" className="attention-note">
          <strong>Your session ended before this was sent.</strong> Here is what you wrote: check it, then run it.
        </p>
      ) : null}
      <p className={styles.intro}>
        Starts a job of{' '}
        <strong>
          <WorkflowName name={workflow.name} projects={projects} />
        </strong>{' '}
        with these variables, then opens the job’s page.
      </p>
      <section aria-labelledby={ids.variables} className="stack" ref={body}>
        <div className={styles.heading}>
          <h3 id={ids.variables}>Variables</h3>
          {form ? (
            <button type="button" className="button" onClick={mode === 'form' ? toJson : toForm}>
              {mode === 'form' ? 'Edit as JSON' : 'Edit as a form'}
            </button>
          ) : null}
        </div>
        {mode === 'form' && given.length > 0 ? (
          <p className={styles.note}>
            The platform gives every job {given.map((name, i) => [i > 0 ? ' and ' : '', <code key={name}>{name}</code>])} itself.
          </p>
        ) : null}
        {mode === 'form' && form ? (
          <SchemaForm
            schema={form.schema}
            uiSchema={form.uiSchema}
            formData={data}
            onChange={setData}
            onSubmit={start}
            disabled={run.isPending}
          >
            {footer}
          </SchemaForm>
        ) : (
          <form className="stack" onSubmit={submitJson} noValidate>
            {inputs.length > 0 ? (
              <InputsTable inputs={inputs} />
            ) : (
              <p className={styles.note}>
                The workflow declares no inputs (it has no inputSchema): its job starts with the variables written here, <code>{'{}'}</code>{' '}
                for none.
              </p>
            )}
            <div className={styles.field}>
              <label htmlFor={ids.json}>Variables as JSON</label>
              <textarea
                id={ids.json}
                className={styles.json}
                value={json}
                spellCheck={false}
                rows={rows}
                aria-invalid={problem ? true : undefined}
                aria-describedby={problem ? ids.problem : undefined}
                onChange={(e) => {
                  setJson(e.target.value);
                  setProblem(undefined);
                }}
              />
            </div>
            {footer}
          </form>
        )}
      </section>
    </Dialog>
  );
}
