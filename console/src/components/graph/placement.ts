/**
 * Where a workflow's document places its tasks, when it places them all where they can be drawn:
 * the part of the graph's layout that needs no layout engine.
 */

/** A task as the graph needs it: where its document put it, if anywhere. */
export interface PlacedTask {
  x?: number | undefined;
  y?: number | undefined;
  nodeLocation?: { x?: number; y?: number } | undefined;
}

export const NODE_WIDTH = 220;
export const NODE_HEIGHT = 62;
/** The entry and exit markers are small. */
export const MARKER_SIZE = 56;

export interface Point {
  x: number;
  y: number;
}

function positionOf(task: PlacedTask): Point | undefined {
  if (typeof task.x === 'number' && typeof task.y === 'number') return { x: task.x, y: task.y };
  const at = task.nodeLocation;
  if (at && typeof at.x === 'number' && typeof at.y === 'number') return { x: at.x, y: at.y };
  return undefined;
}

/** Whether two of the boxes drawn at these places would cover each other (a task is drawn `sizeOf` wide). */
function overlapping(placed: ReadonlyMap<string, Point>, sizeOf: (id: string) => number): boolean {
  const boxes = [...placed].map(([id, at]) => {
    const marker = sizeOf(id) === MARKER_SIZE;
    return { ...at, w: marker ? MARKER_SIZE : NODE_WIDTH, h: marker ? MARKER_SIZE : NODE_HEIGHT };
  });
  for (let i = 0; i < boxes.length; i++) {
    const a = boxes[i] as (typeof boxes)[number];
    for (let j = i + 1; j < boxes.length; j++) {
      const b = boxes[j] as (typeof boxes)[number];
      if (a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h) return true;
    }
  }
  return false;
}

/**
 * Where the document's `x`/`y` (or the studio's `nodeLocation`) put each task; undefined when a
 * task has no place, or the places would draw tasks over each other (a document made by a script,
 * whose places were never seen on a canvas: the studio's never overlap), and the graph is to be
 * laid out instead.
 */
export function placedPositions(
  tasks: Readonly<Record<string, PlacedTask>>,
  sizeOf: (id: string) => number,
): Map<string, Point> | undefined {
  const placed = new Map<string, Point>();
  for (const [id, task] of Object.entries(tasks)) {
    const at = positionOf(task);
    if (at === undefined) return undefined;
    placed.set(id, at);
  }
  return overlapping(placed, sizeOf) ? undefined : placed;
}
