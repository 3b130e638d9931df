#!/usr/bin/env node
// A complete Arena bot in Node.js: it dials in to the arena's gRPC gateway, holds one stream,
// and answers every decision request with a uniformly random legal action, for every game.
//
//   node bot.js --token TOKEN [--address 127.0.0.1:50051] [--matches N] [--version V] [--tls] [--ca FILE]
//
// Over TLS with --tls (the system's root certificates) or --ca FILE (the CA that signed the
// gateway's certificate); by default when $ARENA_TLS_CA or $ARENA_TLS=1 is set. A unix: address
// (what a bot launched in the arena's sandbox gets) is never TLS.
//
// Without --token it reads $ARENA_TOKEN (and $ARENA_ADDRESS): what the arena sets when it
// launches a bot registered with --command. The .proto is loaded at run time (no code
// generation): ../../../proto/arena/v1/bot.proto, or $ARENA_PROTO.
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO = process.env.ARENA_PROTO || path.join(__dirname, '..', '..', '..', 'proto', 'arena', 'v1', 'bot.proto');

const USAGE = 'usage: node bot.js --token TOKEN [--address HOST:PORT] [--matches N] [--version V] [--tls] [--ca FILE]';

function parseArgs(argv) {
  const args = {
    address: process.env.ARENA_ADDRESS || '127.0.0.1:50051', token: process.env.ARENA_TOKEN, matches: 0, version: '',
    ca: process.env.ARENA_TLS_CA || '', tls: ['1', 'true', 'yes', 'on'].includes((process.env.ARENA_TLS || '').toLowerCase()),
  };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    if (flag === '--tls') { args.tls = true; continue; }
    const value = argv[++i];
    if (value === undefined) { console.error(`${flag} needs a value; ${USAGE}`); process.exit(2); }
    if (flag === '--address') args.address = value;
    else if (flag === '--token') args.token = value;
    else if (flag === '--matches') args.matches = Number(value);
    else if (flag === '--version') args.version = value;
    else if (flag === '--ca') args.ca = value;
    else {
      console.error(`unknown argument ${flag}; ${USAGE}`);
      process.exit(2);
    }
  }
  if (!args.token) {
    console.error('give --token TOKEN (from `arena bot register NAME`) or set ARENA_TOKEN');
    process.exit(2);
  }
  args.credentials = credentials(args);
  return args;
}

// TLS when asked (--tls, --ca, $ARENA_TLS_CA, $ARENA_TLS=1), never on a Unix socket.
function credentials(args) {
  args.tls = !args.address.startsWith('unix:') && (args.tls || args.ca !== '');
  if (!args.tls) return grpc.credentials.createInsecure();
  let roots = null; // the system's root certificates
  if (args.ca) {
    try {
      roots = fs.readFileSync(args.ca);
    } catch (error) {
      console.error(`cannot read the CA file ${args.ca} (${error.code || error.message}): check --ca or ARENA_TLS_CA`);
      process.exit(2);
    }
  }
  return grpc.credentials.createSsl(roots);
}

// What a failed connection may owe to TLS, in words (gRPC itself says only UNAVAILABLE).
function tlsHint(args, error) {
  if (error.code !== grpc.status.UNAVAILABLE) return '';
  if (/certificate|self.signed|issuer/i.test(error.details || '')) {
    return "; certificate verify failed: is --ca (or ARENA_TLS_CA) the CA that signed the gateway's certificate?";
  }
  return args.tls ? '; does the gateway speak TLS? (drop --tls/--ca for a plaintext one)'
    : '; if the gateway speaks TLS, pass --tls or --ca FILE (or set ARENA_TLS_CA)';
}

// The bot's brain: any legal action. A real bot would read JSON.parse(request.observation_json).
function chooseAction(request) {
  const legal = request.legal_actions;
  return legal[Math.floor(Math.random() * legal.length)].id;
}

function loadService() {
  const definition = protoLoader.loadSync(PROTO, { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true });
  return grpc.loadPackageDefinition(definition).arena.v1.BotGateway;
}

function connect(BotGateway, args, state, onEnd) {
  const client = new BotGateway(args.address, args.credentials);
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${args.token}`);
  const stream = client.Play(metadata);
  // version: this bot's own version string (recorded with every seat it plays; '' = none)
  stream.write({ hello: { client: 'node-example/1.0', version: args.version } });
  stream.on('data', (message) => {
    if (message.kind === 'welcome') {
      state.delay = 500;
      console.error(`connected to ${args.address} as ${message.welcome.bot_name}`);
    } else if (message.kind === 'decision') {
      const request = message.decision;
      stream.write({ action: { request_id: request.request_id, action_id: chooseAction(request) } });
    } else if (message.kind === 'match_end') {
      state.matches += 1;
      const end = message.match_end;
      console.error(`match ${end.match_id} over: seat ${end.seat}, ranks ${end.ranks.join(',')}, ${end.termination}`);
      if (args.matches && state.matches >= args.matches) {
        stream.end();
        client.close();
        process.exit(0);
      }
    } else if (message.kind === 'notice') {
      console.error(`arena notice: ${message.notice.message}`);
    }
  });
  stream.on('error', (error) => {
    if (error.code === grpc.status.UNAUTHENTICATED) {
      console.error(`token rejected: ${error.details}`);
      process.exit(1);
    }
    console.error(`connection to ${args.address} lost: ${error.details || error.message}${tlsHint(args, error)}`);
  });
  // 'status' comes exactly once when the call is over, however it ended (unlike 'close').
  stream.on('status', () => { client.close(); onEnd(); });
}

// Redial with exponential backoff (0.5 s doubling to 30 s, with jitter) whenever the stream ends.
function main() {
  const args = parseArgs(process.argv.slice(2));
  const BotGateway = loadService();
  const state = { delay: 500, matches: 0 };
  const dial = () => connect(BotGateway, args, state, () => {
    const wait = state.delay * (0.8 + 0.4 * Math.random());
    state.delay = Math.min(30000, state.delay * 2);
    setTimeout(dial, wait);
  });
  dial();
}

main();
