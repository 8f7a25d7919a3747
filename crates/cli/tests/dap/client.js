// Drives `amdsim dap` with Microsoft's DAP test client
// (@vscode/debugadapter-testsupport, from npm; found through NODE_PATH).
// Usage: node client.js AMDSIM REPO_ROOT [dispatch|hip]
// dispatch (the default): dispatches of committed code objects (main, pauseALongRun,
// setVariables); hip: a HIP program (hipProgram), which needs Debian's HIP runtime.
// main's kernel is kernels/src/cf_call.cl at -O0 -g with in[i] = 300 + i: lanes 4-35
// and 52-63 call classify(x = v >> 6); x is 4 for lanes 4-19 and 5 for the others.
'use strict';
const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const [amdsim, root, suite = 'dispatch'] = process.argv.slice(2);
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
  await setVariables();
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

// A struct argument expands into its members and an array member into its elements,
// and setVariable assigns them and a local for the focused lane, as `set var` does.
// struct_args (kernels/src/struct_args.cl, -O0 -g, kernels/examples/struct_args.ron)
// stops at line 35 in lane 0 (gid 0) with p = {tag 0x11, flags 0x22, sel -3, mul 3,
// big 2^32, add 5, shift 4, bias {1, 2, 3, 4}} and r = scratch[63 - lid] = in[63] = 63.
// With r = 5, p.add = 6, p.bias[0] = 100, line 36 stores out[0] = r * p.mul + p.add +
// p.bias[0] = 5 * 3 + 6 + 100 = 121; lane 1's copy of p (private to the lane) and its
// r = 62 are untouched: out[3] = 62 * 3 + 5 + p.bias[1] = 193.
async function setVariables() {
  const dc = new DebugClient(amdsim, 'dap', 'amdsim', { cwd: root });
  dc.defaultTimeout = 60000;
  await dc.start();
  try {
    const src = path.join(root, 'kernels/src/struct_args.cl');
    await dc.hitBreakpoint({ dispatch: path.join(root, 'kernels/examples/struct_args.ron') }, { path: src, line: 35 });
    const frames = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames;
    const frameId = frames[0].id;
    const [locals, args] = (await dc.scopesRequest({ frameId })).body.scopes;
    const p = (await dc.variablesRequest({ variablesReference: args.variablesReference }))
      .body.variables.find((v) => v.name === 'p');
    assert.ok(p.variablesReference > 0, 'p expands');
    const members = (await dc.variablesRequest({ variablesReference: p.variablesReference })).body.variables;
    assert.deepStrictEqual(members.map((m) => m.name), ['tag', 'flags', 'sel', 'mul', 'big', 'add', 'shift', 'bias']);
    assert.strictEqual(members.find((m) => m.name === 'sel').value, '-3');
    const bias = members.find((m) => m.name === 'bias');
    assert.strictEqual(bias.value, '{1, 2, 3, 4}');
    const elements = (await dc.variablesRequest({ variablesReference: bias.variablesReference })).body.variables;
    assert.deepStrictEqual(elements.map((e) => [e.name, e.value]), [['[0]', '1'], ['[1]', '2'], ['[2]', '3'], ['[3]', '4']]);
    // An element of a member, a member, a local: each answered with its new value.
    let set = await dc.setVariableRequest({ variablesReference: bias.variablesReference, name: '[0]', value: '100' });
    assert.strictEqual(set.body.value, '100');
    set = await dc.setVariableRequest({ variablesReference: p.variablesReference, name: 'add', value: '2 * 3' });
    assert.strictEqual(set.body.value, '6');
    set = await dc.setVariableRequest({ variablesReference: locals.variablesReference, name: 'r', value: '5' });
    assert.strictEqual(set.body.value, '5');
    // A whole array member answers with its members.
    set = await dc.setVariableRequest({ variablesReference: p.variablesReference, name: 'bias', value: 'p.bias' });
    assert.strictEqual(set.body.value, '{100, 2, 3, 4}');
    assert.ok(set.body.variablesReference > 0);
    const watch = (expression) => dc.evaluateRequest({ expression, frameId, context: 'watch' });
    assert.strictEqual((await watch('p.bias')).body.result, '{100, 2, 3, 4}');
    assert.strictEqual((await watch('p.add')).body.result, '6');
    assert.strictEqual((await watch('r')).body.result, '5');
    // Errors are error responses in gdb's words.
    await assert.rejects(
      dc.setVariableRequest({ variablesReference: locals.variablesReference, name: 'r', value: 'nosuch' }),
      /No symbol "nosuch" in current context\./);
    await assert.rejects(
      dc.setVariableRequest({ variablesReference: locals.variablesReference, name: 'r', value: '' }),
      /Argument required/);
    await assert.rejects(
      dc.setVariableRequest({ variablesReference: p.variablesReference, name: 'nosuch', value: '1' }),
      /There is no member named nosuch\./);
    // The kernel computes with the new values.
    await Promise.all([dc.nextRequest({ threadId: 1 }), dc.assertStoppedLocation('step', { path: src, line: 36 })]);
    await Promise.all([dc.nextRequest({ threadId: 1 }), dc.assertStoppedLocation('step', { path: src, line: 37 })]);
    assert.strictEqual((await watch('out[0]')).body.result, '121');
    assert.strictEqual((await watch('out[3]')).body.result, '193');
    await dc.setBreakpointsRequest({ source: { path: src }, breakpoints: [] });
    await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent('terminated')]);
  } finally {
    await dc.stop();
  }
  await setOptimizedOut();
}

// A variable without a location at the PC cannot be set: divergence
// (kernels/examples/divergence.ron, -O2 -g) keeps no gid at line 18 (the odd lanes'
// loop), where lane 1's v = in[1] = 1001.
async function setOptimizedOut() {
  const dc = new DebugClient(amdsim, 'dap', 'amdsim', { cwd: root });
  dc.defaultTimeout = 60000;
  await dc.start();
  try {
    const src = path.join(root, 'kernels/src/divergence.cl');
    await dc.hitBreakpoint({ dispatch: path.join(root, 'kernels/examples/divergence.ron') }, { path: src, line: 18 });
    const [locals] = (await dc.scopesRequest({ frameId: 1 })).body.scopes;
    const vars = (await dc.variablesRequest({ variablesReference: locals.variablesReference })).body.variables;
    assert.strictEqual(vars.find((v) => v.name === 'v').value, '1001');
    const gid = vars.find((v) => v.name === 'gid');
    assert.deepStrictEqual([gid.value, gid.variablesReference], ['<optimized out>', 0]);
    await assert.rejects(
      dc.setVariableRequest({ variablesReference: locals.variablesReference, name: 'gid', value: '1' }),
      /value has been optimized out/);
  } finally {
    await dc.stop();
  }
}

// A HIP program's kernel (kernels/hip/src/debug_divergence.hip, built -O0 -g by
// hipcc, committed as kernels/hip/bin/hipcc/debug_divergence): a breakpoint set
// before the program runs stays pending until the kernel's code object loads, then
// stops the first wave on line 14 (the odd lanes' arm) in lane 1, the first odd lane:
// i = 1, v = in[1] = 1000 + 1 = 1001 (the program fills in[i] = 1000 + i). Setting v
// to 7 there makes lane 1 store 7 * 3 + 1 = 22 instead of 3 * 1001 + 1 = 3004, which
// the program reports on its standard output (MISMATCH) and by exiting with status 1.
async function hipProgram() {
  const dc = new DebugClient(amdsim, 'dap', 'amdsim', { cwd: root });
  dc.defaultTimeout = 120000;
  const output = { stdout: '', stderr: '', console: '' };
  dc.on('output', (e) => { output[e.body.category] = (output[e.body.category] || '') + e.body.output; });
  const resolved = [];
  dc.on('breakpoint', (e) => resolved.push(e.body.breakpoint));
  await dc.start();
  try {
    const src = path.join(root, 'kernels/hip/src/debug_divergence.hip');
    const launch = { hipProgram: path.join(root, 'kernels/hip/bin/hipcc/debug_divergence'), gpu: 'gfx900', threads: 2 };
    const [, , stopped] = await dc.hitBreakpoint(launch, { path: src, line: 14, verified: false });
    const frames = stopped.body.stackFrames;
    assert.strictEqual(frames[0].name, 'diverge');
    assert.strictEqual(frames[0].line, 14);
    assert.strictEqual(frames[0].source.path, src);
    // The pending breakpoint was announced verified when the kernel loaded.
    assert.deepStrictEqual(resolved, [{ id: 1, verified: true, line: 14 }]);
    const threads = (await dc.threadsRequest()).body.threads;
    assert.match(threads[0].name, /^AMDGPU Wave 1:1:2:1 \(0,0,0\)\/0/);
    const [locals, args] = (await dc.scopesRequest({ frameId: frames[0].id })).body.scopes;
    const vars = (await dc.variablesRequest({ variablesReference: locals.variablesReference })).body.variables;
    assert.strictEqual(vars.find((v) => v.name === 'i').value, '1');
    assert.strictEqual(vars.find((v) => v.name === 'v').value, '1001');
    const n = (await dc.variablesRequest({ variablesReference: args.variablesReference })).body.variables;
    assert.strictEqual(n.find((v) => v.name === 'n').value, '200');
    const e = await dc.evaluateRequest({ expression: 'in[i] + 1', frameId: frames[0].id, context: 'hover' });
    assert.strictEqual(e.body.result, '1002');
    const set = await dc.setVariableRequest({ variablesReference: locals.variablesReference, name: 'v', value: '7' });
    assert.strictEqual(set.body.value, '7');
    // next: line 18, with r = 7 * 3 + 1.
    await Promise.all([dc.nextRequest({ threadId: 1 }), dc.assertStoppedLocation('step', { path: src, line: 18 })]);
    const r = await dc.evaluateRequest({ expression: 'r', frameId: frames[0].id, context: 'watch' });
    assert.strictEqual(r.body.result, '22');
    // Without the breakpoint the program runs to its end.
    await dc.setBreakpointsRequest({ source: { path: src }, breakpoints: [] });
    const [, exited] = await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent('exited'), dc.waitForEvent('terminated')]);
    assert.strictEqual(exited.body.exitCode, 1, JSON.stringify(output));
    assert.match(output.stdout, /MISMATCH diverge\[1\]: got 22 \(0x16\), expected 3004/);
    assert.match(output.stdout, /FAIL: 1 mismatches/);
    assert.ok(!/MISMATCH diverge\[3\]/.test(output.stdout), 'only lane 1 was changed');
    assert.match(output.console, /exited with code 01\]/);
  } finally {
    await dc.stop();
  }
  await hipProgramErrors();
  console.log('dap client: all checks passed');
}

// What cannot be debugged fails the launch with a message, never a hang: a program
// that does not exist, one that is not a HIP program, and a script that exits before
// it starts a HIP program (its output still arrives).
async function hipProgramErrors() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'amdsim-dap-'));
  const script = path.join(dir, 'early_exit.sh');
  fs.writeFileSync(script, '#!/bin/sh\necho before any kernel\nexit 3\n', { mode: 0o755 });
  try {
    for (const [program, message, stdout] of [
      [path.join(root, 'kernels/hip/bin/hipcc/nosuch'), /nosuch: no such file/, ''],
      ['/bin/true', /not a HIP program/, ''],
      [script, /exited with code 3 before it started the HSA runtime/, 'before any kernel\n'],
    ]) {
      const dc = new DebugClient(amdsim, 'dap', 'amdsim', { cwd: root });
      dc.defaultTimeout = 60000;
      let out = '';
      dc.on('output', (e) => { if (e.body.category === 'stdout') out += e.body.output; });
      await dc.start();
      try {
        await assert.rejects(dc.launch({ hipProgram: program }), message);
        assert.strictEqual(out, stdout);
      } finally {
        await dc.stop();
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const suites = { dispatch: main, hip: hipProgram };
suites[suite]().catch((err) => {
  console.error(err && err.stack ? err.stack : err);
  process.exit(1);
});
