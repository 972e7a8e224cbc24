/** The graphql-ws server pings idle sockets every keepAliveMs (WebSocket ping frames), and the pongs keep them open. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { openRawWs, startLiveServer, type LiveServer } from '../helpers/live-fixtures.js';

describe('graphql-ws keep-alive', () => {
  let live: LiveServer;
  beforeAll(async () => {
    live = await startLiveServer({ keepAliveMs: 200 });
  });
  afterAll(async () => {
    await live.close();
  });

  it('an idle, acknowledged socket receives pings and stays open after answering them', async () => {
    const raw = await openRawWs(live.url);
    try {
      await raw.initAndAck();
      await raw.pings.take(3); // ws answers each ping with a pong automatically
      expect(raw.ws.readyState).toBe(raw.ws.OPEN);
      expect(raw.messages.events.map((message) => message.type)).toEqual(['connection_ack']);
    } finally {
      raw.ws.close();
      await raw.closed;
    }
  });

  it('a socket that does not answer pings is terminated', async () => {
    const raw = await openRawWs(live.url);
    await raw.initAndAck();
    // Stop the automatic pong: the server's pong wait (keepAliveMs) expires and it terminates the socket.
    (raw.ws as unknown as { pong: () => void }).pong = () => {};
    const closed = await raw.closed;
    expect(raw.pings.events.length).toBeGreaterThanOrEqual(1);
    expect(closed.code).toBe(1006);
  });

  it('a pong that arrived while the event loop was busy keeps the socket open', async () => {
    const raw = await openRawWs(live.url);
    await raw.initAndAck();
    // Right after the server's next ping, its event loop stays busy for 3 pong waits (a long
    // fan-out): the client's pong arrives meanwhile and is read only once the loop is free.
    const ping = WebSocket.prototype.ping;
    let blocked = false;
    WebSocket.prototype.ping = function (this: WebSocket, ...args: Parameters<WebSocket['ping']>) {
      ping.apply(this, args);
      if (blocked) return;
      blocked = true;
      const until = Date.now() + 600;
      while (Date.now() < until) {
        // busy: no timer, no I/O
      }
    };
    try {
      await raw.pings.take(3);
      expect(blocked).toBe(true);
      expect(raw.ws.readyState).toBe(raw.ws.OPEN);
    } finally {
      WebSocket.prototype.ping = ping;
      raw.ws.close();
      await raw.closed;
    }
  });
});
