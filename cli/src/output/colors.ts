import type { Colors } from 'picocolors/types';
import { loadPicocolors } from '../lazy';
import { styleSequence } from './terminal';

/**
 * Colours for one stream: on only when that stream is a terminal, `NO_COLOR` is unset or empty,
 * `TERM` is not `dumb` and `--no-color` was not given; `FORCE_COLOR` turns them on anywhere.
 */
export function colorsFor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env, noColorFlag = false): Colors {
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0';
  const enabled =
    !noColorFlag && (forced || (stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '') && env.TERM !== 'dumb'));
  return createStyles(enabled);
}

/**
 * picocolors' styles as `nap` writes them: the same sequences, but marked as `nap`'s own
 * ({@link styleSequence}) so that the writer keeps them while it escapes every ESC of the text
 * they wrap or sit next to. A style nested in another (`bold` inside `dim`) opens the outer one
 * again where it closes, as picocolors does. Off: picocolors' styles that add nothing.
 */
export function createStyles(enabled: boolean): Colors {
  const pc = loadPicocolors();
  if (!enabled) return pc.createColors(false);
  const real = pc.createColors(true);
  const styles: Record<string, unknown> = { isColorSupported: true };
  for (const [name, style] of Object.entries(real)) {
    if (typeof style !== 'function') continue;
    const [open = '', close = ''] = (style as (s: string) => string)('\u0000').split('\u0000');
    const opened = styleSequence(open);
    const closed = styleSequence(close);
    styles[name] = (input: unknown): string => `${opened}${String(input).split(closed).join(`${closed}${opened}`)}${closed}`;
  }
  return styles as unknown as Colors;
}
