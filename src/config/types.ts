/** The config layer's shapes, defined in the low room (src/common/props.ts) so the connector interface can use them. */
export type { PropValue, RawConfig, TypedProps } from "../common/props.ts";
