// /openapi/v2 in protobuf (application/com.github.proto-openapi.spec.v2@v1.0+protobuf): the
// Swagger document as gnostic's openapi_v2.Document message (github.com/google/gnostic-models
// openapiv2/OpenAPIv2.proto; the field numbers below are that file's). client-go asks for the v2
// document in this form only (discovery_client.go OpenAPISchema), so kubectl's v2 readers
// (explain --output plaintext-openapiv2, v2 validation) need it. Values gnostic keeps as `Any`
// (defaults, enums, examples, x-* extensions) carry their YAML text; JSON is YAML, so that is
// their JSON text.

type Json = Record<string, unknown>;

// One message under construction: fields appended in order, wire format as protobuf defines it.
class Message {
  readonly #parts: Buffer[] = [];

  #key(field: number, wireType: number): void {
    this.#varint(field * 8 + wireType);
  }

  #varint(n: number): void {
    const bytes: number[] = [];
    let v = n;
    while (v >= 0x80) {
      bytes.push((v % 0x80) + 0x80);
      v = Math.floor(v / 0x80);
    }
    bytes.push(v);
    this.#parts.push(Buffer.from(bytes));
  }

  string(field: number, value: unknown): this {
    if (typeof value !== 'string' || value === '') return this;
    return this.bytes(field, Buffer.from(value, 'utf8'));
  }

  strings(field: number, values: unknown): this {
    for (const v of Array.isArray(values) ? values : []) this.string(field, v);
    return this;
  }

  bool(field: number, value: unknown): this {
    if (value !== true) return this;
    this.#key(field, 0);
    this.#varint(1);
    return this;
  }

  int(field: number, value: unknown): this {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) return this;
    this.#key(field, 0);
    this.#varint(value);
    return this;
  }

  double(field: number, value: unknown): this {
    if (typeof value !== 'number') return this;
    this.#key(field, 1);
    const b = Buffer.alloc(8);
    b.writeDoubleLE(value);
    this.#parts.push(b);
    return this;
  }

  bytes(field: number, value: Buffer): this {
    this.#key(field, 2);
    this.#varint(value.length);
    this.#parts.push(value);
    return this;
  }

  message(field: number, build: (m: Message) => unknown): this {
    const m = new Message();
    build(m);
    return this.bytes(field, m.encode());
  }

  encode(): Buffer {
    return Buffer.concat(this.#parts);
  }
}

// gnostic's Any: field 2 holds the YAML text of the value.
function any(m: Message, field: number, value: unknown): void {
  if (value === undefined) return;
  m.message(field, (a) => a.string(2, JSON.stringify(value)));
}

function extensions(m: Message, field: number, obj: Json): void {
  for (const [name, value] of Object.entries(obj)) {
    if (name.startsWith('x-')) m.message(field, (n) => (n.string(1, name), any(n, 2, value)));
  }
}

function schema(m: Message, s: Json): void {
  m.string(1, s['$ref']).string(2, s['format']).string(3, s['title']).string(4, s['description']);
  any(m, 5, s['default']);
  m.double(6, s['multipleOf']).double(7, s['maximum']).bool(8, s['exclusiveMaximum']);
  m.double(9, s['minimum']).bool(10, s['exclusiveMinimum']);
  m.int(11, s['maxLength']).int(12, s['minLength']).string(13, s['pattern']);
  m.int(14, s['maxItems']).int(15, s['minItems']).bool(16, s['uniqueItems']);
  m.int(17, s['maxProperties']).int(18, s['minProperties']).strings(19, s['required']);
  for (const e of (s['enum'] ?? []) as unknown[]) any(m, 20, e);
  const additional = s['additionalProperties'];
  if (typeof additional === 'boolean') m.message(21, (a) => a.bool(2, additional));
  else if (additional !== null && typeof additional === 'object') m.message(21, (a) => a.message(1, (x) => schema(x, additional as Json)));
  if (s['type'] !== undefined) m.message(22, (t) => t.strings(1, Array.isArray(s['type']) ? s['type'] : [s['type']]));
  const items = s['items'];
  if (items !== null && typeof items === 'object') {
    m.message(23, (i) => {
      for (const item of Array.isArray(items) ? (items as Json[]) : [items as Json]) i.message(1, (x) => schema(x, item));
    });
  }
  for (const sub of (s['allOf'] ?? []) as Json[]) m.message(24, (x) => schema(x, sub));
  const properties = s['properties'] as Record<string, Json> | undefined;
  if (properties !== undefined) {
    m.message(25, (p) => {
      for (const [name, value] of Object.entries(properties)) p.message(1, (n) => n.string(1, name).message(2, (x) => schema(x, value)));
    });
  }
  m.bool(27, s['readOnly']);
  any(m, 30, s['example']);
  extensions(m, 31, s);
}

function parameter(m: Message, p: Json): void {
  m.message(1, (param) => {
    if (p['in'] === 'body') {
      param.message(1, (b) => {
        b.string(1, p['description']).string(2, p['name']).string(3, p['in']).bool(4, p['required']);
        b.message(5, (x) => schema(x, p['schema'] as Json));
      });
      return;
    }
    // Query and path parameters (the only other kinds the documents have); their fields differ
    // in number from `type` on (the query form has allow_empty_value at 5).
    const path = p['in'] === 'path';
    param.message(2, (nb) =>
      nb.message(path ? 4 : 3, (q) => {
        q.bool(1, p['required']).string(2, p['in']).string(3, p['description']).string(4, p['name']);
        q.string(path ? 5 : 6, p['type']).bool(path ? 19 : 20, p['uniqueItems']);
      }),
    );
  });
}

function operation(m: Message, op: Json): void {
  m.strings(1, op['tags']).string(3, op['description']).string(5, op['operationId']);
  m.strings(6, op['produces']).strings(7, op['consumes']);
  for (const p of (op['parameters'] ?? []) as Json[]) m.message(8, (x) => parameter(x, p));
  m.message(9, (responses) => {
    for (const [code, r] of Object.entries((op['responses'] ?? {}) as Record<string, Json>)) {
      responses.message(1, (named) =>
        named.string(1, code).message(2, (value) =>
          value.message(1, (response) => {
            response.string(1, r['description']);
            if (r['schema'] !== undefined) response.message(2, (item) => item.message(1, (x) => schema(x, r['schema'] as Json)));
          }),
        ),
      );
    }
  });
  m.strings(10, op['schemes']);
  extensions(m, 13, op);
}

const OPERATIONS: Readonly<Record<string, number>> = { get: 2, put: 3, post: 4, delete: 5, patch: 8 };

/** The protobuf encoding of a Swagger 2.0 document (the JSON form openapi-v2.ts builds). */
export function swaggerV2Protobuf(doc: Json): Buffer {
  const m = new Message();
  m.string(1, doc['swagger']);
  const info = doc['info'] as Json;
  m.message(2, (i) => i.string(1, info['title']).string(2, info['version']));
  m.message(8, (paths) => {
    for (const [path, item] of Object.entries(doc['paths'] as Record<string, Json>)) {
      paths.message(2, (named) =>
        named.string(1, path).message(2, (p) => {
          for (const [method, field] of Object.entries(OPERATIONS)) {
            if (item[method] !== undefined) p.message(field, (x) => operation(x, item[method] as Json));
          }
          for (const param of (item['parameters'] ?? []) as Json[]) p.message(9, (x) => parameter(x, param));
        }),
      );
    }
  });
  m.message(9, (definitions) => {
    for (const [name, s] of Object.entries(doc['definitions'] as Record<string, Json>)) {
      definitions.message(1, (named) => named.string(1, name).message(2, (x) => schema(x, s)));
    }
  });
  for (const requirement of (doc['security'] ?? []) as Record<string, string[]>[]) {
    m.message(12, (r) => {
      for (const [name, scopes] of Object.entries(requirement))
        r.message(1, (n) => n.string(1, name).message(2, (a) => a.strings(1, scopes)));
    });
  }
  m.message(13, (definitions) => {
    for (const [name, d] of Object.entries((doc['securityDefinitions'] ?? {}) as Record<string, Json>)) {
      // Only apiKey definitions are published (BearerToken).
      definitions.message(1, (named) =>
        named
          .string(1, name)
          .message(2, (item) =>
            item.message(2, (k) => k.string(1, d['type']).string(2, d['name']).string(3, d['in']).string(4, d['description'])),
          ),
      );
    }
  });
  return m.encode();
}
