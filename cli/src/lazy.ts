/**
 * Packages that only some commands need, loaded on first use so that `nap --version` and `nap
 * --help` parse none of them (the bundle keeps each in dist/vendor/, see cli/build.mjs).
 */
import type Table from 'cli-table3';
import type * as Ini from 'ini';
import type * as Picocolors from 'picocolors';
import type * as Yaml from 'yaml';
import type * as Undici from 'undici';
import type * as EventsourceParser from 'eventsource-parser' with { 'resolution-mode': 'import' };
import type YoctoSpinner from 'yocto-spinner' with { 'resolution-mode': 'import' };

/* eslint-disable @typescript-eslint/no-require-imports */
export const loadYaml = (): typeof Yaml => require('yaml') as typeof Yaml;
export const loadIni = (): typeof Ini => require('ini') as typeof Ini;
export const loadTable = (): typeof Table => require('cli-table3') as typeof Table;
export const loadPicocolors = (): typeof Picocolors => require('picocolors') as typeof Picocolors;
export const loadEventsourceParser = (): typeof EventsourceParser => require('eventsource-parser') as typeof EventsourceParser;
export const loadSpinner = (): typeof YoctoSpinner => (require('yocto-spinner') as { default: typeof YoctoSpinner }).default;
export const loadUndici = (): typeof Undici => require('undici') as typeof Undici;
/* eslint-enable @typescript-eslint/no-require-imports */
