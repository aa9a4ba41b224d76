import { chmodSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadIni } from '../lazy';
import type { SecretKey } from './profiles';
import { parseConfigText } from './profiles';

/**
 * Where the comment of a value begins (`password = x   ; rotated monthly`): at the whitespace
 * before the first `;` or `#` the INI reader does not read as part of the value (one not escaped
 * with a backslash); the length of the value when it has none.
 */
function commentAt(value: string): number {
  for (let i = 0; i < value.length; i += 1) {
    const ch = value[i];
    if (ch === '\\') i += 1;
    else if (ch === ';' || ch === '#') return /\s*$/.exec(value.slice(0, i))!.index;
  }
  return value.length;
}

/**
 * Changes one key of one profile in a config file's text, line by line, so that everything else —
 * comments (a comment after the value too), other sections, the order of keys, the last line end —
 * stays as the person wrote it. The value is written as the INI reader reads it back (quoted or
 * escaped where `;`, `#`, `=` or spaces need it), and the text is read back to check: undefined when
 * the key is not there or would not read back as `value`.
 */
export function replaceProfileKey(text: string, profile: string, key: SecretKey, value: string): string | undefined {
  const encoded = loadIni().safe(value);
  // with the comment after the value kept, else (a value the reader would not read back beside one) without it
  for (const keepComment of [true, false]) {
    const lines = text.split('\n');
    let inProfile = false;
    let replaced = 0;
    const keyLine = new RegExp(`^(\\s*${key}\\s*=\\s*)(.*?)(\r?)$`);
    for (let i = 0; i < lines.length; i += 1) {
      const line = lines[i] as string;
      // a section header as the INI reader sees one: `[name]` from the first column
      const header = /^\[([^\]]*)\]\s*$/.exec(line.replace(/\r$/, ''));
      if (header !== null) {
        inProfile = /^profile\s+(\S+)$/.exec((header[1] as string).trim())?.[1] === profile;
        continue;
      }
      if (!inProfile) continue;
      const match = keyLine.exec(line);
      if (match === null) continue;
      const old = match[2] as string;
      const comment = keepComment ? old.slice(commentAt(old)) : '';
      lines[i] = `${match[1] as string}${encoded}${comment}${match[3] as string}`;
      replaced += 1;
    }
    if (replaced === 0) return undefined;
    const next = lines.join('\n');
    if (parseConfigText(next).profiles.get(profile)?.[key] === value) return next;
  }
  return undefined;
}

/** What {@link writeProfileKey} did: not written, or written with the mode it had before when that let others read it. */
export type ProfileKeyWrite = { written: false } | { written: true; readableBy?: { mode: number; now: number } };

/**
 * Writes a new value of one key of one profile into a config file, in place (a symbolic link is
 * followed, the new text renamed over the old one). The file keeps its mode, except that a secret is
 * never written where others may read it: a file others could read (0644) becomes its owner's only
 * (0600), and the answer says so. Not written when the file does not hold the key in that profile as
 * expected; the file is then left untouched.
 */
export function writeProfileKey(file: string, profile: string, key: SecretKey, value: string): ProfileKeyWrite {
  let target: string;
  let text: string;
  let mode: number;
  try {
    target = realpathSync(file);
    text = readFileSync(target, 'utf8');
    mode = statSync(target).mode & 0o777;
  } catch {
    return { written: false };
  }
  const next = replaceProfileKey(text, profile, key, value);
  if (next === undefined) return { written: false };
  const kept = mode & 0o700;
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.tmp`);
  try {
    // exclusive: never through a file or link already at that name
    writeFileSync(tmp, next, { mode: kept, flag: 'wx' });
    chmodSync(tmp, kept);
    renameSync(tmp, target);
    return kept === mode ? { written: true } : { written: true, readableBy: { mode, now: kept } };
  } catch {
    rmSync(tmp, { force: true });
    return { written: false };
  }
}
