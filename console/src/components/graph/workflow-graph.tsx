import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { Background, Controls, MarkerType, MiniMap, ReactFlow, ReactFlowProvider, useReactFlow, useStore } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { END, START, taskLabel, unsuccessfulFinish } from '../../api/job-data';
import { MARKER_SIZE, NODE_HEIGHT, NODE_WIDTH, layoutTasks } from './layout';
import type { PlacedTask, Transitions } from './layout';
import { RoutedEdge } from './routed-edge';
import type { RoutedEdgeType } from './routed-edge';
import { TaskNode } from './task-node';
import type { TaskNodeType } from './task-node';
import styles from './graph.module.css';

/** A task as a graph shows it (a job's task or a workflow document's). */
export interface GraphTask extends PlacedTask {
  name?: string | undefined;
  summary?: string | undefined;
  displayName?: string | undefined;
  app?: string | undefined;
  status?: string | undefined;
  /** A job's task: how it finished (`success`, `failure`, `error`). */
  metrics?: { finish_state?: string | undefined } | undefined;
}

interface WorkflowGraphProps {
  /** Names the graph for screen readers ("Graph of job Port turn-up"). */
  label: string;
  tasks: Readonly<Record<string, GraphTask>>;
  transitions: Transitions;
  selectedId: string | undefined;
  onSelect: (id: string) => void;
  /** Job graphs show each task's status; a workflow's graph shows its app and method instead. */
  withStatus: boolean;
  isWaiting?: (id: string) => boolean;
}

const nodeTypes = { task: TaskNode };
const edgeTypes = { routed: RoutedEdge };

/** How each transition state is drawn: colour, dash and a word, so that they differ without colour too. */
const EDGE_STYLES: Readonly<Record<string, { stroke: string; dash?: string; label?: string; width: number }>> = {
  success: { stroke: '#5b6b82', width: 1.6 },
  failure: { stroke: '#b35c00', dash: '7 4', label: 'failure', width: 1.8 },
  error: { stroke: '#b3261e', dash: '2 4', label: 'error', width: 2.2 },
};

/**
 * Keeps the selected task in view when the canvas changes size (the task panel opening beside it
 * narrows it) or another task is selected: panned to the centre at the same zoom, only when some of
 * it is out of view.
 */
function KeepSelectedInView({ selectedId }: { selectedId: string | undefined }) {
  const flow = useReactFlow();
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  useEffect(() => {
    if (selectedId === undefined || width === 0 || height === 0) return;
    const node = flow.getInternalNode(selectedId);
    if (node === undefined) return;
    const { x, y, zoom } = flow.getViewport();
    const at = node.internals.positionAbsolute;
    const w = node.measured.width ?? node.width ?? 0;
    const h = node.measured.height ?? node.height ?? 0;
    const left = at.x * zoom + x;
    const top = at.y * zoom + y;
    if (left < 0 || top < 0 || left + w * zoom > width || top + h * zoom > height) {
      void flow.setCenter(at.x + w / 2, at.y + h / 2, { zoom, duration: 150 });
    }
  }, [flow, selectedId, width, height]);
  return null;
}

/**
 * The overview map of a large workflow, while part of the graph is out of view (zoomed in, panned
 * away). While the whole graph is in view, as it opens, the map would add nothing and hide the
 * tasks in its corner (a review task waiting for a person, in Command Template Runner).
 */
function OverviewMap() {
  const flow = useReactFlow();
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  const [x, y, zoom] = useStore((s) => s.transform);
  const nodeCount = useStore((s) => s.nodeLookup.size);
  if (width === 0 || height === 0 || nodeCount === 0) return null;
  const bounds = flow.getNodesBounds(flow.getNodes());
  const left = bounds.x * zoom + x;
  const top = bounds.y * zoom + y;
  // a pixel of slack: the fitted view's edges are not exact
  const inView = left >= -1 && top >= -1 && left + bounds.width * zoom <= width + 1 && top + bounds.height * zoom <= height + 1;
  if (inView) return null;
  return (
    <MiniMap
      pannable
      zoomable
      position="bottom-right"
      ariaLabel="Overview of the whole graph"
      nodeColor={minimapColour}
      className={styles.minimap}
    />
  );
}

/** Tab order follows the drawing: top to bottom, then left to right. */
function byPosition(a: TaskNodeType, b: TaskNodeType): number {
  return a.position.y - b.position.y || a.position.x - b.position.x;
}

/** The centre of a task as drawn. */
function centre(node: TaskNodeType): { x: number; y: number } {
  return { x: node.position.x + (node.width ?? 0) / 2, y: node.position.y + (node.height ?? 0) / 2 };
}

/** How an arrow key moves: along which axis, which way. */
const ARROWS: Readonly<Record<string, { axis: 'x' | 'y'; sign: 1 | -1 }>> = {
  ArrowDown: { axis: 'y', sign: 1 },
  ArrowUp: { axis: 'y', sign: -1 },
  ArrowRight: { axis: 'x', sign: 1 },
  ArrowLeft: { axis: 'x', sign: -1 },
};

/**
 * The task an arrow key moves to from `from` in the drawing: the nearest one that way, a step
 * aside counting double (Down from a task goes to the one under it, not to one far to the side).
 * Home and End go to the first and last task drawn. Undefined when nothing lies that way.
 */
export function taskByKey(nodes: readonly TaskNodeType[], from: string, key: string): string | undefined {
  if (key === 'Home') return nodes[0]?.id;
  if (key === 'End') return nodes.at(-1)?.id;
  const arrow = ARROWS[key];
  const current = nodes.find((node) => node.id === from);
  if (arrow === undefined || current === undefined) return undefined;
  const at = centre(current);
  const across = arrow.axis === 'x' ? 'y' : 'x';
  let best: { id: string; score: number } | undefined;
  for (const node of nodes) {
    const c = centre(node);
    const ahead = (c[arrow.axis] - at[arrow.axis]) * arrow.sign;
    if (node.id === from || ahead <= 1) continue;
    const score = ahead + 2 * Math.abs(c[across] - at[across]);
    if (best === undefined || score < best.score) best = { id: node.id, score };
  }
  return best?.id;
}

/**
 * A workflow's tasks where its document places them and its transitions as edges (success,
 * failure and error drawn apart), in a canvas that pans (drag, arrow-free scroll) and zooms (wheel,
 * pinch, the zoom buttons), with an overview map for large workflows while part of them is out of view.
 */
export function WorkflowGraph({ label, tasks, transitions, selectedId, onSelect, withStatus, isWaiting }: WorkflowGraphProps) {
  const { positions, routes } = useMemo(
    () => layoutTasks(tasks, transitions, (id) => (id === START || id === END ? MARKER_SIZE : NODE_WIDTH)),
    [tasks, transitions],
  );

  const placed = useMemo<TaskNodeType[]>(() => {
    const out: TaskNodeType[] = Object.entries(tasks).map(([id, task]) => {
      const marker = id === START || id === END;
      const name = taskLabel(task, id);
      const detail = [task.app, task.name].filter(Boolean).join(' · ');
      const status = withStatus ? (task.status ?? 'incomplete') : undefined;
      const finish = withStatus ? unsuccessfulFinish(task) : undefined;
      const waiting = isWaiting?.(id) ?? false;
      return {
        id,
        type: 'task',
        position: positions.get(id) ?? { x: 0, y: 0 },
        width: marker ? MARKER_SIZE : NODE_WIDTH,
        height: marker ? MARKER_SIZE : NODE_HEIGHT,
        data: {
          label: name,
          detail,
          ...(task.name !== undefined && task.name !== '' ? { method: task.name } : {}),
          ...(status !== undefined ? { status } : {}),
          ...(finish !== undefined ? { finish } : {}),
          waiting,
          marker,
          selected: id === selectedId,
          onSelect,
          tabbable: false,
          onFocusTask: () => undefined,
          onMoveKey: () => false,
        },
      };
    });
    return out.sort(byPosition);
  }, [tasks, positions, withStatus, isWaiting, selectedId, onSelect]);

  // One Tab stop for the whole graph, as for a toolbar or a grid: the task last focused, else the
  // selected one, else the first drawn. The arrow keys move between tasks by the drawing, so that a
  // keyboard gets past a graph of a hundred tasks with one Tab.
  const canvas = useRef<HTMLDivElement>(null);
  const [focusedId, setFocusedId] = useState<string | undefined>(undefined);
  const stopId = [focusedId, selectedId].find((id) => id !== undefined && tasks[id] !== undefined) ?? placed[0]?.id;
  const onMoveKey = useCallback(
    (from: string, key: string): boolean => {
      const next = taskByKey(placed, from, key);
      if (next === undefined) return ARROWS[key] !== undefined;
      setFocusedId(next);
      canvas.current?.querySelector<HTMLButtonElement>(`button[data-task-id="${CSS.escape(next)}"]`)?.focus();
      return true;
    },
    [placed],
  );
  const nodes = useMemo<TaskNodeType[]>(
    () => placed.map((node) => ({ ...node, data: { ...node.data, tabbable: node.id === stopId, onFocusTask: setFocusedId, onMoveKey } })),
    [placed, stopId, onMoveKey],
  );
  const hintId = useId();

  const edges = useMemo<RoutedEdgeType[]>(() => {
    const out: RoutedEdgeType[] = [];
    for (const [from, targets] of Object.entries(transitions)) {
      if (!tasks[from]) continue;
      for (const [to, transition] of Object.entries(targets)) {
        if (!tasks[to]) continue;
        const state = transition.state ?? 'success';
        const look = EDGE_STYLES[state] ?? EDGE_STYLES.success ?? { stroke: '#5b6b82', width: 1.6 };
        const revert = transition.type === 'revert';
        const text = [look.label, revert ? 'revert' : undefined].filter(Boolean).join(' · ');
        out.push({
          id: `${from}->${to}`,
          source: from,
          target: to,
          type: 'routed',
          data: { route: routes.get(`${from}->${to}`) ?? [] },
          ...(text ? { label: text } : {}),
          labelStyle: { fill: look.stroke, fontWeight: 600, fontSize: 11 },
          labelBgStyle: { fill: '#ffffff' },
          labelBgPadding: [3, 2],
          style: { stroke: look.stroke, strokeWidth: look.width, ...(look.dash ? { strokeDasharray: look.dash } : {}) },
          markerEnd: { type: MarkerType.ArrowClosed, color: look.stroke, width: 16, height: 16 },
          focusable: false,
          selectable: false,
        });
      }
    }
    return out;
  }, [transitions, tasks, routes]);

  return (
    <div className={styles.canvas} role="group" aria-label={label} aria-describedby={hintId} ref={canvas}>
      <span id={hintId} className="visually-hidden">
        The arrow keys move between the tasks; Enter opens one.
      </span>
      {/* the drawing's own area: the view fits the graph in it, so the legend under it covers no task (the END marker on a phone) */}
      <div className={styles.flow}>
        <ReactFlowProvider>
          <ReactFlow
            nodes={nodes}
            edges={edges}
            nodeTypes={nodeTypes}
            edgeTypes={edgeTypes}
            fitView
            fitViewOptions={{ padding: 0.12, maxZoom: 1 }}
            minZoom={0.05}
            maxZoom={2}
            nodesDraggable={false}
            nodesConnectable={false}
            elementsSelectable={false}
            nodesFocusable={false}
            edgesFocusable={false}
            zoomOnDoubleClick={false}
            panOnScroll={false}
            proOptions={{ hideAttribution: true }}
          >
            <KeepSelectedInView selectedId={selectedId} />
            <Background gap={24} color="#dfe4ea" />
            <Controls showInteractive={false} position="top-right" />
            {nodes.length > MINIMAP_FROM ? <OverviewMap /> : null}
          </ReactFlow>
        </ReactFlowProvider>
      </div>
      <ul className={styles.legend} aria-label="Transitions">
        {Object.entries(EDGE_STYLES).map(([state, look]) => (
          <li key={state} className={styles.legendItem}>
            <svg width="28" height="8" aria-hidden="true" focusable="false">
              <line x1="0" y1="4" x2="28" y2="4" stroke={look.stroke} strokeWidth={look.width} strokeDasharray={look.dash} />
            </svg>
            {state}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A graph this large gets an overview map; a small one fits the view anyway. */
const MINIMAP_FROM = 16;

const MINIMAP: Readonly<Record<string, string>> = {
  running: '#0b57d0',
  paused: '#d48a00',
  complete: '#2e9e5b',
  error: '#b3261e',
  canceled: '#8a93a2',
  pending: '#6b3fc4',
};

function minimapColour(node: TaskNodeType): string {
  if (node.data.waiting) return '#d35f00';
  if (node.data.finish !== undefined) return '#b35c00';
  return MINIMAP[node.data.status ?? ''] ?? '#c7ced8';
}
