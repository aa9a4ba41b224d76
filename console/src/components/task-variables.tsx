import { useId } from 'react';
import { JsonView } from './json-view';

/** A task's incoming and outgoing variables, each under its heading in a task's panel (a job's or a workflow's). */
export function TaskVariables({ variables }: { variables: { incoming?: unknown; outgoing?: unknown } | undefined }) {
  const id = useId();
  return (
    <>
      <section aria-labelledby={`${id}-in`}>
        <h3 id={`${id}-in`}>Incoming variables</h3>
        <JsonView value={variables?.incoming ?? {}} label="Incoming variables" />
      </section>
      <section aria-labelledby={`${id}-out`}>
        <h3 id={`${id}-out`}>Outgoing variables</h3>
        <JsonView value={variables?.outgoing ?? {}} label="Outgoing variables" />
      </section>
    </>
  );
}
