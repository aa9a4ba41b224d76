import { useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import type { RJSFSchema, UiSchema } from '@rjsf/utils';
import { nap } from '../../api/nap';
import { isRecord } from '../../api/records';
import type { Automation, StoredForm, Trigger } from '../../api/nap';
import { Dialog } from '../../components/dialog';
import { ErrorMessage } from '../../components/error-message';
import { SchemaForm, adaptStudioForm } from '../../components/schema-form/schema-form';
import { WorkflowName, useProjectNames } from '../../components/workflow-name';

type FormData = Record<string, unknown>;

/** The JSON Schema (and UI schema) of a studio form; a form without one asks nothing. */
function schemaOf(form: StoredForm | undefined): { schema: RJSFSchema; uiSchema: UiSchema<FormData, RJSFSchema> } {
  const schema: unknown = form?.schema;
  const uiSchema: unknown = form?.uiSchema;
  if (!isRecord(schema)) return { schema: { type: 'object', properties: {} }, uiSchema: {} };
  return adaptStudioForm(schema as RJSFSchema, isRecord(uiSchema) ? (uiSchema as UiSchema<FormData, RJSFSchema>) : {});
}

/**
 * `Run` on an automation with a manual trigger: the trigger's form (its JSON Schema, defaults
 * from the trigger's `formData`, the schema's validation messages), then
 * `POST /operations-manager/triggers/manual/<id>/run` and the new job's page.
 */
export function RunAutomationDialog({ automation, trigger, onClose }: { automation: Automation; trigger: Trigger; onClose: () => void }) {
  const navigate = useNavigate();
  const formId = typeof trigger.formId === 'string' && trigger.formId !== '' ? trigger.formId : undefined;
  const form = useQuery({ queryKey: ['form', formId], queryFn: () => nap.form(formId ?? ''), enabled: formId !== undefined });
  const [data, setData] = useState<FormData>(() => (isRecord(trigger.formData) ? { ...trigger.formData } : {}));
  const run = useMutation({
    mutationFn: (formData: FormData) => nap.runManualTrigger(trigger._id, formData),
    onSuccess: async (answer) => {
      onClose();
      await navigate(`/jobs/${encodeURIComponent(answer.data._id)}`);
    },
  });
  const { schema, uiSchema } = schemaOf(form.data);
  const projects = useProjectNames(automation.componentName ? [automation.componentName] : []);
  return (
    <Dialog title={`Run ${automation.name}`} onClose={onClose} wide>
      <p className="muted">
        Trigger <strong>{trigger.name}</strong> starts the workflow{' '}
        <strong>{automation.componentName ? <WorkflowName name={automation.componentName} projects={projects} /> : '—'}</strong> with these
        values.
      </p>
      {formId !== undefined && form.isPending ? <p className="muted">Loading the form…</p> : null}
      <ErrorMessage error={form.error} title="The trigger's form cannot be loaded" />
      <ErrorMessage error={run.error} title="The automation did not start" />
      {formId === undefined || form.isSuccess ? (
        <SchemaForm
          schema={schema}
          uiSchema={uiSchema}
          formData={data}
          onChange={setData}
          onSubmit={(d) => run.mutate(d)}
          disabled={run.isPending}
        >
          <div className="row">
            <button type="submit" className="button button-primary" disabled={run.isPending}>
              Run
            </button>
            <button type="button" className="button" onClick={onClose}>
              Close
            </button>
          </div>
        </SchemaForm>
      ) : null}
    </Dialog>
  );
}
