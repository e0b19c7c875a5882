// A real shipd for the tests: a database of its own on DATABASE_URL's
// server, the binary SHIPD_BIN (built by the Makefile) serving on a free
// loopback port, and API keys made with its own command. No mock server:
// what the SDK is tested against is the service.
import { spawn, execFile, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Requests per minute of a key made without a limit of its own: more than a test sends. */
const unlimited = 100_000;

export interface LiveShipd {
  baseUrl: string;
  dsn: string;
  /** A new API key of a new account (the key is the last line `keys create` prints). */
  newKey(account: string, rateLimit?: number): Promise<string>;
  stop(): Promise<void>;
}

function required(name: string): string {
  const v = process.env[name];
  if (!v) {
    throw new Error(
      `${name} is not set: run the SDK tests with \`go run ./cmd/with-postgres -- make test-sdk-ts\` from the repository root`,
    );
  }
  return v;
}

/** DATABASE_URL (URL or key=value form) pointed at another database. */
function withDatabase(dsn: string, db: string): string {
  if (/^postgres(ql)?:\/\//.test(dsn)) {
    const u = new URL(dsn);
    u.pathname = `/${db}`;
    return u.toString();
  }
  // libpq and lib/pq both take the last of a repeated keyword.
  return `${dsn} dbname=${db}`;
}

async function psql(dsn: string, sql: string): Promise<void> {
  await run("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dsn, "-c", sql]);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const addr = s.address();
      s.close(() => (typeof addr === "object" && addr ? resolve(addr.port) : reject(new Error("no port"))));
    });
  });
}

/** Starts shipd on a fresh database; stop() kills it and drops the database. */
export async function startShipd(): Promise<LiveShipd> {
  const bin = required("SHIPD_BIN");
  const admin = required("DATABASE_URL");
  const db = `sdk_ts_${randomBytes(6).toString("hex")}`;
  await psql(admin, `CREATE DATABASE ${db}`);
  const dsn = withDatabase(admin, db);
  const port = await freePort();
  const env = {
    ...process.env,
    DATABASE_URL: dsn,
    SECRET_KEY: "sdk-ts-tests-secret-key-0123456789abcdef",
    HTTP_ADDR: `127.0.0.1:${port}`,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    SANDBOX_TIME_SCALE: "3600",
    WORKER_POLL_INTERVAL: "100ms",
    MESSAGE_POLL_INTERVAL: "100ms",
  };
  const child = spawn(bin, ["serve"], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`shipd did not start in 60 s:\n${output}`)), 60_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("serving on http://")) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on("data", onData);
      child.stderr?.on("data", onData);
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`shipd exited (${code}) before serving:\n${output}`));
      });
    });
  } catch (err) {
    child.kill("SIGKILL");
    await psql(admin, `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).catch(() => {});
    throw err;
  }
  // Keep reading its output so a full pipe never blocks it; shown on failure.
  child.stdout?.resume();
  child.stderr?.resume();

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    dsn,
    async newKey(account, rateLimit) {
      // A plan's limit would make the suite wait out 429s it did not ask
      // for; only the rate-limit test asks for one.
      const args = ["keys", "create", "--account", account, "--rate-limit", String(rateLimit ?? unlimited)];
      const { stdout } = await run(bin, args, { env });
      const lines = stdout.trim().split("\n");
      return lines[lines.length - 1]!.trim();
    },
    async stop() {
      await stopProcess(child);
      await psql(admin, `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    },
  };
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}
