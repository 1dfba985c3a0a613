// An independent MCP client: the official TypeScript SDK (installed by
// utils/install-deps.sh, never vendored) drives `asmevo-opt mcp` over stdio.
//
//   node mcp-client.cjs REVISION NPM_DIR ASMEVO_OPT WORK_DIR
//
// REVISION 2025-11-25 uses @modelcontextprotocol/sdk 1.x (initialize);
// 2026-07-28 uses @modelcontextprotocol/client 2.x pinned to that revision
// (server/discover, per-request _meta). Prints one line per check.
'use strict';
const path = require('path');
const { createRequire } = require('module');

const [revision, npmDir, asmevoOpt, workDir] = process.argv.slice(2);
const req = createRequire(path.join(npmDir, 'package.json'));
const modern = revision === '2026-07-28';
const { Client } = modern ? req('@modelcontextprotocol/client')
                          : req('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } =
    modern ? req('@modelcontextprotocol/client/stdio')
           : req('@modelcontextprotocol/sdk/client/stdio.js');

function brief(result) {
  if (result.isError)
    return 'isError: ' + result.content.map((c) => c.text).join(' ');
  const s = result.structuredContent || {};
  return 'ok: ' + Object.keys(s).sort().join(',');
}

async function main() {
  const transport = new StdioClientTransport({
    command: asmevoOpt,
    args: ['mcp', '--work-dir', workDir],
    stderr: 'ignore',
  });
  const options = modern ? { versionNegotiation: { mode: { pin: revision } } }
                         : {};
  const client = new Client({ name: 'asmevo-test', version: '1.0.0' }, options);
  await client.connect(transport);
  console.log('connected: ' + client.getServerVersion().name);

  // Every page of tools/list (the server pages 4 at a time).
  const names = [];
  let cursor;
  let pages = 0;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    pages++;
    for (const t of page.tools) {
      names.push(t.name);
      if (!t.inputSchema || t.inputSchema.type !== 'object' || !t.outputSchema)
        console.log('bad schema: ' + t.name);
    }
    cursor = page.nextCursor;
  } while (cursor);
  console.log('tools: ' + names.join(',') + ' (' + pages + ' pages)');

  const calls = {
    recover: { path: 'k0.co' },
    analyze: { path: 'k0.co' },
    diff: { k0: 'k0.co', k1: 'k1.co' },
    verify: { k0: 'k0.co', k1: 'k1.co', spec: 'spec.yaml', seeds: 1,
              random_sizes: 0 },
    time: { path: 'k1.co', k0: 'k0.co', spec: 'spec.yaml' },
    apply_edit: { path: 'k0.co', output: 'edited.co', script: nopScript('7fc08cbf', 1) },
    hot_windows: { path: 'k0.co', spec: 'spec.yaml', count: 2 },
    lineage: { db: 'run.db' },
  };
  for (const name of names) {
    const args = calls[name];
    if (!args) {
      console.log('call ' + name + ': no test arguments');
      continue;
    }
    const r = await client.callTool({ name, arguments: args });
    let extra = '';
    if (name === 'verify' && !r.isError)
      extra = ' verdict=' + r.structuredContent.verdict;
    if (name === 'time' && !r.isError)
      extra = ' source=' + r.structuredContent.source;
    if (name === 'diff' && !r.isError)
      extra = ' edits=' + r.structuredContent.edits.length;
    if (name === 'apply_edit' && !r.isError)
      extra = ' changed=' + r.structuredContent.changed;
    if (name === 'hot_windows' && !r.isError)
      extra = ' windows=' + r.structuredContent.code_objects[0].windows.length;
    if (name === 'lineage' && !r.isError)
      extra = ' runs=' + r.structuredContent.runs.length + ' candidates=' +
              r.structuredContent.runs[0].candidates.length;
    console.log('call ' + name + ': ' + brief(r) + extra);
  }

  // A bad argument is a JSON-RPC error, not a tool result.
  try {
    await client.callTool({ name: 'recover', arguments: { path: 7 } });
    console.log('bad argument: accepted');
  } catch (e) {
    console.log('bad argument: error ' + e.code + ' ' + e.message);
  }
  try {
    await client.callTool({ name: 'no-such-tool', arguments: {} });
    console.log('unknown tool: accepted');
  } catch (e) {
    console.log('unknown tool: error ' + e.code);
  }
  // A stale edit (the bytes no longer match) fails the tool, naming it.
  const stale = await client.callTool({ name: 'apply_edit', arguments: {
    path: 'k0.co', output: 'stale.co', script: nopScript('7fc08cbe', 0) } });
  console.log('stale edit: ' + brief(stale));
  // A path outside the work directory is refused by the tool.
  const out = await client.callTool({ name: 'recover',
                                      arguments: { path: '../outside.co' } });
  console.log('outside: ' + brief(out));
  const abs = await client.callTool({ name: 'recover',
                                      arguments: { path: '/etc/passwd' } });
  console.log('absolute: ' + brief(abs));
  if (!modern)
    console.log('ping: ' + JSON.stringify(await client.ping()));
  await client.close();
}

// An s_nop inserted before relu's first s_waitcnt after the preload
// prologue (which is never edited), anchored on the given bytes.
function nopScript(bytes, imm) {
  return { format: 'asmevo-edit-script', version: 1, edits: [{
    kind: 'insert', function: 'relu', block: 2, index: 1,
    instructions: [{ text: 's_waitcnt lgkmcnt(0)', bytes }],
    asm: ['s_nop ' + imm] }] };
}

main().catch((e) => {
  console.log('client failed: ' + (e && e.stack || e));
  process.exit(1);
});
