#!/usr/bin/env node
// Validates glTF/GLB files with the Khronos glTF validator (npm "gltf-validator").
// Usage: node validate.js [--json] FILE...
// Prints one line per file ("ok|FAIL FILE: N errors, N warnings, N infos, N hints" and the first
// issues), or with --json one JSON object {"files":[{file, errors, warnings, infos, hints,
// messages:[...]}]}. Exit code 0 when every file has 0 errors, 1 otherwise, 2 on bad usage.
'use strict';
const fs = require('fs');
const path = require('path');
const validator = require('gltf-validator');

async function validateFile(file) {
  const bytes = fs.readFileSync(file);
  const report = await validator.validateBytes(new Uint8Array(bytes), {
    uri: path.basename(file),
    writeTimestamp: false,
    maxIssues: 0,
    externalResourceFunction: (uri) =>
      new Promise((resolve, reject) => {
        const full = path.resolve(path.dirname(file), decodeURIComponent(uri));
        fs.readFile(full, (err, data) => (err ? reject(err.toString()) : resolve(new Uint8Array(data))));
      }),
  });
  const issues = report.issues;
  return {
    file,
    errors: issues.numErrors,
    warnings: issues.numWarnings,
    infos: issues.numInfos,
    hints: issues.numHints,
    messages: issues.messages.map((m) => ({
      code: m.code,
      severity: ['error', 'warning', 'info', 'hint'][m.severity] || String(m.severity),
      message: m.message,
      pointer: m.pointer,
    })),
  };
}

async function main() {
  const args = process.argv.slice(2);
  const json = args[0] === '--json';
  const files = json ? args.slice(1) : args;
  if (files.length === 0) {
    console.error('usage: node validate.js [--json] FILE...');
    process.exit(2);
  }
  const results = [];
  let failed = false;
  for (const file of files) {
    let r;
    try {
      r = await validateFile(file);
    } catch (e) {
      r = { file, errors: 1, warnings: 0, infos: 0, hints: 0,
            messages: [{ code: 'VALIDATOR_FAILED', severity: 'error', message: String(e) }] };
    }
    failed = failed || r.errors > 0;
    results.push(r);
  }
  if (json) {
    console.log(JSON.stringify({ validator: validator.version(), files: results }, null, 1));
  } else {
    for (const r of results) {
      console.log(`${r.errors > 0 ? 'FAIL' : 'ok'} ${r.file}: ${r.errors} errors, ${r.warnings} warnings, ` +
                  `${r.infos} infos, ${r.hints} hints`);
      for (const m of r.messages.filter((x) => x.severity !== 'hint').slice(0, 20))
        console.log(`    ${m.severity} ${m.code} ${m.pointer || ''}: ${m.message}`);
    }
  }
  process.exit(failed ? 1 : 0);
}

main();
