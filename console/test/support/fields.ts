import { eventually } from '@nap/testing';
import type { Locator } from 'playwright-core';

/** What a screen reader says after a field's name: the texts its `aria-describedby` points at. */
export function descriptionOf(field: Locator): Promise<string> {
  return field.evaluate((element) =>
    (element.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((id: string) => element.ownerDocument.getElementById(id)?.textContent ?? '')
      .join(' '),
  );
}

/** True when `target` has the focus of its page. */
export const hasFocus = (target: Locator) => target.evaluate((element) => element === element.ownerDocument.activeElement);

/** Waits until `field` is marked invalid, has the focus and is described by `problem`. */
export async function expectProblemAt(field: Locator, problem: RegExp): Promise<void> {
  await eventually(`${String(field)} marked invalid`, async () => (await field.getAttribute('aria-invalid')) === 'true');
  expect(await descriptionOf(field)).toMatch(problem);
  await eventually(`${String(field)} focused`, () => hasFocus(field));
}
