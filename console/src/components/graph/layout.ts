import { Graph, layout } from '@dagrejs/dagre';
import { MARKER_SIZE, NODE_HEIGHT, NODE_WIDTH, placedPositions } from './placement';
import type { PlacedTask, Point } from './placement';

export { MARKER_SIZE, NODE_HEIGHT, NODE_WIDTH } from './placement';
export type { PlacedTask, Point } from './placement';

export type Transitions = Readonly<Record<string, Readonly<Record<string, { state?: string; type?: string }>>>>;

/** Where the tasks go, and (for a laid-out graph) the bends of each edge, by `<from>-><to>`. */
export interface GraphLayout {
  positions: Map<string, Point>;
  routes: Map<string, Point[]>;
}

/**
 * Where each task is drawn: where its document's `x`/`y` (or the studio's `nodeLocation`) put it;
 * when a task has no position, or the positions would draw tasks over each other (a document made
 * by a script, whose places were never seen on a canvas: the studio's never overlap), the whole
 * graph is laid out by dagre, top to bottom, so that it reads the way its transitions run, and each
 * edge keeps dagre's route (around the tasks it would otherwise cross).
 */
export function layoutTasks(
  tasks: Readonly<Record<string, PlacedTask>>,
  transitions: Transitions,
  sizeOf: (id: string) => number,
): GraphLayout {
  const ids = Object.keys(tasks);
  const placed = placedPositions(tasks, sizeOf);
  if (placed !== undefined) return { positions: placed, routes: new Map() };
  const graph = new Graph();
  graph.setGraph({ rankdir: 'TB', nodesep: 40, ranksep: 56, marginx: 20, marginy: 20 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const id of ids) {
    const size = sizeOf(id);
    graph.setNode(id, { width: size === MARKER_SIZE ? MARKER_SIZE : NODE_WIDTH, height: size === MARKER_SIZE ? MARKER_SIZE : NODE_HEIGHT });
  }
  for (const [from, targets] of Object.entries(transitions)) {
    for (const to of Object.keys(targets)) if (tasks[from] && tasks[to] && from !== to) graph.setEdge(from, to);
  }
  layout(graph);
  const positions = new Map<string, Point>();
  for (const id of ids) {
    const node = graph.node(id);
    // dagre gives centres; the graph library places by the top-left corner
    positions.set(id, { x: node.x - node.width / 2, y: node.y - node.height / 2 });
  }
  const routes = new Map<string, Point[]>();
  for (const edge of graph.edges()) {
    // the first and last points touch the tasks: the edge starts and ends at their handles instead
    const points = graph.edge(edge).points ?? [];
    routes.set(
      `${edge.v}->${edge.w}`,
      points.slice(1, -1).map((p: Point) => ({ x: p.x, y: p.y })),
    );
  }
  return { positions, routes };
}
