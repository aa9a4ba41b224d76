import type { Handler } from '@nap/bus';
import type { StudioContext } from '../context';

/** `GET /tags/all`: every tag, by name (ipctl `get tags`, and how it finds a tag by name). */
export function getTags(svc: StudioContext): Handler<'studio.getTags'> {
  return async () => svc.tags.list();
}
