import { useEffect, useLayoutEffect, useRef } from 'react';
import type { RefObject } from 'react';
import { useLocation } from 'react-router';
import { SECTIONS } from '../session/sections';

/** What every tab of the console is called after the page's own name. */
const CONSOLE_TITLE = 'NAP console';

/** How long after moving to another page its heading may still come (a page loaded when first opened, a job fetched). */
const HEADING_WAIT_MS = 10_000;

/** The browser tab's title for a page: its heading, then its section when the heading is not the section's name. */
export function titleOf(heading: string | undefined, pathname: string): string {
  const section = SECTIONS.find((s) => pathname === s.to || pathname.startsWith(`${s.to}/`));
  const parts = [heading, section?.label].filter((part): part is string => part !== undefined && part !== '');
  return [...new Set(parts), CONSOLE_TITLE].join(' — ');
}

/** Sets the tab's title while a page outside the frame (the log-in page) is open. */
export function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} — ${CONSOLE_TITLE}`;
  }, [title]);
}

/** True when the focus is on a control of the header (a section of the menu). */
function inHeader(element: Element | null): boolean {
  return (element?.closest('header') ?? null) !== null;
}

/** True when nothing a person chose has the focus: the page's body, or a control that is gone (or hidden) with what it did. */
function focusIsLost(lastFocused: Element | null): boolean {
  const active = document.activeElement;
  if (active !== null && active !== document.body) return false;
  // a click on the page's text also leaves the focus on the body: then what had it is still there
  return lastFocused !== null && (!lastFocused.isConnected || !lastFocused.checkVisibility());
}

/**
 * Where the focus goes when the control that had it went away: the heading of the nearest part of
 * the page still there that a heading names (the task's panel, when Approve went with the task's
 * wait), else the page's own heading.
 */
function headingNear(ancestors: readonly Element[], area: HTMLElement, pageHeading: HTMLElement): HTMLElement {
  for (const element of ancestors) {
    if (!element.isConnected || !area.contains(element)) continue;
    const named = element.getAttribute('aria-labelledby')?.split(/\s+/)[0];
    const heading = named ? document.getElementById(named) : null;
    if (heading instanceof HTMLElement && /^H[1-6]$/.test(heading.tagName) && heading.checkVisibility()) return heading;
  }
  return pageHeading;
}

/** The page's heading, made able to take the focus (not reached with Tab). */
function focusHeading(heading: HTMLElement): void {
  if (!heading.hasAttribute('tabindex')) heading.tabIndex = -1;
  heading.focus({ preventScroll: true });
}

/**
 * The page's heading names the browser tab ("Interface check — Jobs — NAP console"), so that each
 * page has a title of its own (WCAG 2.4.2) that a screen reader says when the tab is chosen, and it
 * takes the focus when the focus would otherwise be lost to the page's body: after a link (a row's
 * name, a breadcrumb, a section of the menu) opened another page, and when the control that had the
 * focus went away with what it did (Retry, Cancel, Unlock; Approve leaves it on its task's panel).
 * The person, and their screen reader, then start from the new page's name, not from the top of the
 * console (or from where the page says a link to it lands: `data-arrival`).
 */
export function PageTitle({ main }: { main: RefObject<HTMLElement | null> }) {
  const { pathname } = useLocation();
  const firstPage = useRef(true);
  // the page on screen, set as the router draws another one: the watch of the page before stops at once
  // (its heading would otherwise be given the focus the new page's effect gives to where a link lands)
  const shown = useRef(pathname);
  useLayoutEffect(() => {
    shown.current = pathname;
  }, [pathname]);
  // the element that last had the focus inside the page, to tell a control removed from a focus never taken
  const lastFocused = useRef<Element | null>(null);
  // and what held it, nearest first: what is still there of it when the control is gone
  const holders = useRef<Element[]>([]);
  useEffect(() => {
    const onFocus = (event: FocusEvent) => {
      if (!(event.target instanceof Element)) return;
      lastFocused.current = event.target;
      holders.current = [];
      for (let holder = event.target.parentElement; holder !== null; holder = holder.parentElement) holders.current.push(holder);
    };
    document.addEventListener('focusin', onFocus);
    return () => document.removeEventListener('focusin', onFocus);
  }, []);

  useEffect(() => {
    const area = main.current;
    if (area === null) return undefined;
    // a page reached from another one (not the first the browser opened): its heading takes the
    // focus as it comes, unless the person has put it somewhere meanwhile
    let headingAwaited = !firstPage.current;
    firstPage.current = false;
    const started = Date.now();
    const fromHeader = headingAwaited && inHeader(document.activeElement);
    const update = () => {
      if (shown.current !== pathname) return;
      const heading = area.querySelector('h1');
      const title = titleOf(heading?.textContent?.trim() || undefined, pathname);
      if (document.title !== title) document.title = title;
      if (heading === null) return;
      if (headingAwaited) {
        headingAwaited = false;
        // a section of the menu leaves the focus in the header; a link in the page went away with it
        const moved = fromHeader ? inHeader(document.activeElement) : focusIsLost(lastFocused.current);
        // a page may say where a link to it lands instead (a job opened at one of its tasks)
        const arrival = area.querySelector<HTMLElement>('[data-arrival]') ?? heading;
        if (moved && Date.now() - started < HEADING_WAIT_MS) focusHeading(arrival);
      } else if (focusIsLost(lastFocused.current)) {
        lastFocused.current = null;
        focusHeading(headingNear(holders.current, area, heading));
      }
    };
    update();
    const observer = new MutationObserver(update);
    observer.observe(area, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, [pathname, main]);
  return null;
}
