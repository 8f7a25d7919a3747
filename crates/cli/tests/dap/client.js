// Drives `amdsim dap` with Microsoft's DAP test client
// (@vscode/debugadapter-testsupport, from npm; found through NODE_PATH).
// Usage: node client.js AMDSIM REPO_ROOT
// The kernel is kernels/src/cf_call.cl at -O0 -g with in[i] = 300 + i: lanes 4-35
// and 52-63 call classify(x = v >> 6); x is 4 for lanes 4-19 and 5 for the others.
'use strict';
const assert = require('assert');
const path = require('path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const [amdsim, root] = process.argv.slice(2);
const source = path.join(root, 'kernels/src/cf_call.cl');
const launch = {
  program: path.join(root, 'kernels/bin/gfx900/cf_call.O0g.co'),
  kernel: 'cf_call',
  args: ['u32[64]:iota=300', 'u32[64]', 'u32:64'],
};

async function main() {
  const dc = new DebugClient(amdsim, 'dap', 'amdsim', { cwd: root });
  dc.defaultTimeout = 60000;
  await dc.start();
  try {
    // A breakpoint at classify's first line (25), verified, hit by the first wave.
    await dc.hitBreakpoint(launch, { path: source, line: 25 });
    const threads = await dc.threadsRequest();
    assert.ok(threads.body.threads.length >= 1, 'threads');
    assert.match(threads.body.threads[0].name, /^AMDGPU Wave 1:1:1:1 \(0,0,0\)\/0/);
    // The stack: classify, called from cf_call's line 46.
    const st = await dc.stackTraceRequest({ threadId: 1 });
    const frames = st.body.stackFrames;
    assert.strictEqual(frames[0].name, 'classify');
    assert.strictEqual(frames[0].line, 25);
    assert.strictEqual(frames[0].source.path, source);
    assert.strictEqual(frames[1].name, 'cf_call');
    assert.strictEqual(frames[1].line, 46);
    // Arguments of the focused lane (4): x = (300 + 4) >> 6 = 4.
    const scopes = await dc.scopesRequest({ frameId: frames[0].id });
    const names = scopes.body.scopes.map((s) => s.name);
    assert.deepStrictEqual(names, ['Locals', 'Arguments', 'Lanes']);
    const args = await dc.variablesRequest({ variablesReference: scopes.body.scopes[1].variablesReference });
    const x = args.body.variables.find((v) => v.name === 'x');
    assert.strictEqual(x.value, '4');
    // The caller's locals: v = in[4] = 304 in cf_call's frame.
    const callerScopes = await dc.scopesRequest({ frameId: frames[1].id });
    const callerLocals = await dc.variablesRequest({ variablesReference: callerScopes.body.scopes[0].variablesReference });
    const v = callerLocals.body.variables.find((w) => w.name === 'v');
    assert.strictEqual(v.value, '304');
    // Every lane: lane 0 does not call classify (divergent at line 45), lane 4 is active.
    const lanes = await dc.variablesRequest({ variablesReference: scopes.body.scopes[2].variablesReference });
    assert.strictEqual(lanes.body.variables.length, 64);
    assert.match(lanes.body.variables[0].value, /^I .*divergent, waits at kernels\/src\/cf_call.cl:45/);
    assert.match(lanes.body.variables[4].value, /^A .*classify/);
    // Expressions for the focused lane, and a debugger command in the console.
    const e = await dc.evaluateRequest({ expression: 'in[0] + x', frameId: frames[0].id, context: 'hover' });
    assert.strictEqual(e.body.result, '304');
    const repl = await dc.evaluateRequest({ expression: 'info lanes 20', context: 'repl' });
    assert.match(repl.body.result, /AMDGPU Lane 1:1:1:1\/20/);
    // next: line 28 (x % 5 != 0 for x = 4).
    await Promise.all([dc.nextRequest({ threadId: 1 }), dc.assertStoppedLocation('step', { path: source, line: 28 })]);
    // A breakpoint that cannot be placed is not verified.
    const bad = await dc.setBreakpointsRequest({ source: { path: path.join(root, 'kernels/src/nosuch.cl') }, breakpoints: [{ line: 3 }] });
    assert.strictEqual(bad.body.breakpoints[0].verified, false);
    // Remove the breakpoint and run to the end.
    await dc.setBreakpointsRequest({ source: { path: source }, breakpoints: [] });
    await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent('terminated')]);
  } finally {
    await dc.stop();
  }
  await pauseALongRun();
  console.log('dap client: all checks passed');
}

// `pause` stops a running dispatch as Ctrl-C does in `amdsim debug`: vector_add at
// -O0 -g over 200,000 work-items with a breakpoint whose condition never holds
// (n is 200000, not 7) runs for many seconds under the debugger; paused after a
// moment, it stops with reason `pause` in vector_add, far from its end.
async function pauseALongRun() {
  const dc = new DebugClient(amdsim, 'dap', 'amdsim', { cwd: root });
  dc.defaultTimeout = 60000;
  await dc.start();
  try {
    const n = 200000;
    const long = {
      program: path.join(root, 'kernels/bin/gfx900/vector_add.O0g.co'),
      kernel: 'vector_add',
      args: [`f32[${n}]`, `f32[${n}]`, `f32[${n}]`, `u32:${n}`],
    };
    const src = path.join(root, 'kernels/src/vector_add.cl');
    await Promise.all([dc.waitForEvent('initialized'), dc.launch(long)]);
    const set = await dc.setBreakpointsRequest({ source: { path: src }, breakpoints: [{ line: 9, condition: 'n == 7' }] });
    assert.strictEqual(set.body.breakpoints[0].verified, true);
    await dc.configurationDoneRequest();
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    const [stopped] = await Promise.all([dc.waitForEvent('stopped'), dc.pauseRequest({ threadId: 1 })]);
    assert.strictEqual(stopped.body.reason, 'pause');
    assert.ok(Date.now() - started < 10000, 'the pause took effect at once');
    const st = await dc.stackTraceRequest({ threadId: stopped.body.threadId });
    assert.ok(st.body.stackFrames.some((f) => f.name === 'vector_add'), JSON.stringify(st.body));
    // dc.stop() disconnects, which ends the stopped session.
  } finally {
    await dc.stop();
  }
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : err);
  process.exit(1);
});
