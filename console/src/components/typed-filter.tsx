import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useSettledSend } from '../hooks/use-settled-send';
import bar from './filter-bar.module.css';

/** A filter's text as typed, before it reaches the URL. */
export interface TypedFilter {
  typed: string;
  /** Puts text in the box (what Clear filters empties at once); it reaches the URL once typing settles. */
  setTyped: (text: string) => void;
  /** Sends the text at once (Enter). */
  send: () => void;
}

/**
 * A text filter whose value lives in the URL: what a person types reaches `onChange` once typing
 * rests for 300 ms, or at once with `send`; when the URL's value changes under it (back and forward
 * in the browser, Clear filters), the box shows it and what was typed before is dropped.
 */
export function useTypedFilter(value: string, onChange: (text: string) => void): TypedFilter {
  const [typed, setTypedText] = useState(value);
  const current = useRef(value);
  useLayoutEffect(() => {
    current.current = value;
  });
  const settle = useSettledSend((text) => {
    if (text === current.current) return undefined;
    onChange(text);
    return text;
  });
  useEffect(() => {
    if (!settle.fromUrl(value)) setTypedText(value);
  }, [value, settle]);
  return {
    typed,
    setTyped: (text) => {
      setTypedText(text);
      settle.typed(text);
    },
    send: () => settle.now(typed),
  };
}

/** The search box of a `useTypedFilter` in a filter bar, with its label; Enter sends what is typed. */
export function TypedFilterField({
  id,
  label,
  placeholder,
  filter,
}: {
  id: string;
  label: string;
  placeholder: string;
  filter: TypedFilter;
}) {
  return (
    <div className={bar.field}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="search"
        placeholder={placeholder}
        value={filter.typed}
        onChange={(e) => filter.setTyped(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') filter.send();
        }}
      />
    </div>
  );
}
