// kf-mcp's test client: the official MCP TypeScript SDK (Client over
// StdioClientTransport) starts bin/kf-mcp ($KF_MCP) as agents do and prints
// what it got as one JSON object, for tests/mcp.bats to check with jq.
//
//   node client.mjs list                       initialize, tools/list
//   node client.mjs call TOOL ARGS             tools/call
//   node client.mjs progress TOOL ARGS         tools/call with a progressToken
//   node client.mjs cancel TOOL ARGS FILE      tools/call, cancelled once FILE
//                                              exists; then ping
//   node client.mjs parallel TOOL ARGS TOOL ARGS   two calls at once
//
// ARGS is the tool's arguments as JSON. The server's stderr goes to
// $KF_MCP_STDERR (a file) where it is set, else to ours.
import { existsSync, openSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";

const here = dirname(fileURLToPath(import.meta.url));
const server = process.env.KF_MCP || resolve(here, "../../bin/kf-mcp");
const [, , what, ...rest] = process.argv;
const errors = [];
let negotiated = null;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function connect() {
	const transport = new StdioClientTransport({
		command: server,
		args: [],
		env: process.env,
		stderr: process.env.KF_MCP_STDERR ? openSync(process.env.KF_MCP_STDERR, "a") : "inherit",
	});
	// The SDK hands the version the server answered to its transport.
	transport.setProtocolVersion = (v) => { negotiated = v; };
	const client = new Client({ name: "kf-mcp-test", version: "1.0.0" });
	client.onerror = (e) => errors.push(String(e.message || e));
	await client.connect(transport);
	return client;
}

// A call's outcome: the result, or the error the SDK raised.
async function settle(p) {
	try {
		return { result: await p };
	} catch (e) {
		return { error: { name: e.name, code: e.code ?? null, message: e.message } };
	}
}

async function main() {
	const client = await connect();
	const out = {};
	const call = (name, args, opts) =>
		client.callTool({ name, arguments: JSON.parse(args) }, undefined, opts);
	// tools/list first: the SDK checks structuredContent against outputSchema.
	const tools = await client.listTools();
	switch (what) {
	case "list":
		out.asked = LATEST_PROTOCOL_VERSION;
		out.protocolVersion = negotiated;
		out.server = client.getServerVersion();
		out.capabilities = client.getServerCapabilities();
		out.instructions = client.getInstructions();
		out.tools = tools.tools;
		break;
	case "call":
		Object.assign(out, await settle(call(rest[0], rest[1])));
		break;
	case "progress": {
		out.progress = [];
		const r = await settle(call(rest[0], rest[1], {
			onprogress: (p) => out.progress.push(p),
		}));
		Object.assign(out, r);
		break;
	}
	case "cancel": {
		const ac = new AbortController();
		const p = settle(call(rest[0], rest[1], { signal: ac.signal }));
		while (!existsSync(rest[2]))
			await sleep(50);
		const t0 = Date.now();
		ac.abort("the test cancels it");
		Object.assign(out, await p);
		// The server goes on; what it said of the cancelled call, if
		// anything, shows in errors (a response to an unknown id).
		out.ping = await client.ping();
		await sleep(3000);
		out.ping_after = await client.ping();
		out.cancel_ms = Date.now() - t0;
		break;
	}
	case "parallel": {
		const order = [];
		const a = settle(call(rest[0], rest[1])).then((r) => (order.push(rest[0]), r));
		const b = settle(call(rest[2], rest[3])).then((r) => (order.push(rest[2]), r));
		out.results = await Promise.all([a, b]);
		out.order = order;
		break;
	}
	default:
		throw new Error(`unknown scenario ${what}`);
	}
	out.errors = errors;
	await client.close();
	process.stdout.write(JSON.stringify(out) + "\n");
}

main().catch((e) => {
	process.stderr.write(`client.mjs: ${e.stack || e}\n`);
	process.exit(1);
});
