import type { Locator, Page } from 'playwright-core';

/**
 * Moves the focus with Tab alone until `target` has it, as a person without a mouse does; fails
 * when it is not reached within `maxPresses` (the element is not in the tab order).
 */
export async function tabTo(page: Page, target: Locator, maxPresses = 80): Promise<void> {
  for (let i = 0; i <= maxPresses; i += 1) {
    if (await target.evaluate((element) => element === element.ownerDocument.activeElement).catch(() => false)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`${String(target)} was not reached with ${maxPresses} presses of Tab`);
}

/**
 * Moves the focus with the arrow key `key` until `target` has it, as a person moves between the
 * tasks of a graph (one Tab stop; the arrow keys go from task to task); fails when it is not reached
 * within `maxPresses`.
 */
export async function arrowTo(
  page: Page,
  target: Locator,
  key: 'ArrowDown' | 'ArrowUp' | 'ArrowLeft' | 'ArrowRight',
  maxPresses = 20,
): Promise<void> {
  for (let i = 0; i <= maxPresses; i += 1) {
    if (await target.evaluate((element) => element === element.ownerDocument.activeElement).catch(() => false)) return;
    await page.keyboard.press(key);
  }
  throw new Error(`${String(target)} was not reached with ${maxPresses} presses of ${key}`);
}
