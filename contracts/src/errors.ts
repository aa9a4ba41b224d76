/**
 * The one table of error codes. Every error the platform answers carries one of these codes; the
 * HTTP status comes from here, never from the code that throws.
 */
export const ERROR_CODES = {
  // generic
  VALIDATION_FAILED: {
    status: 400,
    retryable: false,
    description: 'The request does not match the operation schema; details list every problem.',
  },
  BAD_REQUEST: { status: 400, retryable: false, description: 'The request is malformed (bad JSON, bad query string).' },
  UNAUTHENTICATED: { status: 401, retryable: false, description: 'No credentials, or credentials that are wrong, expired or revoked.' },
  FORBIDDEN: { status: 403, retryable: false, description: 'The caller holds no role the operation allows.' },
  GROUP_ACCESS_DENIED: { status: 403, retryable: false, description: 'The caller is in none of the groups the resource is shared with.' },
  ESCALATION_REFUSED: {
    status: 403,
    retryable: false,
    description:
      'A caller without the admin role would give someone (an account, a group, a role) what it may not do itself, or change an account or group that may do more than it: an administrator makes that change.',
  },
  CROSS_SITE_REQUEST: {
    status: 403,
    retryable: false,
    description:
      "A change authenticated by the token cookie alone came from another site's page (its Origin is not the platform's own nor in NAP_ALLOWED_ORIGINS).",
  },
  NOT_FOUND: { status: 404, retryable: false, description: 'No route or resource of that name.' },
  METHOD_NOT_ALLOWED: { status: 405, retryable: false, description: 'The route exists but not with this method.' },
  CONFLICT: { status: 409, retryable: false, description: 'The request conflicts with the current state.' },
  PAYLOAD_TOO_LARGE: { status: 413, retryable: false, description: 'The request body is larger than the configured limit.' },
  ANSWER_TOO_LARGE: {
    status: 422,
    retryable: false,
    description:
      'The answer would be longer than the platform can write (a JSON text of about 512 MiB, as a job that refers to one large value many times reads back): ask for less of it.',
  },
  TOO_MANY_STREAMS: {
    status: 429,
    retryable: true,
    description: 'The caller has as many event streams open on the gateway as one caller may: close one before opening another.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    retryable: false,
    description: 'The request body has a media type the operation does not accept.',
  },
  UNPROCESSABLE: { status: 422, retryable: false, description: 'A well-formed request that the domain refuses.' },
  INTERNAL: {
    status: 500,
    retryable: false,
    description: 'An unexpected failure inside the platform; the log holds the cause under the request id.',
  },
  NOT_IMPLEMENTED: { status: 501, retryable: false, description: 'The operation is part of the interface but not built yet.' },
  AUDIT_RECORD_NOT_FOUND: {
    status: 404,
    retryable: false,
    description: 'No audit record with that seq: not recorded yet, or removed by retention.',
  },
  AUDIT_UNAVAILABLE: {
    status: 503,
    retryable: false,
    description:
      'The operation was carried out but its audit record could not be stored durably, so its success is not answered; read the state before trying again.',
  },
  UPSTREAM_FAILED: { status: 502, retryable: true, description: 'A device or an upstream system failed.' },
  SERVICE_UNAVAILABLE: {
    status: 503,
    retryable: true,
    description: 'The service that owns the operation does not answer (no responders).',
  },
  STORE_DUPLICATE_KEY: {
    status: 409,
    retryable: false,
    description: 'A write would break a unique index; details name the index and key.',
  },
  STORE_UNAVAILABLE: { status: 503, retryable: true, description: 'The service store cannot be reached.' },
  STORE_FULL: {
    status: 507,
    retryable: true,
    description:
      'The disk under the service store is full, or nearly: the embedded store refuses every write while the disk has less free space than it keeps (NAP_DATA_MIN_FREE_MB), before writing anything (details.nothingWritten); MongoDB out of space or over its quota. Reads still work; free space and writes go on by themselves.',
  },
  STORE_KEY_TOO_LONG: {
    status: 400,
    retryable: false,
    description: 'An id or an indexed value is longer than the store can key; details name the collection.',
  },
  STORE_DOCUMENT_TOO_LARGE: {
    status: 413,
    retryable: false,
    description: "A document would be larger than the store's limit (16 MiB, MongoDB's); details name the collection and the sizes.",
  },
  STORE_WRITE_CONCERN_FAILED: {
    status: 503,
    retryable: false,
    description:
      'The primary applied the write but a majority of the replica set did not confirm it in time; it may survive or be rolled back, so read before writing again.',
  },
  STORE_INTERRUPTED: {
    status: 503,
    retryable: true,
    description:
      'The store interrupted the operation (failover, shutdown, a killed operation); a multi-document write may be applied in part.',
  },
  STORE_AUTH_FAILED: {
    status: 503,
    retryable: false,
    description:
      "The store refused the service's credentials or their rights (MongoDB codes 18, 13); check the connection string and the user's roles.",
  },
  STORE_CURSOR_NOT_FOUND: {
    status: 503,
    retryable: true,
    description: 'The store dropped the cursor of a read before it ended (a failover, or a cursor left idle too long); read again.',
  },
  STORE_FORMAT_NEWER: {
    status: 503,
    retryable: false,
    description:
      'The embedded store was written by a newer release of NAP, in a format this release cannot read (details name both formats); start the newer release, or restore the backup made before the upgrade.',
  },
  JSON_TOO_DEEP: {
    status: 400,
    retryable: false,
    description: 'A JSON document nests objects and arrays deeper than the configured limit (NAP_MAX_JSON_DEPTH).',
  },
  REQUEST_TIMEOUT: {
    status: 408,
    retryable: true,
    description: 'The client did not send the whole request in time (NAP_HEADERS_TIMEOUT_MS, NAP_REQUEST_TIMEOUT_MS).',
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    retryable: false,
    description: 'The request line and headers are larger than the server accepts (16 KiB).',
  },
  PARAMETER_TOO_LONG: {
    status: 400,
    retryable: false,
    description: 'A path parameter is longer than the configured limit (NAP_MAX_PARAM_LENGTH).',
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    retryable: false,
    description: 'The Idempotency-Key was used before for a different request of the same operation and caller.',
  },
  IDEMPOTENCY_KEY_IN_PROGRESS: {
    status: 409,
    retryable: true,
    description: 'A request with the same Idempotency-Key is still being handled; retry after it ends.',
  },
  TIMEOUT: { status: 504, retryable: true, description: 'The owning service did not answer within the operation timeout.' },
  // admin
  ACCOUNT_NOT_FOUND: { status: 404, retryable: false, description: 'No account with that id.' },
  ACCOUNT_ALREADY_EXISTS: { status: 409, retryable: false, description: 'An account with that username exists.' },
  GROUP_NOT_FOUND: { status: 404, retryable: false, description: 'No group with that id.' },
  GROUP_ALREADY_EXISTS: { status: 409, retryable: false, description: 'A group with that name exists.' },
  GROUP_IN_USE: { status: 409, retryable: false, description: 'The group cannot be changed that way while accounts rely on it.' },
  ROLE_NOT_FOUND: { status: 404, retryable: false, description: 'No role with that id.' },
  ROLE_ALREADY_EXISTS: { status: 409, retryable: false, description: 'A custom or built-in role with that name exists.' },
  ROLE_IN_USE: { status: 409, retryable: false, description: 'Groups give the role: take it from them before deleting it.' },
  ROLE_BUILT_IN: { status: 409, retryable: false, description: 'A built-in role cannot be changed or deleted.' },
  SESSION_NOT_FOUND: {
    status: 404,
    retryable: false,
    description: 'The account has no live session of that id (it ended, expired or never was).',
  },
  ACCOUNT_PROTECTED: { status: 422, retryable: false, description: 'The change would leave the platform without an administrator.' },
  AUTH_PROVIDER_UNAVAILABLE: {
    status: 503,
    retryable: true,
    description:
      'An external sign-in method (LDAP, RADIUS, …) did not answer within its timeout or could not be used; local accounts still sign in.',
  },
  LOGIN_THROTTLED: {
    status: 429,
    retryable: true,
    description:
      'Too many failed logins for that username or from that address: try again after Retry-After seconds (the wait doubles up to a limit), or have an admin unlock the account.',
  },
  CURRENT_PASSWORD_WRONG: {
    status: 403,
    retryable: false,
    description: "The current password given to change one's own password is wrong; it counts as a failed login.",
  },
  // workflow / studio
  WORKFLOW_NOT_FOUND: { status: 404, retryable: false, description: 'No workflow with that name or id.' },
  WORKFLOW_ALREADY_EXISTS: { status: 409, retryable: false, description: 'A workflow with that name exists.' },
  WORKFLOW_INVALID: { status: 400, retryable: false, description: 'The workflow document is not a valid graph.' },
  JOB_NOT_FOUND: { status: 404, retryable: false, description: 'No job with that id.' },
  JOB_STATE_CONFLICT: { status: 409, retryable: false, description: 'The job is not in a state that allows the operation.' },
  TASK_NOT_FOUND: { status: 404, retryable: false, description: 'No task with that id in the job.' },
  JOB_ARCHIVE_NOT_FOUND: { status: 404, retryable: false, description: 'No job archive with that id.' },
  JOB_ARCHIVE_DELETED: {
    status: 410,
    retryable: false,
    description: 'The job archive was deleted: its file is gone (its jobs still count in the job and task metrics).',
  },
  JOB_ARCHIVE_NOT_READY: {
    status: 409,
    retryable: true,
    description: 'The job archive is still being written; download it once GET /operations-manager/jobs/archives shows it complete.',
  },
  VALUE_TOO_LARGE: {
    status: 413,
    retryable: false,
    description:
      'A task output or job variable is larger than the largest value a job holds (NAP_JOB_MAX_VALUE_BYTES); its task fails with this code.',
  },
  JOB_TREE_LIMIT_EXCEEDED: {
    status: 422,
    retryable: false,
    description:
      'A childJob task would nest child jobs deeper than 10 levels, or give its job tree (a root job and its descendants at every level) more descendant jobs than NAP_MAX_JOBS_PER_TREE allows; the task fails with this code, creating no child, and its error names the limit and the count.',
  },
  AUTOMATION_NOT_FOUND: { status: 404, retryable: false, description: 'No automation with that id.' },
  AUTOMATION_ALREADY_EXISTS: { status: 409, retryable: false, description: 'An automation with that name exists.' },
  FORM_NOT_FOUND: { status: 404, retryable: false, description: 'No form with that id or name.' },
  TRIGGER_NOT_FOUND: {
    status: 404,
    retryable: false,
    description: 'No trigger with that id (or no enabled endpoint trigger with that route name).',
  },
  TRIGGER_ALREADY_EXISTS: {
    status: 409,
    retryable: false,
    description: 'A trigger with that id, or an endpoint trigger with that route name, exists.',
  },
  TRIGGER_DISABLED: { status: 409, retryable: false, description: 'The trigger is disabled; enable it to run it.' },
  // workflow engine
  JOB_VARIABLES_INVALID: {
    status: 400,
    retryable: false,
    description: "The job variables do not match the workflow's inputSchema; details list every problem.",
  },
  JOB_QUERY_INVALID: {
    status: 400,
    retryable: false,
    description: 'A job query names a field or operator that is not allowed, or its q expression is malformed.',
  },
  // studio
  COMPONENT_GROUP_NOT_FOUND: { status: 404, retryable: false, description: 'No component group with that id.' },
  COMPONENT_GROUP_ALREADY_EXISTS: { status: 409, retryable: false, description: 'A component group with that name exists.' },
  FORM_ALREADY_EXISTS: { status: 409, retryable: false, description: 'A form with that name or id exists.' },
  PROJECT_NOT_FOUND: { status: 404, retryable: false, description: 'No project with that id.' },
  PROJECT_ALREADY_EXISTS: { status: 409, retryable: false, description: 'A project with that id or name exists.' },
  TRANSFORMATION_NOT_FOUND: {
    status: 404,
    retryable: false,
    description: 'No JST transformation with that id or name; the message names it.',
  },
  TRANSFORMATION_ALREADY_EXISTS: { status: 409, retryable: false, description: 'A transformation with that name or id exists.' },
  TAG_NOT_FOUND: { status: 404, retryable: false, description: 'No tag with that id (or name); the message names it.' },
  TAG_ALREADY_EXISTS: { status: 409, retryable: false, description: 'A tag with that name exists; tag names are unique.' },
  TRANSFORMATION_INVALID: {
    status: 400,
    retryable: false,
    description:
      'The transformation cannot run as written (unknown method, broken assign, cycle, an incoming schema that cannot be compiled); details list each problem with its path.',
  },
  TRANSFORMATION_INCOMING_INVALID: {
    status: 400,
    retryable: false,
    description: 'validateIncoming: an incoming value does not match its schema; the message names the field.',
  },
  TRANSFORMATION_STEP_FAILED: {
    status: 422,
    retryable: false,
    description:
      'A step of the transformation failed at run time; the message names the step id and method, and the incoming values the run was not given (details.missingIncoming).',
  },
  TRANSFORMATION_LIMIT_EXCEEDED: {
    status: 422,
    retryable: false,
    description:
      'A run went past a limit (steps, time, output size, regex time) and was stopped; the message names the limit and the step.',
  },
  // mop
  TEMPLATE_NOT_FOUND: { status: 404, retryable: false, description: 'No template with that id or name.' },
  TEMPLATE_ALREADY_EXISTS: { status: 409, retryable: false, description: 'A template with that name exists.' },
  MOP_RUN_NOT_FOUND: { status: 404, retryable: false, description: 'No template run with that id.' },
  MOP_COMMAND_INDEX_OUT_OF_RANGE: { status: 422, retryable: false, description: 'The template has no command at that index.' },
  MOP_VARIABLE_MISSING: { status: 422, retryable: false, description: 'A variable the command uses has no value.' },
  MOP_VARIABLE_INVALID: {
    status: 422,
    retryable: false,
    description: 'A variable value has a type the command cannot use there (object, or array for a single command).',
  },
  MOP_REATTEMPTS_EXHAUSTED: { status: 422, retryable: false, description: 'The step was re-attempted as many times as allowed.' },
  MOP_ANALYTIC_INPUT_INVALID: {
    status: 422,
    retryable: false,
    description: 'pre or post is not a command template run result (no commands_results), or neither holds a result to compare.',
  },
  MOP_DIFF_LIMIT_EXCEEDED: {
    status: 422,
    retryable: false,
    description:
      'Two texts differ in too many places to diff within the time limit (5 s), or need more memory than a diff may use; the message names the texts. Diff smaller parts.',
  },
  // templates: the Python Jinja2 / TextFSM renderer of the studio service
  TEMPLATE_TYPE_MISMATCH: {
    status: 422,
    retryable: false,
    description: 'The template is of the other kind: jinja2 templates render, textfsm templates parse.',
  },
  TEMPLATE_RENDER_FAILED: {
    status: 422,
    retryable: false,
    description:
      'The Jinja2 template does not compile or fails while rendering; the message gives the line, details the missing variables of a strict render.',
  },
  TEMPLATE_PARSE_FAILED: {
    status: 422,
    retryable: false,
    description: 'The TextFSM template is not valid, or it raised an Error action on the text.',
  },
  TEMPLATE_TIMEOUT: {
    status: 422,
    retryable: false,
    description: 'The template ran longer than the time limit (NAP_TEMPLATE_TIMEOUT_MS) and was stopped.',
  },
  TEMPLATE_OUTPUT_TOO_LARGE: {
    status: 422,
    retryable: false,
    description: 'The rendered text or the parsed records exceed the output limit (NAP_TEMPLATE_MAX_OUTPUT_BYTES).',
  },
  TEMPLATE_SANDBOX_VIOLATION: {
    status: 400,
    retryable: false,
    description: 'The template reached for Python internals (an attribute such as __class__), which the sandbox refuses.',
  },
  TEMPLATE_RENDERER_UNAVAILABLE: {
    status: 503,
    retryable: true,
    description:
      'No template worker can take the request: Python or its jinja2/textfsm module is missing, or the worker died and is restarting.',
  },
  // devices
  DEVICE_NOT_FOUND: { status: 404, retryable: false, description: 'No inventory device of that name.' },
  DEVICE_ALREADY_EXISTS: { status: 409, retryable: false, description: 'An inventory device of that name exists.' },
  DEVICE_SSH_AUTH_FAILED: { status: 502, retryable: false, description: 'The device refused the login.' },
  DEVICE_UNREACHABLE: { status: 502, retryable: true, description: 'The device address does not answer or refuses the connection.' },
  DEVICE_TIMEOUT: { status: 504, retryable: true, description: 'The device did not answer within the timeout.' },
  DEVICE_PROMPT_NOT_DETECTED: { status: 502, retryable: false, description: 'The device prompt could not be recognised.' },
  DEVICE_HOST_KEY_CHANGED: {
    status: 502,
    retryable: false,
    description:
      'The device host key differs from the trusted one; a replaced device is trusted again once its old key is forgotten (DELETE /gw/knownHosts/:hostPort).',
  },
  DEVICE_COMMAND_FAILED: { status: 502, retryable: false, description: 'The device reported an error for a command.' },
  HOST_KEY_NOT_FOUND: { status: 404, retryable: false, description: 'No host key is trusted for the SSH endpoint.' },
  DEVICE_HOST_KEY_UNKNOWN: {
    status: 502,
    retryable: false,
    description:
      'Strict host key checking and no trusted key for the device; trust its key (PUT /gw/knownHosts/:hostPort) or connect once with trust on first use.',
  },
  DEVICE_CREDENTIALS_MISSING: {
    status: 422,
    retryable: false,
    description:
      'No username (or device type) for the device: neither the request nor the inventory gives one; or its private key (gw_ssh_private_key_file) cannot be read or used, or lies outside the key directory (NAP_SSH_KEY_DIR).',
  },
  DEVICE_HTTP_NOT_CONFIGURED: {
    status: 422,
    retryable: false,
    description: 'The inventory device has no gw_http_base_url, or the endpoint leaves its origin.',
  },
  DEVICE_GROUP_NOT_FOUND: { status: 404, retryable: false, description: 'No device group of that name.' },
  DEVICE_GROUP_ALREADY_EXISTS: { status: 409, retryable: false, description: 'A device group of that name exists.' },
  DEVICE_BACKUP_NOT_FOUND: { status: 404, retryable: false, description: 'No configuration backup of that id for the device.' },
  DEVICE_INVENTORY_INVALID: { status: 422, retryable: false, description: 'The inventory file cannot be read as an inventory.' },
  DEVICE_TEMPLATE_NOT_FOUND: { status: 404, retryable: false, description: 'No device template with that id or name.' },
  DEVICE_TEMPLATE_ALREADY_EXISTS: { status: 409, retryable: false, description: 'A device template with that name exists.' },
  DEVICE_TEMPLATE_RENDER_FAILED: {
    status: 422,
    retryable: false,
    description: 'The device template cannot be rendered; the message names the missing variable or the syntax error.',
  },
  RUNNER_NOT_FOUND: {
    status: 404,
    retryable: false,
    description: 'No playbook, module, role, collection, script or IaC module of that name in the configured directory.',
  },
  RUNNER_PATH_REFUSED: { status: 400, retryable: false, description: 'The name leads outside the configured directory (path traversal).' },
  RUNNER_TOOL_MISSING: {
    status: 503,
    retryable: false,
    description: 'The program the run needs (ansible-playbook, ansible, tofu/terraform) is not installed.',
  },
  RUNNER_TIMEOUT: { status: 504, retryable: true, description: 'The run did not finish within its time limit and was stopped.' },
  // adapters and integrations
  ADAPTER_NOT_FOUND: { status: 404, retryable: false, description: 'No adapter instance of that name.' },
  ADAPTER_ALREADY_EXISTS: { status: 409, retryable: false, description: 'An adapter of that name exists.' },
  ADAPTER_STATE_CONFLICT: {
    status: 409,
    retryable: false,
    description: 'The adapter is not in a state that allows the change (start of a DELETED adapter).',
  },
  ADAPTER_NOT_RUNNING: {
    status: 409,
    retryable: true,
    description: 'A call through an adapter that is not RUNNING; start it, or restart a DEAD one once its system answers.',
  },
  INTEGRATION_MODEL_INVALID: {
    status: 400,
    retryable: false,
    description: "The OpenAPI document is not valid; details list the parser's findings (path and message).",
  },
  INTEGRATION_MODEL_NOT_FOUND: { status: 404, retryable: false, description: 'No integration model with that versionId.' },
  INTEGRATION_MODEL_ALREADY_EXISTS: {
    status: 409,
    retryable: false,
    description: 'A model with that versionId (<info.title>:<info.version>) exists; a new version is a new model.',
  },
  INTEGRATION_MODEL_IN_USE: { status: 409, retryable: false, description: 'An integration uses the model; delete or move it first.' },
  INTEGRATION_NOT_FOUND: { status: 404, retryable: false, description: 'No integration of that name.' },
  INTEGRATION_ALREADY_EXISTS: { status: 409, retryable: false, description: 'An integration of that name exists.' },
  TASK_APP_UNKNOWN: {
    status: 404,
    retryable: false,
    description: "No integration or adapter answers to the task's app (or several do and adapter_id names none of them).",
  },
  TASK_METHOD_UNKNOWN: { status: 404, retryable: false, description: "The integration or adapter has no method of the task's name." },
  TASK_INPUT_INVALID: {
    status: 400,
    retryable: false,
    description: "The task's incoming variables do not match the operation's parameters or body; nothing was sent.",
  },
  INTEGRATION_CALL_FAILED: {
    status: 502,
    retryable: false,
    description: 'The outside system answered with a status other than 2xx; details hold status, headers and body.',
  },
  // platform administration
  APPLICATION_NOT_FOUND: { status: 404, retryable: false, description: 'No application of that name; the message lists the applications.' },
  APPLICATION_PROTECTED: {
    status: 409,
    retryable: false,
    description: 'AdminEssentials serves login and the administration routes; it cannot be stopped or restarted.',
  },
  APPLICATION_CONTROL_FAILED: {
    status: 502,
    retryable: true,
    description: 'A replica of the application did not carry out the change; the others did. details name each replica and why.',
  },
  PROFILE_NOT_FOUND: { status: 404, retryable: false, description: 'No profile with that id.' },
  PROFILE_ALREADY_EXISTS: { status: 409, retryable: false, description: 'A profile with that id exists.' },
  PROFILE_ACTIVE: { status: 409, retryable: false, description: 'The active profile cannot be deleted; activate another one first.' },
  LINK_NOT_FOUND: { status: 404, retryable: false, description: 'No external link with that id.' },
  LINK_ALREADY_EXISTS: { status: 409, retryable: false, description: 'An external link with that name exists.' },
  PREBUILT_NOT_FOUND: { status: 404, retryable: false, description: 'No installed prebuilt with that id.' },
  PREBUILT_ALREADY_EXISTS: {
    status: 409,
    retryable: false,
    description: 'A prebuilt of that name is installed; upgrade it with PUT /prebuilts/:id.',
  },
  PREBUILT_ARTIFACT_EXISTS: {
    status: 409,
    retryable: false,
    description:
      'An artifact of the package has the name of one that exists (import with overwrite, unless it belongs to another prebuilt); nothing was installed.',
  },
  PREBUILT_DEPENDENCY_MISSING: {
    status: 409,
    retryable: false,
    description:
      'The package names in metadata.IAPDependencies applications, adapters or prebuilts this platform lacks (or has in a version outside the range); the message names each; nothing was installed unless options.ignoreDependencies.',
  },
  PREBUILT_BUNDLE_UNSUPPORTED: {
    status: 422,
    retryable: false,
    description:
      'The package has bundles of a type NAP does not have (service-catalog, golden-config, …); the message names each; nothing was installed.',
  },
  PREBUILT_ARTIFACT_REFUSED: {
    status: 400,
    retryable: false,
    description:
      "The owning service refused an artifact of the package (an invalid document); the message names the bundle and the service's reason, details its problems; nothing was installed.",
  },
  PREBUILT_VERSION_NOT_NEWER: {
    status: 409,
    retryable: false,
    description: 'An upgrade must carry the same package name and a newer version.',
  },
  REPOSITORY_CONFIG_NOT_FOUND: {
    status: 404,
    retryable: false,
    description: 'No prebuilt repository configuration of that name in the active profile.',
  },
  REPOSITORY_CONFIG_ALREADY_EXISTS: {
    status: 409,
    retryable: false,
    description: 'A prebuilt repository configuration of that name exists.',
  },
  REPOSITORY_UNREACHABLE: {
    status: 502,
    retryable: true,
    description:
      'The prebuilt repository cannot be read (a missing directory, a GitLab server that does not answer); the message names the repository and the cause.',
  },
  INDEX_COLLECTION_NOT_FOUND: { status: 404, retryable: false, description: 'No service declares indexes for a collection of that name.' },
  // orchestrator (orch-proxy)
  ORCH_ADAPTER_NOT_NSO: {
    status: 422,
    retryable: false,
    description: 'The adapter is not of type NSO; the /orch_manager routes drive orchestrator (NSO) adapters only.',
  },
  ORCH_VARIABLE_UNDEFINED: {
    status: 400,
    retryable: false,
    description: 'setLeaf: the path or value uses a variable (!name! or <!name!>) that variables does not define; details name it.',
  },
  ORCH_BAD_REQUEST: {
    status: 400,
    retryable: false,
    description:
      'The orchestrator refused the request as invalid (RESTCONF 400, JSON-RPC invalid params); details hold its status, error-tag and message.',
  },
  ORCH_PATH_NOT_FOUND: {
    status: 404,
    retryable: false,
    description:
      'The orchestrator has nothing at that path (RESTCONF 404 "uri keypath not found", JSON-RPC data.not_found); details hold its answer.',
  },
  ORCH_CONFLICT: {
    status: 409,
    retryable: false,
    description:
      'The orchestrator refused the change as conflicting (data-exists, a device out of sync, a lock); details hold its status, error-tag and message.',
  },
  ORCH_REFUSED: {
    status: 422,
    retryable: false,
    description:
      'The orchestrator refused the request with another 4xx status or a JSON-RPC error (validation failed, commit failed); details hold what it answered.',
  },
  ORCH_AUTH_FAILED: {
    status: 502,
    retryable: false,
    description: "The orchestrator refused the adapter's credentials (401/403, or a failed JSON-RPC login); fix the adapter's credentials.",
  },
  ORCH_FAILED: {
    status: 502,
    retryable: true,
    description:
      'The orchestrator failed (5xx) or answered something that is not RESTCONF or JSON-RPC; details hold its status and answer.',
  },
} as const satisfies Record<string, { status: number; retryable: boolean; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

/** One problem found in a request, as listed in `details` of a 400. */
export interface ValidationProblem {
  /** Where the problem is: `body.options.variables`, `query.limit`, `params.workflow`. */
  member: string;
  message: string;
  keyword?: string;
}

/** The body of every error response of the HTTP interface and of every error reply on the bus. */
export interface ErrorBody {
  status: 'error';
  code: string;
  message: string;
  details?: unknown;
  requestId?: string;
}

export interface AppErrorOptions {
  details?: unknown;
  cause?: unknown;
  /** Overrides the status of the code table; only for codes forwarded from another system. */
  status?: number;
}

/** An error with a code from {@link ERROR_CODES}; the only kind of error handlers should throw. */
export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details?: unknown;

  constructor(code: ErrorCode | string, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = options.status ?? (isErrorCode(code) ? ERROR_CODES[code].status : 500);
    if (options.details !== undefined) this.details = options.details;
  }

  toBody(requestId?: string): ErrorBody {
    const body: ErrorBody = { status: 'error', code: this.code, message: this.message };
    if (this.details !== undefined) body.details = this.details;
    if (requestId !== undefined) body.requestId = requestId;
    return body;
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

/** True when `e` is an {@link AppError} with the given code. */
export function hasCode(e: unknown, code: ErrorCode): boolean {
  return isAppError(e) && e.code === code;
}

/** True when the error is worth retrying (timeouts, unavailable services, flaky devices). */
export function isRetryable(e: unknown): boolean {
  return isAppError(e) && isErrorCode(e.code) && ERROR_CODES[e.code].retryable;
}

export function notImplemented(operationId: string): AppError {
  return new AppError('NOT_IMPLEMENTED', `Operation ${operationId} is part of the interface but is not built yet`);
}

/** `docs/errors.md`: the error table as a newcomer reads it; a test keeps the file in step. */
export function renderErrorsMarkdown(): string {
  const rows = Object.entries(ERROR_CODES).map(
    ([code, e]) => `| \`${code}\` | ${e.status} | ${e.retryable ? 'yes' : 'no'} | ${e.description} |`,
  );
  return [
    '# Error codes',
    '',
    'Generated from `contracts/src/errors.ts` (a test fails when this file is out of step; regenerate with',
    '`UPDATE_DOCS=1 npx jest contracts/src/errors.test.ts`). Every error response has the body',
    '`{ "status": "error", "code", "message", "details"?, "requestId" }`.',
    '',
    '| code | HTTP status | retryable | meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
