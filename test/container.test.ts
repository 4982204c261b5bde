// The container image and the fleet of compose.yaml, checked without Docker (these machines cannot
// pull images): the Dockerfile's stages, user, health check and command; compose.yaml's services,
// pinned official images, health checks, start order and environment (read by the real
// loadConfig); and the balancer's config against both. `haproxy -c` and `docker compose config`
// run too where those programs are installed, and say they were skipped where not.
import { execFile, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../src/config.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const run = promisify(execFile);

// ── The Dockerfile ───────────────────────────────────────────────────────────────────────────

interface Instruction {
  keyword: string;
  args: string;
}

/** Instructions in order: comments dropped, `\` continuations joined. */
function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || (line === '' && pending === '')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    const full = pending + line;
    pending = '';
    if (full === '') continue;
    const [keyword = ''] = full.split(/\s/, 1);
    out.push({ keyword: keyword.toUpperCase(), args: full.slice(keyword.length).trim() });
  }
  return out;
}

interface Stage {
  from: string;
  name: string | undefined;
  body: Instruction[];
}

function stages(all: Instruction[]): Stage[] {
  const args = new Map<string, string>();
  const out: Stage[] = [];
  for (const ins of all) {
    if (ins.keyword === 'ARG' && out.length === 0) {
      const [name = '', value = ''] = ins.args.split('=');
      args.set(name, value);
    } else if (ins.keyword === 'FROM') {
      const [image = '', as, name] = ins.args.split(/\s+/);
      const from = image.replace(/\$\{(\w+)\}/g, (_, v: string) => args.get(v) ?? '');
      out.push({ from, name: as?.toUpperCase() === 'AS' ? name : undefined, body: [] });
    } else {
      out.at(-1)?.body.push(ins);
    }
  }
  return out;
}

const dockerfile = stages(instructions(read('Dockerfile')));
const runtime = dockerfile.at(-1) as Stage;
const only = (stage: Stage, keyword: string) => stage.body.filter((i) => i.keyword === keyword);
const pkg = JSON.parse(read('package.json')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
};

/** Docker Official Images (no namespace) with a tag that names a release, not a moving line. */
const PINNED_OFFICIAL = /^(node|postgres|redis|haproxy|nginx):\d+\.\d+(\.\d+)?(-[a-z0-9.-]+)?$/;

/** The HEALTHCHECK's command, as Docker runs it (exec form). */
function healthcheckCommand(): string[] {
  const [check] = only(runtime, 'HEALTHCHECK');
  const json = check?.args.slice(check.args.indexOf('CMD ') + 4) ?? '[]';
  return JSON.parse(json) as string[];
}

describe('Dockerfile', () => {
  it('builds in stages and runs on a pinned official Node image', () => {
    expect(dockerfile.length).toBeGreaterThanOrEqual(2);
    for (const stage of dockerfile) {
      const image = dockerfile.some((s) => s.name === stage.from) ? null : stage.from;
      if (image) expect(image).toMatch(PINNED_OFFICIAL);
    }
    expect(runtime.from).toMatch(/^node:/);
  });

  it('installs production dependencies only, esbuild among them (the build), tsx not (nothing loads TypeScript)', () => {
    const installs = dockerfile.flatMap((s) => only(s, 'RUN')).filter((i) => /npm (ci|install)/.test(i.args));
    expect(installs.length).toBeGreaterThan(0);
    for (const i of installs) expect(i.args).toContain('--omit=dev');
    expect(only(runtime, 'RUN').some((i) => /npm (ci|install)/.test(i.args))).toBe(false);
    expect(pkg.dependencies.esbuild).toBeDefined();
    expect(pkg.dependencies.tsx).toBeUndefined();
    expect(pkg.dependencies.prisma).toBeDefined(); // the CLI that generates the client at build
  });

  it('generates the Prisma client and builds dist/ at build, and copies dist/ (not the sources) into the runtime stage', () => {
    const building = dockerfile.find((s) =>
      only(s, 'RUN').some((i) => i.args.includes('generate:prisma') && i.args.includes('npm run build')),
    );
    expect(building?.name).toBeDefined();
    const copies = only(runtime, 'COPY').map((i) => i.args);
    expect(copies.some((a) => a.includes(`--from=${building?.name}`) && /\bdist\b/.test(a))).toBe(true);
    expect(copies.some((a) => /\bsrc\b/.test(a))).toBe(false);
    // The build script is in the context (the rest of scripts/ is not).
    expect(read('.dockerignore').split('\n')).toContain('!scripts/build.mjs');
    // The context never brings a locally generated client or node_modules in.
    const ignored = read('.dockerignore').split('\n');
    expect(ignored).toContain('node_modules');
    expect(ignored).toContain('src/generated');
  });

  it('has what `npm start` and `npm run admin` need: in the runtime stage’s files, their build finds no sources and the CLI runs (its build script was missing: MODULE_NOT_FOUND; probe O)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'runtime-'));
    try {
      for (const { args } of only(runtime, 'COPY')) {
        const [from, to = ''] = args.replace(/^--from=\w+\s+/, '').split(/\s+/);
        const target = path.join(dir, to.endsWith('/') ? path.join(to, path.basename(from ?? '')) : to);
        // The other stages' results, as they are here: the dependencies and dist/ (built by npm install).
        if (from === '/app/node_modules') symlinkSync(path.join(ROOT, 'node_modules'), target);
        else cpSync(path.join(ROOT, (from ?? '').replace(/^\/app\//, '')), target, { recursive: true });
      }
      expect(existsSync(path.join(dir, 'src'))).toBe(false);
      const { stdout } = await run('npm', ['run', '--silent', 'admin', '--', '--help'], {
        cwd: dir,
        timeout: 60_000,
      });
      expect(stdout).toContain('bootstrap --tenant');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs as a non-root user, `npm start`’s command in exec form (signals reach the server)', () => {
    const users = only(runtime, 'USER');
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)?.args).not.toMatch(/^(root|0)(:|$)/);
    const [cmd] = only(runtime, 'CMD');
    expect(JSON.parse(cmd?.args ?? 'null')).toEqual(pkg.scripts.start?.split(' '));
    // USER comes before the command in the stage (it applies to everything after it).
    const order = runtime.body.map((i) => i.keyword);
    expect(order.lastIndexOf('USER')).toBeLessThan(order.lastIndexOf('CMD'));
  });

  it('checks health on /health/ready, and its command exits 0 only on a 200', async () => {
    const command = healthcheckCommand();
    expect(command[0]).toBe('node');
    expect(command.join(' ')).toContain('/health/ready');
    let status = 200;
    let asked = '';
    const server: Server = createServer((req, res) => {
      asked = req.url ?? '';
      res.writeHead(status).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = String((server.address() as AddressInfo).port);
    const check = () =>
      run(process.execPath, command.slice(1), { env: { ...process.env, PORT: port }, timeout: 10_000 }).then(
        () => 0,
        (err: { code?: number }) => err.code ?? -1,
      );
    try {
      expect(await check()).toBe(0);
      expect(asked).toBe('/health/ready');
      status = 503;
      expect(await check()).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    // Nothing listening: unhealthy, not a hang.
    expect(await check()).toBe(1);
  });
});

// ── compose.yaml ─────────────────────────────────────────────────────────────────────────────

interface Service {
  image?: string;
  build?: string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[]; disable?: boolean };
  ports?: string[];
  volumes?: string[];
  stop_grace_period?: string;
  networks?: string[] | Record<string, { ipv4_address?: string }>;
}

interface Compose {
  services: Record<string, Service>;
  networks: Record<string, { ipam: { config: { subnet: string }[] } }>;
}

const compose = parse(read('compose.yaml')) as Compose;
const services = compose.services;
const GATEWAYS = ['gateway-1', 'gateway-2', 'gateway-3'];

/** Compose's interpolation as a fresh `docker compose up` sees it: no variables set, defaults taken. */
const interpolate = (value: string): string =>
  value.replace(/\$\{(\w+)(?::-([^}]*))?\}/g, (_, _name: string, fallback?: string) => fallback ?? '');

const gatewayEnv = (name: string): Record<string, string> =>
  Object.fromEntries(
    Object.entries(services[name]?.environment ?? {}).map(([k, v]) => [k, interpolate(String(v))]),
  );

const seconds = (duration: string | undefined): number => {
  const m = /^(\d+)s$/.exec(duration ?? '');
  return m ? Number(m[1]) : Number.NaN;
};

const haproxy = read('deploy/haproxy.cfg');
const haproxyLines = haproxy
  .split('\n')
  .map((l) => l.replace(/#.*/, '').trim())
  .filter(Boolean);

describe('compose.yaml', () => {
  it('runs three gateways, PostgreSQL, Redis and a balancer, each image pinned and official', () => {
    expect(Object.keys(services).sort()).toEqual([...GATEWAYS, 'balancer', 'postgres', 'redis'].sort());
    for (const name of GATEWAYS) expect(services[name]?.build).toBe('.');
    expect(services.postgres?.image).toMatch(/^postgres:/);
    expect(services.redis?.image).toMatch(/^redis:/);
    expect(services.balancer?.image).toMatch(/^haproxy:/);
    for (const name of ['postgres', 'redis', 'balancer'])
      expect(services[name]?.image).toMatch(PINNED_OFFICIAL);
  });

  it('starts in order: gateways on a healthy database and Redis, the balancer on healthy gateways', () => {
    expect(services.postgres?.healthcheck?.test).toContain('pg_isready');
    expect(services.redis?.healthcheck?.test).toEqual(['CMD', 'redis-cli', 'ping']);
    for (const name of GATEWAYS) {
      // Health is the image's HEALTHCHECK (checked above): not switched off here.
      expect(services[name]?.healthcheck?.disable).not.toBe(true);
      expect(services[name]?.depends_on).toEqual({
        postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
      });
    }
    expect(services.balancer?.depends_on).toEqual(
      Object.fromEntries(GATEWAYS.map((g) => [g, { condition: 'service_healthy' }])),
    );
  });

  it('gives every gateway a configuration the service accepts, wired to the fleet', () => {
    const pg = services.postgres?.environment ?? {};
    const balancerNet = services.balancer?.networks as Record<string, { ipv4_address?: string }>;
    const [[network, { ipv4_address: balancerAddress = '' } = {}] = []] = Object.entries(balancerNet);
    const [subnet] = compose.networks[network ?? '']?.ipam.config ?? [];
    expect(balancerAddress.split('.').slice(0, 3).join('.')).toBe(
      subnet?.subnet.split('.').slice(0, 3).join('.'),
    );

    for (const name of GATEWAYS) {
      const env = gatewayEnv(name);
      const config = loadConfig(env); // throws a ConfigError naming a bad variable
      const db = new URL(config.databaseUrl ?? '');
      expect(db.hostname).toBe('postgres');
      expect(db.username).toBe(pg.POSTGRES_USER);
      expect(decodeURIComponent(db.password)).toBe(interpolate(String(pg.POSTGRES_PASSWORD)));
      expect(db.pathname).toBe(`/${pg.POSTGRES_DB}`);
      expect(new URL(config.redisUrl ?? '').hostname).toBe('redis');
      expect(config.host).toBe('0.0.0.0');
      expect(config.trustedProxies).toEqual([balancerAddress]);
      expect(services[name]?.networks).toEqual([network]);
      // Links point at the balancer's published port.
      const [published] = (services.balancer?.ports?.[0] ?? '').split(':');
      expect(new URL(config.appUrl).port).toBe(published);
      // Docker waits past the service's own shutdown deadline before killing it.
      expect(seconds(services[name]?.stop_grace_period)).toBeGreaterThan(config.shutdownTimeoutSeconds);
    }
    // Every instance's pool together stays under PostgreSQL's default max_connections.
    const pools = GATEWAYS.map((g) => loadConfig(gatewayEnv(g)).dbPoolSize);
    expect(pools.reduce((a, b) => a + b, 0)).toBeLessThan(100);
  });

  it('mounts the committed balancer config, which sends to the three gateways and checks readiness', () => {
    const mount = services.balancer?.volumes?.find((v) => v.includes('haproxy.cfg')) ?? '';
    const [source = '', target] = mount.split(':');
    expect(existsSync(path.join(ROOT, source))).toBe(true);
    expect(target).toBe('/usr/local/etc/haproxy/haproxy.cfg');

    const port = loadConfig(gatewayEnv('gateway-1')).port;
    const servers = haproxyLines.filter((l) => l.startsWith('server '));
    expect(servers).toEqual(GATEWAYS.map((g) => `server ${g} ${g}:${port}`));
    expect(haproxyLines).toContain('http-check send meth GET uri /health/ready');
    expect(haproxyLines).toContain('http-check expect status 200');
    expect(haproxyLines).toContain('option forwardfor');
    // The balancer listens where compose publishes it.
    const [, inside] = (services.balancer?.ports?.[0] ?? '').split(':');
    expect(haproxyLines).toContain(`bind :${inside}`);
    // The image's health check and the balancer's ask the same path.
    expect(healthcheckCommand().join(' ')).toContain('/health/ready');
  });
});

// ── The real tools, where installed ──────────────────────────────────────────────────────────

const hasHaproxy = spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).status === 0;
const hasCompose = spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0;

describe('validated by the tools themselves', () => {
  it.skipIf(!hasHaproxy)(
    'haproxy -c accepts deploy/haproxy.cfg (skipped where haproxy is not installed)',
    () => {
      const check = spawnSync('haproxy', ['-c', '-f', path.join(ROOT, 'deploy/haproxy.cfg')], {
        encoding: 'utf8',
        timeout: 10_000,
      });
      expect(check.status, check.stdout + check.stderr).toBe(0);
    },
  );

  it.skipIf(!hasCompose)(
    'docker compose config accepts compose.yaml (skipped where docker compose is not installed)',
    () => {
      const check = spawnSync('docker', ['compose', '-f', path.join(ROOT, 'compose.yaml'), 'config', '-q'], {
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(check.status, check.stdout + check.stderr).toBe(0);
    },
  );
});
