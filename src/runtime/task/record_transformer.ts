/**
 * What a task's driver applies to each record between the task and the converters: the connector's transforms
 * (connect/transforms/chain.ts), set up by the task builders. null drops the record. Both drivers use it, so it
 * lives with what every task thread has.
 */
export interface RecordTransformer<R> {
  apply(record: R): R | null;
}
