/**
 * How the source task gives a table its reconcile passes: the task opens the state topic once and keeps one
 * recorder (state_recorder.ts); each table with a reconcile interval gets a pass built from the parts its
 * poller owns (its page reader, its row shape, its cursor position), so the pass reads and builds exactly as
 * the stream does.
 */
import type { SourcePartition } from "../../connect/record.ts";
import type { SourceTaskContext } from "../../connect/task_api.ts";
import type { TableRow } from "../../instance/mod.ts";
import type { Envelope } from "../envelope.ts";
import type { PageReader } from "../page_reader.ts";
import type { RecordBuilder } from "../record_builder.ts";
import type { RecordQueue } from "../record_queue.ts";
import type { RowPosition } from "../row_handler.ts";
import type { RowValueBuilder } from "../schema_modes/mod.ts";
import type { TableSettings } from "../settings.ts";
import { ReconcilePass } from "./reconcile_pass.ts";
import { StateRecorder } from "./state_recorder.ts";
import { seedState } from "./state_seed.ts";
import { STATE_PARTITIONS } from "./state_entry.ts";

export type ReconcileWiring = (
  pages: PageReader,
  shaped: (row: TableRow) => TableRow,
  position: RowPosition,
) => ReconcilePass;

export interface TableReconcileParts {
  readonly table: TableSettings;
  readonly context: SourceTaskContext;
  readonly recorder: StateRecorder;
  readonly records: RecordBuilder;
  readonly values: RowValueBuilder;
  readonly envelope: Envelope | null;
  readonly queue: RecordQueue;
  readonly partition: SourcePartition;
  readonly roomLeft: () => boolean;
}

/** The table's wiring, or undefined when its passes are off. */
export function reconcileWiring(parts: TableReconcileParts): ReconcileWiring | undefined {
  const t = parts.table;
  if (t.reconcileIntervalSeconds <= 0) return undefined;
  const tableId = StateRecorder.tableId(parts.context.connectorName, t.topic);
  parts.recorder.addTable(t.topic, tableId);
  return (pages, shaped, position) =>
    new ReconcilePass({
      ...parts,
      tableId,
      pages,
      shaped,
      position,
      intervalMs: t.reconcileIntervalSeconds * 1000,
      seed: parts.context.readTopicValues
        ? () =>
          seedState({
            recorder: parts.recorder,
            tableId,
            topic: t.topic,
            timestampField: t.timestampField,
            modCountField: t.modCountField,
            read: parts.context.readTopicValues!.bind(parts.context),
          })
        : undefined,
    });
}

/**
 * Opens the state topic when some table reconciles and the runtime offers one; else null, and null with a
 * warning when the topic cannot be created or used (a cluster that cannot create topics through the API).
 */
export async function openRecorder(
  tables: readonly TableSettings[],
  topic: string,
  context: SourceTaskContext,
): Promise<StateRecorder | null> {
  if (!tables.some((t) => t.reconcileIntervalSeconds > 0) || !context.stateTopic) return null;
  try {
    return new StateRecorder(await context.stateTopic(topic, STATE_PARTITIONS));
  } catch (error) {
    // Streaming does not depend on the passes: the task runs without them and says why.
    const reason = error instanceof Error ? error.message : String(error);
    context.logger.warn(
      { topic, error: reason },
      `reconcile passes are off for this task: the state topic ${topic} cannot be used (${reason})`,
    );
    return null;
  }
}
