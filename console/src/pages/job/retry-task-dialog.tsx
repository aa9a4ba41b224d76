import { useMemo, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { RJSFSchema, UiSchema } from '@rjsf/utils';
import { taskLabel } from '../../api/job-data';
import { nap } from '../../api/nap';
import type { JobDocument, RetryVariables, Task } from '../../api/nap';
import { Dialog } from '../../components/dialog';
import { ErrorMessage } from '../../components/error-message';
import { FormActions } from '../../components/form-actions';
import { SchemaForm } from '../../components/schema-form/schema-form';

type FormData = Record<string, unknown>;

/** A value edited as JSON text (objects, arrays, null); the form holds it as text and it is parsed back on retry. */
const JSON_FIELD = (name: string): RJSFSchema => ({ type: 'string', title: `${name} (JSON)` });

/**
 * The task's incoming variables as a form: text, numbers and booleans as such, anything else as
 * JSON text. Only the variables the person changed are sent as the retry's variables; the others
 * keep what the workflow gives them (references such as `$var.job.device` included).
 */
function formOf(incoming: Record<string, unknown>): { schema: RJSFSchema; uiSchema: UiSchema<FormData, RJSFSchema>; data: FormData } {
  const properties: Record<string, RJSFSchema> = {};
  const uiSchema: UiSchema<FormData, RJSFSchema> = {};
  const data: FormData = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (typeof value === 'string') {
      properties[name] = { type: 'string', title: name };
      data[name] = value;
    } else if (typeof value === 'number') {
      properties[name] = { type: 'number', title: name };
      data[name] = value;
    } else if (typeof value === 'boolean') {
      // its value as its default: a variable always has one, which the box may turn but never take back ("No answer")
      properties[name] = { type: 'boolean', title: name, default: value };
      data[name] = value;
    } else {
      properties[name] = JSON_FIELD(name);
      uiSchema[name] = { 'ui:widget': 'textarea', 'ui:options': { rows: 4 } };
      data[name] = JSON.stringify(value ?? null, null, 2);
    }
  }
  return { schema: { type: 'object', properties }, uiSchema, data };
}

function changedVariables(incoming: Record<string, unknown>, initial: FormData, edited: FormData): RetryVariables {
  const variables: RetryVariables = {};
  for (const [name, value] of Object.entries(edited)) {
    if (JSON.stringify(value) === JSON.stringify(initial[name])) continue;
    const original = incoming[name];
    const isJson = original === null || typeof original === 'object';
    if (isJson) {
      try {
        variables[name] = { value: JSON.parse(String(value ?? 'null')) as unknown };
      } catch {
        throw new Error(`The value of ${name} is not valid JSON`);
      }
    } else {
      variables[name] = { value };
    }
  }
  return variables;
}

/** `Retry task`: the task runs again with the edited variables, and the job goes on from there. */
export function RetryTaskDialog({ job, taskId, task, onClose }: { job: JobDocument; taskId: string; task: Task; onClose: () => void }) {
  const client = useQueryClient();
  const incoming = useMemo(() => task.variables?.incoming ?? {}, [task]);
  const form = useMemo(() => formOf(incoming), [incoming]);
  const [data, setData] = useState<FormData>(form.data);
  const retry = useMutation({
    mutationFn: (edited: FormData) => nap.retryTask(job._id, taskId, changedVariables(incoming, form.data, edited)),
    onSuccess: (updated) => {
      client.setQueryData(['job', job._id], updated);
      void client.invalidateQueries({ queryKey: ['jobs'] });
      onClose();
    },
  });
  return (
    <Dialog title={`Retry ${taskLabel(task, taskId)}`} onClose={onClose} wide>
      <p>
        The task runs again with these incoming variables, and the job goes on from there. Change what made it fail; what you leave as it is
        keeps its value from the workflow.
      </p>
      <ErrorMessage error={retry.error} title="The task was not retried" />
      <SchemaForm
        schema={form.schema}
        uiSchema={form.uiSchema}
        formData={data}
        onChange={setData}
        onSubmit={(d) => retry.mutate(d)}
        disabled={retry.isPending}
      >
        <FormActions action="Retry task" pending={retry.isPending} cancel="Close" onCancel={onClose} />
      </SchemaForm>
    </Dialog>
  );
}
