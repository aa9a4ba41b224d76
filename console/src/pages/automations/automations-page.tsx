import { Suspense, lazy, useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { nap } from '../../api/nap';
import type { Automation, Trigger } from '../../api/nap';
import { ErrorMessage } from '../../components/error-message';
import { WorkflowName, useProjectNames } from '../../components/workflow-name';
import { usePermissions } from '../../session/session';
import styles from './automations-page.module.css';

// the form renderer is loaded with the first Run, not with the console
const RunAutomationDialog = lazy(async () => ({ default: (await import('./run-automation-dialog')).RunAutomationDialog }));

/** What a trigger is, in a few words. */
function describe(trigger: Trigger): string {
  switch (trigger.type) {
    case 'endpoint':
      return `endpoint /operations-manager/triggers/endpoint/${String(trigger.routeName ?? '')}`;
    case 'schedule':
      return `schedule${trigger.repeatFrequency ? ` every ${String(trigger.repeatFrequency)} ${String(trigger.repeatUnit ?? '')}` : ''}`;
    case 'eventSystem':
      return `event ${String(trigger.topic ?? '')}`;
    default:
      return trigger.type;
  }
}

/** `/console/automations`: the automations with their triggers; a manual trigger runs from its form. */
export function AutomationsPage() {
  const automations = useQuery({ queryKey: ['automations'], queryFn: () => nap.automations({ limit: 500, sort: 'name', order: 1 }) });
  const triggers = useQuery({ queryKey: ['triggers'], queryFn: () => nap.triggers({ limit: 500 }) });
  const { may } = usePermissions();
  const mayRun = may('workflow.runManualTrigger');
  const [running, setRunning] = useState<{ automation: Automation; trigger: Trigger } | undefined>(undefined);
  const byAutomation = useMemo(() => {
    const map = new Map<string, Trigger[]>();
    for (const trigger of triggers.data?.data ?? []) map.set(trigger.actionId, [...(map.get(trigger.actionId) ?? []), trigger]);
    return map;
  }, [triggers.data]);
  const items = automations.data?.data ?? [];
  const projects = useProjectNames(items.map((a) => a.componentName ?? ''));
  return (
    <div className="page">
      <div className="page-header">
        <h1>Automations</h1>
        <span className="muted">{automations.isSuccess ? `${items.length} automation${items.length === 1 ? '' : 's'}` : ''}</span>
      </div>
      <ErrorMessage error={automations.error ?? triggers.error} title="The automations cannot be listed" />
      <div className="card table-card">
        <table className="table">
          <caption className="visually-hidden">Automations and their triggers</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Workflow</th>
              <th scope="col">Triggers</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((automation) => {
              const mine = byAutomation.get(String(automation._id)) ?? [];
              const manual = mine.filter((t) => t.type === 'manual' && t.enabled !== false);
              return (
                <tr key={String(automation._id)}>
                  <td>
                    <strong>{automation.name}</strong>
                    {automation.description ? <div className="muted">{automation.description}</div> : null}
                  </td>
                  <td>
                    {automation.componentName ? (
                      <WorkflowName name={automation.componentName} projects={projects}>
                        {(plain) => <Link to={`/workflows/${encodeURIComponent(automation.componentName ?? '')}`}>{plain}</Link>}
                      </WorkflowName>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td>
                    {mine.length === 0 ? (
                      <span className="muted">none</span>
                    ) : (
                      <ul className={styles.triggers}>
                        {mine.map((t) => (
                          <li key={t._id}>
                            <span className={styles.type}>{t.type}</span> {t.name}
                            <span className="muted"> · {describe(t)}</span>
                            {t.enabled === false ? <span className="muted"> (disabled)</span> : null}
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                  <td className={styles.actions}>
                    {mayRun
                      ? manual.map((trigger) => (
                          <button
                            key={trigger._id}
                            type="button"
                            className="button button-primary"
                            onClick={() => setRunning({ automation, trigger })}
                            {...(manual.length > 1 ? { 'aria-label': `Run ${trigger.name}` } : {})}
                          >
                            {manual.length > 1 ? `Run ${trigger.name}` : 'Run'}
                          </button>
                        ))
                      : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {automations.isSuccess && items.length === 0 ? (
          <p className="empty-note">
            No automation yet. Import one exported from another platform with <code>nap import automation FILE</code>, or create one with{' '}
            <code>POST /operations-manager/automations</code> (<a href="/docs">API documentation</a>).
          </p>
        ) : null}
      </div>
      {running ? (
        <Suspense fallback={<p className="muted">Loading the form…</p>}>
          <RunAutomationDialog automation={running.automation} trigger={running.trigger} onClose={() => setRunning(undefined)} />
        </Suspense>
      ) : null}
    </div>
  );
}
