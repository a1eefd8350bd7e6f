/**
 * docker-compose.yml, checked without Docker: it is valid against the official Compose Specification
 * JSON schema (test/fixtures/compose-spec.json, see compose-spec.SOURCE.md), and it agrees with the rest
 * of the project: the Kafka image is the version the tests run against (scripts/kafka/pom.xml), the
 * services set only environment variables the CLI reads, the addresses between services line up with
 * the broker's listeners, the published ports are the documented ones, and start-up order waits on
 * health checks. The Dockerfile and .dockerignore are checked for what compose relies on.
 *
 * The schema is checked with the small draft-07 validator below (no JSON-schema library is a direct
 * dependency of the project): it implements every keyword the Compose schema uses and refuses to run
 * on a schema with any other, so a newer upstream schema cannot be half-checked silently.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (rel: string) => readFileSync(join(ROOT, rel), 'utf8');

interface DependsOn {
  condition: string;
}
interface Service {
  image?: string;
  build?: string | { context?: string };
  command?: string[] | string;
  environment?: Record<string, string | number | boolean | null>;
  ports?: (string | number)[];
  volumes?: string[];
  depends_on?: Record<string, DependsOn>;
  healthcheck?: { test: string[] | string };
}
interface ComposeFile {
  name?: string;
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const composeText = read('docker-compose.yml');
const compose = parse(composeText) as ComposeFile;

function service(name: string): Service {
  const s = compose.services[name];
  if (!s) throw new Error(`docker-compose.yml has no service '${name}'`);
  return s;
}

function env(name: string): Record<string, string> {
  const e = service(name).environment ?? {};
  return Object.fromEntries(Object.entries(e).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

/** Published "HOST:CONTAINER" port pairs of a service. */
function published(name: string): string[] {
  return (service(name).ports ?? []).map(String);
}

/** The text of a source file plus, recursively, the project files it imports by relative path. */
function sourceWithImports(rel: string, seen = new Set<string>()): string {
  const file = resolve(ROOT, rel);
  if (seen.has(file)) return '';
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  let all = text;
  for (const m of text.matchAll(/from\s+'(\.{1,2}\/[^']+)\.js'/g)) {
    all += `\n${sourceWithImports(join(dirname(file), `${m[1]}.ts`), seen)}`;
  }
  return all;
}

/** Whether `source` reads the variable: `env['NAME']`, `env.NAME` or a helper call `f(env, 'NAME', ...)`. */
const readsEnv = (source: string, name: string) =>
  new RegExp(`env(?:\\[\\s*['"]${name}['"]\\s*\\]|\\.${name}\\b)|\\(\\s*env\\s*,\\s*['"]${name}['"]`).test(source);

function kafkaVersionInPom(): string {
  const m = /<kafka\.version>\s*([^<\s]+)\s*<\/kafka\.version>/.exec(read('scripts/kafka/pom.xml'));
  if (!m?.[1]) throw new Error('no <kafka.version> in scripts/kafka/pom.xml');
  return m[1];
}

/** `NAME://host:port` entries of a Kafka listener list. */
function listeners(value: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of (value ?? '').split(',')) {
    const m = /^\s*([A-Z_]+):\/\/(.*?)\s*$/.exec(entry);
    if (m?.[1]) out.set(m[1], m[2] ?? '');
  }
  return out;
}

describe('docker-compose.yml against the Compose Specification', () => {
  const schema = JSON.parse(read('test/fixtures/compose-spec.json')) as JsonSchema;

  it('the fixture is the draft-07 Compose Specification schema', () => {
    expect(schema['$schema']).toMatch(/draft-07/);
    expect(schema['title']).toBe('Compose Specification');
    expect(Object.keys(schema['definitions'] as object)).toEqual(expect.arrayContaining(['service', 'healthcheck']));
  });

  it('is a valid Compose file', () => {
    expect(validateJsonSchema(schema, compose)).toEqual([]);
  });

  it('the validator really checks (a misspelt key and a bad depends_on condition are rejected)', () => {
    const broken = structuredClone(compose) as unknown as {
      services: Record<string, Record<string, unknown>>;
    };
    const racing = broken.services['racing'];
    if (!racing) throw new Error('no racing service');
    racing['enviroment'] = { A: 'b' };
    racing['depends_on'] = { kafka: { condition: 'healthy' } };
    const errors = validateJsonSchema(schema, broken).join('\n');
    expect(errors).toContain("/services/racing: property 'enviroment' is not allowed");
    expect(errors).toMatch(/\/services\/racing\/depends_on\/kafka\/condition: must be one of .*service_healthy/);
  });

  it('the validator handles the keywords it claims (oneOf, $ref, uniqueItems, minimum, pattern, type lists)', () => {
    const s: JsonSchema = {
      definitions: { port: { type: 'integer', minimum: 1, maximum: 65535 } },
      type: 'object',
      required: ['ports'],
      properties: {
        ports: { type: 'array', items: { $ref: '#/definitions/port' }, uniqueItems: true },
        name: { oneOf: [{ type: 'string', pattern: '^[a-z]+$' }, { type: ['null', 'boolean'] }] },
        either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        both: { allOf: [{ type: 'number' }, { minimum: 3 }] },
      },
      additionalProperties: false,
    };
    expect(validateJsonSchema(s, { ports: [1, 2], name: 'abc', either: 2, both: 4 })).toEqual([]);
    expect(validateJsonSchema(s, { ports: [0, 2, 2], name: 'ABC', either: [], both: 1 })).toEqual([
      '/ports/0: must be >= 1',
      '/ports: must not contain duplicate items (2 and 1)',
      "/name: must match exactly one schema of oneOf (matched 0): /name: must match pattern '^[a-z]+$'",
      '/either: must match at least one schema of anyOf',
      '/both: must be >= 3',
    ]);
    expect(validateJsonSchema(s, {})).toEqual(["/: must have required property 'ports'"]);
    expect(() => validateJsonSchema({ if: { type: 'string' } }, 'x')).toThrow(/unsupported keyword 'if'/);
  });

  it('names the three services and their volumes', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['kafka', 'racing', 'schema-registry']);
    expect(Object.keys(compose.volumes ?? {}).sort()).toEqual(['kafka-data', 'racing-data']);
  });
});

describe('kafka service', () => {
  const e = env('kafka');

  it('runs the Apache Kafka version of scripts/kafka/pom.xml', () => {
    expect(service('kafka').image).toBe(`apache/kafka:${kafkaVersionInPom()}`);
  });

  it('is a single KRaft node in combined mode (broker + controller)', () => {
    expect(e['KAFKA_PROCESS_ROLES']?.split(',').sort()).toEqual(['broker', 'controller']);
    expect(e['KAFKA_NODE_ID']).toBe('1');
    expect(e['KAFKA_CONTROLLER_QUORUM_VOTERS']).toMatch(/^1@kafka:\d+$/);
    expect(e['CLUSTER_ID']).toMatch(/^[A-Za-z0-9_-]{22}$/);
    for (const rf of ['KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR', 'KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR']) {
      expect(e[rf], rf).toBe('1');
    }
  });

  it('has a listener for containers (kafka:19092) and one for the host (localhost:9092)', () => {
    const bound = listeners(e['KAFKA_LISTENERS']);
    const advertised = listeners(e['KAFKA_ADVERTISED_LISTENERS']);
    const protocols = listeners(
      (e['KAFKA_LISTENER_SECURITY_PROTOCOL_MAP'] ?? '').replace(/([A-Z_]+):([A-Z_]+)/g, '$1://$2'),
    );
    const controller = e['KAFKA_CONTROLLER_LISTENER_NAMES'];
    expect(controller).toBeTruthy();
    for (const name of bound.keys()) expect(protocols.has(name), `protocol of listener ${name}`).toBe(true);
    expect([...advertised.values()].sort()).toEqual(['kafka:19092', 'localhost:9092']);
    for (const [name, addr] of advertised) {
      expect(name).not.toBe(controller);
      const port = addr.split(':')[1];
      expect(bound.get(name), `listener ${name} is bound`).toBe(`:${port}`);
    }
    const internal = [...advertised].find(([, addr]) => addr === 'kafka:19092')?.[0];
    expect(e['KAFKA_INTER_BROKER_LISTENER_NAME']).toBe(internal);
    // only the host listener is published; the controller port never is
    expect(published('kafka')).toEqual(['9092:9092']);
  });

  it('has a health check that asks the broker itself', () => {
    expect(JSON.stringify(service('kafka').healthcheck?.test)).toMatch(/kafka-broker-api-versions\.sh.*19092/);
  });

  it('keeps its data in a named volume at KAFKA_LOG_DIRS', () => {
    expect(service('kafka').volumes).toContain(`kafka-data:${e['KAFKA_LOG_DIRS']}`);
  });
});

describe('schema-registry and racing services', () => {
  const cliConfig = sourceWithImports('cli/config.ts');

  it('are built from this repository (one image, ENTRYPOINT racing)', () => {
    for (const name of ['schema-registry', 'racing']) {
      expect(service(name).build, name).toBe('.');
      expect(service(name).image, name).toBe(service('racing').image);
    }
    expect(service('schema-registry').command).toEqual(['registry']);
    expect(service('racing').command).toEqual(['start']);
  });

  it('racing: Kafka mode against the internal listener and the registry service', () => {
    const e = env('racing');
    const registryPort = env('schema-registry')['REGISTRY_PORT'];
    expect(e).toMatchObject({
      RACING_MODE: 'kafka',
      KAFKA_BROKERS: 'kafka:19092',
      SCHEMA_REGISTRY_URL: `http://schema-registry:${registryPort}`,
      HOST: '0.0.0.0',
      PORT: '3000',
    });
    expect(registryPort).toBe('8081');
  });

  it('racing: sets only environment variables that cli/config.ts reads', () => {
    const unknown = Object.keys(env('racing')).filter((name) => !readsEnv(cliConfig, name));
    expect(unknown, 'read by neither cli/config.ts nor the config modules it imports').toEqual([]);
  });

  it('schema-registry: sets only environment variables that the CLI reads', () => {
    const cli = [cliConfig, ...['cli/racing.ts', 'cli/runtime.ts'].map((f) => sourceWithImports(f, new Set()))].join(
      '\n',
    );
    const unknown = Object.keys(env('schema-registry')).filter((name) => !readsEnv(cli, name));
    expect(unknown, 'read nowhere under cli/').toEqual([]);
    expect(env('schema-registry')).toMatchObject({ KAFKA_BROKERS: 'kafka:19092', REGISTRY_HOST: '0.0.0.0' });
  });

  it('racing: keeps RACING_DATA_DIR in a named volume', () => {
    expect(service('racing').volumes).toContain(`racing-data:${env('racing')['RACING_DATA_DIR']}`);
  });

  it('publish the API on 3000 and the registry on 8081', () => {
    expect(published('racing')).toEqual(['3000:3000']);
    expect(published('schema-registry')).toEqual([`8081:${env('schema-registry')['REGISTRY_PORT']}`]);
  });
});

describe('start-up order and health', () => {
  it('every service has a health check', () => {
    for (const [name, s] of Object.entries(compose.services)) {
      expect(s.healthcheck?.test, `${name} healthcheck`).toBeTruthy();
    }
  });

  it('the registry waits for a healthy broker; the service for both', () => {
    expect(service('schema-registry').depends_on).toEqual({ kafka: { condition: 'service_healthy' } });
    expect(service('racing').depends_on).toEqual({
      kafka: { condition: 'service_healthy' },
      'schema-registry': { condition: 'service_healthy' },
    });
  });

  it('health checks probe the published ports (the API health route and the registry)', () => {
    const racing = JSON.stringify(service('racing').healthcheck?.test);
    expect(racing).toContain(`:${env('racing')['PORT']}/api/v1/health`);
    const registry = JSON.stringify(service('schema-registry').healthcheck?.test);
    expect(registry).toContain(`:${env('schema-registry')['REGISTRY_PORT']}/subjects`);
  });
});

describe('ports agree with the docs and tools', () => {
  it('docs/consumers.md and scripts/consume-analytics.py use the published addresses', () => {
    const doc = read('docs/consumers.md');
    expect(doc).toContain('localhost:9092');
    expect(doc).toContain('http://localhost:8081');
    expect(doc).toContain('docker compose up');
    const py = read('scripts/consume-analytics.py');
    expect(py).toContain('"localhost:9092"');
    expect(py).toContain('"http://localhost:8081"');
  });

  it("the API's default port is the one compose publishes", () => {
    expect(read('api/config.ts')).toMatch(/port:\s*3000\b/);
    expect(read('README.md')).toMatch(/`PORT` \(`3000`\)/);
  });
});

describe('Dockerfile and .dockerignore', () => {
  const dockerfile = read('Dockerfile');
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));

  it('builds on node:20-bookworm-slim with npm ci and npm run build', () => {
    const froms = instructions.filter((l) => l.startsWith('FROM '));
    expect(froms.length).toBeGreaterThan(0);
    for (const f of froms) expect(f).toMatch(/^FROM node:20-bookworm-slim\b/);
    expect(dockerfile).toMatch(/RUN npm ci\b/);
    expect(dockerfile).toMatch(/npm run build\b/);
  });

  it('copies every source folder the build compiles, and the Avro schemas read at run time', () => {
    const build = JSON.parse(read('tsconfig.build.json')) as { include: string[] };
    for (const dir of [...build.include, 'schemas']) {
      expect(instructions, `COPY of ${dir}/`).toContainEqual(expect.stringMatching(new RegExp(`^COPY ${dir} `)));
    }
    expect(instructions).toContainEqual(expect.stringMatching(/^COPY --from=build \/app\/schemas /));
  });

  it('runs as a non-root user with ENTRYPOINT racing', () => {
    const user = instructions.filter((l) => l.startsWith('USER ')).at(-1);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^USER (root|0)\b/);
    expect(instructions.filter((l) => l.startsWith('ENTRYPOINT ')).at(-1)).toBe('ENTRYPOINT ["racing"]');
  });

  it('keeps local state out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    for (const entry of ['node_modules', 'data', 'dist', '.cache', '.git']) expect(ignored).toContain(entry);
  });
});

// ---------------------------------------------------------------------------------------------------
// A JSON Schema (draft-07) validator for the keywords the Compose Specification schema uses.

type JsonSchema = { [keyword: string]: unknown };

/** Keywords that carry no constraint here ("format" is an annotation, as in draft-07 by default). */
const ANNOTATIONS = new Set([
  '$schema',
  '$id',
  '$comment',
  'title',
  'description',
  'default',
  'deprecated',
  'examples',
  'format',
  'definitions',
]);
const ASSERTIONS = new Set([
  '$ref',
  'type',
  'enum',
  'const',
  'properties',
  'patternProperties',
  'additionalProperties',
  'required',
  'items',
  'uniqueItems',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'minProperties',
  'maxProperties',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
]);

/**
 * Validates `value` against `root`; returns every error as `<instance path>: <message>` (empty when valid).
 * Throws on a keyword outside the supported subset, and on a $ref that is not a local JSON pointer.
 */
function validateJsonSchema(root: JsonSchema, value: unknown): string[] {
  const errors: string[] = [];
  check(root, root, value, '', errors);
  return errors;
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

function hasType(v: unknown, type: string): boolean {
  if (type === 'integer') return Number.isInteger(v);
  return typeOf(v) === type;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeOf(a) !== typeOf(b) || typeof a !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  return ak.length === Object.keys(bo).length && ak.every((k) => k in bo && deepEqual(ao[k], bo[k]));
}

function resolveRef(root: JsonSchema, ref: string): JsonSchema {
  if (!ref.startsWith('#/')) throw new Error(`unsupported $ref '${ref}' (only local JSON pointers)`);
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = (node as Record<string, unknown> | undefined)?.[part];
  }
  if (typeOf(node) !== 'object') throw new Error(`$ref '${ref}' does not resolve to a schema`);
  return node as JsonSchema;
}

const regexCache = new Map<string, RegExp>();
function regex(pattern: string): RegExp {
  let r = regexCache.get(pattern);
  if (!r) {
    r = new RegExp(pattern, 'u');
    regexCache.set(pattern, r);
  }
  return r;
}

function check(root: JsonSchema, schema: unknown, value: unknown, path: string, errors: string[]): void {
  if (schema === true) return;
  if (schema === false) {
    errors.push(`${path || '/'}: no value is allowed here`);
    return;
  }
  const s = schema as JsonSchema;
  for (const k of Object.keys(s)) {
    if (!ASSERTIONS.has(k) && !ANNOTATIONS.has(k))
      throw new Error(`unsupported keyword '${k}' at schema path ${path || '/'}`);
  }
  const at = path || '/';
  // draft-07: a $ref replaces the rest of its schema object
  if (typeof s['$ref'] === 'string') {
    check(root, resolveRef(root, s['$ref']), value, path, errors);
    return;
  }
  if (s['type'] !== undefined) {
    const types = Array.isArray(s['type']) ? (s['type'] as string[]) : [s['type'] as string];
    if (!types.some((t) => hasType(value, t))) {
      errors.push(`${at}: must be ${types.join(' or ')} (is ${typeOf(value)})`);
      return; // the other keywords would only repeat the mismatch
    }
  }
  if (Array.isArray(s['enum']) && !s['enum'].some((e) => deepEqual(e, value))) {
    errors.push(`${at}: must be one of ${JSON.stringify(s['enum'])} (is ${JSON.stringify(value)})`);
  }
  if ('const' in s && !deepEqual(s['const'], value)) errors.push(`${at}: must be ${JSON.stringify(s['const'])}`);

  if (typeof value === 'number') {
    if (typeof s['minimum'] === 'number' && value < s['minimum']) errors.push(`${at}: must be >= ${s['minimum']}`);
    if (typeof s['maximum'] === 'number' && value > s['maximum']) errors.push(`${at}: must be <= ${s['maximum']}`);
    if (typeof s['exclusiveMinimum'] === 'number' && value <= s['exclusiveMinimum'])
      errors.push(`${at}: must be > ${s['exclusiveMinimum']}`);
    if (typeof s['exclusiveMaximum'] === 'number' && value >= s['exclusiveMaximum'])
      errors.push(`${at}: must be < ${s['exclusiveMaximum']}`);
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof s['minLength'] === 'number' && length < s['minLength'])
      errors.push(`${at}: must be at least ${s['minLength']} characters`);
    if (typeof s['maxLength'] === 'number' && length > s['maxLength'])
      errors.push(`${at}: must be at most ${s['maxLength']} characters`);
    if (typeof s['pattern'] === 'string' && !regex(s['pattern']).test(value))
      errors.push(`${at}: must match pattern '${s['pattern']}'`);
  }
  if (Array.isArray(value)) {
    if (Array.isArray(s['items'])) {
      (s['items'] as unknown[]).forEach((itemSchema, i) => {
        if (i < value.length) check(root, itemSchema, value[i], `${path}/${i}`, errors);
      });
    } else if (s['items'] !== undefined) {
      value.forEach((item, i) => check(root, s['items'], item, `${path}/${i}`, errors));
    }
    if (typeof s['minItems'] === 'number' && value.length < s['minItems'])
      errors.push(`${at}: must have at least ${s['minItems']} items`);
    if (typeof s['maxItems'] === 'number' && value.length > s['maxItems'])
      errors.push(`${at}: must have at most ${s['maxItems']} items`);
    if (s['uniqueItems'] === true) {
      for (let i = 1; i < value.length; i++) {
        const j = value.findIndex((x, k) => k < i && deepEqual(x, value[i]));
        if (j >= 0) {
          errors.push(`${at}: must not contain duplicate items (${i} and ${j})`);
          break;
        }
      }
    }
  }
  if (typeOf(value) === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj);
    for (const r of (s['required'] as string[] | undefined) ?? []) {
      if (!(r in obj)) errors.push(`${at}: must have required property '${r}'`);
    }
    if (typeof s['minProperties'] === 'number' && keys.length < s['minProperties'])
      errors.push(`${at}: must have at least ${s['minProperties']} properties`);
    if (typeof s['maxProperties'] === 'number' && keys.length > s['maxProperties'])
      errors.push(`${at}: must have at most ${s['maxProperties']} properties`);
    const props = (s['properties'] as Record<string, unknown> | undefined) ?? {};
    const patterns = Object.entries((s['patternProperties'] as Record<string, unknown> | undefined) ?? {});
    for (const k of keys) {
      const childPath = `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      let matched = false;
      if (Object.hasOwn(props, k)) {
        matched = true;
        check(root, props[k], obj[k], childPath, errors);
      }
      for (const [pattern, sub] of patterns) {
        if (regex(pattern).test(k)) {
          matched = true;
          check(root, sub, obj[k], childPath, errors);
        }
      }
      if (!matched && s['additionalProperties'] !== undefined) {
        if (s['additionalProperties'] === false) errors.push(`${at}: property '${k}' is not allowed`);
        else check(root, s['additionalProperties'], obj[k], childPath, errors);
      }
    }
  }

  const branches = (keyword: string) =>
    (s[keyword] as unknown[] | undefined)?.map((sub) => {
      const e: string[] = [];
      check(root, sub, value, path, e);
      return e;
    });
  const all = branches('allOf');
  if (all) for (const e of all) errors.push(...e);
  const any = branches('anyOf');
  if (any && !any.some((e) => e.length === 0)) errors.push(`${at}: must match at least one schema of anyOf`);
  const one = branches('oneOf');
  if (one) {
    const matched = one.filter((e) => e.length === 0).length;
    if (matched !== 1) {
      // the reasons of the branches of the right type (a plain type mismatch explains nothing)
      const reasons = one.flat().filter((e) => !e.startsWith(`${at}: must be `) || !/\(is \w+\)$/.test(e));
      errors.push(
        `${at}: must match exactly one schema of oneOf (matched ${matched})${reasons.length ? `: ${reasons.join('; ')}` : ''}`,
      );
    }
  }
  if (s['not'] !== undefined) {
    const e: string[] = [];
    check(root, s['not'], value, path, e);
    if (e.length === 0) errors.push(`${at}: must not match the schema in 'not'`);
  }
}
