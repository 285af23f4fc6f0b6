/**
 * The config layer's shapes, defined in the low room (src/common/props.ts) so the connector interface can use
 * them. Import them from src/common/props.ts; this re-export remains only for bench/support/source_task.ts.
 */
export type { RawConfig } from "../common/props.ts";
