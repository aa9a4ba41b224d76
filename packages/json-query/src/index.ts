/**
 * The json-query dialect of workflow `query` and `evaluation` tasks and of the JST method
 * `WorkFlowEngine.query`: one implementation, so a query means the same wherever a user writes it.
 */
export { runJsonQuery } from './json-query';
