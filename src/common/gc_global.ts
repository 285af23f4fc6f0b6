/**
 * The global V8's gc function is exposed as: the daemon's V8 flags name it (`--expose-gc-as`,
 * daemon/v8_flags.ts) and a task thread's idle collection calls it (runtime/task/idle_collection.ts). Its own
 * file so that the main thread's flags do not load task-thread code.
 */
export const COLLECT_GARBAGE_NAME = "tablesyncCollectGarbage";
