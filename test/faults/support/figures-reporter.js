// Prints the figures of the fault campaign after jest's own summary: each scenario's measurements
// beside their goals (goals are not pass/fail gates; see support/figures.ts).
const { existsSync, readFileSync } = require('node:fs');

class FiguresReporter {
  constructor(globalConfig, options = {}) {
    this.file = options.file;
  }

  onRunComplete() {
    if (!this.file || !existsSync(this.file)) return;
    const rows = readFileSync(this.file, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l));
    if (rows.length === 0) return;
    const width = (key, min) => Math.max(min, ...rows.map((r) => String(r[key] ?? '').length));
    const w = { scenario: width('scenario', 8), label: width('label', 6), value: width('value', 5) };
    const line = (s, l, v, g) => `${s.padEnd(w.scenario)}  ${l.padEnd(w.label)}  ${v.padStart(w.value)}  ${g}`;
    const out = [
      '',
      'Fault campaign figures (goals are printed, not enforced)',
      line('scenario', 'figure', 'value', 'goal'),
      line('-'.repeat(w.scenario), '-'.repeat(w.label), '-'.repeat(w.value), '----'),
    ];
    let previous;
    for (const r of rows) {
      out.push(line(r.scenario === previous ? '' : r.scenario, r.label, r.value, r.goal ?? ''));
      previous = r.scenario;
    }
    process.stdout.write(`${out.join('\n')}\n\n`);
  }
}

module.exports = FiguresReporter;
