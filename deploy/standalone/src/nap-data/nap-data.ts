import { readFileSync, statSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { SERVICE_NAMES } from '@nap/contracts';
import type { ServiceName } from '@nap/contracts';
import { BackupFileError } from './archive';
import { describeLocation, parseLocation } from './locations';
import { TransferRefused, backup, copy, inspectBackup, inspectLocation, restore } from './operations';
import type { TransferReport, WriteOptions } from './operations';

/**
 * `nap-data`: backs up, restores and moves the data of a stopped NAP, between data directories
 * (`NAP_DATA_DIR`) and MongoDB. See docs/backup.md.
 */

interface Output {
  out(text: string): void;
  err(text: string): void;
}

const processOutput: Output = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

function serviceOf(value: string, previous: ServiceName[] | undefined): ServiceName[] {
  if (!(SERVICE_NAMES as readonly string[]).includes(value))
    throw new InvalidArgumentError(`"${value}" is not a service of NAP; one of ${SERVICE_NAMES.join(', ')}`);
  return [...(previous ?? []), value as ServiceName];
}

/** The key to check: `--secret-key-file`, else `NAP_SECRET_KEY` or `NAP_SECRET_KEY_FILE` of the environment. */
function secretKeyOf(file: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const named = file ?? (env.NAP_SECRET_KEY_FILE || undefined);
  if (named !== undefined) {
    try {
      return readFileSync(named, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      throw new TransferRefused(`The secret key file ${named} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  return env.NAP_SECRET_KEY || undefined;
}

const number = (n: number) => n.toLocaleString('en-US');

function sizeOf(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function printReport(output: Output, report: TransferReport): void {
  const width = Math.max(12, ...report.databases.map((d) => d.db.length));
  for (const d of report.databases)
    output.out(
      `  ${d.db.padEnd(width)}  ${String(d.collections).padStart(3)} collections  ${number(d.documents).padStart(10)} documents\n`,
    );
  if (report.files > 0) output.out(`  ${'files'.padEnd(width)}  ${number(report.files)} of the device gateway\n`);
  const documents = report.databases.reduce((n, d) => n + d.documents, 0);
  output.out(`  ${'total'.padEnd(width)}  ${number(documents)} documents\n`);
  for (const note of report.notes) output.err(`note: ${note}\n`);
}

function program(output: Output, env: NodeJS.ProcessEnv): Command {
  const cli = new Command('nap-data')
    .description(
      "Back up, restore and move the data of a stopped NAP.\nA LOCATION is a data directory (NAP_DATA_DIR) or a MongoDB URL (mongodb://…, one database per service).\nThe device gateway's files are read from and written to where this environment's NAP_GW_*_DIR, NAP_SCRIPTS_DIR and\nNAP_GW_INVENTORY_FILE place them (under <data>/gateway when unset), as the gateway finds them.",
    )
    .showHelpAfterError()
    .configureOutput({ writeOut: output.out, writeErr: output.err })
    .exitOverride();
  const services = () =>
    new Option('--service <name>', `only this service's data (repeat for more): ${SERVICE_NAMES.join(', ')}`).argParser(serviceOf);
  const writeOptions = (command: Command) =>
    command
      .addOption(services())
      .option('--replace', "delete what the target holds first, the device gateway's files included (every check passes before)")
      .option('--secret-key-file <file>', "the data's NAP_SECRET_KEY, checked against its sealed secrets (default: NAP_SECRET_KEY[_FILE])")
      .option('--files-to <dir>', "the device gateway's data directory, for its files (a MongoDB target)");
  const writeOptionsOf = (opts: { service?: ServiceName[]; replace?: boolean; secretKeyFile?: string; filesTo?: string }): WriteOptions => {
    const secretKey = secretKeyOf(opts.secretKeyFile, env);
    return {
      ...(opts.service ? { services: opts.service } : {}),
      ...(opts.replace ? { replace: true } : {}),
      ...(secretKey !== undefined ? { secretKey } : {}),
      ...(opts.filesTo !== undefined ? { filesTo: opts.filesTo } : {}),
      env,
    };
  };

  cli
    .command('backup')
    .description('write the data of a stopped platform to a new backup file (gzip, lines of JSON); the secret key is never in it')
    .argument('<from>', 'LOCATION of the data')
    .argument('<file>', 'the backup file to write (for example nap-2026-12-03.ndjson.gz)')
    .addOption(services())
    .action(async (from: string, file: string, opts: { service?: ServiceName[] }) => {
      const location = parseLocation(from);
      const report = await backup(location, file, { ...(opts.service ? { services: opts.service } : {}), env });
      output.out(`Backed up ${describeLocation(location)} into ${file} (${sizeOf(report.bytes)}) in ${report.seconds.toFixed(1)} s\n`);
      printReport(output, report);
    });

  writeOptions(
    cli
      .command('restore')
      .description('restore a backup file into a platform that never started (read and checked whole before anything is written)')
      .argument('<file>', 'the backup file')
      .argument('<to>', 'LOCATION to restore into'),
  ).action(async (file: string, to: string, opts: Parameters<typeof writeOptionsOf>[0]) => {
    const location = parseLocation(to);
    const report = await restore(file, location, writeOptionsOf(opts));
    output.out(`Restored ${file} into ${describeLocation(location)} in ${report.seconds.toFixed(1)} s\n`);
    printReport(output, report);
  });

  writeOptions(
    cli
      .command('copy')
      .description("copy the data of a stopped platform to another LOCATION (a laptop's data directory into MongoDB, or back)")
      .argument('<from>', 'LOCATION of the data')
      .argument('<to>', 'LOCATION to copy into'),
  ).action(async (from: string, to: string, opts: Parameters<typeof writeOptionsOf>[0]) => {
    const source = parseLocation(from);
    const target = parseLocation(to);
    const report = await copy(source, target, writeOptionsOf(opts));
    output.out(`Copied ${describeLocation(source)} into ${describeLocation(target)} in ${report.seconds.toFixed(1)} s\n`);
    printReport(output, report);
  });

  cli
    .command('show')
    .description('what a backup file (read whole and checked) or a LOCATION holds')
    .argument('<what>', 'a backup file or a LOCATION')
    .action(async (what: string) => {
      const location = parseLocation(what);
      const found = location.kind === 'dir' ? statSync(location.dir, { throwIfNoEntry: false }) : undefined;
      // a mistyped path is no empty platform
      if (location.kind === 'dir' && found === undefined)
        throw new TransferRefused(`${location.dir} does not exist: give a backup file or a data directory (NAP_DATA_DIR)`);
      if (found?.isFile() === true) {
        const { header, report } = await inspectBackup(what);
        output.out(`${what}: a backup of ${header.source}, made ${header.createdAt} by NAP ${header.release}; whole and checked\n`);
        printReport(output, report);
        return;
      }
      const report = await inspectLocation(location, env);
      output.out(`${describeLocation(location)}:\n`);
      printReport(output, report);
    });
  return cli;
}

/** Runs `nap-data` with `argv` (as `process.argv`); answers the exit code: 0, 1 for a refusal or failure, 2 for a usage error. */
export async function main(argv: string[], output: Output = processOutput, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    await program(output, env).parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof TransferRefused || err instanceof BackupFileError) output.err(`nap-data: ${err.message}\n`);
    else output.err(`nap-data: failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

/** The bin's entry: runs and exits with the code. */
export function run(argv: string[]): void {
  void main(argv).then((code) => process.exit(code));
}
