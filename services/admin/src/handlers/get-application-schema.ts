import type { Handler } from '@nap/bus';
import { APPLICATIONS, SERVICE_SETTINGS_SCHEMAS } from '@nap/contracts';
import { applicationNamed } from '../domain/applications';
import type { AdminContext } from '../context';

/** `GET /schema/applications/:name`: the JSON Schema of the live settings of the application's service. */
export function getApplicationSchema(_svc: AdminContext): Handler<'admin.getApplicationSchema'> {
  return async (input) => {
    const app = applicationNamed(input.params.name);
    const service = APPLICATIONS[app].service;
    return { ...SERVICE_SETTINGS_SCHEMAS[service], title: `Live settings of ${app} (service ${service})` };
  };
}
