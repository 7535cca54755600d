/**
 * Versioned schema migrations, the same on PostgreSQL and PGlite. Applied in order, in one transaction under an
 * advisory lock (so replicas starting together apply each once), recorded in `schema_migrations`. Restarting is a
 * no-op; a database whose newest recorded version is above the newest known here is refused.
 *
 * Times are epoch milliseconds in `bigint` columns so the console's clock (injectable in tests) decides expiry.
 */
import type { Db } from "./db.ts";

/** One migration: a version (1, 2, ...), a name, and its SQL. Never edit a released migration; add one. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The console's migrations, in order. Later features (incidents, webhooks, ...) append here. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "identity and audit",
    sql: `
CREATE TABLE users (
  id text PRIMARY KEY,
  username text NOT NULL UNIQUE CHECK (username <> ''),
  password_hash text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  created_at bigint NOT NULL,
  password_changed_at bigint NOT NULL,
  reenabled_at bigint NOT NULL DEFAULT 0
);
CREATE TABLE custom_roles (
  name text PRIMARY KEY CHECK (name <> ''),
  permissions jsonb NOT NULL,
  created_at bigint NOT NULL
);
CREATE TABLE role_bindings (
  id text PRIMARY KEY,
  subject text NOT NULL CHECK (subject <> ''),
  role text NOT NULL CHECK (role <> ''),
  direct boolean NOT NULL DEFAULT false,
  created_at bigint NOT NULL,
  UNIQUE (subject, role)
);
CREATE TABLE sessions (
  id_hash text PRIMARY KEY,
  subject text NOT NULL,
  display text NOT NULL,
  groups jsonb NOT NULL,
  csrf text NOT NULL,
  created_at bigint NOT NULL,
  last_seen_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  data jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX sessions_subject ON sessions (subject);
CREATE TABLE api_tokens (
  id text PRIMARY KEY,
  name text NOT NULL,
  owner text NOT NULL,
  minted_by text NOT NULL,
  secret_hash text NOT NULL UNIQUE,
  created_at bigint NOT NULL,
  last_used_at bigint,
  expires_at bigint,
  revoked_at bigint
);
CREATE INDEX api_tokens_owner ON api_tokens (owner);
CREATE TABLE audit (
  id bigserial PRIMARY KEY,
  at bigint NOT NULL,
  subject text,
  subject_display text NOT NULL DEFAULT '',
  action text NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('allowed', 'denied', 'error')),
  remote_addr text NOT NULL DEFAULT '',
  detail jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_at ON audit (at DESC, id DESC);
`,
  },
  {
    version: 2,
    name: "event history, topology baselines, annotations, cluster events",
    sql: `
CREATE TABLE events (
  id bigserial PRIMARY KEY,
  topic text NOT NULL,
  seq bigint NOT NULL,
  at_ns bigint NOT NULL,
  at bigint NOT NULL,
  type text NOT NULL,
  severity text NOT NULL,
  scope text NOT NULL,
  summary text NOT NULL,
  payload jsonb NOT NULL,
  received_at bigint NOT NULL,
  UNIQUE (topic, seq, at_ns)
);
CREATE INDEX events_at ON events (at DESC, id DESC);
CREATE INDEX events_type_at ON events (type, at DESC, id DESC);
CREATE TABLE topology_baselines (
  id bigserial PRIMARY KEY,
  at bigint NOT NULL,
  snapshot jsonb NOT NULL
);
CREATE INDEX topology_baselines_at ON topology_baselines (at DESC, id DESC);
CREATE TABLE annotations (
  id text PRIMARY KEY,
  at bigint NOT NULL,
  end_at bigint,
  text text NOT NULL,
  scope text NOT NULL,
  author text NOT NULL,
  author_subject text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CHECK (end_at IS NULL OR end_at > at)
);
CREATE INDEX annotations_at ON annotations (at DESC, id DESC);
CREATE TABLE k8s_events (
  uid text PRIMARY KEY,
  at bigint NOT NULL,
  first_at bigint NOT NULL,
  type text NOT NULL,
  reason text NOT NULL,
  message text NOT NULL,
  namespace text NOT NULL,
  object text NOT NULL,
  node text,
  count integer NOT NULL
);
CREATE INDEX k8s_events_at ON k8s_events (at DESC);
`,
  },
  {
    version: 3,
    name: "targets, check definitions, runs",
    sql: `
CREATE TABLE targets (
  id text PRIMARY KEY,
  name text NOT NULL UNIQUE,
  kind text NOT NULL,
  address text NOT NULL,
  port integer NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE TABLE check_definitions (
  id text PRIMARY KEY,
  name text NOT NULL,
  target_id text NOT NULL REFERENCES targets (id) ON DELETE RESTRICT,
  type text NOT NULL,
  params jsonb NOT NULL,
  sources jsonb NOT NULL,
  interval_ms bigint NOT NULL,
  timeout_ms bigint NOT NULL,
  enabled boolean NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX check_definitions_target ON check_definitions (target_id);
CREATE TABLE runs (
  id text PRIMARY KEY,
  spec jsonb NOT NULL,
  status text NOT NULL,
  created_by text NOT NULL,
  created_at bigint NOT NULL,
  ends_at bigint,
  finished_at bigint,
  pairs jsonb NOT NULL
);
CREATE INDEX runs_created ON runs (created_at DESC, id DESC);
`,
  },
  {
    version: 4,
    name: "run leases",
    sql: `
ALTER TABLE runs ADD COLUMN lease_until bigint;
CREATE INDEX runs_running ON runs (status) WHERE status = 'running';
`,
  },
  {
    version: 5,
    name: "schedules, mtr path history",
    sql: `
CREATE TABLE schedules (
  id text PRIMARY KEY,
  name text NOT NULL,
  definition_id text NOT NULL REFERENCES check_definitions (id) ON DELETE RESTRICT,
  kind text NOT NULL,
  interval_ms bigint NOT NULL,
  enabled boolean NOT NULL,
  next_at bigint,
  last_at bigint,
  last_failure text,
  last_failure_at bigint,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX schedules_definition ON schedules (definition_id);
CREATE TABLE mtr_paths (
  id bigserial PRIMARY KEY,
  source text NOT NULL,
  destination text NOT NULL,
  path_hash text NOT NULL,
  hops jsonb NOT NULL,
  origin text NOT NULL,
  first_at bigint NOT NULL,
  last_at bigint NOT NULL,
  traces integer NOT NULL
);
CREATE INDEX mtr_paths_pair ON mtr_paths (source, destination, first_at DESC, id DESC);
`,
  },
  {
    version: 6,
    name: "alert rules",
    sql: `
CREATE TABLE alert_rules (
  id text PRIMARY KEY,
  name text NOT NULL,
  alert_name text NOT NULL,
  expr text NOT NULL,
  for_seconds integer NOT NULL,
  labels jsonb NOT NULL,
  annotations jsonb NOT NULL,
  description text NOT NULL,
  enabled boolean NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE UNIQUE INDEX alert_rules_alert_name ON alert_rules (alert_name);
`,
  },
  {
    version: 7,
    name: "webhook endpoints",
    sql: `
CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY,
  url text NOT NULL,
  events jsonb NOT NULL,
  enabled boolean NOT NULL,
  secret_sealed text NOT NULL,
  last_outcome jsonb,
  failure_streak integer NOT NULL DEFAULT 0,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
`,
  },
  {
    version: 8,
    name: "maintenance windows",
    sql: `
CREATE TABLE maintenance_windows (
  id text PRIMARY KEY,
  scope text NOT NULL,
  node text NOT NULL,
  source text NOT NULL,
  destination text NOT NULL,
  target text NOT NULL,
  start_at bigint NOT NULL,
  end_at bigint NOT NULL,
  reason text NOT NULL,
  author text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX maintenance_windows_span ON maintenance_windows (end_at, start_at);
`,
  },
  {
    version: 9,
    name: "maintenance holds",
    sql: `
CREATE TABLE maintenance_holds (
  key_hash text PRIMARY KEY,
  alert_key text NOT NULL,
  transition jsonb NOT NULL,
  until_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
`,
  },
  {
    version: 10,
    name: "incidents",
    sql: `
CREATE TABLE incidents (
  id text PRIMARY KEY,
  status text NOT NULL CHECK (status IN ('open', 'resolved')),
  kind text NOT NULL,
  scope text NOT NULL,
  window_from bigint NOT NULL,
  window_to bigint NOT NULL,
  title text NOT NULL,
  notes text NOT NULL,
  opened_by text NOT NULL,
  opened_by_display text NOT NULL,
  opened_at bigint NOT NULL,
  resolved_at bigint,
  updated_at bigint NOT NULL,
  pins jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX incidents_opened ON incidents (opened_at DESC, id DESC);
CREATE TABLE incident_transitions (
  seq bigserial PRIMARY KEY,
  incident_id text NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
  at bigint NOT NULL,
  status text NOT NULL CHECK (status IN ('open', 'resolved'))
);
CREATE INDEX incident_transitions_at ON incident_transitions (incident_id, at DESC, seq DESC);
`,
  },
  {
    version: 11,
    name: "scheduled runs",
    sql: `
ALTER TABLE runs ADD COLUMN origin text NOT NULL DEFAULT 'manual';
ALTER TABLE runs ADD COLUMN schedule jsonb;
ALTER TABLE runs ADD COLUMN target jsonb;
ALTER TABLE runs ADD COLUMN error text;
CREATE INDEX runs_scheduled ON runs (created_at) WHERE origin = 'schedule';
`,
  },
];

/** Thrown when the database was migrated by a newer console than this one. */
export class NewerSchemaError extends Error {
  constructor(
    readonly databaseVersion: number,
    readonly knownVersion: number,
  ) {
    super(
      `database schema version ${databaseVersion} is newer than this console knows (${knownVersion}); upgrade the console`,
    );
    this.name = "NewerSchemaError";
  }
}

// Arbitrary constant naming the console's migration lock.
const LOCK_KEY = 0x5c_c0_50_1e;

/**
 * Applies every pending migration of `migrations` in one transaction. Resolves with the versions applied (empty
 * when up to date). Throws NewerSchemaError, leaving the database untouched, when it is ahead of `migrations`.
 */
export async function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  const known = migrations.reduce((m, x) => Math.max(m, x.version), 0);
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [LOCK_KEY]);
    await tx.exec(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)",
    );
    const rows = await tx.query<{ version: number }>("SELECT version FROM schema_migrations");
    const applied = new Set(rows.map((r) => Number(r.version)));
    const newest = Math.max(0, ...applied);
    if (newest > known) throw new NewerSchemaError(newest, known);
    const done: number[] = [];
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (applied.has(m.version)) continue;
      await tx.exec(m.sql);
      await tx.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)", [
        m.version,
        m.name,
        Date.now(),
      ]);
      done.push(m.version);
    }
    return done;
  });
}
