import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { AxeResults, ElementContext, RunOptions } from 'axe-core';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';
import { ROOT } from './platform';

/** Debian's Chromium (`apt-get install chromium`): Playwright's own browser downloads are not reachable here. */
export const CHROMIUM = '/usr/bin/chromium';

export interface ConsoleBrowser {
  context: BrowserContext;
  /** A new tab at 1280×800 whose Content-Security-Policy violations and page errors are recorded. */
  newPage(): Promise<Page>;
  /** Every CSP violation and uncaught page error seen so far (a test expects none). */
  problems(): string[];
  close(): Promise<void>;
}

/**
 * Launches headless Chromium with a fresh profile. Fails naming the package when Chromium is
 * missing: under CI and on a developer's machine alike, the console's tests never skip.
 */
export async function launchBrowser(): Promise<ConsoleBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: install Debian's Chromium (\`apt-get install chromium\`); the console's browser tests need it`,
    );
  }
  const profile = mkdtempSync(path.join(os.tmpdir(), 'nap-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    viewport: { width: 1280, height: 800 },
    locale: 'en-GB',
    timezoneId: 'UTC',
  });
  // generous: the suite may share two cores with the rest of npm test
  context.setDefaultTimeout(20_000);
  const problems: string[] = [];
  await context.exposeBinding('__napReportViolation', (_source, text: string) => {
    problems.push(text);
  });
  // the page reports every policy violation it meets (an inline script, a style, a request elsewhere)
  await context.addInitScript(`document.addEventListener('securitypolicyviolation', (event) => {
    window.__napReportViolation?.('CSP ' + event.violatedDirective + ' blocked ' + (event.blockedURI || 'inline') + ' at ' + event.sourceFile + ':' + event.lineNumber);
  });`);
  return {
    context,
    async newPage() {
      const page = await context.newPage();
      page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error' && /Content.Security.Policy|Refused to/i.test(message.text()))
          problems.push(`console: ${message.text()}`);
      });
      return page;
    },
    problems: () => [...problems],
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
/** The engine of axe-core (the console's own dev dependency), as source text. */
const AXE_SOURCE = (createRequire(__filename)('axe-core') as { source: string }).source;

/**
 * The serious and critical accessibility violations axe-core finds on the page as it is now. The
 * engine is put in a page once (until it navigates) and run there with `axe.run`, as
 * @axe-core/playwright's legacy mode does, but without sending and compiling its half megabyte
 * again at each scan, nor opening the extra tab its default mode gathers results in (the console
 * has no frames to gather from).
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  if ((await page.evaluate('typeof window.axe')) !== 'object') await page.evaluate(AXE_SOURCE);
  const results = await page.evaluate((tags) => {
    // in the page: its window, the engine just put there
    const inPage = globalThis as unknown as {
      axe: { run(context: ElementContext, options: RunOptions): Promise<AxeResults> };
      document: ElementContext;
    };
    return inPage.axe
      .run(inPage.document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] })
      .then((found) => found.violations);
  }, WCAG_TAGS);
  return results
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(', ')}`,
    );
}

/** Saves a screenshot: under docs/ with `UPDATE_DOCS=1` (committed: the README shows them), else under .nap-test/console/. */
export async function screenshot(page: Page, name: string): Promise<void> {
  // the pictures of docs/ are taken again on purpose only (`UPDATE_DOCS=1`): a run of the suites
  // leaves the tree as it was, its pictures in .nap-test/console/ (ignored by git) to look at
  const dir = process.env.UPDATE_DOCS === '1' ? path.join(ROOT, 'docs') : path.join(ROOT, '.nap-test', 'console');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, name) });
}

/** Logs in on the console's login page and waits for the page it lands on (`Jobs`, unless the account's roles land elsewhere). */
export async function logInAs(page: Page, baseUrl: string, username: string, password: string, landing = 'Jobs'): Promise<void> {
  await page.goto(`${baseUrl}/console/login`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: landing, level: 1 }).waitFor();
}
