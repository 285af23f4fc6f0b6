/** Sink settings from raw properties, as the task reads them, for tests of the pure parts. */
import { type SinkSettings, sinkSettingsFromProps } from "../../../src/sink/settings.ts";
import type { RawConfig } from "../../../src/common/props.ts";
import { sinkConfig, typedProps } from "./harness.ts";

export function settingsOf(overrides: RawConfig = {}): SinkSettings {
  return sinkSettingsFromProps(typedProps(sinkConfig("http://127.0.0.1:9", overrides)));
}
