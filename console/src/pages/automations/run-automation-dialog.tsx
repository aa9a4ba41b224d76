import { useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import type { RJSFSchema, UiSchema } from '@rjsf/utils';
import { isUnauthenticated } from '../../api/http';
import { nap } from '../../api/nap';
import { isRecord } from '../../api/records';
import type { Automation, StoredForm, Trigger } from '../../api/nap';
import { Dialog } from '../../components/dialog';
import { ErrorMessage } from '../../components/error-message';
import { FormActions } from '../../components/form-actions';
import { SchemaForm, adaptStudioForm } from '../../components/schema-form/schema-form';
import { WorkflowName, useProjectNames } from '../../components/workflow-name';
import { draftKeys, keepDraft, settleDraft } from '../../session/drafts';
import { useWhoami } from '../../session/session';

type FormData = Record<string, unknown>;

/** What the dialog holds: kept when the session ends as it sends, and given back after the log-in. */
export interface TriggerDraft {
  triggerId: string;
  data: FormData;
}

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
export function RunAutomationDialog({
  automation,
  trigger,
  onClose,
  draft,
}: {
  automation: Automation;
  trigger: Trigger;
  onClose: () => void;
  /** What the person wrote before their session ended, given back. */
  draft?: TriggerDraft | undefined;
}) {
  const navigate = useNavigate();
  const { data: whoami } = useWhoami();
  const formId = typeof trigger.formId === 'string' && trigger.formId !== '' ? trigger.formId : undefined;
  const form = useQuery({ queryKey: ['form', formId], queryFn: () => nap.form(formId ?? ''), enabled: formId !== undefined });
  const [data, setData] = useState<FormData>(() => draft?.data ?? (isRecord(trigger.formData) ? { ...trigger.formData } : {}));
  const run = useMutation({
    mutationFn: (formData: FormData) => {
      // kept until answered: should the session have ended, the person gets it back after logging in
      keepDraft(draftKeys.runTrigger, whoami?.username, { triggerId: trigger._id, data: formData } satisfies TriggerDraft);
      return nap.runManualTrigger(trigger._id, formData);
    },
    onSuccess: async (answer) => {
      settleDraft(draftKeys.runTrigger);
      onClose();
      await navigate(`/jobs/${encodeURIComponent(answer.data._id)}`);
    },
    onError: (error) => {
      if (!isUnauthenticated(error)) settleDraft(draftKeys.runTrigger);
    },
  });
  const close = () => {
    settleDraft(draftKeys.runTrigger);
    onClose();
  };
  const { schema, uiSchema } = schemaOf(form.data);
  const projects = useProjectNames(automation.componentName ? [automation.componentName] : []);
  return (
    <Dialog title={`Run ${automation.name}`} onClose={close} wide>
      {draft ? (
        <p role="status" className="attention-note">
          <strong>Your session ended before this was sent.</strong> Here is what you wrote: check it, then run it.
        </p>
      ) : null}
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
          <FormActions action="Run" pending={run.isPending} cancel="Close" onCancel={close} />
        </SchemaForm>
      ) : null}
    </Dialog>
  );
}
