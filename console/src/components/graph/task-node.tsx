import { memo } from 'react';
import { Handle, Position, useReactFlow, useStore } from '@xyflow/react';
import type { Node, NodeProps } from '@xyflow/react';
import type { FocusEvent, KeyboardEvent } from 'react';
import { StatusIcon } from '../status-icon';
import styles from './graph.module.css';

/** What one task node shows. */
export interface TaskNodeData extends Record<string, unknown> {
  label: string;
  /** The second line: the task's app and method. */
  detail: string;
  /** The task's method: all of the second line a job's graph has room for beside the status. */
  method?: string;
  /** Job graphs: the task's status; workflow graphs: none. */
  status?: string;
  /** A task complete that finished as failure or error: the path the job took from it is not its success path. */
  finish?: 'failure' | 'error';
  /** A manual task waiting for a person. */
  waiting: boolean;
  /** Entry and exit markers are drawn small. */
  marker: boolean;
  selected: boolean;
  onSelect: (id: string) => void;
  /** The graph's one Tab stop (see WorkflowGraph): the other tasks are reached with the arrow keys. */
  tabbable: boolean;
  /** The task took the focus. */
  onFocusTask: (id: string) => void;
  /** A key pressed on the task: true when the graph moved the focus by it (an arrow key, Home, End). */
  onMoveKey: (id: string, key: string) => boolean;
}

export type TaskNodeType = Node<TaskNodeData, 'task'>;

/**
 * One task: a button (the graph's Tab stop or an arrow key reaches it, Enter or Space selects it)
 * coloured by status, with the status written out and a shape beside it. A task brought into focus
 * from outside the view is panned into it.
 */
function TaskNodeView({ id, data, positionAbsoluteX, positionAbsoluteY, width, height }: NodeProps<TaskNodeType>) {
  const flow = useReactFlow();
  const viewport = useStore((s) => ({ width: s.width, height: s.height }));
  const status = data.status;
  const tone = data.waiting ? 'waiting' : data.finish !== undefined ? 'failed' : (status ?? 'plain');
  // beside a status only the method fits; the app is read out, and shown on hover
  const shortDetail = status !== undefined && data.method !== undefined && data.detail.endsWith(data.method);
  const onFocus = (_event: FocusEvent<HTMLButtonElement>) => {
    data.onFocusTask(id);
    const { x, y, zoom } = flow.getViewport();
    const left = positionAbsoluteX * zoom + x;
    const top = positionAbsoluteY * zoom + y;
    const w = (width ?? 0) * zoom;
    const h = (height ?? 0) * zoom;
    if (left < 0 || top < 0 || left + w > viewport.width || top + h > viewport.height) {
      void flow.setCenter(positionAbsoluteX + (width ?? 0) / 2, positionAbsoluteY + (height ?? 0) / 2, { zoom, duration: 150 });
    }
  };
  return (
    <>
      <Handle type="target" position={Position.Top} isConnectable={false} className={styles.handle} />
      <button
        type="button"
        className={`${data.marker ? styles.marker : styles.task} ${styles[tone] ?? ''} ${data.selected ? styles.selected : ''}`}
        aria-pressed={data.selected}
        data-task-id={id}
        tabIndex={data.tabbable ? 0 : -1}
        onClick={() => data.onSelect(id)}
        onFocus={onFocus}
        onKeyDown={(event: KeyboardEvent<HTMLButtonElement>) => {
          if (!event.altKey && !event.ctrlKey && !event.metaKey && data.onMoveKey(id, event.key)) event.preventDefault();
        }}
      >
        {/* the name read out is the visible text: "Approve change — running, needs a person, WorkFlowEngine · ViewData" */}
        {data.marker ? (
          <span className={styles.markerLabel}>
            {data.label}
            {status ? <span className="visually-hidden"> — {status}</span> : null}
          </span>
        ) : (
          <>
            <span className={styles.title}>{data.label}</span>
            <span className={styles.meta}>
              {status && data.finish !== undefined ? (
                <span className={styles.status}>
                  <span className="visually-hidden"> — {status}, finished as </span>
                  <StatusIcon status="error" /> {data.finish}
                </span>
              ) : status ? (
                <span className={styles.status}>
                  <span className="visually-hidden"> — </span>
                  <StatusIcon status={status} /> {status}
                </span>
              ) : (
                <span className="visually-hidden"> — </span>
              )}
              {data.waiting ? (
                <span className={styles.waitTag}>
                  <span className="visually-hidden">, </span>
                  <StatusIcon status="waiting" /> needs a person
                </span>
              ) : (
                <span className={styles.detail} title={data.detail}>
                  {status ? <span className="visually-hidden">, </span> : null}
                  {shortDetail && data.method !== undefined ? (
                    <>
                      <span className="visually-hidden">{data.detail.slice(0, data.detail.length - data.method.length)}</span>
                      {data.method}
                    </>
                  ) : (
                    data.detail
                  )}
                </span>
              )}
            </span>
          </>
        )}
      </button>
      <Handle type="source" position={Position.Bottom} isConnectable={false} className={styles.handle} />
    </>
  );
}

export const TaskNode = memo(TaskNodeView);
