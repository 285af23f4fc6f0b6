/**
 * The transformations and predicates tablesync provides, under Kafka's full class names — the only names Kafka
 * accepts in `transforms.<alias>.type` / `predicates.<alias>.type` (e.g.
 * `org.apache.kafka.connect.transforms.ReplaceField$Value`, `org.apache.kafka.connect.transforms.predicates.
 * TopicNameMatches`). Lookups are exact and case-sensitive, as Java class loading is.
 */
import type { ConnectRecord } from "../record.ts";
import { Cast, CAST_CONFIG_DEF } from "./cast.ts";
import type { ConfigKeyDef } from "./config.ts";
import { DROP_HEADERS_CONFIG_DEF, DropHeaders } from "./drop_headers.ts";
import { EXTRACT_FIELD_CONFIG_DEF, ExtractField } from "./extract_field.ts";
import { Filter, FILTER_CONFIG_DEF } from "./filter.ts";
import { Flatten, FLATTEN_CONFIG_DEF } from "./flatten.ts";
import { HEADER_FROM_CONFIG_DEF, HeaderFrom } from "./header_from.ts";
import { HOIST_FIELD_CONFIG_DEF, HoistField } from "./hoist_field.ts";
import { INSERT_FIELD_CONFIG_DEF, InsertField } from "./insert_field.ts";
import { INSERT_HEADER_CONFIG_DEF, InsertHeader } from "./insert_header.ts";
import { MASK_FIELD_CONFIG_DEF, MaskField } from "./mask_field.ts";
import { HAS_HEADER_KEY_CONFIG_DEF, HasHeaderKey } from "./predicates/has_header_key.ts";
import { RECORD_IS_TOMBSTONE_CONFIG_DEF, RecordIsTombstone } from "./predicates/record_is_tombstone.ts";
import { TOPIC_NAME_MATCHES_CONFIG_DEF, TopicNameMatches } from "./predicates/topic_name_matches.ts";
import { REGEX_ROUTER_CONFIG_DEF, RegexRouter } from "./regex_router.ts";
import { REPLACE_FIELD_CONFIG_DEF, ReplaceField } from "./replace_field.ts";
import { SET_SCHEMA_METADATA_CONFIG_DEF, SetSchemaMetadata } from "./set_schema_metadata.ts";
import type { RecordSide } from "./support.ts";
import { TIMESTAMP_CONVERTER_CONFIG_DEF, TimestampConverter } from "./timestamp_converter.ts";
import { TIMESTAMP_ROUTER_CONFIG_DEF, TimestampRouter } from "./timestamp_router.ts";
import type { AnyRecord, Predicate, PredicatePlugin, Transformation, TransformationPlugin } from "./types.ts";
import { VALUE_TO_KEY_CONFIG_DEF, ValueToKey } from "./value_to_key.ts";

const TRANSFORMS_PACKAGE = "org.apache.kafka.connect.transforms";
const PREDICATES_PACKAGE = "org.apache.kafka.connect.transforms.predicates";

// The instances are generic over the record type; the registry hands them out for whatever record type the
// caller runs them on.
type AnyTransformation = Transformation<AnyRecord>;

function transformation(
  simpleName: string,
  configDef: readonly ConfigKeyDef[],
  create: () => AnyTransformation,
): TransformationPlugin {
  return {
    kind: "transformation",
    className: `${TRANSFORMS_PACKAGE}.${simpleName}`,
    configDef,
    create: <R extends ConnectRecord<R>>() => create() as unknown as Transformation<R>,
  };
}

/** The `$Key` and `$Value` classes of a transform that works on either side. */
function keyAndValue(
  simpleName: string,
  configDef: readonly ConfigKeyDef[],
  create: (side: RecordSide) => AnyTransformation,
): TransformationPlugin[] {
  return [
    transformation(`${simpleName}$Key`, configDef, () => create("key")),
    transformation(`${simpleName}$Value`, configDef, () => create("value")),
  ];
}

function predicate(
  simpleName: string,
  configDef: readonly ConfigKeyDef[],
  create: () => Predicate<AnyRecord>,
) {
  const plugin: PredicatePlugin = {
    kind: "predicate",
    className: `${PREDICATES_PACKAGE}.${simpleName}`,
    configDef,
    create: <R extends ConnectRecord<R>>() => create() as unknown as Predicate<R>,
  };
  return plugin;
}

const TRANSFORMATIONS: readonly TransformationPlugin[] = [
  ...keyAndValue("Cast", CAST_CONFIG_DEF, (side) => new Cast(side)),
  transformation("DropHeaders", DROP_HEADERS_CONFIG_DEF, () => new DropHeaders()),
  ...keyAndValue("ExtractField", EXTRACT_FIELD_CONFIG_DEF, (side) => new ExtractField(side)),
  transformation("Filter", FILTER_CONFIG_DEF, () => new Filter()),
  ...keyAndValue("Flatten", FLATTEN_CONFIG_DEF, (side) => new Flatten(side)),
  ...keyAndValue("HeaderFrom", HEADER_FROM_CONFIG_DEF, (side) => new HeaderFrom(side)),
  ...keyAndValue("HoistField", HOIST_FIELD_CONFIG_DEF, (side) => new HoistField(side)),
  ...keyAndValue("InsertField", INSERT_FIELD_CONFIG_DEF, (side) => new InsertField(side)),
  transformation("InsertHeader", INSERT_HEADER_CONFIG_DEF, () => new InsertHeader()),
  ...keyAndValue("MaskField", MASK_FIELD_CONFIG_DEF, (side) => new MaskField(side)),
  transformation("RegexRouter", REGEX_ROUTER_CONFIG_DEF, () => new RegexRouter()),
  ...keyAndValue("ReplaceField", REPLACE_FIELD_CONFIG_DEF, (side) => new ReplaceField(side)),
  ...keyAndValue("SetSchemaMetadata", SET_SCHEMA_METADATA_CONFIG_DEF, (side) => new SetSchemaMetadata(side)),
  ...keyAndValue(
    "TimestampConverter",
    TIMESTAMP_CONVERTER_CONFIG_DEF,
    (side) => new TimestampConverter(side),
  ),
  transformation("TimestampRouter", TIMESTAMP_ROUTER_CONFIG_DEF, () => new TimestampRouter()),
  transformation("ValueToKey", VALUE_TO_KEY_CONFIG_DEF, () => new ValueToKey()),
];

const PREDICATES: readonly PredicatePlugin[] = [
  predicate("HasHeaderKey", HAS_HEADER_KEY_CONFIG_DEF, () => new HasHeaderKey()),
  predicate("RecordIsTombstone", RECORD_IS_TOMBSTONE_CONFIG_DEF, () => new RecordIsTombstone()),
  predicate("TopicNameMatches", TOPIC_NAME_MATCHES_CONFIG_DEF, () => new TopicNameMatches()),
];

const TRANSFORMATIONS_BY_CLASS = new Map(TRANSFORMATIONS.map((p) => [p.className, p]));
const PREDICATES_BY_CLASS = new Map(PREDICATES.map((p) => [p.className, p]));

/** The transformation registered under Kafka's class name, or null. */
export function findTransformation(className: string): TransformationPlugin | null {
  return TRANSFORMATIONS_BY_CLASS.get(className) ?? null;
}

/** The predicate registered under Kafka's class name, or null. */
export function findPredicate(className: string): PredicatePlugin | null {
  return PREDICATES_BY_CLASS.get(className) ?? null;
}

/** Every transformation class name, sorted (for messages and `GET /connector-plugins?connectorsOnly=false`). */
export function transformationClassNames(): string[] {
  return [...TRANSFORMATIONS_BY_CLASS.keys()].sort();
}

/** Every predicate class name, sorted. */
export function predicateClassNames(): string[] {
  return [...PREDICATES_BY_CLASS.keys()].sort();
}
