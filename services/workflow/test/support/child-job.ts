import type { WorkflowDocument } from '@nap/contracts';
import { task, workflowDocument } from '@nap/testing';

/** A workflow `name` of one childJob task `cj` that runs `child` once with `variables` (operands: `{ task: 'static', value }`, …). */
export function parentOf(name: string, child: string, variables: Record<string, unknown>): WorkflowDocument {
  return workflowDocument(
    name,
    {
      cj: task(
        'childJob',
        { task: '', workflow: child, variables, data_array: '', transformation: '', loopType: '' },
        { job_details: null },
        { type: 'operation' },
      ),
    },
    [
      ['workflow_start', 'cj'],
      ['cj', 'workflow_end'],
    ],
  );
}
