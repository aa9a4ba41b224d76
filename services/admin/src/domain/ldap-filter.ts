/**
 * LDAP search filters and distinguished names, as values: what a directory sign-in searches for.
 * Every value a person types reaches a filter only through {@link escapeFilterValue} (RFC 4515), so
 * `*)(uid=*` is searched for as those characters and finds nobody.
 */

/** The user filter when the provider names none: OpenLDAP's `uid` and Active Directory's `sAMAccountName` alike. */
export const DEFAULT_USER_FILTER = '(|(uid={{username}})(sAMAccountName={{username}}))';
import { ownValue } from '@nap/util';

/** The group filter when the provider names none: groupOfNames, groupOfUniqueNames and posixGroup members. */
export const DEFAULT_GROUP_FILTER = '(|(member={{dn}})(uniqueMember={{dn}})(memberUid={{username}}))';

/**
 * Active Directory's LDAP_MATCHING_RULE_IN_CHAIN: `member:1.2.840.113556.1.4.1941:=<dn>` matches a
 * group the user is in directly or through any depth of groups in groups, evaluated by the domain
 * controller in one search.
 */
export const IN_CHAIN_GROUP_FILTER = '(member:1.2.840.113556.1.4.1941:={{dn}})';

/** Escapes a value for an LDAP filter (RFC 4515 §3): `*`, `(`, `)`, `\` and NUL as `\2a`, `\28`, `\29`, `\5c`, `\00`. */
export function escapeFilterValue(value: string): string {
  let out = '';
  // by UTF-8 byte would also be valid; escaping only the five specials keeps other characters readable in logs
  for (const ch of value) {
    switch (ch) {
      case '*':
        out += '\\2a';
        break;
      case '(':
        out += '\\28';
        break;
      case ')':
        out += '\\29';
        break;
      case '\\':
        out += '\\5c';
        break;
      case '\u0000':
        out += '\\00';
        break;
      default:
        out += ch;
    }
  }
  return out;
}

/** A filter template with its `{{name}}` placeholders filled by escaped values; a placeholder without a value stays as typed. */
export function fillFilter(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => {
    // own members only: {{constructor}} is a placeholder without a value, not Object's constructor
    const value = ownValue(values, key);
    return value === undefined ? whole : escapeFilterValue(value);
  });
}

/** The filter that finds the entry of `username`. */
export function userFilter(template: string | undefined, username: string): string {
  return fillFilter(template ?? DEFAULT_USER_FILTER, { username });
}

/**
 * The filter that finds the groups of the user entry `dn`: the provider's own, or the default; with
 * `nested` (Active Directory) the in-chain rule, which also finds the groups those groups are in.
 */
export function groupFilter(
  options: { template?: string | undefined; nested?: boolean | undefined },
  dn: string,
  username: string,
): string {
  const template = options.nested ? IN_CHAIN_GROUP_FILTER : (options.template ?? DEFAULT_GROUP_FILTER);
  return fillFilter(template, { dn, username });
}

/**
 * The value of the first RDN of a DN, unescaped (RFC 4514): `cn=Net Ops\, EMEA,ou=groups,dc=x` →
 * `Net Ops, EMEA`. This is how a group of `memberOf` is named. Undefined when it is no DN.
 */
export function firstRdnValue(dn: string): string | undefined {
  let i = 0;
  let raw = '';
  // the first RDN ends at the first comma (or plus: a multi-valued RDN) that is not escaped
  while (i < dn.length) {
    const ch = dn.charAt(i);
    if (ch === '\\' && i + 1 < dn.length) {
      raw += dn.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (ch === ',' || ch === '+') break;
    raw += ch;
    i += 1;
  }
  const eq = raw.indexOf('=');
  if (eq <= 0) return undefined;
  const value = unescapeDnValue(raw.slice(eq + 1).trim());
  return value === '' ? undefined : value;
}

/** RFC 4514 value unescaping: `\,` and the other specials, and `\XX` hex pairs as UTF-8 bytes. */
function unescapeDnValue(value: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < value.length; i += 1) {
    const ch = value.charAt(i);
    if (ch === '\\' && i + 1 < value.length) {
      const pair = value.slice(i + 1, i + 3);
      if (/^[0-9a-fA-F]{2}$/.test(pair)) {
        bytes.push(parseInt(pair, 16));
        i += 2;
      } else {
        bytes.push(...Buffer.from(value.charAt(i + 1), 'utf8'));
        i += 1;
      }
    } else {
      bytes.push(...Buffer.from(ch, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
