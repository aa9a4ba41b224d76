import type { Colors } from 'picocolors/types';
import { loadPicocolors } from '../lazy';

/**
 * Colours for one stream: on only when that stream is a terminal, `NO_COLOR` is unset or empty,
 * `TERM` is not `dumb` and `--no-color` was not given; `FORCE_COLOR` turns them on anywhere.
 */
export function colorsFor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env, noColorFlag = false): Colors {
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0';
  const enabled =
    !noColorFlag && (forced || (stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '') && env.TERM !== 'dumb'));
  return loadPicocolors().createColors(enabled);
}
