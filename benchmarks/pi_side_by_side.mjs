// pi 0.73.1's SessionManager on the same generated files, for side-by-side medians.
//
// pi is not part of Arbor: install it outside the repository first, e.g.
//   mkdir -p /tmp/pi0731 && cd /tmp/pi0731 && npm init -y && \
//     npm install --ignore-scripts @mariozechner/pi-coding-agent@0.73.1
// then (bench_session.py does this by itself when it finds pi; PI_DIR overrides where it looks)
//   node --expose-gc benchmarks/pi_side_by_side.mjs --pi /tmp/pi0731 --runs 5 FILE.jsonl...   timings (JSON)
//   node benchmarks/pi_side_by_side.mjs --pi /tmp/pi0731 --rss FILE.jsonl            peak RSS of open+context
//   node --expose-gc benchmarks/pi_side_by_side.mjs --pi /tmp/pi0731 --serve                     one run per stdin line
//
// --serve reads one file path per line on stdin and answers each with one JSON line: the times (ms)
// of one open/getTree/buildSessionContext/getBranch run. bench_session.py uses it to interleave pi's
// runs with Arbor's in one warm node process, so that other load on the machine falls on both alike.
//
// Timings: one warm-up, then `runs` runs of each operation; medians in ms. Every run opens the file
// afresh with SessionManager.open (read, parse, migrate, index) exactly as pi does on resume.

import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

function parseArgs(argv) {
	const out = { pi: process.env.PI_DIR || "/tmp/pi0731", runs: 5, rss: false, files: [] };
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (a === "--pi") out.pi = argv[++i];
		else if (a === "--runs") out.runs = Number(argv[++i]);
		else if (a === "--rss") out.rss = true;
		else if (a === "--serve") out.serve = true;
		else out.files.push(resolve(a));
	}
	return out;
}

async function loadPi(dir) {
	const candidates = [
		join(dir, "node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js"),
		join(dir, "dist/core/session-manager.js"),
	];
	const found = candidates.find((p) => existsSync(p));
	if (!found) throw new Error(`pi's session-manager.js not found under ${dir}`);
	const mod = await import(pathToFileURL(found).href);
	return mod.SessionManager;
}

const median = (xs) => {
	const s = [...xs].sort((a, b) => a - b);
	const m = s.length >> 1;
	return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function time(fn) {
	const t0 = process.hrtime.bigint();
	const value = fn();
	return [Number(process.hrtime.bigint() - t0) / 1e6, value];
}

const args = parseArgs(process.argv.slice(2));
const SessionManager = await loadPi(args.pi);

if (args.rss) {
	const sm = SessionManager.open(args.files[0]);
	const ctx = sm.buildSessionContext();
	// VmHWM is this process's own peak. getrusage's maxRSS is not: on Linux it keeps the peak of the
	// image before exec, i.e. of whatever (large) process spawned node.
	let peakKiB = null;
	try {
		const status = readFileSync("/proc/self/status", "utf8");
		const m = status.match(/^VmHWM:\s+(\d+)\s+kB/m);
		if (m) peakKiB = Number(m[1]);
	} catch {}
	const maxRSS = process.resourceUsage().maxRSS; // KiB
	console.log(JSON.stringify({ file: args.files[0], messages: ctx.messages.length, peakKiB: peakKiB ?? maxRSS, maxRssKiB: maxRSS }));
	process.exit(0);
}

function once(file) {
	// Collect the previous run's garbage outside the timed region, as bench_session.py does for
	// Arbor (gc.collect()); effective when node runs with --expose-gc.
	globalThis.gc?.();
	const [tOpen, sm] = time(() => SessionManager.open(file));
	const [tTree] = time(() => sm.getTree());
	const [tCtx, ctx] = time(() => sm.buildSessionContext());
	const [tBranch, branch] = time(() => sm.getBranch());
	return {
		file,
		entries: sm.getEntries().length,
		branch: branch.length,
		messages: ctx.messages.length,
		leaf: sm.getLeafId(),
		ms: { open: tOpen, getTree: tTree, buildSessionContext: tCtx, getBranch: tBranch },
	};
}

if (args.serve) {
	const { createInterface } = await import("node:readline");
	const rl = createInterface({ input: process.stdin, terminal: false });
	for await (const line of rl) {
		const file = line.trim();
		if (!file) continue;
		let answer;
		try {
			answer = once(resolve(file));
		} catch (err) {
			answer = { file, error: String(err && err.stack ? err.stack : err) };
		}
		process.stdout.write(`${JSON.stringify(answer)}\n`);
	}
	process.exit(0);
}

const results = [];
for (const file of args.files) {
	const samples = { open: [], getTree: [], buildSessionContext: [], getBranch: [] };
	let info = null;
	for (let run = 0; run <= args.runs; run++) {
		const { ms, ...rest } = once(file);
		if (run === 0) {
			info = rest; // warm-up
			continue;
		}
		for (const k of Object.keys(samples)) samples[k].push(ms[k]);
	}
	const med = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
	results.push({ ...info, runs: args.runs, median_ms: med, samples_ms: samples });
}
console.log(JSON.stringify({ node: process.version, pi: "0.73.1", results }));
