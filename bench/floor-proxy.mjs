// The floor for `npm run bench:relay`: the least a proxy hop can cost. One keep-alive upstream request per browser
// request (node:http with a keep-alive agent), JSON.parse of the answer, JSON.stringify back. No checks, no
// sealing, no logging: what the relay costs above this is the price of its rules.
// Usage: node bench/floor-proxy.mjs UPSTREAM_URL TOKEN CONVERSATION_ID  (prints "listening on URL")
import http from 'node:http';

const [upstreamUrl, token, conversationId] = process.argv.slice(2);
const upstream = new URL(upstreamUrl);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const path = `/api/conversations/${encodeURIComponent(conversationId)}/messages/?after=0`;

const server = http.createServer((req, res) => {
  const upstreamRequest = http.request(
    {
      host: upstream.hostname,
      port: upstream.port,
      path,
      agent,
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
    },
    (upstreamResponse) => {
      const chunks = [];
      upstreamResponse.on('data', (chunk) => chunks.push(chunk));
      upstreamResponse.on('end', () => {
        const page = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(upstreamResponse.statusCode ?? 502, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ messages: page.results, cursor: 0 }));
      });
    },
  );
  upstreamRequest.on('error', () => {
    res.writeHead(502).end();
  });
  upstreamRequest.end();
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
process.once('SIGTERM', () => process.exit(0));
