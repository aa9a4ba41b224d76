import { useEffect, useState } from 'react';
import { useDebounced } from '../hooks/use-debounced';
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
 * A text filter whose value lives in the URL: what is typed reaches `onChange` once typing settles
 * for 300 ms, or at once with `send`; when the URL's value changes under it (back and forward in
 * the browser), the box shows it.
 */
export function useTypedFilter(value: string, onChange: (text: string) => void): TypedFilter {
  const [typed, setTyped] = useState(value);
  const settled = useDebounced(typed, 300);
  useEffect(() => {
    if (settled !== value) onChange(settled);
    // only the typed text decides; the URL's value follows it
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [settled]);
  useEffect(() => {
    // back and forward in the browser change the URL under the text box
    setTyped(value);
  }, [value]);
  return { typed, setTyped, send: () => onChange(typed) };
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
