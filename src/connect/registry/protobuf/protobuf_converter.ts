/**
 * `io.confluent.connect.protobuf.ProtobufConverter`: Connect Structs as Protobuf messages in Confluent's wire
 * format, .proto schemas in the schema registry. Besides the registry settings it reads
 * `wrapper.for.nullables` and `optional.for.nullables` (both default false; see proto_from_connect.ts).
 */
import { booleanSetting } from "../../converters/config_values.ts";
import type { ConverterConfig } from "../../converters/converter.ts";
import { RegistryConverter } from "../registry_converter.ts";
import { ProtobufFormat, type ProtoSchema } from "./proto_format.ts";

export const PROTOBUF_CONVERTER_CLASS = "io.confluent.connect.protobuf.ProtobufConverter";

export class ProtobufConverter extends RegistryConverter<ProtoSchema> {
  readonly className = PROTOBUF_CONVERTER_CLASS;

  protected createFormat(configs: ConverterConfig): ProtobufFormat {
    return new ProtobufFormat({
      wrappers: booleanSetting(configs, "wrapper.for.nullables", false),
      optionalLabel: booleanSetting(configs, "optional.for.nullables", false),
    });
  }
}
