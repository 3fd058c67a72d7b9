/**
 * docs/spec.md §13.1a (Host check): a server bound to a loopback address answers only requests whose
 * `Host` names a loopback name or address, or one of `http.allowedHosts`; any other Host is 403, so a
 * page that rebinds its DNS name to 127.0.0.1 cannot drive a server that has no token. Real sockets:
 * fetch cannot send a Host of its choosing, so these requests go through node:http.
 */
import { request } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HostCheck, hostName } from '../../src/server/host-check.ts';
import { resolveSettings } from '../../src/server/settings.ts';
import { rawRequest, startTestServer, type TestServer } from './support.ts';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function start(...args: Parameters<typeof startTestServer>): Promise<TestServer> {
  const s = await startTestServer(...args);
  servers.push(s);
  return s;
}

interface Answer {
  readonly status: number;
  readonly body: string;
}

/** One request to the server's own address with the Host header given. */
function ask(url: string, path: string, host: string, method = 'GET', body?: string): Promise<Answer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method, setHost: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.setHeader('host', host);
    if (body !== undefined) req.setHeader('content-type', 'application/json');
    req.on('error', reject);
    req.end(body);
  });
}

describe('serve: the Host check (DNS rebinding)', () => {
  it('refuses a foreign Host with 403 on every route, the live page and /healthz included, and submits nothing', async () => {
    const s = await start();
    for (const path of ['/healthz', '/', '/v1/status', '/v1/events', '/v1/tasks/http-1']) {
      const answer = await ask(s.url, path, 'evil.example');
      expect(answer.status, path).toBe(403);
    }
    const posted = await ask(s.url, '/v1/inputs', 'evil.example:8787', 'POST', JSON.stringify({ text: 'hi' }));
    expect(posted.status).toBe(403);
    expect(JSON.parse(posted.body)).toMatchObject({ error: { message: expect.stringContaining('http.allowedHosts') } });
    expect(s.logs.some((l) => l.includes('"task.submitted"'))).toBe(false);
    // HTTP/1.0 allows a request without Host (node refuses such an HTTP/1.1 request itself, with 400).
    expect((await rawRequest(s.url, 'GET /healthz HTTP/1.0\r\n\r\n')).status).toBe(403);
    expect((await ask(s.url, '/healthz', 'localhost.evil.example')).status).toBe(403);
    expect((await ask(s.url, '/healthz', '127.0.0.1.evil.example')).status).toBe(403);
  });

  it('names the Host it refused, or its absence, and what the server answers to', async () => {
    const s = await start();
    const answers =
      'is not a name of this server; it answers loopback names (localhost, 127.0.0.1, [::1]) and the names listed in http.allowedHosts';
    const foreign = await ask(s.url, '/v1/status', 'evil.example:8787');
    expect(JSON.parse(foreign.body)).toMatchObject({
      error: { message: `the Host "evil.example:8787" ${answers}`, param: 'Host' },
    });
    const none = await rawRequest(s.url, 'GET /v1/status HTTP/1.0\r\n\r\n');
    expect(JSON.parse(none.body)).toMatchObject({ error: { message: `no Host header ${answers}`, param: 'Host' } });
  });

  it('answers loopback names and addresses, with or without the port', async () => {
    const s = await start();
    const port = new URL(s.url).port;
    for (const host of [
      'localhost',
      `localhost:${port}`,
      'LOCALHOST',
      '127.0.0.1',
      `127.0.0.1:${port}`,
      '127.3.2.1',
      '[::1]',
      `[::1]:${port}`,
    ]) {
      expect((await ask(s.url, '/healthz', host)).status, host).toBe(200);
    }
  });

  it('answers a name listed in http.allowedHosts', async () => {
    const s = await start({ allowedHosts: ['agent.home.arpa'] });
    expect((await ask(s.url, '/healthz', 'agent.home.arpa')).status).toBe(200);
    expect((await ask(s.url, '/v1/status', 'Agent.Home.Arpa:8787')).status).toBe(200);
    expect((await ask(s.url, '/healthz', 'other.home.arpa')).status).toBe(403);
  });

  it('checks nothing when bound to a non-loopback address (the token guards it)', async () => {
    const s = await start({ host: '0.0.0.0', token: 'a-token-of-some-length' });
    expect((await ask(s.url.replace('0.0.0.0', '127.0.0.1'), '/healthz', 'agent.example.com')).status).toBe(200);
  });

  it('http.allowedHosts is read from the config file; a URL or a name with a port is refused, naming the path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'homeagent-hosts-'));
    try {
      const file = join(dir, 'config.json');
      writeFileSync(file, JSON.stringify({ http: { allowedHosts: ['agent.home.arpa', '[fd00::1]'] } }));
      const ok = resolveSettings({ config: file, model: 'demo' }, {});
      expect(ok.ok && ok.settings.allowedHosts).toEqual(['agent.home.arpa', '[fd00::1]']);
      writeFileSync(file, JSON.stringify({ http: { allowedHosts: ['http://agent.home.arpa', 'a.example:80'] } }));
      const bad = resolveSettings({ config: file, model: 'demo' }, {});
      expect(bad.ok ? [] : bad.problems.map((p) => p.path)).toEqual(['http.allowedHosts[0]', 'http.allowedHosts[1]']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('hostName and HostCheck', () => {
  it('reads the name of a Host header: trimmed, lower-cased, without its port or a trailing dot', () => {
    expect(
      [' LocalHost:8787 ', 'localhost.', 'Agent.Home.Arpa.:80', '[::1]:8787', '[::1]', '[::1', '127.0.0.1:'].map(
        hostName,
      ),
    ).toEqual(['localhost', 'localhost', 'agent.home.arpa', '[::1]', '[::1]', '[::1', '127.0.0.1']);
  });

  it('admits loopback names and the allowed ones however written, and nothing without a Host', () => {
    const check = new HostCheck(['Agent.Home.Arpa.', 'nas:8080']);
    for (const host of ['localhost.', 'agent.home.arpa', 'AGENT.home.arpa.:1', 'nas', '[::1]:9'])
      expect(check.admits(host), host).toBe(true);
    for (const host of [undefined, '', '[::1', 'localhost.evil.example', 'home.arpa'])
      expect(check.admits(host), String(host)).toBe(false);
  });
});
