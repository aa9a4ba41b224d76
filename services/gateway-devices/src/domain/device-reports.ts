/**
 * Reads the figures the gateway reports (CPU, memory, MAC addresses, configuration lines) out of
 * the text devices print. Raw outputs are always returned beside the figures, so a format these
 * patterns miss loses nothing.
 */

/** CPU figures found in the outputs; `utilizationPercent` is the most recent busy share. */
export type CpuReport = {
  utilizationPercent?: number;
  oneMinutePercent?: number;
  fiveMinutePercent?: number;
  loadAverage?: number[];
};

/** Memory figures in bytes, where the outputs give them. */
export type MemoryReport = {
  totalBytes?: number;
  usedBytes?: number;
  freeBytes?: number;
  utilizationPercent?: number;
};

function num(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

/** CPU utilisation from IOS, NX-OS, EOS (top), Junos (routing-engine) or Linux (/proc/loadavg) output. */
export function parseCpu(text: string): CpuReport {
  const report: CpuReport = {};
  const ios = /CPU utilization for five seconds: (\d+)%(?:\/\d+%)?; one minute: (\d+)%; five minutes: (\d+)%/.exec(text);
  if (ios !== null) {
    report.utilizationPercent = num(ios[1]);
    report.oneMinutePercent = num(ios[2]);
    report.fiveMinutePercent = num(ios[3]);
    return report;
  }
  const nxos = /CPU states\s*:\s*([\d.]+)% user,\s*([\d.]+)% kernel,\s*([\d.]+)% idle/.exec(text);
  if (nxos !== null) {
    report.utilizationPercent = round1(100 - (num(nxos[3]) ?? 100));
  }
  const top = /%Cpu\(s\):.*?([\d.]+) id/.exec(text);
  if (top !== null && report.utilizationPercent === undefined) report.utilizationPercent = round1(100 - (num(top[1]) ?? 100));
  const junosIdle = /^\s*Idle\s+(\d+) percent/m.exec(text);
  if (junosIdle !== null && report.utilizationPercent === undefined) report.utilizationPercent = 100 - (num(junosIdle[1]) ?? 100);
  const load =
    /load averages?:?\s*([\d.]+),?\s+([\d.]+),?\s+([\d.]+)/i.exec(text) ??
    /1 minute:\s*([\d.]+)\s+5 minutes:\s*([\d.]+)\s+15 minutes:\s*([\d.]+)/.exec(text);
  const procLoad = /^([\d.]+) ([\d.]+) ([\d.]+) \d+\/\d+ \d+$/m.exec(text);
  const l = load ?? procLoad;
  if (l !== null) report.loadAverage = [num(l[1]) ?? 0, num(l[2]) ?? 0, num(l[3]) ?? 0];
  return report;
}

function withUtilization(r: MemoryReport): MemoryReport {
  if (r.totalBytes !== undefined && r.totalBytes > 0) {
    if (r.usedBytes === undefined && r.freeBytes !== undefined) r.usedBytes = r.totalBytes - r.freeBytes;
    if (r.freeBytes === undefined && r.usedBytes !== undefined) r.freeBytes = r.totalBytes - r.usedBytes;
    if (r.usedBytes !== undefined) r.utilizationPercent = round1((r.usedBytes / r.totalBytes) * 100);
  }
  return r;
}

/** Memory from IOS (`show memory statistics`), NX-OS, EOS, Junos or Linux (/proc/meminfo) output. */
export function parseMemory(text: string): MemoryReport {
  const ios = /^Processor\s+\S+\s+(\d+)\s+(\d+)\s+(\d+)/m.exec(text);
  if (ios !== null) return withUtilization({ totalBytes: num(ios[1]), usedBytes: num(ios[2]), freeBytes: num(ios[3]) });
  const nxos = /Memory usage:\s*(\d+)K total,\s*(\d+)K used,\s*(\d+)K free/.exec(text);
  if (nxos !== null)
    return withUtilization({
      totalBytes: (num(nxos[1]) ?? 0) * 1024,
      usedBytes: (num(nxos[2]) ?? 0) * 1024,
      freeBytes: (num(nxos[3]) ?? 0) * 1024,
    });
  const top = /KiB Mem\s*:\s*(\d+) total,\s*(\d+) free,\s*(\d+) used/.exec(text);
  if (top !== null)
    return withUtilization({
      totalBytes: (num(top[1]) ?? 0) * 1024,
      freeBytes: (num(top[2]) ?? 0) * 1024,
      usedBytes: (num(top[3]) ?? 0) * 1024,
    });
  const eos = /Total memory:\s*(\d+) kB[\s\S]*?Free memory:\s*(\d+) kB/.exec(text);
  if (eos !== null) return withUtilization({ totalBytes: (num(eos[1]) ?? 0) * 1024, freeBytes: (num(eos[2]) ?? 0) * 1024 });
  const junos = /Total memory\s+(\d+) MB Max\s+(\d+) MB used/.exec(text);
  if (junos !== null) return withUtilization({ totalBytes: (num(junos[1]) ?? 0) * 1048576, usedBytes: (num(junos[2]) ?? 0) * 1048576 });
  const total = /^MemTotal:\s+(\d+) kB/m.exec(text);
  const available = /^MemAvailable:\s+(\d+) kB/m.exec(text) ?? /^MemFree:\s+(\d+) kB/m.exec(text);
  if (total !== null)
    return withUtilization({
      totalBytes: (num(total[1]) ?? 0) * 1024,
      ...(available === null ? {} : { freeBytes: (num(available[1]) ?? 0) * 1024 }),
    });
  return {};
}

const MAC_PATTERNS = [/\b([0-9a-f]{4})\.([0-9a-f]{4})\.([0-9a-f]{4})\b/gi, /\b((?:[0-9a-f]{2}[:-]){5}[0-9a-f]{2})\b/gi];

/** Every MAC address in the text, as `aa:bb:cc:dd:ee:ff`, unique, in order of appearance; all-zero ones left out. */
export function findMacAddresses(text: string): string[] {
  const found: { at: number; mac: string }[] = [];
  for (const pattern of MAC_PATTERNS) {
    for (const m of text.matchAll(pattern)) {
      const hex = m[0].replace(/[.:-]/g, '').toLowerCase();
      found.push({ at: m.index, mac: hex.match(/../g)?.join(':') ?? hex });
    }
  }
  const out: string[] = [];
  for (const { mac } of found.sort((a, b) => a.at - b.at)) {
    if (mac !== '00:00:00:00:00:00' && !out.includes(mac)) out.push(mac);
  }
  return out;
}

// Lines of a saved configuration that are not configuration: comments, show headers, `end`.
const NOT_CONFIG = [
  /^\s*!/,
  /^\s*#/,
  /^Building configuration/,
  /^Current configuration\s*:/,
  /^Using \d+ out of \d+ bytes/,
  /^\s*end\s*$/,
  /^version \d/,
];

/**
 * The configuration lines of a saved configuration text, to send in configuration mode: blank
 * lines, comments (`!`, `#`), show headers and `end` are dropped; indentation is kept (sub-modes).
 */
export function configLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.replace(/\s+$/, ''))
    .filter((l) => l.trim() !== '' && !NOT_CONFIG.some((p) => p.test(l)));
}

/** One command's output as the gateway answers it (`exitCode` only for exec-channel devices). */
export function commandOutput(r: { command: string; output: string; errorLines: string[]; failed: boolean; exitCode?: number }): {
  command: string;
  output: string;
  errorLines: string[];
  failed: boolean;
  exitCode?: number;
} {
  return {
    command: r.command,
    output: r.output,
    errorLines: r.errorLines,
    failed: r.failed,
    ...(r.exitCode === undefined ? {} : { exitCode: r.exitCode }),
  };
}
