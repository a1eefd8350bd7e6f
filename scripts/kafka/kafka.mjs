#!/usr/bin/env node
// Local single-node Apache Kafka broker (KRaft, combined broker+controller) for tests and development.
//
// No Docker: the broker's jars are resolved once from Maven Central by scripts/kafka/pom.xml into a
// cache directory ($RACING_KAFKA_CACHE, default ~/.cache/racing-kafka/<kafka-version>) and the broker
// runs as a plain `java` process on two free loopback ports, with its data in a temp directory.
//
//   node scripts/kafka/kafka.mjs up       start a detached broker, print KAFKA_BROKERS=127.0.0.1:PORT
//   node scripts/kafka/kafka.mjs stop     stop it and keep its data; `start` (or `up`) restarts it on that data
//   node scripts/kafka/kafka.mjs start    the same as `up`
//   node scripts/kafka/kafka.mjs down     stop it (SIGTERM, SIGKILL after a deadline) and delete its data
//   node scripts/kafka/kafka.mjs status   print whether it runs (exit 0) or not (exit 1)
//
// Programmatic use (vitest globalSetup, scripts):
//   import { startKafka } from './scripts/kafka/kafka.mjs';
//   const kafka = await startKafka();   // { brokers: '127.0.0.1:PORT', controllerPort, pid, dataDir, stop() }
//   ...; await kafka.stop();
//
// Plain Node ESM on purpose (no TypeScript, no npm dependencies): it must run before anything is built.

import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const PROJECT_ROOT = path.resolve(HERE, '..', '..');
const POM_FILE = path.join(HERE, 'pom.xml');
const LOG4J_FILE = path.join(HERE, 'log4j.properties');
export const STATE_FILE = path.join(PROJECT_ROOT, '.cache', 'kafka', 'state.json');
const CLI_LOCK_DIR = path.join(PROJECT_ROOT, '.cache', 'kafka', 'cli.lock');

const HOST = '127.0.0.1';
const TMP_PREFIX = 'racing-kafka-';
const BROKER_INFO = 'broker.json'; // written into every data dir we start a broker in
const DEFAULT_START_TIMEOUT_MS = 120_000;
const DEFAULT_STOP_TIMEOUT_MS = 30_000;
const RESOLVE_TIMEOUT_MS = 15 * 60_000;

/** Heap/GC/JIT options; replace them all with RACING_KAFKA_JVM_OPTS="...". */
const DEFAULT_JVM_OPTS = [
  '-Xms64m',
  '-Xmx512m',
  '-XX:+UseSerialGC',
  '-XX:TieredStopAtLevel=1',
  '-XX:ReservedCodeCacheSize=64m',
  '-XX:MaxMetaspaceSize=256m',
  '-Xss512k',
];

/** An environment problem (missing tool, failed resolution, broker that would not start). */
export class KafkaSetupError extends Error {
  /** @param {string} message @param {{ missing?: string[] }} [extra] */
  constructor(message, extra = {}) {
    super(message);
    this.name = 'KafkaSetupError';
    /** @type {string[]} */
    this.missing = extra.missing ?? [];
  }
}

// ---------------------------------------------------------------------------------------------
// Versions, cache, prerequisites

/** The Kafka version pinned in scripts/kafka/pom.xml (single source of truth). */
export function kafkaVersion() {
  const pom = fs.readFileSync(POM_FILE, 'utf8');
  const m = /<kafka\.version>\s*([^<\s]+)\s*<\/kafka\.version>/.exec(pom);
  if (!m?.[1]) throw new KafkaSetupError(`cannot find <kafka.version> in ${POM_FILE}`);
  return m[1];
}

/** Where the broker's jars live: $RACING_KAFKA_CACHE or ~/.cache/racing-kafka/<kafka-version>. */
export function kafkaCacheDir() {
  const fromEnv = process.env.RACING_KAFKA_CACHE;
  if (fromEnv) return path.resolve(fromEnv);
  return path.join(os.homedir(), '.cache', 'racing-kafka', kafkaVersion());
}

function pomHash() {
  const h = createHash('sha256');
  h.update(fs.readFileSync(POM_FILE));
  return h.digest('hex');
}

function isExecutableFile(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** First executable `name` on PATH, or null. */
function which(name) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/** `java` from $JAVA_HOME/bin (as Kafka's own scripts do), else from PATH. */
export function findJava() {
  const home = process.env.JAVA_HOME;
  if (home) {
    const candidate = path.join(home, 'bin', 'java');
    if (isExecutableFile(candidate)) return candidate;
  }
  return which('java');
}

/** `mvn` from PATH, else from $MAVEN_HOME/bin or $M2_HOME/bin. */
export function findMaven() {
  const onPath = which('mvn');
  if (onPath) return onPath;
  for (const home of [process.env.MAVEN_HOME, process.env.M2_HOME]) {
    if (!home) continue;
    const candidate = path.join(home, 'bin', 'mvn');
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

function readMarker(cacheDir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(cacheDir, '.complete'), 'utf8'));
  } catch {
    return null;
  }
}

/** True when the jars for the current pom.xml are already in the cache (mvn is then not needed). */
export function jarsCached(cacheDir = kafkaCacheDir()) {
  const marker = readMarker(cacheDir);
  return Boolean(marker && marker.pomSha256 === pomHash() && fs.existsSync(path.join(cacheDir, 'lib')));
}

/**
 * What a local broker needs and what is missing. `mvn` is only required while the jars are not cached.
 * @returns {{ ok: boolean, missing: string[], java: string | null, mvn: string | null, jarsCached: boolean, cacheDir: string }}
 */
export function checkPrerequisites() {
  const java = findJava();
  const mvn = findMaven();
  const cacheDir = kafkaCacheDir();
  const cached = jarsCached(cacheDir);
  const missing = [];
  if (!java) missing.push('java');
  if (!mvn && !cached) missing.push('mvn');
  return { ok: missing.length === 0, missing, java, mvn, jarsCached: cached, cacheDir };
}

function missingToolError(missing) {
  const hints = {
    java: 'a Java 17+ runtime (`java` on PATH or $JAVA_HOME/bin/java; Debian: apt-get install openjdk-17-jre-headless)',
    mvn: 'Apache Maven (`mvn` on PATH; Debian: apt-get install maven), needed once to fetch the Kafka jars from Maven Central',
  };
  const list = missing.map((m) => `  - ${m}: ${hints[m] ?? m}`).join('\n');
  return new KafkaSetupError(`Cannot start a local Kafka broker, missing:\n${list}`, { missing });
}

// ---------------------------------------------------------------------------------------------
// Small helpers

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `pid` is a live (non-zombie) process. */
export function isAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if (err.code !== 'EPERM') return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return true; // no /proc (macOS): trust kill(0)
  }
}

/** Whether `pid` is alive and (where /proc exists) really a Kafka broker, not a recycled pid. */
function isKafkaProcess(pid) {
  if (!isAlive(pid)) return false;
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('kafka.Kafka');
  } catch {
    return true;
  }
}

async function readJson(file) {
  try {
    return JSON.parse(await fsp.readFile(file, 'utf8'));
  } catch {
    return null;
  }
}

async function tail(file, lines = 40) {
  try {
    const text = await fsp.readFile(file, 'utf8');
    const trimmed = text.trimEnd();
    return trimmed ? trimmed.split('\n').slice(-lines).join('\n') : null;
  } catch {
    return null;
  }
}

/** Crude cross-process lock: an atomically created directory holding the owner's pid. */
async function withLock(lockDir, what, fn, { timeoutMs = RESOLVE_TIMEOUT_MS, staleMs = RESOLVE_TIMEOUT_MS } = {}) {
  await fsp.mkdir(path.dirname(lockDir), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  let told = false;
  for (;;) {
    try {
      await fsp.mkdir(lockDir);
      await fsp.writeFile(path.join(lockDir, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      const owner = Number(await fsp.readFile(path.join(lockDir, 'pid'), 'utf8').catch(() => 'NaN'));
      const age = Date.now() - ((await fsp.stat(lockDir).catch(() => null))?.mtimeMs ?? Date.now());
      if ((Number.isInteger(owner) && !isAlive(owner)) || age > staleMs) {
        await fsp.rm(lockDir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new KafkaSetupError(`timed out waiting for ${what} (lock ${lockDir})`);
      if (!told) {
        process.stderr.write(`[kafka] waiting for another process: ${what} (lock ${lockDir})\n`);
        told = true;
      }
      await sleep(500);
    }
  }
  try {
    return await fn();
  } finally {
    await fsp.rm(lockDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Jar resolution

/**
 * Makes sure the broker's runtime classpath is in the cache, running Maven once if needed.
 * @param {{ log?: (msg: string) => void }} [opts]
 * @returns {Promise<string>} the lib directory (use as `-cp '<lib>/*'`)
 */
export async function ensureKafkaJars({ log = () => {} } = {}) {
  const cacheDir = kafkaCacheDir();
  const libDir = path.join(cacheDir, 'lib');
  if (jarsCached(cacheDir)) return libDir;
  const mvn = findMaven();
  if (!mvn) throw missingToolError(['mvn']);
  await fsp.mkdir(cacheDir, { recursive: true });
  return withLock(path.join(cacheDir, '.lock'), 'Kafka jar resolution', async () => {
    if (jarsCached(cacheDir)) return libDir; // another process finished while we waited
    const version = kafkaVersion();
    const partial = path.join(cacheDir, `lib.partial-${process.pid}`);
    await fsp.rm(partial, { recursive: true, force: true });
    log(`[kafka] resolving Kafka ${version} jars from Maven Central into ${libDir} (first run only)...`);
    const started = Date.now();
    const args = [
      '-q',
      '-B',
      '-Dstyle.color=never',
      '-f',
      POM_FILE,
      'dependency:copy-dependencies',
      '-DincludeScope=runtime',
      `-DoutputDirectory=${partial}`,
    ];
    const result = await run(mvn, args, { cwd: HERE, timeoutMs: RESOLVE_TIMEOUT_MS });
    const kafkaJar = path.join(partial, `kafka_2.13-${version}.jar`);
    if (result.code !== 0 || !fs.existsSync(kafkaJar)) {
      await fsp.rm(partial, { recursive: true, force: true });
      const output = result.output.trim().split('\n').slice(-40).join('\n');
      throw new KafkaSetupError(
        `Maven could not resolve the Kafka ${version} jars (\`${mvn} ${args.join(' ')}\` exited with ${result.code ?? result.signal}).\n` +
          `Is Maven Central reachable (proxy / ~/.m2/settings.xml)?\n--- mvn output (last 40 lines) ---\n${output || '(none)'}`,
      );
    }
    await fsp.rm(libDir, { recursive: true, force: true });
    await fsp.rename(partial, libDir);
    const jars = (await fsp.readdir(libDir)).filter((f) => f.endsWith('.jar'));
    await fsp.writeFile(
      path.join(cacheDir, '.complete'),
      `${JSON.stringify({ kafkaVersion: version, pomSha256: pomHash(), jars: jars.length, resolvedAt: new Date().toISOString() }, null, 2)}\n`,
    );
    log(`[kafka] resolved ${jars.length} jars in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    return libDir;
  });
}

/** Runs a command to completion, collecting stdout+stderr. */
function run(cmd, args, { cwd, timeoutMs }) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk) => {
      output += chunk.toString();
      if (output.length > 200_000) output = output.slice(-100_000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, output: `${output}\n${err.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Broker configuration

/** Two (or n) distinct free loopback ports. */
async function freePorts(n) {
  const servers = [];
  try {
    for (let i = 0; i < n; i++) {
      const server = net.createServer();
      servers.push(server);
      await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, HOST, resolve);
      });
    }
    return servers.map((s) => s.address().port);
  } finally {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(() => resolve()))));
  }
}

/** A random Kafka Uuid in its string form (22 chars of unpadded URL-safe base64), as `StorageTool random-uuid`. */
export function randomKafkaUuid() {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id; // Kafka avoids ids that look like CLI flags
  }
}

function serverProperties({ brokerPort, controllerPort, kafkaLogDir, overrides }) {
  /** @type {Record<string, string | number | boolean>} */
  const props = {
    'process.roles': 'broker,controller',
    'node.id': 1,
    'controller.quorum.voters': `1@${HOST}:${controllerPort}`,
    listeners: `PLAINTEXT://${HOST}:${brokerPort},CONTROLLER://${HOST}:${controllerPort}`,
    'advertised.listeners': `PLAINTEXT://${HOST}:${brokerPort}`,
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'log.dirs': kafkaLogDir,
    // single node: every internal topic has exactly one replica
    'offsets.topic.replication.factor': 1,
    'offsets.topic.num.partitions': 1, // default 50 makes the first consumer-group join slow
    'transaction.state.log.replication.factor': 1,
    'transaction.state.log.min.isr': 1,
    'transaction.state.log.num.partitions': 1,
    'default.replication.factor': 1,
    'min.insync.replicas': 1,
    'num.partitions': 1,
    'auto.create.topics.enable': false,
    'group.initial.rebalance.delay.ms': 0,
    // fast start / small footprint
    'num.network.threads': 2,
    'num.io.threads': 2,
    'background.threads': 2,
    'num.recovery.threads.per.data.dir': 1,
    'num.replica.fetchers': 1,
    'broker.heartbeat.interval.ms': 500,
    'controller.quorum.election.backoff.max.ms': 200,
    // compaction must be observable within a test: see docs/kafka-local.md for the topic configs to pair with
    'log.cleaner.enable': true,
    'log.cleaner.threads': 1,
    'log.cleaner.backoff.ms': 1000,
    'log.cleaner.dedupe.buffer.size': 16 * 1024 * 1024, // default 128 MiB of heap
    'log.cleaner.io.buffer.size': 512 * 1024,
    'log.cleaner.min.cleanable.ratio': 0.01,
    'log.cleaner.min.compaction.lag.ms': 0,
    'log.retention.check.interval.ms': 5000,
    'log.index.size.max.bytes': 1024 * 1024,
    ...overrides,
  };
  const lines = Object.entries(props).map(([k, v]) => `${k}=${String(v).replace(/\\/g, '\\\\')}`);
  return `# written by scripts/kafka/kafka.mjs at ${new Date().toISOString()}\n${lines.join('\n')}\n`;
}

function jvmOpts() {
  const fromEnv = process.env.RACING_KAFKA_JVM_OPTS?.trim();
  return fromEnv ? fromEnv.split(/\s+/) : DEFAULT_JVM_OPTS;
}

// ---------------------------------------------------------------------------------------------
// Kafka wire protocol: just enough to know the broker serves requests

function kafkaRequest(apiKey, apiVersion, correlationId, body = Buffer.alloc(0)) {
  const clientId = Buffer.from('racing-kafka-probe');
  const header = Buffer.alloc(10);
  header.writeInt16BE(apiKey, 0);
  header.writeInt16BE(apiVersion, 2);
  header.writeInt32BE(correlationId, 4);
  header.writeInt16BE(clientId.length, 8);
  const payload = Buffer.concat([header, clientId, body]);
  const size = Buffer.alloc(4);
  size.writeInt32BE(payload.length, 0);
  return Buffer.concat([size, payload]);
}

/**
 * Asks the broker for ApiVersions (v0) and then Metadata (v4, no topics) and checks that it lists itself.
 * Resolves with { apiCount, brokers } or rejects with the reason.
 */
export function probeKafka(host, port, timeoutMs = 3000) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    let buffered = Buffer.alloc(0);
    let step = 0;
    let apiCount = 0;
    const finish = (err, value) => {
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(value);
    };
    const timer = setTimeout(
      () => finish(new Error(`no Kafka response from ${host}:${port} within ${timeoutMs}ms`)),
      timeoutMs,
    );
    socket.on('error', (err) => finish(err));
    socket.on('close', () => finish(new Error(`connection to ${host}:${port} closed before a Kafka response`)));
    socket.on('connect', () => socket.write(kafkaRequest(18, 0, 1)));
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length < 4) return;
      const size = buffered.readInt32BE(0);
      if (buffered.length < 4 + size) return;
      const frame = buffered.subarray(4, 4 + size);
      buffered = buffered.subarray(4 + size);
      try {
        if (step === 0) {
          // ApiVersionsResponse v0: correlation_id, error_code, [api_key, min_version, max_version]
          if (frame.readInt32BE(0) !== 1) throw new Error('ApiVersions: wrong correlation id');
          const errorCode = frame.readInt16BE(4);
          if (errorCode !== 0) throw new Error(`ApiVersions: error code ${errorCode}`);
          apiCount = frame.readInt32BE(6);
          let metadata = null;
          for (let i = 0, off = 10; i < apiCount; i++, off += 6) {
            if (frame.readInt16BE(off) === 3) metadata = [frame.readInt16BE(off + 2), frame.readInt16BE(off + 4)];
          }
          if (!metadata) throw new Error('ApiVersions: broker does not offer Metadata');
          if (metadata[0] > 4 || metadata[1] < 4) {
            finish(null, { apiCount, brokers: null }); // a far newer/older broker: ApiVersions has to do
            return;
          }
          step = 1;
          // MetadataRequest v4: topics = [] (none), allow_auto_topic_creation = false
          socket.write(kafkaRequest(3, 4, 2, Buffer.from([0, 0, 0, 0, 0])));
        } else {
          // MetadataResponse v4: correlation_id, throttle_time_ms, brokers [node_id, host, port, rack], ...
          if (frame.readInt32BE(0) !== 2) throw new Error('Metadata: wrong correlation id');
          const brokers = frame.readInt32BE(8);
          if (brokers < 1) throw new Error('Metadata: broker not registered yet');
          finish(null, { apiCount, brokers });
        }
      } catch (err) {
        finish(err);
      }
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Starting and stopping

async function waitForExit(pid, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await sleep(100);
  }
  return !isAlive(pid);
}

/** SIGTERM, wait up to timeoutMs, then SIGKILL. Resolves true if it had to kill. */
export async function stopProcess(pid, timeoutMs = DEFAULT_STOP_TIMEOUT_MS) {
  if (!isAlive(pid)) return false;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return false;
  }
  if (await waitForExit(pid, timeoutMs)) return false;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
  await waitForExit(pid, 10_000);
  return true;
}

/** Deletes temp data dirs of brokers (started by this script) whose broker and owner are both gone. */
async function sweepStaleDataDirs() {
  const tmp = os.tmpdir();
  // The `kafka:up` broker's data survives `kafka:stop` and crashes: only `kafka:down` deletes it.
  const recorded = (await readJson(STATE_FILE))?.dataDir;
  let entries = [];
  try {
    entries = await fsp.readdir(tmp);
  } catch {
    return;
  }
  for (const name of entries) {
    if (!name.startsWith(TMP_PREFIX)) continue;
    const dir = path.join(tmp, name);
    if (recorded && path.resolve(recorded) === dir) continue;
    const info = await readJson(path.join(dir, BROKER_INFO));
    if (!info) continue; // still being set up, or not ours
    if (isKafkaProcess(info.pid)) continue;
    if (info.ownerPid && isAlive(info.ownerPid)) continue;
    await fsp.rm(dir, { recursive: true, force: true }).catch(() => {});
  }
}

/**
 * Kills the broker if the process that started it dies without calling stop() (e.g. vitest killed with
 * SIGKILL): a detached `sh` loop that watches both pids and removes the temp data dir afterwards.
 */
function spawnWatchdog(ownerPid, brokerPid, dataDirToRemove) {
  const rm = dataDirToRemove ? `rm -rf '${dataDirToRemove.replace(/'/g, `'\\''`)}'` : ':';
  const script =
    `while kill -0 ${ownerPid} 2>/dev/null && kill -0 ${brokerPid} 2>/dev/null; do sleep 1; done; ` +
    `if ! kill -0 ${ownerPid} 2>/dev/null; then kill -TERM ${brokerPid} 2>/dev/null; ` +
    `i=0; while kill -0 ${brokerPid} 2>/dev/null && [ $i -lt 30 ]; do sleep 1; i=$((i+1)); done; ` +
    `kill -KILL ${brokerPid} 2>/dev/null; ${rm}; fi`;
  try {
    const child = spawn('/bin/sh', ['-c', script], { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
    return child.pid ?? null;
  } catch {
    return null;
  }
}

/**
 * @typedef {object} StartKafkaOptions
 * @property {string} [dataDir] where server.properties and the Kafka log dirs go; default: a fresh temp dir
 *   that stop() deletes. A given dataDir is kept (and reused if already formatted).
 * @property {string} [logDir] where server.log / stdout.log go; default `<dataDir>/logs`
 * @property {boolean} [detached] leave the broker running after this process exits (used by `up`)
 * @property {number} [startTimeoutMs] default 120000
 * @property {Record<string, string | number | boolean>} [serverProperties] extra/overriding broker configs
 * @property {(msg: string) => void} [log] progress messages (default: silent)
 * @property {AbortSignal} [signal] abort a start in progress (the broker is killed)
 * @property {number} [brokerPort] listen on this port instead of a free one (a restart on the same data
 *   keeps the address its clients know); with controllerPort; a port in use fails the start
 * @property {number} [controllerPort] see brokerPort
 *
 * @typedef {object} KafkaHandle
 * @property {string} brokers `127.0.0.1:PORT` for the PLAINTEXT listener
 * @property {number} brokerPort
 * @property {number} controllerPort
 * @property {number} pid the java process
 * @property {string} dataDir
 * @property {string} logDir
 * @property {string} kafkaVersion
 * @property {boolean} ownsDataDir whether stop() deletes dataDir
 * @property {() => Promise<void>} stop SIGTERM, SIGKILL after 30 s, delete temp data; idempotent
 */

/**
 * Starts a single-node KRaft broker on free loopback ports and resolves once it answers Kafka requests.
 * @param {StartKafkaOptions} [opts]
 * @returns {Promise<KafkaHandle>}
 */
export async function startKafka(opts = {}) {
  const {
    detached = false,
    startTimeoutMs = DEFAULT_START_TIMEOUT_MS,
    serverProperties: overrides = {},
    log = () => {},
    signal,
  } = opts;
  const prereq = checkPrerequisites();
  if (!prereq.ok) throw missingToolError(prereq.missing);
  const java = /** @type {string} */ (prereq.java);

  await sweepStaleDataDirs();
  const libDir = await ensureKafkaJars({ log });
  const version = kafkaVersion();
  const classpath = `${libDir}${path.sep}*`;

  const ownsDataDir = !opts.dataDir;
  const dataDir = opts.dataDir ? path.resolve(opts.dataDir) : await fsp.mkdtemp(path.join(os.tmpdir(), TMP_PREFIX));
  const logDir = opts.logDir ? path.resolve(opts.logDir) : path.join(dataDir, 'logs');
  const kafkaLogDir = path.join(dataDir, 'kafka-logs');
  const propsFile = path.join(dataDir, 'server.properties');
  const serverLog = path.join(logDir, 'server.log');
  const stdoutLog = path.join(logDir, 'stdout.log');

  try {
    await fsp.mkdir(logDir, { recursive: true });
    await fsp.mkdir(kafkaLogDir, { recursive: true });
    const commonJvm = [
      '-Djava.awt.headless=true',
      `-Dlog4j.configuration=${new URL(`file://${LOG4J_FILE}`).href}`,
      `-Dkafka.logs.dir=${logDir}`,
    ];

    for (let attempt = 1; ; attempt++) {
      const fixedPorts = Boolean(opts.brokerPort && opts.controllerPort);
      const [brokerPort, controllerPort] = fixedPorts ? [opts.brokerPort, opts.controllerPort] : await freePorts(2);
      await fsp.writeFile(propsFile, serverProperties({ brokerPort, controllerPort, kafkaLogDir, overrides }));

      if (!fs.existsSync(path.join(kafkaLogDir, 'meta.properties'))) {
        const clusterId = randomKafkaUuid();
        const format = await run(
          java,
          [
            '-Xmx256m',
            '-XX:TieredStopAtLevel=1',
            ...commonJvm,
            '-cp',
            classpath,
            'kafka.tools.StorageTool',
            'format',
            '-t',
            clusterId,
            '-c',
            propsFile,
          ],
          { cwd: dataDir, timeoutMs: 60_000 },
        );
        if (format.code !== 0) {
          throw new KafkaSetupError(
            `kafka.tools.StorageTool format failed (exit ${format.code ?? format.signal}):\n${format.output.trim()}`,
          );
        }
      }

      log(
        `[kafka] starting Kafka ${version} broker on ${HOST}:${brokerPort} (controller ${controllerPort}), data ${dataDir}`,
      );
      const out = fs.openSync(stdoutLog, 'a');
      const child = spawn(java, [...jvmOpts(), ...commonJvm, '-cp', classpath, 'kafka.Kafka', propsFile], {
        cwd: dataDir,
        detached,
        stdio: ['ignore', out, out],
      });
      fs.closeSync(out);
      const spawnError = new Promise((resolve) => child.once('error', resolve));
      let exited = null;
      child.once('exit', (code, sig) => {
        exited = { code, signal: sig };
      });
      const pid = child.pid;
      if (!pid) throw new KafkaSetupError(`could not spawn ${java}: ${(await spawnError)?.message ?? 'unknown error'}`);

      const killNow = () => {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      };
      let watchdogPid = null;
      if (detached) {
        child.unref();
      } else {
        process.on('exit', killNow); // last resort if stop() is never called
        watchdogPid = spawnWatchdog(process.pid, pid, ownsDataDir ? dataDir : null);
      }
      await fsp.writeFile(
        path.join(dataDir, BROKER_INFO),
        `${JSON.stringify({ pid, ownerPid: detached ? null : process.pid, brokerPort, controllerPort, startedAt: new Date().toISOString() })}\n`,
      );

      // wait until the broker answers real Kafka requests
      const deadline = Date.now() + startTimeoutMs;
      let lastProbeError = null;
      let ready = false;
      while (!ready) {
        if (exited) break;
        if (signal?.aborted) break;
        if (Date.now() > deadline) break;
        try {
          await probeKafka(HOST, brokerPort, 3000);
          ready = true;
        } catch (err) {
          lastProbeError = err;
          await sleep(200);
        }
      }

      if (ready) {
        let stopped = null;
        return {
          brokers: `${HOST}:${brokerPort}`,
          brokerPort,
          controllerPort,
          pid,
          dataDir,
          logDir,
          kafkaVersion: version,
          ownsDataDir,
          stop() {
            stopped ??= (async () => {
              if (watchdogPid) {
                try {
                  process.kill(watchdogPid, 'SIGKILL');
                } catch {
                  // gone
                }
              }
              await stopProcess(pid);
              process.off('exit', killNow);
              if (ownsDataDir) await fsp.rm(dataDir, { recursive: true, force: true });
            })();
            return stopped;
          },
        };
      }

      // not ready: collect the reason, make sure the process is gone
      const why = exited
        ? `the broker process exited with ${exited.code !== null ? `code ${exited.code}` : `signal ${exited.signal}`}`
        : signal?.aborted
          ? 'start aborted'
          : `the broker did not answer an ApiVersions/Metadata request within ${Math.round(startTimeoutMs / 1000)}s` +
            (lastProbeError ? ` (last probe: ${lastProbeError.message})` : '');
      if (watchdogPid) {
        try {
          process.kill(watchdogPid, 'SIGKILL');
        } catch {
          // gone
        }
      }
      await stopProcess(pid, 5000);
      process.off('exit', killNow);
      const serverTail = await tail(serverLog);
      const stdoutTail = await tail(stdoutLog);
      const bindConflict = /BindException|Address already in use/.test(`${serverTail}\n${stdoutTail}`);
      if (bindConflict && attempt < 3 && !signal?.aborted && !fixedPorts) {
        log(`[kafka] port race on ${brokerPort}/${controllerPort}, retrying with new ports`);
        await fsp.rm(serverLog, { force: true });
        await fsp.rm(stdoutLog, { force: true });
        continue;
      }
      throw new KafkaSetupError(
        `Kafka ${version} failed to start: ${why}.\n` +
          `--- ${serverLog} (last 40 lines) ---\n${serverTail ?? '(empty)'}\n` +
          `--- ${stdoutLog} (last 40 lines) ---\n${stdoutTail ?? '(empty)'}`,
      );
    }
  } catch (err) {
    if (ownsDataDir) {
      // keep the logs of a failed start around for a human: copy them next to the state file
      const keep = path.join(PROJECT_ROOT, '.cache', 'kafka', 'last-failed-start');
      await fsp.rm(keep, { recursive: true, force: true }).catch(() => {});
      await fsp.mkdir(path.dirname(keep), { recursive: true }).catch(() => {});
      await fsp.cp(logDir, keep, { recursive: true }).catch(() => {});
      await fsp.rm(dataDir, { recursive: true, force: true }).catch(() => {});
    }
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// CLI

async function readState() {
  return readJson(STATE_FILE);
}

async function removeStateAndData(state) {
  if (state?.ownsDataDir && state.dataDir && path.basename(state.dataDir).startsWith(TMP_PREFIX)) {
    await fsp.rm(state.dataDir, { recursive: true, force: true });
  }
  await fsp.rm(STATE_FILE, { force: true });
}

/**
 * `up` / `start`: prints the address of the running broker; restarts a stopped one (`kafka:stop`, a
 * reboot, kill -9) on its data and, when they are free, its ports; else starts an empty one.
 */
async function cliUp() {
  return withLock(CLI_LOCK_DIR, 'kafka:up/down', async () => {
    const state = await readState();
    if (state && isKafkaProcess(state.pid)) {
      process.stderr.write(`[kafka] already running (pid ${state.pid}, data ${state.dataDir})\n`);
      process.stdout.write(`KAFKA_BROKERS=${state.brokers}\n`);
      return 0;
    }
    const keptData = state?.dataDir && fs.existsSync(path.join(state.dataDir, 'kafka-logs', 'meta.properties'));
    if (state && !keptData) {
      process.stderr.write(`[kafka] removing stale state of a broker that is no longer running (pid ${state.pid})\n`);
      await removeStateAndData(state);
    }
    const abort = new AbortController();
    const onSignal = () => abort.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const started = Date.now();
    const log = (m) => process.stderr.write(`${m}\n`);
    try {
      let kafka;
      if (keptData) {
        const kept = { detached: true, log, signal: abort.signal, dataDir: state.dataDir, logDir: state.logDir };
        process.stderr.write(`[kafka] restarting the stopped broker on its data in ${state.dataDir}\n`);
        try {
          kafka = await startKafka({ ...kept, brokerPort: state.brokerPort, controllerPort: state.controllerPort });
        } catch (err) {
          if (abort.signal.aborted || !/BindException|Address already in use/.test(String(err?.message))) throw err;
          process.stderr.write(`[kafka] port ${state.brokerPort} is taken now: the broker gets a new address\n`);
          kafka = await startKafka(kept);
        }
      } else {
        kafka = await startKafka({ detached: true, log, signal: abort.signal });
      }
      await fsp.mkdir(path.dirname(STATE_FILE), { recursive: true });
      const newState = {
        pid: kafka.pid,
        brokers: kafka.brokers,
        brokerPort: kafka.brokerPort,
        controllerPort: kafka.controllerPort,
        dataDir: kafka.dataDir,
        logDir: kafka.logDir,
        // a restarted broker's data is still the temp dir `up` made, which `down` deletes
        ownsDataDir: keptData ? state.ownsDataDir : kafka.ownsDataDir,
        kafkaVersion: kafka.kafkaVersion,
        startedAt: new Date().toISOString(),
      };
      await fsp.writeFile(STATE_FILE, `${JSON.stringify(newState, null, 2)}\n`);
      process.stderr.write(
        `[kafka] ready in ${((Date.now() - started) / 1000).toFixed(1)}s (pid ${kafka.pid}); logs in ${kafka.logDir}; ` +
          'stop with: npm run kafka:stop (keeps the data) or npm run kafka:down (deletes it)\n',
      );
      process.stdout.write(`KAFKA_BROKERS=${kafka.brokers}\n`);
      return 0;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  });
}

/** `stop`: stops the broker and keeps its data and address for `kafka:start`. */
async function cliStop() {
  return withLock(CLI_LOCK_DIR, 'kafka:up/down', async () => {
    const state = await readState();
    if (!state) {
      process.stderr.write('[kafka] no broker (no state file)\n');
      return 0;
    }
    if (isKafkaProcess(state.pid)) {
      process.stderr.write(`[kafka] stopping broker pid ${state.pid}...\n`);
      const killed = await stopProcess(state.pid);
      if (killed) process.stderr.write('[kafka] broker did not stop in time: killed (SIGKILL)\n');
    }
    process.stderr.write(
      `[kafka] stopped; data kept in ${state.dataDir}. Restart it with: npm run kafka:start (same address ` +
        `${state.brokers} when the port is free); delete it with: npm run kafka:down\n`,
    );
    return 0;
  });
}

async function cliDown() {
  return withLock(CLI_LOCK_DIR, 'kafka:up/down', async () => {
    const state = await readState();
    if (!state) {
      process.stderr.write('[kafka] no broker running (no state file)\n');
      return 0;
    }
    if (isKafkaProcess(state.pid)) {
      process.stderr.write(`[kafka] stopping broker pid ${state.pid}...\n`);
      const killed = await stopProcess(state.pid);
      process.stderr.write(
        killed ? '[kafka] broker did not stop in time: killed (SIGKILL)\n' : '[kafka] broker stopped\n',
      );
    } else {
      process.stderr.write(`[kafka] broker pid ${state.pid} was not running; cleaning up\n`);
    }
    await removeStateAndData(state);
    return 0;
  });
}

async function cliStatus() {
  const state = await readState();
  if (!state || !isKafkaProcess(state.pid)) {
    process.stdout.write(
      state
        ? `not running; data kept in ${state.dataDir} (kafka:start restarts it, kafka:down deletes it)\n`
        : 'not running\n',
    );
    return 1;
  }
  let answer = 'answers Kafka requests';
  try {
    await probeKafka(HOST, state.brokerPort, 3000);
  } catch (err) {
    answer = `does NOT answer Kafka requests: ${err.message}`;
  }
  process.stdout.write(
    `running: pid ${state.pid}, Kafka ${state.kafkaVersion}, ${answer}\n` +
      `  data ${state.dataDir}\n  logs ${state.logDir}\n  controller port ${state.controllerPort}\n` +
      `KAFKA_BROKERS=${state.brokers}\n`,
  );
  return 0;
}

async function main(argv) {
  const command = argv[0];
  const commands = { up: cliUp, start: cliUp, stop: cliStop, down: cliDown, status: cliStatus };
  const fn = commands[command];
  if (!fn) {
    process.stderr.write('usage: node scripts/kafka/kafka.mjs up|start|stop|down|status\n');
    return 2;
  }
  return fn();
}

const invokedDirectly = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`[kafka] ${err instanceof KafkaSetupError ? err.message : (err?.stack ?? String(err))}\n`);
      process.exitCode = 1;
    },
  );
}
