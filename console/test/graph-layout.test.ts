import { MARKER_SIZE, NODE_WIDTH, layoutTasks } from '../src/components/graph/layout';

/** Where the job and workflow pages draw a workflow's tasks. */
const sizeOf = (id: string) => (id === 'workflow_start' || id === 'workflow_end' ? MARKER_SIZE : NODE_WIDTH);
const transitions = {
  workflow_start: { a: { state: 'success' } },
  a: { b: { state: 'success' } },
  b: { workflow_end: { state: 'success' } },
  workflow_end: {},
};

describe('the graph of a workflow', () => {
  it('draws the tasks where the studio placed them', () => {
    const tasks = {
      workflow_start: { nodeLocation: { x: 0, y: 100 } },
      a: { nodeLocation: { x: 150, y: 90 } },
      b: { nodeLocation: { x: 450, y: 90 } },
      workflow_end: { nodeLocation: { x: 750, y: 100 } },
    };
    const { positions, routes } = layoutTasks(tasks, transitions, sizeOf);
    expect(Object.fromEntries(positions)).toEqual({
      workflow_start: { x: 0, y: 100 },
      a: { x: 150, y: 90 },
      b: { x: 450, y: 90 },
      workflow_end: { x: 750, y: 100 },
    });
    expect(routes.size).toBe(0);
  });

  it('lays the graph out when the places given would draw tasks over each other (a script placed them 150 apart)', () => {
    const tasks = {
      workflow_start: { nodeLocation: { x: 0, y: 0 } },
      a: { nodeLocation: { x: 150, y: 0 } },
      b: { nodeLocation: { x: 300, y: 0 } },
      workflow_end: { nodeLocation: { x: 900, y: 0 } },
    };
    const { positions } = layoutTasks(tasks, transitions, sizeOf);
    const a = positions.get('a')!;
    const b = positions.get('b')!;
    // top to bottom, in the order the transitions run, apart
    expect(positions.get('workflow_start')!.y).toBeLessThan(a.y);
    expect(a.y + 62).toBeLessThanOrEqual(b.y);
    expect(b.y).toBeLessThan(positions.get('workflow_end')!.y);
  });

  it('lays out a graph whose tasks have no places', () => {
    const { positions } = layoutTasks({ workflow_start: {}, a: {}, b: {}, workflow_end: {} }, transitions, sizeOf);
    expect(positions.get('a')!.y).toBeLessThan(positions.get('b')!.y);
  });
});
