/**
 * The herder's seam to group mode (runtime/group/): which tasks this member runs, and what the other members
 * report about theirs. Standalone daemons have no placement: every task runs here.
 */
import type { TaskState } from "./task_runner.ts";

/** POST /connectors/<name>/restart's parameters (Kafka Connect's RestartRequest, KIP-745). */
export interface RestartRequest {
  includeTasks: boolean;
  onlyFailed: boolean;
}

/** A task's status as its member last reported it. */
export interface ReportedTaskStatus {
  state: string;
  workerId: string;
  trace?: string;
  /** The task's standing warnings (absent when none). */
  warnings?: string[];
  /** The group generation the member was in when it wrote the status (absent when not known). */
  generation?: number;
}

/** A task the latest rebalance round gave to a member that did not run it before. */
export interface TaskHandover {
  /** The round's generation: the new owner's statuses from it on tell what it does with the task. */
  generation: number;
  /** worker_id of the member the round gave the task to. */
  workerId: string;
}

export interface TaskPlacement {
  /** Whether this member runs the connector's task. */
  owns(connector: string, task: number): boolean;
  /** A task of this member changed state or warnings (stopped tasks report UNASSIGNED, or FAILED). */
  onTaskState(
    connector: string,
    task: number,
    state: TaskState,
    trace: string | undefined,
    warnings: string[],
  ): void;
  /** The status of a task that does not run here. */
  remoteTask(connector: string, task: number): ReportedTaskStatus | undefined;
  /**
   * The task's handover in the latest rebalance round this member heard of (maybe not yet applied here), when
   * that round gave it to a member that did not run it: until that member reports the task from that
   * generation on, a status from before (say, its previous owner's UNASSIGNED) is out of date.
   */
  handedOver(connector: string, task: number): TaskHandover | undefined;
  /** worker_id of the member the connector is assigned to. */
  connectorWorker(connector: string): string | undefined;
  /** Reads the source offsets other members wrote (the shared offsets topic) into this member's store. */
  readSharedOffsets(): Promise<void>;
  /**
   * Asks every member to restart what it runs of the connector (the herder's applyRestart on each); resolves
   * once the request is written, as Connect's distributed herder does.
   */
  requestRestart(connector: string, request: RestartRequest): Promise<void>;
  /** Asks the member running the task to restart it (the herder's applyTaskRestart there). */
  requestTaskRestart(connector: string, task: number): Promise<void>;
}
