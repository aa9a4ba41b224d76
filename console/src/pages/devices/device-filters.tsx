import { useEffect, useState } from 'react';
import type { DeviceGroup } from '../../api/nap';
import { useDebounced } from '../../hooks/use-debounced';
import type { DeviceListParams } from './device-list-params';
import bar from '../../components/filter-bar.module.css';

interface DeviceFiltersProps {
  params: DeviceListParams;
  /** The inventory's groups (`POST /gw/getInventoryGroups`); undefined while they load. */
  groups: readonly DeviceGroup[] | undefined;
  onChange: (changes: Partial<DeviceListParams>) => void;
}

/** Name and group: what narrows the inventory (each change goes to the URL and back to page 1). */
export function DeviceFilters({ params, groups, onChange }: DeviceFiltersProps) {
  const [name, setName] = useState(params.name);
  const settled = useDebounced(name, 300);
  useEffect(() => {
    if (settled !== params.name) onChange({ name: settled, page: 1 });
    // only the typed text decides; the URL's value follows it
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [settled]);
  useEffect(() => {
    // back and forward in the browser change the URL under the text box
    setName(params.name);
  }, [params.name]);
  // a group of the URL that no device names any more stays choosable: the select shows what the list is filtered by
  const names = (groups ?? []).map((group) => group.name);
  if (params.group && !names.includes(params.group)) names.push(params.group);
  const members = new Map((groups ?? []).map((group) => [group.name, group.devices.length]));
  return (
    <form role="search" aria-label="Filter devices" className={bar.filters} onSubmit={(e) => e.preventDefault()}>
      <div className={bar.field}>
        <label htmlFor="device-name">Name</label>
        <input
          id="device-name"
          type="search"
          placeholder="name contains…"
          value={name}
          onChange={(e) => setName(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') onChange({ name, page: 1 });
          }}
        />
      </div>
      <div className={bar.field}>
        <label htmlFor="device-group">Group</label>
        <select id="device-group" value={params.group} onChange={(e) => onChange({ group: e.target.value, page: 1 })}>
          <option value="">all</option>
          {names.map((group) => (
            <option key={group} value={group}>
              {members.has(group) ? `${group} (${members.get(group)})` : group}
            </option>
          ))}
        </select>
      </div>
      <button
        type="button"
        className="button"
        disabled={!params.name && !params.group}
        onClick={() => {
          setName('');
          onChange({ name: '', group: '', page: 1 });
        }}
      >
        Clear filters
      </button>
    </form>
  );
}
