import { FramingDecoder, NetconfFramingError, encodeMessage } from '../src/clients/netconf-framing';
import { extractData, parseCapabilities, parseRpcErrors, replyMessageId, xmlFragmentProblem } from '../src/domain/netconf-xml';

describe('NETCONF framing', () => {
  it('decodes base:1.0 end-of-message framing split anywhere', () => {
    const wire = Buffer.from(`${encodeMessage('<hello/>', 'eom')}${encodeMessage('<rpc-reply message-id="1"><ok/></rpc-reply>', 'eom')}`);
    for (let cut = 1; cut < wire.length; cut++) {
      const decoder = new FramingDecoder('eom');
      const messages = [...decoder.push(wire.subarray(0, cut)), ...decoder.push(wire.subarray(cut))];
      expect(messages).toEqual(['<hello/>', '<rpc-reply message-id="1"><ok/></rpc-reply>']);
    }
  });

  it('decodes base:1.1 chunks counted in octets, multi-byte characters split across reads', () => {
    const xml = '<data><description>Zürich – 東京</description></data>';
    const bytes = Buffer.from(xml);
    const half = Math.floor(bytes.length / 2);
    // Two chunks of one message, the boundary inside a multi-byte character.
    const wire = Buffer.concat([
      Buffer.from(`\n#${half}\n`),
      bytes.subarray(0, half),
      Buffer.from(`\n#${bytes.length - half}\n`),
      bytes.subarray(half),
      Buffer.from('\n##\n'),
    ]);
    for (let cut = 1; cut < wire.length; cut++) {
      const decoder = new FramingDecoder('chunked');
      expect([...decoder.push(wire.subarray(0, cut)), ...decoder.push(wire.subarray(cut))]).toEqual([xml]);
    }
    expect(new FramingDecoder('chunked').push(Buffer.from(encodeMessage(xml, 'chunked')))).toEqual([xml]);
  });

  it('rejects a broken chunk header', () => {
    expect(() => new FramingDecoder('chunked').push(Buffer.from('\n#0\n\n##\n'))).toThrow(NetconfFramingError);
    expect(() => new FramingDecoder('chunked').push(Buffer.from('<rpc-reply/>'))).toThrow(NetconfFramingError);
  });

  it('refuses a message longer than its bound, in either framing, however it is split; one at the bound passes', () => {
    const body = `<rpc-reply message-id="1"><data>${'x'.repeat(200)}</data></rpc-reply>`;
    const size = Buffer.byteLength(body);
    const oneByteAtATime = (decoder: FramingDecoder, wire: string) => [...Buffer.from(wire)].flatMap((b) => decoder.push(Buffer.from([b])));
    expect(oneByteAtATime(new FramingDecoder('eom', { maxMessageBytes: size + 1 }), encodeMessage(body, 'eom'))).toEqual([body]);
    expect(oneByteAtATime(new FramingDecoder('chunked', { maxMessageBytes: size }), encodeMessage(body, 'chunked'))).toEqual([body]);
    // no marker ever comes: refused once the bound is passed, not held without end
    const endless = new FramingDecoder('eom', { maxMessageBytes: 1000 });
    expect(() => {
      for (let i = 0; i < 100; i++) endless.push(Buffer.from('<data>'.padEnd(100, 'x')));
    }).toThrow(/longer than 1000 bytes/);
    // many small chunks that never end
    const chunks = new FramingDecoder('chunked', { maxMessageBytes: 1000 });
    expect(() => {
      for (let i = 0; i < 1000; i++) chunks.push(Buffer.from('\n#2\nab'));
    }).toThrow(NetconfFramingError);
    expect(() => new FramingDecoder('chunked', { maxMessageBytes: size - 1 }).push(Buffer.from(encodeMessage(body, 'chunked')))).toThrow(
      /longer than/,
    );
  });

  it('switches framing after the hello, keeping buffered bytes', () => {
    const decoder = new FramingDecoder('eom');
    expect(decoder.push(Buffer.from(encodeMessage('<hello/>', 'eom')))).toEqual(['<hello/>']);
    decoder.setFraming('chunked');
    expect(decoder.push(Buffer.from(encodeMessage('<rpc-reply message-id="7"/>', 'chunked')))).toEqual(['<rpc-reply message-id="7"/>']);
  });
});

describe("a caller's XML placed in an RPC", () => {
  it('is taken when well-formed and closed inside itself; refused when it closes what encloses it or holds the end-of-message marker', () => {
    for (const fine of ['<system xmlns="urn:x"><contact>a &amp; b</contact></system>', '<a/><b/>', '\n  <get/>\n', 'text'])
      expect({ fine, problem: xmlFragmentProblem(fine) }).toEqual({ fine, problem: undefined });
    expect(xmlFragmentProblem('<a/></filter></get-config><kill-session/><get-config><filter>')).toMatch(
      /not well-formed.*closing tag 'filter'/,
    );
    expect(xmlFragmentProblem('</nap-fragment-4f1c><kill-session/><nap-fragment-4f1c>')).toMatch(/not well-formed/);
    expect(xmlFragmentProblem('<a>')).toMatch(/not well-formed/);
    expect(xmlFragmentProblem('<a b="]]>]]>"/>')).toMatch(/end-of-message marker/);
    expect(xmlFragmentProblem('<!-- ]]>]]> -->')).toMatch(/end-of-message marker/);
  });
});

describe('NETCONF reply parsing', () => {
  it('reads capabilities, message ids, data and rpc-errors with or without prefixes', () => {
    expect(
      parseCapabilities('<hello><capabilities><capability>urn:a</capability><capability> urn:b&amp;c </capability></capabilities></hello>'),
    ).toEqual(['urn:a', 'urn:b&c']);
    expect(replyMessageId('<nc:rpc-reply xmlns:nc="x" message-id=\'42\'>')).toBe('42');
    expect(extractData('<rpc-reply><data><a><data>inner</data></a></data></rpc-reply>')).toBe('<a><data>inner</data></a>');
    expect(extractData('<rpc-reply><nc:data/></rpc-reply>')).toBe('');
    const errors = parseRpcErrors(
      '<nc:rpc-reply><nc:rpc-error><nc:error-type>application</nc:error-type><nc:error-tag>lock-denied</nc:error-tag><nc:error-severity>error</nc:error-severity>' +
        '<nc:error-message xml:lang="en">Lock failed &lt;held&gt;</nc:error-message><nc:error-info><nc:session-id>3</nc:session-id></nc:error-info></nc:rpc-error></nc:rpc-reply>',
    );
    expect(errors).toEqual([
      {
        type: 'application',
        tag: 'lock-denied',
        severity: 'error',
        message: 'Lock failed <held>',
        info: '<nc:session-id>3</nc:session-id>',
      },
    ]);
  });
});
