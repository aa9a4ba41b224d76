import { EventEmitter } from 'node:events';
import { ChannelReader, MAX_UNREAD_CHARS } from './channel-reader';
import type { ReadableChannel } from './channel-reader';

/** A channel the test talks for: `say` is what the device sends. */
class FakeChannel extends EventEmitter implements ReadableChannel {
  readonly written: string[] = [];
  write(data: string): void {
    this.written.push(data);
  }
  say(text: string): void {
    this.emit('data', Buffer.from(text));
  }
}

const prompt = (text: string): number | undefined => (text.endsWith('router#') ? text.length : undefined);
const never = (): Error => new Error('timed out');

describe('ChannelReader', () => {
  it('applies echoed backspaces within the line they edit, across chunks, never past a line start', async () => {
    const channel = new FakeChannel();
    const reader = new ChannelReader(channel, { closedError: () => new Error('closed') });
    channel.say('line one\nshow verx');
    channel.say('\x08sion\n\x08\x08router#');
    expect(await reader.readUntil(prompt, 1_000, never)).toBe('line one\nshow version\nrouter#');
  });

  it('fails the read, and every later one, once a device sends more than it may hold unread', async () => {
    const channel = new FakeChannel();
    const reader = new ChannelReader(channel, {
      closedError: () => new Error('closed'),
      overflowError: (limit) => new Error(`more than ${limit}`),
    });
    const read = reader.readUntil(prompt, 60_000, never);
    const line = `${'x'.repeat(1023)}\n`.repeat(1024);
    for (let sent = 0; sent <= MAX_UNREAD_CHARS; sent += line.length) channel.say(line);
    await expect(read).rejects.toThrow(`more than ${MAX_UNREAD_CHARS}`);
    expect(reader.peek()).toBe('');
    channel.say('router#');
    await expect(reader.readUntil(prompt, 1_000, never)).rejects.toThrow(`more than ${MAX_UNREAD_CHARS}`);
  });
});
