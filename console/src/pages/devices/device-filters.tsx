import type { DeviceGroup } from '../../api/nap';
import { FilterFold, setCount } from '../../components/filter-fold';
import { TypedFilterField, useTypedFilter } from '../../components/typed-filter';
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
  const name = useTypedFilter(params.name, (text) => onChange({ name: text, page: 1 }));
  // a group of the URL that no device names any more stays choosable: the select shows what the list is filtered by
  const names = (groups ?? []).map((group) => group.name);
  if (params.group && !names.includes(params.group)) names.push(params.group);
  const members = new Map((groups ?? []).map((group) => [group.name, group.devices.length]));
  return (
    <FilterFold count={setCount([params.name, params.group])}>
      <form role="search" aria-label="Filter devices" className={bar.filters} onSubmit={(e) => e.preventDefault()}>
        <TypedFilterField id="device-name" label="Name" placeholder="name contains…" filter={name} />
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
            name.setTyped('');
            onChange({ name: '', group: '', page: 1 });
          }}
        >
          Clear filters
        </button>
      </form>
    </FilterFold>
  );
}
