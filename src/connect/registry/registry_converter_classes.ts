/** The schema registry converters' Java class names, apart from them: naming one must not load it (registry.ts). */
export const AVRO_CONVERTER_CLASS = "io.confluent.connect.avro.AvroConverter";
export const JSON_SCHEMA_CONVERTER_CLASS = "io.confluent.connect.json.JsonSchemaConverter";
export const PROTOBUF_CONVERTER_CLASS = "io.confluent.connect.protobuf.ProtobufConverter";
