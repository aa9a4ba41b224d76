/**
 * The shape of each status, drawn (not a font glyph, which some machines lack), in the text's
 * colour: a status is never told by colour alone, and its word always stands beside it.
 */
export function StatusIcon({ status, className }: { status: string; className?: string }) {
  return (
    <svg viewBox="0 0 16 16" width="12" height="12" aria-hidden="true" focusable="false" className={className}>
      {shape(status)}
    </svg>
  );
}

function shape(status: string) {
  switch (status) {
    case 'running':
      return <circle cx="8" cy="8" r="5" fill="currentColor" />;
    case 'paused':
      return (
        <>
          <rect x="3.5" y="3" width="3" height="10" rx="0.5" fill="currentColor" />
          <rect x="9.5" y="3" width="3" height="10" rx="0.5" fill="currentColor" />
        </>
      );
    case 'complete':
      return (
        <path d="M2.5 8.5l3.5 3.5 7.5-8" fill="none" stroke="currentColor" strokeWidth="2.4" strokeLinecap="round" strokeLinejoin="round" />
      );
    case 'error':
      return <path d="M3.5 3.5l9 9M12.5 3.5l-9 9" stroke="currentColor" strokeWidth="2.6" strokeLinecap="round" />;
    case 'canceled':
      return (
        <>
          <circle cx="8" cy="8" r="5.5" fill="none" stroke="currentColor" strokeWidth="1.8" />
          <path d="M4.2 11.8l7.6-7.6" stroke="currentColor" strokeWidth="1.8" />
        </>
      );
    case 'pending':
      return (
        <>
          <circle cx="8" cy="8" r="5.5" fill="none" stroke="currentColor" strokeWidth="1.8" />
          <path d="M8 2.5a5.5 5.5 0 0 1 0 11z" fill="currentColor" />
        </>
      );
    case 'waiting':
      // a person
      return (
        <>
          <circle cx="8" cy="4.5" r="2.7" fill="currentColor" />
          <path d="M2.8 14.5c0-3.2 2.3-5.5 5.2-5.5s5.2 2.3 5.2 5.5z" fill="currentColor" />
        </>
      );
    default:
      return <circle cx="8" cy="8" r="5.2" fill="none" stroke="currentColor" strokeWidth="1.8" strokeDasharray="2.6 1.9" />;
  }
}
