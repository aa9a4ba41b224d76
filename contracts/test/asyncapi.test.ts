import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Parser } from '@asyncapi/parser';
import { EVENTS, renderAsyncApi } from '../src';

const DOC = resolve(__dirname, '../../docs/asyncapi.json');

describe('the AsyncAPI document of the events', () => {
  it('is a valid AsyncAPI 3.0 document (the reference parser finds no error)', async () => {
    const { document, diagnostics } = await new Parser().parse(JSON.stringify(renderAsyncApi()));
    const errors = diagnostics.filter((d) => d.severity === 0);
    expect(errors.map((d) => `${d.path.join('.')}: ${d.message}`)).toEqual([]);
    expect(document?.version()).toBe('3.0.0');
  });

  it('describes every event with its subject and payload schema', () => {
    const doc = renderAsyncApi() as {
      channels: Record<string, { address: string }>;
      components: { schemas: Record<string, { required?: string[] }> };
    };
    for (const e of EVENTS) {
      const id = `${e.service}.${e.entity}.${e.event}`;
      expect(doc.channels[id]?.address).toBe(`nap.evt.${e.service}.${e.entity}.{id}.${e.event}`);
      expect(doc.components.schemas[id]?.required).toEqual((e.schema as { required?: string[] }).required);
    }
    expect(Object.keys(doc.channels)).toHaveLength(EVENTS.length);
  });

  it('is what docs/asyncapi.json holds', () => {
    const generated = `${JSON.stringify(renderAsyncApi(), null, 2)}\n`;
    if (process.env.UPDATE_DOCS === '1') writeFileSync(DOC, generated);
    if (!existsSync(DOC)) throw new Error(`${DOC} is missing; create it with: UPDATE_DOCS=1 npx jest contracts/test/asyncapi`);
    if (readFileSync(DOC, 'utf8') !== generated)
      throw new Error(
        `${DOC} is out of date with contracts/src/events.ts; regenerate it with: UPDATE_DOCS=1 npx jest contracts/test/asyncapi`,
      );
  });
});
