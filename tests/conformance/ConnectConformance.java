import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.storage.MemoryOffsetBackingStore;
import org.apache.kafka.connect.storage.OffsetStorageWriter;
import org.apache.kafka.connect.transforms.Transformation;
import org.apache.kafka.connect.transforms.predicates.Predicate;
import org.apache.kafka.connect.util.Callback;

/**
 * Kafka Connect's own classes answering the conformance tests (tests/conformance/*_test.ts), one JSON request per
 * stdin line, one JSON answer per stdout line: {"ok":true,...} or {"ok":false,"error":"Class: message"}.
 *
 * Connect data travels as Connect's JSON envelope ({"schema":...,"payload":...}), read here by Connect's own
 * JsonConverter; results come back as "described" values (see describe()), a JSON form that keeps every Java type
 * (int8 vs int64, float32 vs float64, bytes, Decimal, Date, Struct, Map with non-string keys) so the TypeScript side
 * can compare its own values exactly (tests/conformance/describe.ts writes the same form).
 *
 * Requests:
 *   {"op":"convert","envelope":"...","config":{"schemas.enable":"false",...}}
 *       → {"json": the bytes fromConnectData writes (UTF-8), "read": describe(toConnectData(those bytes))}
 *   {"op":"read","json":"...","config":{...}} → {"read": describe(toConnectData(json))}
 *   {"op":"transform","class":"...","config":{...},"record":{...}} → {"record": describe(record) or null}
 *   {"op":"predicate","class":"...","config":{...},"record":{...}} → {"result": true|false}
 *   {"op":"offset","connector":"c","partition":{...},"offset":{...}|null}
 *       → {"key": "...", "value": "..."|null}: the record an OffsetStorageWriter flushes to the offsets topic
 * A record is {"topic","partition","timestamp","key","value","headers":[{"key","value"}]} where key, value and each
 * header value are envelopes (or null).
 */
public final class ConnectConformance {
  /** Answers escape non-ASCII characters, so a lone surrogate survives the trip over a UTF-8 pipe. */
  private static final ObjectMapper MAPPER = new ObjectMapper()
      .configure(com.fasterxml.jackson.core.JsonGenerator.Feature.ESCAPE_NON_ASCII, true);
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final JsonConverter ENVELOPE = converter(Map.of("schemas.enable", "true"), false);

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isBlank()) continue;
      ObjectNode answer;
      try {
        answer = handle(MAPPER.readTree(line));
        answer.put("ok", true);
      } catch (Throwable e) {
        answer = NODES.objectNode();
        answer.put("ok", false);
        answer.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
      }
      out.println(MAPPER.writeValueAsString(answer));
    }
  }

  private static ObjectNode handle(JsonNode request) throws Exception {
    ObjectNode answer = NODES.objectNode();
    switch (request.get("op").asText()) {
      case "convert": {
        JsonConverter converter = converter(config(request), false);
        SchemaAndValue data = fromEnvelope(request.get("envelope").asText());
        byte[] bytes = converter.fromConnectData("t", data.schema(), data.value());
        answer.put("json", bytes == null ? null : new String(bytes, StandardCharsets.UTF_8));
        answer.set("read", describe(converter.toConnectData("t", bytes)));
        return answer;
      }
      case "read": {
        JsonConverter converter = converter(config(request), false);
        byte[] bytes = request.get("json").isNull() ? null : request.get("json").asText().getBytes(StandardCharsets.UTF_8);
        answer.set("read", describe(converter.toConnectData("t", bytes)));
        return answer;
      }
      case "transform": {
        @SuppressWarnings("unchecked")
        Transformation<SourceRecord> t = (Transformation<SourceRecord>) instance(request.get("class").asText());
        t.configure(config(request));
        SourceRecord result = t.apply(record(request.get("record")));
        answer.set("record", result == null ? NODES.nullNode() : describeRecord(result));
        t.close();
        return answer;
      }
      case "predicate": {
        @SuppressWarnings("unchecked")
        Predicate<SourceRecord> p = (Predicate<SourceRecord>) instance(request.get("class").asText());
        p.configure(config(request));
        answer.put("result", p.test(record(request.get("record"))));
        p.close();
        return answer;
      }
      case "offset":
        return offsetRecord(request);
      case "workerKeys":
        return workerKeys();
      default:
        throw new IllegalArgumentException("unknown op " + request.get("op"));
    }
  }

  /** Every key a Connect worker defines: DistributedConfig's ConfigDef and StandaloneConfig's (private, by reflection). */
  private static ObjectNode workerKeys() throws Exception {
    java.util.TreeSet<String> names = new java.util.TreeSet<>();
    java.lang.reflect.Method distributed = org.apache.kafka.connect.runtime.distributed.DistributedConfig.class
        .getDeclaredMethod("config", org.apache.kafka.connect.runtime.distributed.Crypto.class);
    distributed.setAccessible(true);
    names.addAll(((org.apache.kafka.common.config.ConfigDef) distributed.invoke(null,
        org.apache.kafka.connect.runtime.distributed.Crypto.SYSTEM)).names());
    java.lang.reflect.Field standalone = org.apache.kafka.connect.runtime.standalone.StandaloneConfig.class
        .getDeclaredField("CONFIG");
    standalone.setAccessible(true);
    names.addAll(((org.apache.kafka.common.config.ConfigDef) standalone.get(null)).names());
    ObjectNode answer = NODES.objectNode();
    com.fasterxml.jackson.databind.node.ArrayNode keys = answer.putArray("keys");
    names.forEach(keys::add);
    return answer;
  }

  /** What a Connect worker's OffsetStorageWriter hands to the offsets topic for one source partition. */
  private static ObjectNode offsetRecord(JsonNode request) throws Exception {
    Map<ByteBuffer, ByteBuffer> written = new LinkedHashMap<>();
    MemoryOffsetBackingStore store = new MemoryOffsetBackingStore() {
      @Override
      public java.util.concurrent.Future<Void> set(Map<ByteBuffer, ByteBuffer> values, Callback<Void> callback) {
        written.putAll(values);
        if (callback != null) callback.onCompletion(null, null);
        return java.util.concurrent.CompletableFuture.completedFuture(null);
      }

      @Override
      public java.util.Set<Map<String, Object>> connectorPartitions(String connectorName) {
        return java.util.Set.of();
      }
    };
    // The worker's internal converters: JsonConverter with schemas disabled (WorkerConfig / Worker.internal*).
    JsonConverter internal = converter(Map.of("schemas.enable", "false"), false);
    String connector = request.get("connector").asText();
    OffsetStorageWriter writer = new OffsetStorageWriter(store, connector, internal, internal);
    @SuppressWarnings("unchecked")
    Map<String, Object> partition = (Map<String, Object>) plain(request.get("partition"));
    @SuppressWarnings("unchecked")
    Map<String, Object> offset = (Map<String, Object>) plain(request.get("offset"));
    writer.offset(partition, offset);
    if (!writer.beginFlush(10, TimeUnit.SECONDS)) throw new IllegalStateException("nothing to flush");
    writer.doFlush((error, result) -> { }).get(10, TimeUnit.SECONDS);
    ObjectNode answer = NODES.objectNode();
    Map.Entry<ByteBuffer, ByteBuffer> entry = written.entrySet().iterator().next();
    answer.put("key", utf8(entry.getKey()));
    answer.put("value", entry.getValue() == null ? null : utf8(entry.getValue()));
    return answer;
  }

  private static String utf8(ByteBuffer buffer) {
    ByteBuffer copy = buffer.duplicate();
    byte[] bytes = new byte[copy.remaining()];
    copy.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** JSON → plain Java values, maps in document order (a connector's LinkedHashMap), integers as Integer/Long. */
  private static Object plain(JsonNode node) {
    if (node == null || node.isNull()) return null;
    if (node.isObject()) {
      Map<String, Object> map = new LinkedHashMap<>();
      node.fields().forEachRemaining(e -> map.put(e.getKey(), plain(e.getValue())));
      return map;
    }
    if (node.isArray()) {
      List<Object> list = new ArrayList<>();
      node.forEach(n -> list.add(plain(n)));
      return list;
    }
    if (node.isInt()) return node.intValue();
    if (node.isLong()) return node.longValue();
    if (node.isNumber()) return node.doubleValue();
    if (node.isBoolean()) return node.booleanValue();
    return node.asText();
  }

  private static Object instance(String className) throws Exception {
    return Class.forName(className).getDeclaredConstructor().newInstance();
  }

  private static Map<String, String> config(JsonNode request) {
    Map<String, String> config = new HashMap<>();
    JsonNode node = request.get("config");
    if (node != null) node.fields().forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText()));
    return config;
  }

  private static JsonConverter converter(Map<String, String> config, boolean isKey) {
    JsonConverter converter = new JsonConverter();
    Map<String, String> settings = new HashMap<>(config);
    settings.putIfAbsent("converter.type", isKey ? "key" : "value");
    converter.configure(settings);
    return converter;
  }

  private static SchemaAndValue fromEnvelope(String envelope) {
    return ENVELOPE.toConnectData("t", envelope.getBytes(StandardCharsets.UTF_8));
  }

  private static SchemaAndValue envelopeField(JsonNode record, String field) {
    JsonNode node = record.get(field);
    return node == null || node.isNull() ? SchemaAndValue.NULL : fromEnvelope(node.asText());
  }

  private static SourceRecord record(JsonNode json) {
    SchemaAndValue key = envelopeField(json, "key");
    SchemaAndValue value = envelopeField(json, "value");
    ConnectHeaders headers = new ConnectHeaders();
    JsonNode list = json.get("headers");
    if (list != null) {
      for (JsonNode h : list) {
        SchemaAndValue v = envelopeField(h, "value");
        headers.add(h.get("key").asText(), v.value(), v.schema());
      }
    }
    Integer partition = json.hasNonNull("partition") ? json.get("partition").asInt() : null;
    Long timestamp = json.hasNonNull("timestamp") ? json.get("timestamp").asLong() : null;
    return new SourceRecord(null, null, json.get("topic").asText(), partition, key.schema(), key.value(),
        value.schema(), value.value(), timestamp, headers);
  }

  private static ObjectNode describeRecord(ConnectRecord<?> record) {
    ObjectNode node = NODES.objectNode();
    node.put("topic", record.topic());
    if (record.kafkaPartition() == null) node.putNull("partition");
    else node.put("partition", record.kafkaPartition());
    if (record.timestamp() == null) node.putNull("timestamp");
    else node.put("timestamp", record.timestamp());
    node.set("key", describe(new SchemaAndValue(record.keySchema(), record.key())));
    node.set("value", describe(new SchemaAndValue(record.valueSchema(), record.value())));
    ArrayNode headers = node.putArray("headers");
    for (Header h : record.headers()) {
      ObjectNode header = headers.addObject();
      header.put("key", h.key());
      header.set("value", describe(new SchemaAndValue(h.schema(), h.value())));
    }
    return node;
  }

  /** {"schema": describeSchema or null, "value": describeValue}. */
  private static ObjectNode describe(SchemaAndValue data) {
    ObjectNode node = NODES.objectNode();
    node.set("schema", describeSchema(data.schema()));
    node.set("value", describeValue(data.value()));
    return node;
  }

  private static JsonNode describeSchema(Schema schema) {
    if (schema == null) return NODES.nullNode();
    ObjectNode node = NODES.objectNode();
    node.put("type", schema.type().getName());
    node.put("optional", schema.isOptional());
    if (schema.name() != null) node.put("name", schema.name());
    if (schema.version() != null) node.put("version", schema.version());
    if (schema.doc() != null) node.put("doc", schema.doc());
    if (schema.parameters() != null && !schema.parameters().isEmpty()) {
      ObjectNode parameters = node.putObject("parameters");
      schema.parameters().forEach(parameters::put);
    }
    if (schema.defaultValue() != null) node.set("default", describeValue(schema.defaultValue()));
    switch (schema.type()) {
      case STRUCT: {
        ArrayNode fields = node.putArray("fields");
        for (Field f : schema.fields()) {
          ObjectNode field = fields.addObject();
          field.put("name", f.name());
          field.set("schema", describeSchema(f.schema()));
        }
        break;
      }
      case ARRAY:
        node.set("items", describeSchema(schema.valueSchema()));
        break;
      case MAP:
        node.set("keys", describeSchema(schema.keySchema()));
        node.set("values", describeSchema(schema.valueSchema()));
        break;
      default:
        break;
    }
    return node;
  }

  /** A value with its Java type: {"int32": 5}, {"string": "x"}, {"struct": {...}}, {"map": [[k, v], ...]}. */
  private static JsonNode describeValue(Object value) {
    if (value == null) return NODES.nullNode();
    ObjectNode node = NODES.objectNode();
    if (value instanceof Byte) node.put("int8", (Byte) value);
    else if (value instanceof Short) node.put("int16", (Short) value);
    else if (value instanceof Integer) node.put("int32", (Integer) value);
    else if (value instanceof Long) node.put("int64", value.toString());
    else if (value instanceof Float) node.put("float32", (double) (Float) value);
    else if (value instanceof Double) node.put("float64", (Double) value);
    else if (value instanceof Boolean) node.put("boolean", (Boolean) value);
    else if (value instanceof String) node.put("string", (String) value);
    else if (value instanceof byte[]) node.put("bytes", Base64.getEncoder().encodeToString((byte[]) value));
    else if (value instanceof ByteBuffer) node.put("bytes", Base64.getEncoder().encodeToString(bytes((ByteBuffer) value)));
    else if (value instanceof BigDecimal) node.put("decimal", ((BigDecimal) value).toString());
    else if (value instanceof java.util.Date) node.put("date", ((java.util.Date) value).getTime());
    else if (value instanceof Struct) {
      Struct struct = (Struct) value;
      ObjectNode fields = node.putObject("struct");
      for (Field f : struct.schema().fields()) fields.set(f.name(), describeValue(struct.get(f)));
    } else if (value instanceof List) {
      ArrayNode items = node.putArray("array");
      for (Object item : (List<?>) value) items.add(describeValue(item));
    } else if (value instanceof Map) {
      ArrayNode entries = node.putArray("map");
      for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
        ArrayNode pair = entries.addArray();
        pair.add(describeValue(e.getKey()));
        pair.add(describeValue(e.getValue()));
      }
    } else {
      node.put("unknown", value.getClass().getName() + ": " + value);
    }
    return node;
  }

  private static byte[] bytes(ByteBuffer buffer) {
    ByteBuffer copy = buffer.duplicate();
    byte[] out = new byte[copy.remaining()];
    copy.get(out);
    return out;
  }

  private ConnectConformance() {}
}
