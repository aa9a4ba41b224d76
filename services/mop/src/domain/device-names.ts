/** Devices whose name holds `substring` (case-insensitive), sorted by name. */
export function devicesMatching<T extends { name: string }>(devices: readonly T[], substring: string): T[] {
  const needle = substring.toLowerCase();
  return devices.filter((d) => d.name.toLowerCase().includes(needle)).sort((a, b) => a.name.localeCompare(b.name));
}
