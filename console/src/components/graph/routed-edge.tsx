import { BaseEdge, getSmoothStepPath } from '@xyflow/react';
import type { Edge, EdgeProps } from '@xyflow/react';
import type { Point } from './layout';

export interface RoutedEdgeData extends Record<string, unknown> {
  /** The bends of a laid-out graph's edge; none where the document placed the tasks. */
  route: Point[];
}

export type RoutedEdgeType = Edge<RoutedEdgeData, 'routed'>;

/** A path through the points with the corners rounded (radius in graph units). */
function roundedPath(points: readonly Point[], radius = 10): string {
  const [first, ...rest] = points;
  if (!first) return '';
  let d = `M ${first.x} ${first.y}`;
  for (let i = 0; i < rest.length; i += 1) {
    const at = rest[i] as Point;
    const next = rest[i + 1];
    const prev = (i === 0 ? first : rest[i - 1]) as Point;
    if (!next) {
      d += ` L ${at.x} ${at.y}`;
      break;
    }
    const inLength = Math.hypot(at.x - prev.x, at.y - prev.y) || 1;
    const outLength = Math.hypot(next.x - at.x, next.y - at.y) || 1;
    const r = Math.min(radius, inLength / 2, outLength / 2);
    const before = { x: at.x - ((at.x - prev.x) / inLength) * r, y: at.y - ((at.y - prev.y) / inLength) * r };
    const after = { x: at.x + ((next.x - at.x) / outLength) * r, y: at.y + ((next.y - at.y) / outLength) * r };
    d += ` L ${before.x} ${before.y} Q ${at.x} ${at.y} ${after.x} ${after.y}`;
  }
  return d;
}

/**
 * A transition: through dagre's bends when the graph was laid out (so that it goes around the
 * tasks between), as a right-angled line between the tasks otherwise.
 */
export function RoutedEdge(props: EdgeProps<RoutedEdgeType>) {
  const {
    sourceX,
    sourceY,
    targetX,
    targetY,
    sourcePosition,
    targetPosition,
    data,
    markerEnd,
    style,
    label,
    labelStyle,
    labelBgStyle,
    labelBgPadding,
  } = props;
  const route = data?.route ?? [];
  let path: string;
  let labelX: number;
  let labelY: number;
  if (route.length > 0) {
    const points = [{ x: sourceX, y: sourceY }, ...route, { x: targetX, y: targetY }];
    path = roundedPath(points);
    const middle = points[Math.floor(points.length / 2)] as Point;
    labelX = middle.x;
    labelY = middle.y;
  } else {
    [path, labelX, labelY] = getSmoothStepPath({ sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition });
  }
  return (
    <BaseEdge
      path={path}
      labelX={labelX}
      labelY={labelY}
      label={label}
      {...(labelStyle ? { labelStyle } : {})}
      {...(labelBgStyle ? { labelBgStyle } : {})}
      {...(labelBgPadding ? { labelBgPadding } : {})}
      {...(markerEnd ? { markerEnd } : {})}
      {...(style ? { style } : {})}
    />
  );
}
