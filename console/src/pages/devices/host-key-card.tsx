import { useEffect, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { HOST_KEY_CHECKING, hostKeyCheckingMode, knownHostsRoute } from '@nap/contracts/dist/device-endpoints';
import type { HostKeyChecking } from '@nap/contracts/dist/device-endpoints';
import { formatTime } from '../../api/job-data';
import { nap } from '../../api/nap';
import type { KnownHost } from '../../api/nap';
import { Dialog } from '../../components/dialog';
import { ErrorMessage } from '../../components/error-message';
import { FormActions } from '../../components/form-actions';
import styles from './device-page.module.css';

/** The query key of the key trusted for an SSH endpoint: a run of commands refreshes it (the first session trusts a key). */
export function knownHostKey(hostPort: string) {
  return ['known-host', hostPort] as const;
}

const MODE_TEXT: { readonly [Mode in HostKeyChecking]: string } = {
  tofu: 'trust on first use',
  strict: 'strict',
  off: 'off',
};

/** The device's `host_key_checking` as people read it: the mode, and the value that sets it. */
function CheckingText({ value }: { value: unknown }) {
  const mode = hostKeyCheckingMode(value);
  const given = value === undefined || value === null ? 'host_key_checking not set' : `host_key_checking: ${JSON.stringify(value)}`;
  if (mode === undefined)
    return <>{`${given}, a value the gateway does not know: its sessions fail until it is one of true, "tofu", "strict", false, "off"`}</>;
  return (
    <>
      {MODE_TEXT[mode]} <span className="muted mono">({given})</span>
    </>
  );
}

/** What happens with no key trusted, by the device's mode (docs/security.md, "Device host keys"). */
function noKeyText(mode: HostKeyChecking | undefined, hostPort: string): ReactNode {
  switch (mode) {
    case HOST_KEY_CHECKING.STRICT:
      return (
        <>
          No key trusted yet: under strict checking every session is refused (<code>DEVICE_HOST_KEY_UNKNOWN</code>) until one is trusted,
          with <code>PUT {knownHostsRoute(hostPort)}</code> and the fingerprint checked on the device.
        </>
      );
    case HOST_KEY_CHECKING.OFF:
      return <>Host key checking is off for this device: its sessions accept any key and record none, so they can be intercepted.</>;
    default:
      return <>No key trusted yet: the first session trusts the key it is shown.</>;
  }
}

/** What forgetting the key means for the device's next session, said before it is done. */
function afterForgetText(mode: HostKeyChecking | undefined): string {
  switch (mode) {
    case HOST_KEY_CHECKING.STRICT:
      return 'Under strict checking, every session to it is refused (DEVICE_HOST_KEY_UNKNOWN) until a key is trusted again.';
    case HOST_KEY_CHECKING.OFF:
      return 'Its host key checking is off: sessions accept any key whether or not one is trusted.';
    default:
      return 'The next session trusts whatever key it is shown, unchecked: forget a key only when the device was replaced and its new key is expected, and let the next session be one you start from here.';
  }
}

/** Confirms forgetting a trusted key, saying what the next session does; the platform records it in the audit trail. */
function ForgetKeyDialog({
  device,
  entry,
  mode,
  onClose,
  onForgotten,
}: {
  device: string;
  entry: KnownHost;
  mode: HostKeyChecking | undefined;
  onClose: () => void;
  onForgotten: (message: string) => void;
}) {
  const client = useQueryClient();
  const forget = useMutation({
    mutationFn: () => nap.forgetHostKey(entry.hostPort),
    onSuccess: async (answer) => {
      await client.invalidateQueries({ queryKey: knownHostKey(entry.hostPort) });
      onForgotten(answer.message ?? `The host key of ${entry.hostPort} is no longer trusted`);
    },
  });
  return (
    <Dialog title={`Forget the host key of ${device}?`} onClose={onClose}>
      <p>
        The gateway stops trusting <span className="mono">{entry.fingerprint}</span> for <span className="mono">{entry.hostPort}</span>.
      </p>
      <p>{afterForgetText(mode)}</p>
      <p className="muted">The change is recorded in the audit trail with the fingerprint forgotten.</p>
      <ErrorMessage error={forget.error} title="The key was not forgotten" />
      <FormActions
        action="Forget key"
        pendingAction="Forgetting…"
        pending={forget.isPending}
        tone="danger"
        onAction={() => forget.mutate()}
        cancel="Keep key"
        onCancel={onClose}
      />
    </Dialog>
  );
}

/**
 * The SSH host key the gateway trusts for the device's endpoint (`GET /gw/knownHosts`), what its
 * `host_key_checking` does, and `Forget key` for a caller who may (`DELETE /gw/knownHosts/:hostPort`).
 */
export function HostKeyCard({
  device,
  hostPort,
  checking,
  mayForget,
}: {
  device: string;
  hostPort: string;
  checking: unknown;
  mayForget: boolean;
}) {
  const known = useQuery({ queryKey: knownHostKey(hostPort), queryFn: () => nap.knownHost(hostPort) });
  const [confirming, setConfirming] = useState(false);
  const [said, setSaid] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);
  const mode = hostKeyCheckingMode(checking);
  const entry = known.data ?? undefined;
  useEffect(() => {
    // the button that opened the dialog is gone with the key: the focus goes to the section, which says what happened
    if (said !== '') heading.current?.focus();
  }, [said]);
  return (
    <section aria-labelledby="host-key-title" className={`card ${styles.card}`}>
      <div className={styles.cardHeader}>
        <h2 id="host-key-title" ref={heading} tabIndex={-1}>
          Trusted SSH host key
        </h2>
        {entry && mayForget ? (
          <button type="button" className="button button-danger" onClick={() => setConfirming(true)}>
            Forget key
          </button>
        ) : null}
      </div>
      <dl className={styles.facts}>
        <div>
          <dt>Endpoint</dt>
          <dd className="mono">{hostPort}</dd>
        </div>
        <div>
          <dt>Checking</dt>
          <dd>
            <CheckingText value={checking} />
          </dd>
        </div>
        {entry ? (
          <>
            <div className={styles.wide}>
              <dt>Fingerprint</dt>
              <dd className={`mono ${styles.fingerprint}`}>{entry.fingerprint}</dd>
            </div>
            <div>
              <dt>Trusted since</dt>
              <dd>{formatTime(Date.parse(entry.created))}</dd>
            </div>
          </>
        ) : null}
      </dl>
      {known.isPending ? <p className="muted">Reading the trusted key…</p> : null}
      {known.isSuccess && !entry ? <p className={styles.noKey}>{noKeyText(mode, hostPort)}</p> : null}
      {entry && mode === HOST_KEY_CHECKING.OFF ? (
        <p className={styles.note}>Host key checking is off for this device: its sessions do not check this key.</p>
      ) : null}
      <ErrorMessage error={known.error} title="The trusted key cannot be read" />
      {/* the word on a forgotten key lasts until a session trusts one again */}
      <p role="status" className={said && !entry ? styles.said : 'visually-hidden'}>
        {entry ? '' : said}
      </p>
      {confirming && entry ? (
        <ForgetKeyDialog
          device={device}
          entry={entry}
          mode={mode}
          onClose={() => setConfirming(false)}
          onForgotten={(message) => {
            setConfirming(false);
            setSaid(`${message}.`);
          }}
        />
      ) : null}
    </section>
  );
}
