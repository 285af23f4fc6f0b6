/** The framework plugins listed by `GET /connector-plugins?connectorsOnly=false`: converters, transforms, predicates. */
import { defaultConverterRegistry } from "../connect/converters/registry.ts";
import { predicateClassNames, transformationClassNames } from "../connect/transforms/registry.ts";
import { VERSION } from "../version.ts";

export function frameworkPlugins(): { class: string; type: string; version: string }[] {
  return [
    ...defaultConverterRegistry.classNames("converter").map((c) => ({
      class: c,
      type: "converter",
      version: VERSION,
    })),
    ...defaultConverterRegistry.classNames("header_converter").map((c) => ({
      class: c,
      type: "header_converter",
      version: VERSION,
    })),
    ...transformationClassNames().map((c) => ({ class: c, type: "transformation", version: VERSION })),
    ...predicateClassNames().map((c) => ({ class: c, type: "predicate", version: VERSION })),
  ];
}
