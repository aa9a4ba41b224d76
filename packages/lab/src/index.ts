// The device lab: real protocol peers on loopback for device tests (see shared LAB.md).
//   import { startCliSimulator, startSshd, startNetconfLab } from '@nap/lab';
// Each helper owns its data (free port, temp dir) so jest workers run in parallel; the only
// machine-wide state is the `naplab` login user and the apt lock (see lock.ts, sshd.ts).
import { ensureLabPackages } from './ensure';
import { startCliSimulator } from './cli-simulator';
import { startNetconfLab, startNetconfd } from './netconfd';
import { startSshd } from './sshd';

export { LAB_PACKAGES, ensureLabPackages, isRoot, missingPackages } from './ensure';
export type { LabPackage } from './ensure';
export { LAB_USER, ensureLabUser, fingerprintOfPublicKey, startSshd } from './sshd';
export type { LabSshd, SshdOptions } from './sshd';
export { startNetconfLab, startNetconfd } from './netconfd';
export type { LabNetconfd, NetconfLab, NetconfdOptions, NetconfdTarget } from './netconfd';
export { startCliSimulator } from './cli-simulator';
export { startOpenApiPeer } from './openapi-peer';
export type { OpenApiPeer, OpenApiPeerOptions, ReceivedRequest } from './openapi-peer';
export { seedTree, startNsoPeer } from './nso-peer';
export type { NsoFault, NsoPeer, NsoPeerOptions, NsoRequest } from './nso-peer';
export type { CliSimulator, CliSimulatorOptions, CommandOverride, SimulatedDeviceType } from './cli-simulator';

/** The lab's helpers in one object: `lab.ensure()` installs what is missing (as root). */
export const lab = {
  ensure: ensureLabPackages,
  startSshd,
  startNetconfd,
  startNetconfLab,
  startCliSimulator,
} as const;
