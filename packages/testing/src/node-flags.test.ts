import { nodeFlagsOf } from './node-flags';

describe('nodeFlagsOf', () => {
  it('takes the flags between node and the script, and no word after the script', () => {
    expect(nodeFlagsOf('exec node --max-semi-space-size=32 --enable-source-maps deploy/main.js --port 3')).toEqual([
      '--max-semi-space-size=32',
      '--enable-source-maps',
    ]);
    expect(nodeFlagsOf('node main.js')).toEqual([]);
  });

  it('refuses a command that runs no node', () => {
    expect(() => nodeFlagsOf('exec deno run main.ts')).toThrow('No node command');
  });
});
