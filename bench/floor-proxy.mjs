// The floor for `npm run bench:relay`: the least a proxy hop can cost. One keep-alive upstream request per browser
// request (node:http with a keep-alive agent), JSON.parse of what comes in and of the answer, JSON.stringify back. No
// checks, no sealing, no logging, no shared state: what the relay costs above this is the price of its rules.
//   GET  /          the poll: the conversation's messages after 0
//   POST /messages  the send: {"text"} in, the service's message out, as {"message"}
// Usage: node bench/floor-proxy.mjs UPSTREAM_URL TOKEN POLL_CONVERSATION_ID SEND_CONVERSATION_ID [CONNECTIONS=64]
// (prints "listening on URL"). CONNECTIONS: the most upstream sockets at once, as the relay's UPSTREAM_CONNECTIONS, so
// that both queue alike when the load generator holds more connections than that.
import http from 'node:http';

const [upstreamUrl, token, pollConversationId, sendConversationId, connections = '64'] = process.argv.slice(2);
const upstream = new URL(upstreamUrl);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(connections) });
const pollPath = `/api/conversations/${encodeURIComponent(pollConversationId)}/messages/?after=0`;
const sendPath = `/api/conversations/${encodeURIComponent(sendConversationId)}/messages/`;

/** One upstream exchange; `answer` gets the parsed JSON of the reply and its status. */
function exchange(method, path, body, res, answer) {
  const headers = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const upstreamRequest = http.request(
    { host: upstream.hostname, port: upstream.port, method, path, agent, headers },
    (upstreamResponse) => {
      const chunks = [];
      upstreamResponse.on('data', (chunk) => chunks.push(chunk));
      upstreamResponse.on('end', () => {
        const value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(upstreamResponse.statusCode ?? 502, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(answer(value)));
      });
    },
  );
  upstreamRequest.on('error', () => {
    res.writeHead(502).end();
  });
  upstreamRequest.end(body);
}

const server = http.createServer((req, res) => {
  if (req.method !== 'POST') {
    exchange('GET', pollPath, undefined, res, (page) => ({ messages: page.results, cursor: 0 }));
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const { text } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    exchange('POST', sendPath, JSON.stringify({ text, sender: 'visitor' }), res, (message) => ({ message }));
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
process.once('SIGTERM', () => process.exit(0));
