import {
  DEFAULT_GROUP_FILTER,
  DEFAULT_USER_FILTER,
  IN_CHAIN_GROUP_FILTER,
  escapeFilterValue,
  fillFilter,
  firstRdnValue,
  groupFilter,
  userFilter,
} from './ldap-filter';

describe('LDAP filter values (RFC 4515)', () => {
  it('escapes the five special characters and leaves the rest as typed', () => {
    expect(escapeFilterValue('*)(uid=*')).toBe('\\2a\\29\\28uid=\\2a');
    expect(escapeFilterValue('a\\b\u0000c')).toBe('a\\5cb\\00c');
    expect(escapeFilterValue('José Müller-O’Brien')).toBe('José Müller-O’Brien');
  });

  it('fills the default user filter so that an injection is searched for as characters', () => {
    expect(userFilter(undefined, 'alice')).toBe('(|(uid=alice)(sAMAccountName=alice))');
    expect(userFilter(undefined, '*)(uid=*')).toBe('(|(uid=\\2a\\29\\28uid=\\2a)(sAMAccountName=\\2a\\29\\28uid=\\2a))');
    expect(DEFAULT_USER_FILTER).toContain('{{username}}');
  });

  it("fills a provider's own filter, leaving placeholders it does not know", () => {
    expect(fillFilter('(&(objectClass=person)(mail={{username}})(x={{other}}))', { username: 'a(b)' })).toBe(
      '(&(objectClass=person)(mail=a\\28b\\29)(x={{other}}))',
    );
  });

  it('builds the group search: the default, a provider filter, and the Active Directory in-chain rule for nested groups', () => {
    const dn = 'CN=Alice (ops),OU=People,DC=corp,DC=example';
    expect(groupFilter({}, dn, 'alice')).toBe(
      '(|(member=CN=Alice \\28ops\\29,OU=People,DC=corp,DC=example)(uniqueMember=CN=Alice \\28ops\\29,OU=People,DC=corp,DC=example)(memberUid=alice))',
    );
    expect(DEFAULT_GROUP_FILTER).toContain('{{dn}}');
    expect(groupFilter({ template: '(memberUid={{username}})' }, dn, 'al*ce')).toBe('(memberUid=al\\2ace)');
    // LDAP_MATCHING_RULE_IN_CHAIN (1.2.840.113556.1.4.1941): the rule wins over a provider filter
    expect(groupFilter({ template: '(member={{dn}})', nested: true }, dn, 'alice')).toBe(
      '(member:1.2.840.113556.1.4.1941:=CN=Alice \\28ops\\29,OU=People,DC=corp,DC=example)',
    );
    expect(IN_CHAIN_GROUP_FILTER).toBe('(member:1.2.840.113556.1.4.1941:={{dn}})');
  });
});

describe('group names from DNs (RFC 4514)', () => {
  it('takes the value of the first RDN, unescaped', () => {
    expect(firstRdnValue('cn=netops,ou=groups,dc=nap,dc=test')).toBe('netops');
    expect(firstRdnValue('CN=Net Ops\\, EMEA,OU=Groups,DC=corp')).toBe('Net Ops, EMEA');
    expect(firstRdnValue('cn=caf\\C3\\A9,dc=x')).toBe('café');
    expect(firstRdnValue('cn=a\\+b+uid=x,dc=x')).toBe('a+b');
    expect(firstRdnValue(' cn = spaced ,dc=x')).toBe('spaced');
  });

  it('answers nothing for what is no DN', () => {
    expect(firstRdnValue('netops')).toBeUndefined();
    expect(firstRdnValue('cn=,dc=x')).toBeUndefined();
    expect(firstRdnValue('')).toBeUndefined();
  });
});
