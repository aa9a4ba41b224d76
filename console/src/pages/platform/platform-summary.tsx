import { Fragment } from 'react';
import { Link } from 'react-router';
import { StatusIcon } from '../../components/status-icon';
import { TONE_BADGE, plural } from './platform-status';
import type { Finding, Summary } from './platform-status';
import styles from './platform.module.css';

/** A component in trouble as the summary names it: an adapter links to its page. */
function FindingText({ finding }: { finding: Finding }) {
  if (finding.adapter === undefined) return <>{finding.text}</>;
  const rest = finding.text.slice(`adapter ${finding.adapter}`.length);
  return (
    <>
      adapter <Link to={`adapters/${encodeURIComponent(finding.adapter)}`}>{finding.adapter}</Link>
      {rest}
    </>
  );
}

/**
 * The first thing the page says: all healthy, or what is wrong (problems first, then what operators
 * stopped, then what is changing), in words beside the tone's shape and colour. It is a live
 * region: a change seen by a refresh is heard.
 */
export function PlatformSummary({ summary }: { summary: Summary | undefined }) {
  const tone = summary?.tone ?? 'changing';
  return (
    <section aria-labelledby="platform-summary-title" className={`card ${styles.summary}`} data-tone={summary ? tone : 'loading'}>
      <h2 id="platform-summary-title" className="visually-hidden">
        Summary
      </h2>
      {summary ? <StatusIcon status={TONE_BADGE[tone]} className={styles.summaryIcon} /> : null}
      <p role="status" className={styles.headline}>
        {summary === undefined
          ? 'Reading the platform’s state…'
          : summary.groups.length === 0
            ? summary.headline
            : summary.groups.map((group, g) => (
                <Fragment key={group.tone}>
                  {g > 0 ? '; ' : group.tone === 'changing' ? `${plural(summary.healthy, 'component')} healthy; ` : ''}
                  {group.label}:{' '}
                  {group.findings.map((finding, i) => (
                    <Fragment key={finding.text}>
                      {i > 0 ? ', ' : ''}
                      <FindingText finding={finding} />
                    </Fragment>
                  ))}
                </Fragment>
              ))}
      </p>
    </section>
  );
}
