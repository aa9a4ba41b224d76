import { Suspense, lazy, useEffect, useMemo, useState } from 'react';
import type { ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { formatTime } from '../../api/job-data';
import { nap } from '../../api/nap';
import type { Automation, Trigger } from '../../api/nap';
import { ErrorMessage } from '../../components/error-message';
import { StatusIcon } from '../../components/status-icon';
import { WorkflowName, useProjectNames } from '../../components/workflow-name';
import { useNow } from '../../hooks/use-now';
import { draftKeys, peekDraft, settleDraft } from '../../session/drafts';
import { usePermissions } from '../../session/session';
import type { TriggerDraft } from './run-automation-dialog';
import { comingUp, disabledText, refetchIntervalMs, relativeTime, repeatText } from './trigger-times';
import styles from './automations-page.module.css';

// the form renderer is loaded with the first Run, not with the console
const RunAutomationDialog = lazy(async () => ({ default: (await import('./run-automation-dialog')).RunAutomationDialog }));

/** What a trigger is, in a few words (its type is written beside it). */
function describe(trigger: Trigger): string {
  switch (trigger.type) {
    case 'endpoint':
      return `POST /operations-manager/triggers/endpoint/${String(trigger.routeName ?? '')}`;
    case 'schedule':
      return repeatText(trigger);
    case 'eventSystem':
      return `on ${String(trigger.topic ?? '')}`;
    default:
      return 'from its form';
  }
}

/** A moment as the page writes it: the words (`in 2 h 04 min`) and the exact time on the person's clock in a `<time>`. */
function Moment({ at, now, exact }: { at: number; now: number; exact: 'shown' | 'title' }) {
  const iso = new Date(at).toISOString();
  if (exact === 'title')
    return (
      <time dateTime={iso} title={formatTime(at)}>
        {relativeTime(at, now)}
      </time>
    );
  return (
    <>
      {relativeTime(at, now)} · <time dateTime={iso}>{formatTime(at)}</time>
    </>
  );
}

/** When a trigger starts jobs: a schedule's next run (or why none comes), and when it last started one. */
function TriggerTimes({ trigger, now }: { trigger: Trigger; now: number }) {
  const parts: ReactNode[] = [];
  const next = trigger.nextRunAt;
  if (!trigger.enabled) parts.push(disabledText(trigger.type));
  else if (trigger.type === 'schedule' && typeof next !== 'number') parts.push('does not run again');
  else if (trigger.type === 'schedule' && typeof next === 'number')
    parts.push(
      <span className={styles.next}>
        next run{' '}
        {next <= now ? (
          <>
            due now · <time dateTime={new Date(next).toISOString()}>{formatTime(next)}</time>
          </>
        ) : (
          <Moment at={next} now={now} exact="shown" />
        )}
      </span>,
    );
  if (typeof trigger.lastExecuted === 'number')
    parts.push(
      <>
        last started a job <Moment at={trigger.lastExecuted} now={now} exact="title" /> ·{' '}
        <Link to={`/jobs?${new URLSearchParams({ trigger: trigger._id }).toString()}`} aria-label={`its jobs: ${trigger.name}`}>
          its jobs
        </Link>
      </>,
    );
  if (parts.length === 0) return null;
  return (
    <div className={styles.times}>
      {parts.map((part, i) => (
        <span key={i} className={styles.part}>
          {part}
        </span>
      ))}
    </div>
  );
}

/**
 * One trigger of an automation: its type, name and what it is, when it starts jobs, and Disable or
 * Enable for a caller who may change triggers (`PATCH /operations-manager/triggers/:id`); a refusal
 * shows the platform's message under it.
 */
function TriggerLine({
  trigger,
  now,
  mayChange,
  onChanged,
  run,
}: {
  trigger: Trigger;
  now: number;
  mayChange: boolean;
  onChanged: (said: string) => void;
  /** Run, on a manual trigger the caller may run: `label` names the trigger when the automation has several. */
  run?: { label: string | undefined; onRun: () => void };
}) {
  const client = useQueryClient();
  const change = useMutation({
    mutationFn: (enabled: boolean) => nap.setTriggerEnabled(trigger._id, enabled),
    onSuccess: (answer) => onChanged(`${answer.name} is ${answer.enabled ? 'enabled' : 'disabled'}.`),
    // the list is read again before the button says what it does next: a schedule enabled again shows the platform's next run
    onSettled: () => client.invalidateQueries({ queryKey: ['triggers'] }),
  });
  const verb = trigger.enabled ? (change.isPending ? 'Disabling' : 'Disable') : change.isPending ? 'Enabling' : 'Enable';
  return (
    <li className={styles.trigger} data-enabled={trigger.enabled}>
      <span className={styles.type}>{trigger.type === 'eventSystem' ? 'event' : trigger.type}</span>
      <div className={styles.what}>
        <span className={styles.name}>{trigger.name}</span>
        <span className="muted"> · {describe(trigger)}</span>
        {trigger.enabled ? null : (
          <span className={styles.disabled}>
            <StatusIcon status="paused" className={styles.disabledIcon} />
            Disabled
          </span>
        )}
        <TriggerTimes trigger={trigger} now={now} />
      </div>
      <div className={styles.buttons}>
        {run ? (
          <button type="button" className="button button-primary" onClick={run.onRun} {...(run.label ? { 'aria-label': run.label } : {})}>
            Run
          </button>
        ) : null}
        {mayChange ? (
          <button
            type="button"
            className={`button ${styles.toggle}`}
            aria-label={`${verb} ${trigger.name}`}
            // aria-disabled, not disabled: the focus stays on the button, which then offers the other change
            aria-disabled={change.isPending}
            aria-busy={change.isPending}
            onClick={() => {
              if (!change.isPending) change.mutate(!trigger.enabled);
            }}
          >
            {change.isPending ? `${verb}…` : verb}
          </button>
        ) : null}
      </div>
      {change.error ? (
        <div className={styles.refusal}>
          <ErrorMessage error={change.error} title={`${trigger.name} was not ${trigger.enabled ? 'disabled' : 'enabled'}`} />
        </div>
      ) : null}
    </li>
  );
}

/**
 * The next runs of the enabled schedules, soonest first: what will start jobs against the network,
 * and when. Not shown while no enabled schedule has a next run.
 */
function ComingUp({ triggers, automations }: { triggers: readonly Trigger[]; automations: ReadonlyMap<string, Automation> }) {
  const now = useNow(true);
  const runs = comingUp(triggers);
  const schedules = triggers.filter((t) => t.type === 'schedule');
  const disabled = schedules.filter((t) => !t.enabled).length;
  const ahead = schedules.filter((t) => t.enabled && typeof t.nextRunAt === 'number').length;
  if (runs.length === 0) return null;
  return (
    <section aria-labelledby="coming-up-title" className={`card ${styles.comingUp}`}>
      <div className={styles.cardHeader}>
        <h2 id="coming-up-title">Coming up</h2>
        <span className="muted">
          {ahead > runs.length ? `the next ${runs.length} of ${ahead} scheduled runs` : 'the next run of each enabled schedule'}
          {disabled > 0
            ? ` · ${disabled} schedule${disabled === 1 ? '' : 's'} disabled, ${disabled === 1 ? 'its' : 'their'} runs skipped`
            : ''}
        </span>
      </div>
      <div className={styles.comingWrap}>
        <table className={`table ${styles.comingTable}`} aria-labelledby="coming-up-title">
          <thead>
            <tr>
              <th scope="col">Starts</th>
              <th scope="col">At</th>
              <th scope="col">Automation</th>
              <th scope="col">Schedule</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((t) => (
              <tr key={t._id}>
                <td className={styles.when}>{t.nextRunAt <= now ? 'due now' : relativeTime(t.nextRunAt, now)}</td>
                <td className="nowrap">
                  <time dateTime={new Date(t.nextRunAt).toISOString()}>{formatTime(t.nextRunAt)}</time>
                </td>
                <td>{automations.get(t.actionId)?.name ?? <span className="mono">{t.actionId}</span>}</td>
                <td>
                  {t.name} <span className="muted">· {repeatText(t)}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** The automations table: each automation's workflow, its triggers with their times, and Run on a manual trigger. */
function AutomationsTable({
  items,
  byAutomation,
  mayRun,
  mayChange,
  onRun,
}: {
  items: readonly Automation[];
  byAutomation: ReadonlyMap<string, Trigger[]>;
  mayRun: boolean;
  mayChange: boolean;
  onRun: (automation: Automation, trigger: Trigger) => void;
}) {
  // the times say "in 4 min 37 s": they count on without a reload
  const now = useNow(true);
  const projects = useProjectNames(items.map((a) => a.componentName ?? ''));
  const [said, setSaid] = useState('');
  return (
    <>
      <table className={`table ${styles.list}`}>
        <caption className="visually-hidden">Automations and their triggers</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Workflow</th>
            <th scope="col">Triggers</th>
          </tr>
        </thead>
        <tbody>
          {items.map((automation) => {
            const mine = byAutomation.get(String(automation._id)) ?? [];
            const manual = mine.filter((t) => t.type === 'manual' && t.enabled);
            return (
              <tr key={String(automation._id)}>
                <td className={styles.automation}>
                  <strong>{automation.name}</strong>
                  {automation.description ? <div className="muted cell-text">{automation.description}</div> : null}
                </td>
                <td className={styles.workflow}>
                  {automation.componentName ? (
                    <WorkflowName name={automation.componentName} projects={projects}>
                      {(plain) => <Link to={`/workflows/${encodeURIComponent(automation.componentName ?? '')}`}>{plain}</Link>}
                    </WorkflowName>
                  ) : (
                    '—'
                  )}
                </td>
                <td className={styles.triggerCell}>
                  {mine.length === 0 ? (
                    <span className="muted">none</span>
                  ) : (
                    <ul className={styles.triggers}>
                      {mine.map((t) => (
                        <TriggerLine
                          key={t._id}
                          trigger={t}
                          now={now}
                          mayChange={mayChange}
                          onChanged={setSaid}
                          {...(mayRun && manual.includes(t)
                            ? { run: { label: manual.length > 1 ? `Run ${t.name}` : undefined, onRun: () => onRun(automation, t) } }
                            : {})}
                        />
                      ))}
                    </ul>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p role="status" className="visually-hidden">
        {said}
      </p>
    </>
  );
}

/**
 * `/console/automations`: what will start jobs next (the Coming up card), then the automations
 * with their triggers; a manual trigger runs from its form, and a caller who may change triggers
 * disables and enables them (a change freeze).
 */
export function AutomationsPage() {
  const automations = useQuery({ queryKey: ['automations'], queryFn: () => nap.automations({ limit: 500, sort: 'name', order: 1 }) });
  const triggers = useQuery({
    queryKey: ['triggers'],
    queryFn: () => nap.triggers({ limit: 500 }),
    // a schedule that fired moves on to its next run, and another person's change shows
    refetchInterval: (query) => refetchIntervalMs(query.state.data?.data, Date.now()),
  });
  const { may, whoami } = usePermissions();
  const mayRun = may('workflow.runManualTrigger');
  const mayChange = may('workflow.updateTrigger');
  const [running, setRunning] = useState<{ automation: Automation; trigger: Trigger } | undefined>(undefined);
  const byAutomation = useMemo(() => {
    const map = new Map<string, Trigger[]>();
    for (const trigger of triggers.data?.data ?? []) map.set(trigger.actionId, [...(map.get(trigger.actionId) ?? []), trigger]);
    return map;
  }, [triggers.data]);
  const items = useMemo(() => automations.data?.data ?? [], [automations.data]);
  const byId = useMemo(() => new Map(items.map((a) => [String(a._id), a])), [items]);
  // what the person wrote in a Run dialog before their session ended: it opens again with it
  const [draft, setDraft] = useState(() => peekDraft<TriggerDraft>(draftKeys.runTrigger, whoami?.username));
  useEffect(() => {
    if (draft) settleDraft(draftKeys.runTrigger);
  }, [draft]);
  const restored = useMemo(() => {
    const trigger = draft ? triggers.data?.data.find((t) => t._id === draft.triggerId) : undefined;
    const automation = trigger ? byId.get(trigger.actionId) : undefined;
    return trigger && automation ? { automation, trigger } : undefined;
  }, [draft, triggers.data, byId]);
  const dialog = running ?? restored;
  return (
    <div className="page">
      <div className="page-header">
        <h1>Automations</h1>
        <span className="muted">{automations.isSuccess ? `${items.length} automation${items.length === 1 ? '' : 's'}` : ''}</span>
      </div>
      <ErrorMessage error={automations.error ?? triggers.error} title="The automations cannot be listed" />
      {triggers.data ? <ComingUp triggers={triggers.data.data} automations={byId} /> : null}
      <div className="card table-card">
        <AutomationsTable
          items={items}
          byAutomation={byAutomation}
          mayRun={mayRun}
          mayChange={mayChange}
          onRun={(automation, trigger) => setRunning({ automation, trigger })}
        />
        {automations.isSuccess && items.length === 0 ? (
          <p className="empty-note">
            No automation yet. Import one exported from another platform with <code>nap import automation FILE</code>, or create one with{' '}
            <code>POST /operations-manager/automations</code> (<a href="/docs">API documentation</a>).
          </p>
        ) : null}
        {automations.isPending ? <p className="empty-note">Loading automations…</p> : null}
      </div>
      {dialog ? (
        <Suspense fallback={<p className="muted">Loading the form…</p>}>
          <RunAutomationDialog
            automation={dialog.automation}
            trigger={dialog.trigger}
            draft={running ? undefined : draft}
            onClose={() => {
              setRunning(undefined);
              setDraft(undefined);
            }}
          />
        </Suspense>
      ) : null}
    </div>
  );
}
