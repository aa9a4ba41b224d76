import { variableRows } from '../../api/device-data';
import styles from './device-page.module.css';

/** A device's variables as the platform answers them: secrets arrive masked, and are shown so. */
export function VariablesTable({ variables }: { variables: Readonly<Record<string, unknown>> }) {
  const rows = variableRows(variables);
  return (
    <section aria-labelledby="device-variables-title" className={`card ${styles.card}`}>
      <h2 id="device-variables-title">Variables</h2>
      {rows.length === 0 ? (
        <p className="muted">The device has no variable: the gateway cannot reach it until it has gw_host, gw_network_os and gw_user.</p>
      ) : (
        // on a narrow window a long value scrolls the table sideways: Tab reaches it, and the arrow keys scroll it
        <div className={styles.variablesWrap} role="group" aria-labelledby="device-variables-title" tabIndex={0}>
          <table className={`table ${styles.variables}`}>
            <caption className="visually-hidden">Variables</caption>
            <thead>
              <tr>
                <th scope="col">Variable</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.name}>
                  <th scope="row" className="mono">
                    {row.name}
                  </th>
                  <td>
                    <span className="mono">{row.text}</span>
                    {row.masked ? <span className={styles.secret}>secret, masked by the platform</span> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className={styles.note}>Secrets (passwords, the enable secret, key material) are stored encrypted and always answered masked.</p>
    </section>
  );
}
