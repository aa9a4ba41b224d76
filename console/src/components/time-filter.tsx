import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { TIME_FORMAT, readTime, timeText } from '../api/console-time';
import { useSettledSend } from '../hooks/use-settled-send';
import bar from './filter-bar.module.css';

/** A time filter's text as typed, before it reaches the URL. */
export interface TimeFilter {
  typed: string;
  /** Puts text in the box (what Clear filters empties at once). */
  setTyped: (text: string) => void;
  /** Sends the text at once when it is a time (Enter, leaving the box); else shows what is wrong with it. */
  send: () => void;
  /** What is wrong with the text, once the person sent it; undefined while they type or when it is a time. */
  problem: string | undefined;
}

/**
 * A time filter whose value lives in the URL (`2026-12-05T10:12`) and is typed as the console
 * writes times (`2026-12-05 10:12`): a time reaches `onChange` once typing settles for 300 ms, or at
 * once with `send`; text that is not a time never does, and `send` shows why (the list stays as it
 * was). When the URL's value changes under it (back and forward in the browser), the box shows it.
 */
export function useTimeFilter(value: string, onChange: (value: string) => void): TimeFilter {
  const [typed, setTypedText] = useState(() => timeText(value));
  const [sent, setSent] = useState(false);
  const current = useRef(value);
  useLayoutEffect(() => {
    current.current = value;
  });
  const settle = useSettledSend((text) => {
    const read = readTime(text);
    if (!('value' in read) || read.value === current.current) return undefined;
    onChange(read.value);
    return read.value;
  });
  useEffect(() => {
    // a time sent is in the URL in its own form: the box keeps it as typed
    if (settle.fromUrl(value)) return;
    // back and forward in the browser, or Clear filters, change the URL under the box (a time typed another way stays as typed)
    setTypedText((text) => {
      const read = readTime(text);
      return 'value' in read && read.value === value ? text : timeText(value);
    });
  }, [value, settle]);
  const read = readTime(typed);
  return {
    typed,
    setTyped: (text) => {
      setTypedText(text);
      settle.typed(text);
      // the problem shown goes once the text is a time; another one shows when it is sent again
      if ('value' in readTime(text)) setSent(false);
    },
    send: () => {
      setSent(true);
      settle.now(typed);
    },
    problem: sent && 'problem' in read ? read.problem : undefined,
  };
}

/**
 * The box of a `useTimeFilter` in a filter bar, with its label: the console's form of a time as
 * its placeholder, Enter or leaving the box sends it; what is wrong with it on a line of its own at
 * the end of the bar, which the box names as its description.
 */
export function TimeFilterField({
  id,
  label,
  filter,
  describedBy,
  invalid,
}: {
  id: string;
  label: string;
  filter: TimeFilter;
  /** Another description of the box (a problem with the filters together, e.g. an empty range). */
  describedBy?: string | undefined;
  invalid?: boolean | undefined;
}) {
  const problemId = `${id}-problem`;
  const described = [filter.problem ? problemId : undefined, describedBy].filter(Boolean).join(' ');
  return (
    <>
      <div className={bar.field}>
        <label htmlFor={id}>{label}</label>
        <input
          id={id}
          type="text"
          autoComplete="off"
          spellCheck={false}
          className={bar.time}
          placeholder={TIME_FORMAT}
          title={`A time on your clock, as ${TIME_FORMAT} (seconds may follow; a date alone means its midnight)`}
          value={filter.typed}
          onChange={(e) => filter.setTyped(e.target.value)}
          onBlur={filter.send}
          onKeyDown={(e) => {
            if (e.key === 'Enter') filter.send();
          }}
          aria-invalid={filter.problem !== undefined || invalid || undefined}
          aria-describedby={described || undefined}
        />
      </div>
      {filter.problem ? (
        <p id={problemId} role="alert" className={bar.problem}>
          {label}: {filter.problem}
        </p>
      ) : null}
    </>
  );
}
