import { useId, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { CommandOutput } from '@nap/contracts';
import { commandsOf, outputsOf, outputsOfError } from '../../api/device-data';
import { nap } from '../../api/nap';
import { ErrorMessage } from '../../components/error-message';
import { StatusBadge } from '../../components/status-badge';
import { useNow } from '../../hooks/use-now';
import { CommandOutputs } from './command-outputs';
import type { RunReport } from './command-outputs';
import { knownHostKey } from './host-key-card';
import styles from './device-page.module.css';

/** Runs the commands and keeps what came back, a refusal included: a run is a record to read, whether it failed or not. */
async function runOnDevice(device: string, commands: string[]): Promise<RunReport> {
  const startedAt = Date.now();
  try {
    const answer = await nap.runCommands(device, commands);
    return { commands, outputs: outputsOf(answer.result), startedAt, finishedAt: Date.now() };
  } catch (error) {
    const outputs: CommandOutput[] = outputsOfError(error);
    return { commands, outputs, error, startedAt, finishedAt: Date.now() };
  }
}

/**
 * `Run commands` on a device's page (`POST /gw/sshSendCommandExec`): one command a line, sent in
 * one SSH session in order; each output under its command, a refusal with its code and message.
 */
export function RunCommands({ device, hostPort, mayForget }: { device: string; hostPort: string; mayForget: boolean }) {
  const client = useQueryClient();
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const form = useRef<HTMLFormElement>(null);
  const ids = { text: useId(), hint: useId(), problem: useId() };
  const run = useMutation({
    mutationFn: (commands: string[]) => runOnDevice(device, commands),
    // a first session trusts the key it is shown; a refused one may name the key it met
    onSettled: () => client.invalidateQueries({ queryKey: knownHostKey(hostPort) }),
  });
  const now = useNow(run.isPending);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (run.isPending) return;
    const commands = commandsOf(text);
    if (commands.length === 0) {
      setProblem('Nothing was sent: write a command, one a line.');
      return;
    }
    setProblem(undefined);
    run.mutate(commands);
  };
  const pending = run.isPending ? (run.variables ?? []) : [];
  const seconds = run.submittedAt > 0 ? Math.max(0, Math.floor((now - run.submittedAt) / 1000)) : 0;
  return (
    <section aria-labelledby="run-commands-title" className={`card ${styles.card} ${styles.run}`}>
      <h2 id="run-commands-title">Run commands</h2>
      <form ref={form} className="stack" onSubmit={submit} noValidate>
        <div className={styles.field}>
          <label htmlFor={ids.text}>Commands, one a line</label>
          <textarea
            id={ids.text}
            className={styles.commands}
            value={text}
            rows={4}
            spellCheck={false}
            autoCapitalize="off"
            autoCorrect="off"
            placeholder={'show version\nshow ip interface brief'}
            aria-describedby={problem ? `${ids.hint} ${ids.problem}` : ids.hint}
            aria-invalid={problem ? true : undefined}
            onChange={(e) => {
              setText(e.target.value);
              setProblem(undefined);
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                form.current?.requestSubmit();
              }
            }}
          />
          <p id={ids.hint} className={styles.note}>
            Sent to {device} as written, in one SSH session, in order; the first command the device reports an error for stops the rest.
            Ctrl+Enter runs them.
          </p>
        </div>
        {problem ? (
          <div id={ids.problem}>
            <ErrorMessage error={new Error(problem)} />
          </div>
        ) : null}
        <div className="row">
          {/* aria-disabled, not disabled: the focus stays on the button while the commands run */}
          <button type="submit" className={`button button-primary ${styles.runButton}`} aria-disabled={run.isPending}>
            {run.isPending ? 'Running…' : 'Run'}
          </button>
          <span role="status">
            {run.isPending ? (
              <StatusBadge status="running" label={`running ${pending.length} command${pending.length === 1 ? '' : 's'} on ${device}`} />
            ) : null}
          </span>
          {/* the seconds count outside the status region: a screen reader is told the run started, not every second of it */}
          {run.isPending && seconds > 0 ? (
            <span className="muted" aria-hidden="true">
              {seconds} s
            </span>
          ) : null}
        </div>
      </form>
      {run.data ? <CommandOutputs device={device} report={run.data} mayForget={mayForget} /> : null}
    </section>
  );
}
