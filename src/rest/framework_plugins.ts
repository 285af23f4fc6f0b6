/** The framework plugins listed by `GET /connector-plugins?connectorsOnly=false`: converters (transforms join later). */
import { defaultConverterRegistry } from "../connect/converters/registry.ts";
import { VERSION } from "../version.ts";

export function frameworkPlugins(): { class: string; type: string; version: string }[] {
  return [
    ...defaultConverterRegistry.classNames("converter").map((c) => ({ class: c, type: "converter", version: VERSION })),
    ...defaultConverterRegistry.classNames("header_converter").map((c) => ({
      class: c,
      type: "header_converter",
      version: VERSION,
    })),
  ];
}
