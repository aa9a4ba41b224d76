import { MARKER_SIZE, NODE_WIDTH, placedPositions } from '../src/components/graph/placement';

/** Where the job and workflow pages draw a workflow's tasks: as its document places them, or laid out (dagre, in the browser tests). */
const sizeOf = (id: string) => (id === 'workflow_start' || id === 'workflow_end' ? MARKER_SIZE : NODE_WIDTH);

describe('the places of a workflow’s tasks', () => {
  it('are where the studio put them', () => {
    const tasks = {
      workflow_start: { nodeLocation: { x: 0, y: 100 } },
      a: { nodeLocation: { x: 150, y: 90 } },
      b: { x: 450, y: 90 },
      workflow_end: { nodeLocation: { x: 750, y: 100 } },
    };
    expect(Object.fromEntries(placedPositions(tasks, sizeOf) ?? [])).toEqual({
      workflow_start: { x: 0, y: 100 },
      a: { x: 150, y: 90 },
      b: { x: 450, y: 90 },
      workflow_end: { x: 750, y: 100 },
    });
  });

  it('are not taken when they would draw tasks over each other (a script placed them 150 apart), nor when a task has none', () => {
    const overlapping = {
      workflow_start: { nodeLocation: { x: 0, y: 0 } },
      a: { nodeLocation: { x: 150, y: 0 } },
      b: { nodeLocation: { x: 300, y: 0 } },
      workflow_end: { nodeLocation: { x: 900, y: 0 } },
    };
    expect(placedPositions(overlapping, sizeOf)).toBeUndefined();
    // a task and a marker beside it, and tasks one above the other: apart
    expect(
      placedPositions({ workflow_start: { x: 0, y: 0 }, a: { x: 60, y: 0 }, b: { x: 60, y: 70 }, workflow_end: { x: 300, y: 0 } }, sizeOf),
    ).toBeDefined();
    expect(placedPositions({ workflow_start: { x: 0, y: 0 }, a: {}, workflow_end: { x: 300, y: 0 } }, sizeOf)).toBeUndefined();
  });
});
