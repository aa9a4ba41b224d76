/** A JSON value as text for people: indented, wrapped, values masked by the platform shown as it masked them. */
export function JsonView({ value, label }: { value: unknown; label: string }) {
  const text = value === undefined ? 'none' : JSON.stringify(value, null, 2);
  return (
    <pre className="json-view" aria-label={label} tabIndex={0}>
      {text}
    </pre>
  );
}
