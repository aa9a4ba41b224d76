import type { BodyOf, JobDocument, ResponseOf, Task } from '@nap/contracts';
import { knownHostsRoute } from '@nap/contracts/dist/device-endpoints';
import { request, setLoggedOut } from './http';
import type { Query } from './http';

/**
 * The platform's HTTP interface as the console uses it, typed by `@nap/contracts` (type imports
 * only: no server code reaches the bundle). Each function is one catalog route.
 */

export type Whoami = ResponseOf<'admin.whoami'>;
export type SsoMethods = ResponseOf<'admin.getSsoMethods'>;
export type JobPage = ResponseOf<'workflow.getJobs'>;
export type TaskPage = ResponseOf<'workflow.getTasks'>;
export type AutomationPage = ResponseOf<'workflow.getAutomations'>;
export type Automation = AutomationPage['data'][number];
export type TriggerPage = ResponseOf<'workflow.getTriggers'>;
export type Trigger = TriggerPage['data'][number];
export type WorkflowPage = ResponseOf<'studio.getWorkflows'>;
export type Workflow = WorkflowPage['items'][number];
export type Project = ResponseOf<'studio.getProject'>['data'];
export type StoredForm = ResponseOf<'studio.getForm'>;
export type ManualTaskView = ResponseOf<'mop.chooseDevice'>;
export type AuditPage = ResponseOf<'admin.getAudit'>;
export type AuditRecord = AuditPage['results'][number];
export type AuditVerification = ResponseOf<'admin.verifyAudit'>;
export type CancelResult = ResponseOf<'workflow.cancelJobs'>;
export type RetryVariables = BodyOf<'workflow.retryTask'>['variables'];
export type DeviceListBody = BodyOf<'gateway-devices.getInventoryDevices'>;
export type DevicePage = ResponseOf<'gateway-devices.getInventoryDevices'>;
export type InventoryDevice = ResponseOf<'gateway-devices.getInventoryDevice'>;
export type DeviceGroup = ResponseOf<'gateway-devices.getInventoryGroups'>['results'][number];
export type KnownHost = ResponseOf<'gateway-devices.getKnownHosts'>['results'][number];
export type CommandsAnswer = ResponseOf<'gateway-devices.sshSendCommandExec'>;
export type CommandTemplate = ResponseOf<'mop.listTemplates'>[number];
export type TemplateRun = ResponseOf<'mop.RunCommandTemplate'>;
export type StoredTemplateRun = ResponseOf<'mop.getTemplateRuns'>['items'][number];
export type { JobDocument, Task };

const enc = encodeURIComponent;

export const nap = {
  /** `POST /login`: the platform sets the HttpOnly `token` cookie; the answer (the token) is not kept. */
  async login(username: string, password: string): Promise<void> {
    const body: BodyOf<'admin.login'> = { user: { username, password } };
    await request<string>('POST', '/login', { body });
    setLoggedOut(false);
  },
  /** `GET /logout`: ends the session and clears the cookie. What answers 401 after it is no lost session (see {@link isLoggedOut}). */
  async logout(): Promise<void> {
    setLoggedOut(true);
    await request('GET', '/logout');
  },
  whoami: () => request<Whoami>('GET', '/whoami'),
  /**
   * `PUT /whoami/password`: the caller's own new password, given the current one. Every other
   * session of the account ends; this one goes on. Refusals: 403 `CURRENT_PASSWORD_WRONG` (counted
   * as a failed login), 429 `LOGIN_THROTTLED` (with `retryAfterSeconds`), 400 `VALIDATION_FAILED`
   * naming `body.newPassword` (the password rules), 422 `UNPROCESSABLE` (an account of another sign-in method).
   */
  changeMyPassword: (currentPassword: string, newPassword: string) => {
    const body: BodyOf<'admin.changeMyPassword'> = { currentPassword, newPassword };
    return request<ResponseOf<'admin.changeMyPassword'>>('PUT', '/whoami/password', { body });
  },
  /** `GET /sso/methods`: the identity providers people may sign in with through the browser (public). */
  ssoMethods: () => request<SsoMethods>('GET', '/sso/methods'),
  /** `GET /sso/login`: where a "Sign in with …" link sends the browser; the platform takes it on to the identity provider and back to `returnTo`. */
  ssoLoginUrl: (provider: string, returnTo: string) => `/sso/login?provider=${enc(provider)}&returnTo=${enc(returnTo)}`,

  jobs: (query: Query, signal?: AbortSignal) =>
    request<JobPage>('GET', '/operations-manager/jobs', { query, ...(signal ? { signal } : {}) }),
  job: async (jobId: string) => (await request<ResponseOf<'workflow.getJob'>>('GET', `/operations-manager/jobs/${enc(jobId)}`)).data,
  cancelJobs: (jobIds: string[]) => {
    const body: BodyOf<'workflow.cancelJobs'> = { jobIds };
    return request<CancelResult>('POST', '/operations-manager/jobs/cancel', { body });
  },
  pauseJob: (jobId: string) => request<JobDocument>('POST', `/operations-manager/jobs/${enc(jobId)}/pause`),
  resumeJob: (jobId: string) => request<JobDocument>('POST', `/operations-manager/jobs/${enc(jobId)}/resume`),
  finishTask: (jobId: string, taskId: string, variables: Record<string, unknown>) => {
    const body: BodyOf<'workflow.finishTask'> = { variables };
    return request<JobDocument>('POST', `/operations-manager/jobs/${enc(jobId)}/tasks/${enc(taskId)}/finish`, { body });
  },
  retryTask: (jobId: string, taskId: string, variables: RetryVariables) => {
    const body: BodyOf<'workflow.retryTask'> = { taskId, variables };
    return request<JobDocument>('POST', `/workflow_engine/jobs/${enc(jobId)}/retryTask`, { body });
  },
  /**
   * `POST /operations-manager/jobs/start`: a job of the workflow (by its stored name) with these
   * variables; 400 `JOB_VARIABLES_INVALID` (every problem in `details`) when they do not match its inputSchema.
   */
  startJob: (workflow: string, variables: Record<string, unknown>, description?: string) => {
    const body: BodyOf<'workflow.startJob'> = { workflow, options: { variables, ...(description ? { description } : {}) } };
    return request<ResponseOf<'workflow.startJob'>>('POST', '/operations-manager/jobs/start', { body });
  },
  /** `GET /mop/task/<name>?jobId&taskId`: what a MOP manual task shows the person who decides. */
  manualTaskView: (route: string, jobId: string, taskId: string) => request<ManualTaskView>('GET', route, { query: { jobId, taskId } }),

  tasks: (query: Query) => request<TaskPage>('GET', '/operations-manager/tasks', { query }),
  automations: (query: Query) => request<AutomationPage>('GET', '/operations-manager/automations', { query }),
  triggers: (query: Query) => request<TriggerPage>('GET', '/operations-manager/triggers', { query }),
  /**
   * `PATCH /operations-manager/triggers/:id` with `{ enabled }`: the trigger disabled or enabled, as
   * the platform keeps it now. A schedule disabled skips the runs that come meanwhile; enabled again,
   * its next run is its first due time from now (none for a one-off whose time passed). Refused 400
   * `VALIDATION_FAILED` naming the member when the trigger cannot be enabled as it is (an event
   * trigger imported on an event this platform does not publish).
   */
  setTriggerEnabled: async (triggerId: string, enabled: boolean): Promise<Trigger> => {
    const body: BodyOf<'workflow.updateTrigger'> = { enabled };
    return (await request<ResponseOf<'workflow.updateTrigger'>>('PATCH', `/operations-manager/triggers/${enc(triggerId)}`, { body })).data;
  },
  form: (id: string) => request<StoredForm>('GET', `/formbuilder/forms/${enc(id)}`),
  runManualTrigger: (triggerId: string, formData: Record<string, unknown>) => {
    const body: BodyOf<'workflow.runManualTrigger'> = { formData };
    return request<ResponseOf<'workflow.runManualTrigger'>>('POST', `/operations-manager/triggers/manual/${enc(triggerId)}/run`, { body });
  },

  audit: (query: Query) => request<AuditPage>('GET', '/audit', { query }),
  verifyAudit: () => request<AuditVerification>('GET', '/audit/verify'),
  /** `GET /audit/export`: a download the browser makes with the session cookie (NDJSON, oldest first). */
  auditExportUrl: (range: { since?: string; until?: string }) => {
    const query = new URLSearchParams(Object.entries(range).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''));
    const text = query.toString();
    return `/audit/export${text === '' ? '' : `?${text}`}`;
  },

  /** `POST /gw/getInventoryDevices`: a page of the inventory (filter by name substring or group, sort, skip and limit); secrets masked. */
  devices: (body: DeviceListBody, signal?: AbortSignal) =>
    request<DevicePage>('POST', '/gw/getInventoryDevices', { body, ...(signal ? { signal } : {}) }),
  /** `POST /gw/getInventoryDevice`: one device, its secrets answered as `********`; 404 `DEVICE_NOT_FOUND`. */
  device: (name: string) => {
    const body: BodyOf<'gateway-devices.getInventoryDevice'> = { name };
    return request<InventoryDevice>('POST', '/gw/getInventoryDevice', { body });
  },
  /** `POST /gw/getInventoryGroups`: every group the devices name, with its members. */
  deviceGroups: async () => {
    const body: BodyOf<'gateway-devices.getInventoryGroups'> = {};
    return (await request<ResponseOf<'gateway-devices.getInventoryGroups'>>('POST', '/gw/getInventoryGroups', { body })).results;
  },
  /** `GET /gw/knownHosts?equals[hostPort]=…`: the host key the gateway trusts for one SSH endpoint; null when none. */
  knownHost: async (hostPort: string): Promise<KnownHost | null> => {
    const page = await request<ResponseOf<'gateway-devices.getKnownHosts'>>('GET', '/gw/knownHosts', {
      query: { equals: { hostPort }, limit: 1 },
    });
    return page.results.find((entry) => entry.hostPort === hostPort) ?? null;
  },
  /** `DELETE /gw/knownHosts/:hostPort`: the next session to the endpoint trusts the key it is shown; 404 `HOST_KEY_NOT_FOUND`. */
  forgetHostKey: (hostPort: string) => request<ResponseOf<'gateway-devices.forgetHostKey'>>('DELETE', knownHostsRoute(hostPort)),
  /**
   * `POST /gw/sshSendCommandExec`: the commands in one SSH session, in order. The first one the
   * device reports an error for stops the rest: 502 `DEVICE_COMMAND_FAILED`, its `details.results`
   * the outputs so far. A device out of reach answers its own code (`DEVICE_UNREACHABLE`,
   * `DEVICE_SSH_AUTH_FAILED`, `DEVICE_HOST_KEY_CHANGED`, …).
   */
  runCommands: (device: string, commands: string[]) => {
    const body: BodyOf<'gateway-devices.sshSendCommandExec'> = { host: device, commands };
    return request<CommandsAnswer>('POST', '/gw/sshSendCommandExec', { body });
  },

  /** `GET /mop/listTemplates`: the MOP command templates (commands, each with the rules its output must pass). */
  commandTemplates: () => request<CommandTemplate[]>('GET', '/mop/listTemplates'),
  /**
   * `POST /mop/RunCommandTemplate`: a command template run on devices, each command's output
   * checked against its rules; a device out of reach fails its commands (the request succeeds).
   */
  runCommandTemplate: (template: string, devices: string[], variables: Record<string, unknown>) => {
    const body: BodyOf<'mop.RunCommandTemplate'> = { template, devices, variables };
    return request<TemplateRun>('POST', '/mop/RunCommandTemplate', { body });
  },

  /** `GET /mop/runs`: the kept template runs, newest first (filter by template, device, kind). */
  templateRuns: (query: { device?: string; template?: string; kind?: 'command' | 'analytic'; limit?: number }) =>
    request<ResponseOf<'mop.getTemplateRuns'>>('GET', '/mop/runs', { query }),

  workflows: (query: Query) => request<WorkflowPage>('GET', '/automation-studio/workflows', { query }),
  /** `GET /automation-studio/projects`: a page of projects, sorted by name. */
  projects: (query: Query) => request<ResponseOf<'studio.getProjects'>>('GET', '/automation-studio/projects', { query }),
  project: async (projectId: string) =>
    (await request<ResponseOf<'studio.getProject'>>('GET', `/automation-studio/projects/${enc(projectId)}`)).data,
};
