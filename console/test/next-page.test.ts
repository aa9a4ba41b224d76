import { dropDrafts, draftKeys, hasDraft, keepDraft, peekDraft, settleDraft } from '../src/session/drafts';
import { safeNext } from '../src/session/next-page';

/** Where the log-in page leads, and what a form keeps for its writer when the session ends as it sends. */

describe('the page after the log-in', () => {
  it('is a page of the console, else the home page: never another site, whatever the browser would make of the text', () => {
    expect(safeNext('/jobs?status=running')).toBe('/jobs?status=running');
    expect(safeNext('/workflows/%40c15c%3A%20Runner')).toBe('/workflows/%40c15c%3A%20Runner');
    expect(safeNext('/jobs/../people')).toBe('/people');
    for (const next of [
      null,
      '',
      'jobs',
      '//example.com',
      '/\\example.com',
      '/\\/example.com',
      'https://example.com',
      'javascript:alert(1)',
      '/\tjobs',
      '/\u0000x',
      '/jobs/..//example.com',
      '/%2e%2e//example.com',
    ])
      expect(safeNext(next)).toBe('/');
  });
});

describe('a form’s draft', () => {
  afterEach(() => dropDrafts());

  it('is kept while it is sent, given back to its writer alone, and forgotten once answered', () => {
    const key = draftKeys.runWorkflow('Change approval');
    keepDraft(key, 'olga', { plan: 'no shutdown' });
    expect(hasDraft()).toBe(true);
    expect(peekDraft(key, 'olga')).toEqual({ plan: 'no shutdown' });
    // shown twice (React may draw a page twice) is harmless
    expect(peekDraft(key, 'olga')).toEqual({ plan: 'no shutdown' });
    expect(peekDraft(key, 'sam')).toBeUndefined();
    expect(peekDraft(draftKeys.runWorkflow('Other'), 'olga')).toBeUndefined();
    settleDraft(draftKeys.runTrigger);
    expect(hasDraft()).toBe(true);
    settleDraft(key);
    expect(hasDraft()).toBe(false);
    expect(peekDraft(key, 'olga')).toBeUndefined();
  });
});
